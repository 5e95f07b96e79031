"""The 1-ply network learns what the search's simulations say each move is worth.

TD self-play fits the value of the move played, against the noise of a whole game; the
search (``agents.scripted.search``) compares the moves of one position in simulations that
share their deals, which is what a choice needs. Here the positions of self-play games are
valued as the search values them: each move the network looks at is played in ``sims``
fresh deals of the hidden tiles (common random numbers: every move meets the same hands and
bag), greedy turns follow (``depth`` of them, to the end once the bag is empty), and its
value is the mean final margin. A network is then fitted so that each move's worth (points
plus afterstate value) differs from the position's other moves as those values differ
(``agents.move_value.fit``).

With ``leaf=1`` the simulations are judged as ``learned-search`` judges its own (the
opponents' greedy replies, then the margin plus the judge network's best worth, which sees
what each player is left holding), while the bag holds tiles: targets from a better judge
than the search's, at the price of a move generation and a network pass per simulated move.
With ``top`` > 0 that judge is spent where a choice is made: only the look's best ``top``
moves are leaf-judged, in ``top_sims`` simulations (as the learned search chooses among
its few candidates), and every move keeps the greedy play-outs' values, which rank the
rest; the fit learns both.

The games are self-play, or the network against ``opponent`` (any agent that plans whole
moves), so that the positions are those that arise against the player the network is meant
to beat.

Rounds: a run may save the positions it valued (``agents.move_value.valued``) and fit on
earlier runs' positions beside its own, so the next round's games are played
by the network the last round fitted and the fit sees every round.

The network plays one ply, as the TD network does: the simulations only make its training
targets. Its absolute level means nothing (each position's mean is free), so it is no
value for the leaves of a search; ``learned-search`` keeps the TD network.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, fields
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from agents.base import PlanningAgent
from agents.checkpoint import save_checkpoint
from agents.move_value.agent import look_at_best, move_values, pick
from agents.move_value.features import candidates
from agents.move_value.fit import fit
from agents.move_value.network import MoveValueNet, PlayLayers, ValueNetConfig
from agents.move_value.search import leaf_value
from agents.move_value.valued import Valued, save_positions
from agents.registry import make_agent
from qwirkle_env.engine.game import Game
from qwirkle_env.rows.look_ahead import LookAhead
from qwirkle_env.rows.position import Position
from qwirkle_env.vector.tiles.rollouts import Rollouts
from qwirkle_env.view import PlayerView

__all__ = [
    "RolloutConfig", "collect", "judged_closely", "rollout_values", "simulated", "value_game",
]  # fmt: skip


_PLAYING = ("sims", "depth", "leaf", "top", "top_sims", "temperature", "opponent", "processes")
"""The settings that steer the games and their simulations alone (not the fit, nor the look
ahead the fitted network plays with)."""


@dataclass
class RolloutConfig:
    """Every setting of a run; each field's docstring is its --help text."""

    games: int = 800
    """2-player self-play games whose positions are valued (0: none, a fit on --positions
    alone)"""
    sims: int = 64
    """simulations per position (even: two halves are kept apart to judge the fit)"""
    depth: int = 2
    """greedy turns after each move in a simulation (to the end once the bag is empty)"""
    leaf: int = 0
    """1: while the bag holds tiles, a simulation ends after the opponents' greedy replies
    and the judge network values what is left, as learned-search's simulations do"""
    top: int = 0
    """with leaf 1: leaf-judge only the look's best TOP moves, in top_sims simulations, and
    value every move by the greedy play-outs beside (0: every move leaf-judged, in sims)"""
    top_sims: int = 64
    """leaf-judged simulations of the top moves (even)"""
    top_weight: float = 1.0
    """the fit's weight on the top moves' leaf values, beside the greedy values of all"""
    temperature: float = 0.05
    """how the collecting network samples its moves (POINT_SCALE units)"""
    opponent: str = ""
    """an agent spec that plays one seat of every game against the collecting network (the
    seat alternates from game to game); its turns are valued too (the network's shortlist
    of them). Empty: self-play"""
    shortlist: int = 20
    """moves a position values, the network's best, as it looks at them at play time"""
    reply_samples: int = 16
    """opponent hands dealt for the look ahead's reply"""
    refill_samples: int = 16
    """draws that top up our kept tiles in the look ahead"""
    hidden: int = 128
    """the fitted network's hidden width"""
    layers: int = 2
    """its hidden layers"""
    encoder: int = 32
    """its per-tile-type encoder width (0: none)"""
    epochs: int = 12
    """passes over the positions"""
    lr: float = 1e-3
    """Adam's learning rate at the start, annealed linearly to lr_end"""
    lr_end: float = 1e-4
    """... at the end"""
    batch: int = 256
    """positions per gradient step"""
    holdout: float = 0.1
    """share of positions held out to judge the fit"""
    processes: int = 2
    """worker processes for the games"""
    seed: int = 0
    """seeds the games, the simulations and (unless fit_seed) the fit"""
    fit_seed: int = -1
    """seeds the fit alone (-1: seed)"""

    def __post_init__(self) -> None:
        problems = [
            f"{name} must be {rule} (got {getattr(self, name)!r})"
            for name, rule, ok in [
                ("games", "an integer >= 0", self.games >= 0),
                ("sims", "an even integer >= 2", self.sims >= 2 and self.sims % 2 == 0),
                ("depth", "an integer >= 1", self.depth >= 1),
                ("leaf", "0 or 1", self.leaf in (0, 1)),
                (
                    "top",
                    "0, or an integer >= 2 with leaf 1",
                    self.top == 0 or (self.top >= 2 and self.leaf == 1),
                ),
                ("top_sims", "an even integer >= 2", self.top_sims >= 2 and self.top_sims % 2 == 0),
                ("top_weight", ">= 0", self.top_weight >= 0),
                ("temperature", ">= 0", self.temperature >= 0),
                ("shortlist", "an integer >= 2", self.shortlist >= 2),
                ("layers", "an integer >= 1", self.layers >= 1),
                ("epochs", "an integer >= 1", self.epochs >= 1),
                ("lr", "> 0", self.lr > 0),
                ("lr_end", "> 0", self.lr_end > 0),
                ("batch", "an integer >= 1", self.batch >= 1),
                ("holdout", "in [0, 0.5]", 0 <= self.holdout <= 0.5),
                ("processes", "an integer >= 1", self.processes >= 1),
                ("fit_seed", "an integer >= -1", self.fit_seed >= -1),
            ]
            if not ok
        ]
        try:
            self.look_ahead()
            ValueNetConfig(hidden=self.hidden, encoder=self.encoder)
            self.opponent_agent()
        except ValueError as err:
            problems.append(str(err))
        if self.hidden < 1:
            problems.append(f"hidden must be >= 1 (got {self.hidden})")
        if self.games == 0:
            unused = [f.name for f in fields(self) if f.name in _PLAYING
                      and getattr(self, f.name) != f.default]  # fmt: skip
            if unused:
                problems.append(f"games 0 plays no game, so {', '.join(unused)} would do nothing")
        if problems:
            raise ValueError("rollout values: " + "; ".join(problems))

    def look_ahead(self) -> LookAhead:
        return LookAhead(self.shortlist, self.reply_samples, True, self.refill_samples)

    def opponent_agent(self) -> PlanningAgent | None:
        """A fresh opponent from ``opponent`` (None for self-play); it must plan whole
        moves, as the games are played on the engine."""
        if not self.opponent:
            return None
        agent = make_agent(self.opponent)
        if not isinstance(agent, PlanningAgent):
            raise ValueError(
                f"opponent {self.opponent!r} does not plan whole moves; agents that do:"
                " greedy, heuristic, search:budget=0.25, learned, learned-search"
            )
        return agent

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def seed_of_fit(self) -> int:
        return self.seed if self.fit_seed == -1 else self.fit_seed


