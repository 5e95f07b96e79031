"""The learned agent: values every legal move with a trained network and plays the best.

One ply, no search: each move is worth its points now plus the network's value of the
position it leaves (``agents.move_value.network``). It thinks in whole moves and hands them to the
env tile by tile, as the scripted agents do.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np

from agents.base import PlanningAgent
from agents.move_value.features import FEATURES, POINT_SCALE, MoveRowsAhead, candidates
from agents.move_value.network import MoveValueNet, PlayLayers, values
from qwirkle_env.engine.moves import Exchange, Move
from qwirkle_env.rows.look_ahead import DEFAULT_LOOK_AHEAD, LookAhead
from qwirkle_env.rows.position import Position
from qwirkle_env.view import PlayerView

# What a win is worth (minus for a loss) beside the points, in units of POINT_SCALE points:
# the default of the TD runs (TDConfig.win_value), and what judges a network whose
# checkpoint names none.
DEFAULT_WIN_VALUE = 2.0


def move_values(layers: PlayLayers, cands: MoveRowsAhead) -> np.ndarray:
    """What each candidate is worth: points now (over POINT_SCALE) plus the afterstate value."""
    return cands.points / POINT_SCALE + values(layers, cands.features, cands.looked)


def select(
    layers: PlayLayers,
    cands: MoveRowsAhead,
    temperature: float,
    rng: random.Random,
    how: LookAhead = DEFAULT_LOOK_AHEAD,
) -> int:
    """The row of the move to play. The best ``how.shortlist`` moves by their cheap
    features are looked at two moves ahead and valued again, and the choice is made among
    them only (so a chosen move's features are always complete)."""
    worth = move_values(layers, cands)
    if cands.position is None or len(cands) <= 1:
        return pick(worth, temperature, rng)
    short, again = look_at_best(layers, cands, worth, rng, how)
    return int(short[pick(again, temperature, rng)])


def look_at_best(
    layers: PlayLayers,
    cands: MoveRowsAhead,
    worth: np.ndarray,
    rng: random.Random,
    how: LookAhead = DEFAULT_LOOK_AHEAD,
) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the best ``how.shortlist`` moves by ``worth`` (their cheap features),
    looked at two moves ahead, and their worth again with the look."""
    short = np.argsort(-worth, kind="stable")[: how.shortlist]
    cands.look_ahead(short, rng, how)
    return short, cands.points[short] / POINT_SCALE + values(layers, cands.features[short])


def pick(worth: np.ndarray, temperature: float, rng: random.Random) -> int:
    """The best move (``temperature`` 0), or a softmax sample over the moves' worth."""
    if temperature <= 0:
        return int(np.argmax(worth))
    z = (worth - worth.max()) / temperature
    p = np.exp(z)
    u = rng.random() * float(p.sum())
    return min(int(np.searchsorted(np.cumsum(p), u)), len(p) - 1)


class ValueAgent(PlanningAgent):
    """Plays the move of highest worth; ``temperature`` > 0 samples instead (exploration)."""

    name = "value"

    def __init__(
        self,
        net: MoveValueNet,
        meta: dict | None = None,
        temperature: float = 0.0,
        look_ahead: LookAhead = DEFAULT_LOOK_AHEAD,
    ):
        if not (isinstance(temperature, int | float) and math.isfinite(temperature)):
            raise ValueError(f"temperature must be a finite number >= 0, got {temperature!r}")
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {temperature}")
        self.layers = net.numpy_layers()
        self.meta = meta or {}
        self.seat_counts = trained_seat_counts(self.meta)
        self.temperature = float(temperature)
        self.look_ahead = look_ahead
        self.reset(0, min(self.seat_counts or (2,)), 0)

    def check_players(self, num_players: int) -> None:
        if self.seat_counts is not None and num_players not in self.seat_counts:
            trained = ", ".join(map(str, sorted(self.seat_counts)))
            raise ValueError(
                f"the move-value network {self.name!r} was trained for {trained}-player games, "
                f"not {num_players}: play 'learned' (a network per seat count) or train one "
                f"with --players {num_players}"
            )

    def network(self, num_players: int) -> ValueAgent:
        """The value agent that plays games of this many seats: this one."""
        self.check_players(num_players)
        return self

    def choose(self, view: PlayerView) -> Move:
        cands = candidates(Position.of_view(view))
        if not len(cands):
            raise RuntimeError("no legal move in this view: is it this agent's turn?")
        i = select(self.layers, cands, self.temperature, self.rng, self.look_ahead)
        return cands.move(i)

    def appraise(self, view: PlayerView, also: Move | None = None) -> tuple[list[Move], np.ndarray]:
        """The moves this agent would choose among (its shortlist, looked at two moves
        ahead) plus ``also`` if it is legal, and each one's worth in points: what an
        analysis compares a played move with. ``also`` is valued as closely as the rest."""
        cands = candidates(Position.of_view(view))
        if not len(cands):
            raise RuntimeError("no legal move in this view: is it this agent's turn?")
        worth = move_values(self.layers, cands)
        rows = np.argsort(-worth, kind="stable")[: self.look_ahead.shortlist]
        extra = None if also is None else row_of(cands, also)
        if extra is not None and extra not in rows:
            rows = np.append(rows, extra)
        if cands.position is not None and len(cands) > 1:
            cands.look_ahead(rows, self.rng, self.look_ahead)
            worth = move_values(self.layers, cands)
        return [cands.move(int(i)) for i in rows], POINT_SCALE * worth[rows]


def trained_seat_counts(meta: dict) -> frozenset[int] | None:
    """The seat counts a checkpoint's network was trained on (``--players``), None if it
    does not say (older checkpoints: any)."""
    players = (meta.get("train") or {}).get("players")
    if players is None:
        return None
    try:
        return frozenset(int(n) for n in str(players).split(","))
    except ValueError:
        raise ValueError(
            f"checkpoint's train.players {players!r} is not a list of seat counts"
        ) from None


class BySeatCount(PlanningAgent):
    """A value agent per seat count: each game is played by the network trained for its
    number of players (``learned`` ships one for 2 players and one for 3 and 4)."""

    name = "value-by-seats"

    def __init__(self, agents: dict[int, ValueAgent]) -> None:
        self.agents = dict(agents)
        for n, agent in self.agents.items():
            agent.check_players(n)
        self.reset(0, min(self.agents), 0)  # sets the active network

    def check_players(self, num_players: int) -> None:
        if num_players not in self.agents:
            raise ValueError(
                f"{self.name!r} has networks for {sorted(self.agents)} players, not {num_players}"
            )

    def network(self, num_players: int) -> ValueAgent:
        """The value agent that plays games of this many seats."""
        self.check_players(num_players)
        return self.agents[num_players]

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        super().reset(seat, num_players, seed)
        self.active = self.agents[num_players]
        self.active.reset(seat, num_players, seed)

    def choose(self, view: PlayerView) -> Move:
        return self.active.choose(view)

    def appraise(self, view: PlayerView, also: Move | None = None) -> tuple[list[Move], np.ndarray]:
        """``ValueAgent.appraise`` by the network for this game's seat count."""
        return self.network(view.num_players).appraise(view, also)


def row_of(cands: MoveRowsAhead, move: Move) -> int | None:
    """The row of ``cands`` that is ``move`` (None if it is not among them)."""
    if isinstance(move, Exchange):
        ids = sorted(t.id for t in move.tiles)
        for j, tiles in enumerate(cands.exchanges):
            if sorted(tiles) == ids:
                return cands.num_placements + j
        return None
    items = {(cell, t.id) for cell, t in move.tiles}
    for i, placed in enumerate(cands.placements):
        if len(placed) == len(items) and set(placed) == items:
            return i
    return None


def check_features(net: MoveValueNet, meta: dict, path: str | Path) -> None:
    """ValueError unless the checkpoint's feature list is the one this version gives the
    network (the first ``net.config.features`` of ``FEATURES``)."""
    trained_on = (meta.get("env") or {}).get("features")
    reads = list(FEATURES[: net.config.features])
    if trained_on != reads:
        raise ValueError(
            f"checkpoint {path} was trained on move features {trained_on!r}; this version "
            f"describes moves with {reads!r}: retrain it with this version"
        )


def value_agent_of(net: MoveValueNet, meta: dict, path: str | Path) -> ValueAgent:
    """A ValueAgent, once the checkpoint's feature list is checked against this version's."""
    check_features(net, meta, path)
    env = meta.get("env") or {}
    try:
        look = LookAhead(**env["look_ahead"])
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(
            f"checkpoint {path} has no usable look-ahead settings ({err!r}); a move-value "
            "checkpoint stores the shortlist, reply_samples and refill it was trained with"
        ) from None
    return ValueAgent(net, meta=meta, look_ahead=look)
