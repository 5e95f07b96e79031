"""Determinised rollouts of one player's candidate moves at compiled speed: the
simulations of a Monte Carlo search, on the simulator's arrays.

A decision loads its table once (``load_game`` into slot 0). Each simulation deals the
tiles the player cannot see afresh (the opponents' hands and the bag, shuffled together by
a generator seeded for that simulation), then plays every candidate in slot 1, a copy of
that deal: each candidate meets the same hands, the same bag and the same generator
(common random numbers). Greedy turns follow (``playout.playout_turns``), and the result
is the margin from the player's seat, as ``spec.margin`` scores it.

The deal is uniform over the unseen tiles, as ``PlayerView.sample_game``'s is; the greedy
turns break ties with the slot's generator (``playout``), not ``random.Random``.
"""

from __future__ import annotations

import numpy as np

from ...engine.compiled import WIDTH
from ...engine.game import Game
from ...engine.moves import Exchange, Move, Placement
from ...jit import kernel, literal_unroll
from ...spec import NUM_TILES
from ..mt19937 import seed_from_int63, shuffle
from . import core
from .load import load_game
from .playout import place_row, playout_turns, scratch
from .state import C_GRID, C_PLAYERS, GRID, State, allocate

WINDOW = 5  # the tile mode's window, which rollouts never look at: the smallest is cheapest
DEAL, PLAY = 0, 1  # the slots: the decision's table and deal, and the candidate in play


@kernel
def _copy_slot(fields, src, dst):
    for a in literal_unroll(fields):  # element by element: a slice copy would allocate
        to = a[dst : dst + 1].reshape(-1)
        of = a[src : src + 1].reshape(-1)
        for j in range(to.size):
            to[j] = of[j]


@kernel
def _deal(s, seat, unseen, pool):
    """Slot DEAL's other hands and bag dealt again from ``unseen`` (the tiles ``seat``
    cannot see, in a fixed order, so that a seed always deals the same)."""
    i = DEAL
    n = unseen.shape[0]
    for j in range(n):
        pool[j] = unseen[j]
    shuffle(s.rng, s.rng_pos, i, pool, n)
    n = 0
    for p in range(s.cfg[C_PLAYERS]):
        if p != seat:
            for j in range(s.hand_n[i, p]):
                s.hands[i, p, j] = pool[n]
                n += 1
            core.sort_tiles(s.hands[i, p], s.hand_n[i, p])
    for j in range(s.bag_n[i]):
        s.bag[i, j] = pool[n]
        n += 1


@kernel
def _play(s, row):
    """Slot PLAY's turn: a placement row, or an exchange ([0, k, tile, ..., tile])."""
    i = PLAY
    if row[0] > 0:
        place_row(s, i, row)
    else:
        for j in range(row[1]):
            t = row[2 + j]
            s.exch[i, j] = t
            s.n_left[i] = core.remove_tile(s.left[i], s.n_left[i], t)
        s.n_exch[i] = row[1]
    core.end_turn(s, i)


@kernel
def simulate(s, fields, seat, seed, deal, unseen, moves, turns, scratch, pool, margins, walk,
             played) -> int:  # fmt: skip
    """One simulation: a fresh deal (unless ``deal`` is False: the hands and bag as loaded),
    then each of ``moves`` played in it and followed by ``turns`` greedy turns (-1: to the
    end); ``margins[k]`` gets move k's final margin from ``seat``. ``seed`` seeds the deal
    and the greedy turns' ties; ``walk`` is the move generator's scratch (a sink, a table,
    a stack: ``playout.scratch``). Returns the simulator's error code (0: none), or minus
    the rows ``scratch`` must hold for a turn's ties (the simulation is then to be run
    again with more: it deals and plays the same)."""
    sink, table, stack = walk
    seed_from_int63(s.rng, s.rng_pos, DEAL, seed, s.key[DEAL])
    if deal:
        _deal(s, seat, unseen, pool)
    n = s.cfg[C_PLAYERS]
    for k in range(moves.shape[0]):
        _copy_slot(fields, DEAL, PLAY)
        _play(s, moves[k])
        played[0] = 0
        need = playout_turns(s, PLAY, turns, scratch, sink, table, stack, played)
        if need:
            return -need
        if s.error[PLAY]:
            return s.error[PLAY]
        others = 0
        for p in range(n):
            if p != seat:
                others += s.scores[PLAY, p]
        margins[k] = s.scores[PLAY, seat] - others / (n - 1)
    return 0


class Rollouts:
    """The simulations of one decision of the player to move in ``game``, among ``moves``
    (legal in ``game``). The hidden tiles are dealt again at every simulation; with
    ``deal=False`` they stay as ``game`` holds them (a player who sees everything)."""

    def __init__(self, game: Game, moves: list[Move], deal: bool = True) -> None:
        if not moves:
            raise ValueError("Rollouts needs at least one candidate move")
        self.state = allocate(2, game.num_players, WINDOW, "points", game.strict_opening, GRID)
        load_game(self.state, DEAL, game)
        self.fields = tuple(a for a in self.state if a is not self.state.cfg)  # per game
        self.seat = game.current
        self.deal = deal
        hidden = [t for seat, hand in enumerate(game.hands) if seat != self.seat for t in hand]
        self.unseen = np.array(sorted(hidden + list(game.bag.tiles)), np.int8)
        self.moves = _rows(moves, self.state)
        self.margins = np.zeros(len(moves))
        self.scratch = np.empty((256, WIDTH), np.int64)
        self.walk = scratch(self.state)
        self.played = np.zeros(1, np.int64)
        self.pool = np.empty(NUM_TILES, np.int8)

    def simulate(self, seed: int, turns: int | None) -> np.ndarray:
        """Each move's margin after it and ``turns`` greedy turns (None: to the end) in one
        deal drawn from ``seed`` (0 <= seed < 2**63): the same deal for every move."""
        while True:
            error = simulate(
                self.state, self.fields, self.seat, seed, self.deal, self.unseen, self.moves,
                -1 if turns is None else turns, self.scratch, self.pool, self.margins,
                self.walk, self.played,
            )  # fmt: skip
            if error >= 0:
                break
            self.scratch = np.empty((-error, WIDTH), np.int64)
        if error:
            raise RuntimeError(f"a rollout stopped: {core.ERRORS[error]}")
        return self.margins.copy()


def _rows(moves: list[Move], s: State) -> np.ndarray:
    """The moves as rows in slot DEAL's grid coordinates (placements as movegen writes them)."""
    g = int(s.cfg[C_GRID])
    r0, c0 = int(s.base[DEAL, 0]), int(s.base[DEAL, 1])
    rows = np.zeros((len(moves), WIDTH), np.int64)
    for k, move in enumerate(moves):
        if isinstance(move, Placement):
            rows[k, 0] = len(move.tiles)
            for j, ((r, c), tile) in enumerate(move.tiles):
                if not (0 <= r + r0 < g and 0 <= c + c0 < g):
                    raise ValueError(f"{move} reaches outside the simulator's grid")
                rows[k, 2 + 3 * j : 5 + 3 * j] = (r + r0, c + c0, tile.id)
        elif isinstance(move, Exchange):
            rows[k, 1] = len(move.tiles)
            rows[k, 2 : 2 + len(move.tiles)] = [t.id for t in move.tiles]
        else:
            raise TypeError(f"expected a Placement or an Exchange, got {move!r}")
    return rows


__all__ = ["Rollouts", "simulate"]