def value_game(task: tuple) -> list[Valued]:
    """The positions of one game of the network ``layers`` (against ``cfg.opponent`` if
    set, which then plays seat ``1 - seed % 2``), valued."""
    layers, judge, seed, cfg = task
    torch.set_num_threads(1)
    how = cfg.look_ahead()
    rng = random.Random(seed)
    game = Game(2, seed=seed)
    opponent, their_seat = cfg.opponent_agent(), 1 - seed % 2
    if opponent is not None:
        opponent.reset(their_seat, 2, seed)
    out = []
    while not game.over:
        cands = candidates(Position.of_game(game))
        worth = move_values(layers, cands)
        theirs = opponent is not None and game.current == their_seat
        if cands.position is None or len(cands) <= 1:
            i = pick(worth, 0.0, rng)
        else:
            short, again = look_at_best(layers, cands, worth, rng, how)
            found = Valued(
                cands.features[short].astype(np.float32),
                cands.points[short].astype(np.float32),
                simulated(game, cands, short, cfg, rng, judge),
                game.bag_size,
            )
            if cfg.top:
                found.judged = judged_closely(game, cands, short, again, cfg, rng, judge)
            out.append(found)
            i = int(short[pick(again, cfg.temperature, rng)])
        if theirs:
            game.apply(opponent.choose(PlayerView.of(game, their_seat)))
            continue
        game.apply(cands.move(i), trusted=True)
    return out


def simulated(
    game: Game, cands, short: np.ndarray, cfg: RolloutConfig, rng, judge: PlayLayers | None
) -> np.ndarray:
    """The mean final margin of each move of ``short`` over each half of ``cfg.sims``
    simulations, as the search's rollouts play them (the mover sees only their own hand);
    with ``cfg.leaf`` (and no ``cfg.top``) and tiles in the bag, the learned search's leaf
    values instead."""
    moves = [cands.move(int(j)) for j in short]
    view = PlayerView.of(game, game.current)
    if cfg.leaf and not cfg.top and game.bag_size > 0:
        return _leaf_values(view, moves, cfg.sims, rng, judge)
    rollouts = Rollouts(view.sample_game(rng), moves)
    depth = None if game.bag_size == 0 else cfg.depth
    sims = range(cfg.sims)
    return _halves(np.array([rollouts.simulate(rng.randrange(2**63), depth) for _ in sims]))


def judged_closely(
    game: Game,
    cands,
    short: np.ndarray,
    again: np.ndarray,
    cfg: RolloutConfig,
    rng,
    judge: PlayLayers | None,
) -> np.ndarray:
    """The leaf values, over each half of ``cfg.top_sims`` simulations, of the best
    ``cfg.top`` moves of ``short`` by their looked-at worth ``again``; NaN for the others,
    and for every move once the bag is empty (the play-outs to the end judge those)."""
    out = np.full((len(short), 2), np.nan, np.float32)
    if game.bag_size > 0:
        best = np.argsort(-again, kind="stable")[: cfg.top]
        moves = [cands.move(int(j)) for j in short[best]]
        view = PlayerView.of(game, game.current)
        out[best] = _leaf_values(view, moves, cfg.top_sims, rng, judge)
    return out


def _leaf_values(
    view: PlayerView, moves: list, sims: int, rng, judge: PlayLayers | None
) -> np.ndarray:
    deals = (view.sample_game(rng) for _ in range(sims))
    return _halves(np.array([[leaf_value(d, m, judge, rng) for m in moves] for d in deals]))


def _halves(found: np.ndarray) -> np.ndarray:
    half = len(found) // 2
    return np.stack([found[:half].mean(0), found[half:].mean(0)], 1).astype(np.float32)


def collect(
    layers: PlayLayers, cfg: RolloutConfig, judge: PlayLayers | None = None
) -> list[Valued]:
    """The valued positions of ``cfg.games`` games, in worker processes; ``judge`` values
    the simulations' leaves (``cfg.leaf``)."""
    if cfg.leaf and judge is None:
        raise ValueError("rollout values: leaf=1 needs a judge network")
    tasks = [(layers, judge, cfg.seed * 1_000_003 + i, cfg) for i in range(cfg.games)]
    out: list[Valued] = []
    if cfg.processes == 1:
        for task in tqdm(tasks, desc="valued games"):
            out.extend(value_game(task))
        return out
    with get_context("fork").Pool(cfg.processes) as pool:
        for found in tqdm(pool.imap(value_game, tasks), total=len(tasks), desc="valued games"):
            out.extend(found)
    return out


def rollout_values(
    start: PlayLayers,
    out: str | Path,
    cfg: RolloutConfig,
    meta: dict,
    earlier: list[Valued] | None = None,
    save_to: str | Path | None = None,
    judge: PlayLayers | None = None,
) -> Path:
    """Collects with the network ``start`` (``judge`` values the leaves; the positions are
    saved to ``save_to``), fits a new one on ``earlier`` positions and these, saves it to
    ``out``. With no games it only fits, on ``earlier``: another network on the same
    positions."""
    from agents.move_value.run import env_options

    if save_to is not None and not cfg.games:
        raise ValueError("rollout values: games 0 plays no game, so there is nothing new to save")
    data = collect(start, cfg, judge) if cfg.games else []
    if save_to is not None:
        save_positions(save_to, data)
    data = [*(earlier or []), *data]
    if not data:
        raise ValueError("rollout values: no positions to fit (games 0 and no earlier ones)")
    torch.manual_seed(cfg.seed_of_fit)
    net = MoveValueNet(ValueNetConfig(hidden=cfg.hidden, layers=cfg.layers, encoder=cfg.encoder))
    for row in fit(net, data, cfg):
        print({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}, flush=True)
    env = env_options(cfg.look_ahead(), net.config.features)
    train = {"players": "2", "rollout_values": cfg.to_dict(), **meta}
    return save_checkpoint(out, net, env, train, len(data))
