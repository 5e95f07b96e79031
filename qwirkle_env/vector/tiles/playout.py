"""Greedy playouts on the simulator's arrays: whole greedy turns at compiled speed.

The greedy player of ``agents/scripted/baselines.py`` in compiled form: each turn the engine's
compiled move generator (``engine/movegen.py``, reading the slot's grid and frontier) lists
the placements with their points, the highest scores and the slot's own random generator
breaks ties; with nothing to place it exchanges by the greedy rule (keep one copy of the
largest colour or shape group, trade the rest; duplicates first when the bag is short).
The turn then ends through ``core.end_turn``, the simulator's own rules.

It plays the greedy player's rules, not its exact games: the simulator lists placements in
its frontier's order and draws ties from the slot's MT19937, so ties fall differently than
with ``random.Random`` in the agent. The opening places a largest group in id order,
rightwards from the centre (every opening line of that size scores the same).
"""

from __future__ import annotations

import numpy as np

from ...engine.compiled import (
    ANCHOR_WIDTH,
    TOP,
    WIDTH,
    reset_sink,
    sink_for,
    walk,
    walk_stack,
)
from ...jit import kernel, njit
from ...spec import MAX_TURNS, NUM_SHAPES
from ..mt19937 import randbelow
from . import core
from .state import C_GRID, PLACED

SHAPE = sum(1 << (NUM_SHAPES * c) for c in range(NUM_SHAPES))  # the circles; << k for shape k

__all__ = [
    "WIDTH", "greedy_games", "greedy_playout", "greedy_turn", "place_row", "playout_turns",
    "scratch",
]  # fmt: skip


@kernel
def place_row(s, i, row):
    """Puts a movegen row's tiles (grid coordinates) down as slot i's turn, as
    core.apply_action does tile by tile; ``core.end_turn`` then scores and commits them."""
    g = s.cfg[C_GRID]
    for j in range(row[0]):
        p = row[2 + 3 * j] * g + row[3 + 3 * j]
        t = row[4 + 3 * j]
        s.grid[i, p] = PLACED + t
        s.placed[i, j] = p
        s.placed_t[i, j] = t
        s.n_left[i] = core.remove_tile(s.left[i], s.n_left[i], t)
        s.counts[i, t] += 1
        s.tiles[i] += 1
    s.n_placed[i] = row[0]


@kernel
def _group(distinct, k) -> int:
    """Group k of a hand's distinct tiles: colour k // 2 (k even) or shape k // 2 (odd)."""
    if k % 2 == 0:
        return distinct & (0b111111 << (6 * (k // 2)))
    return distinct & (SHAPE << (k // 2))


@kernel
def _largest_group_mask(distinct) -> int:
    """The first largest colour or shape group (colour k, then shape k, k = 0..5)."""
    best, size = 0, 0
    for k in range(12):
        m = _group(distinct, k)
        n = core.bit_count(m)
        if n > size:
            best, size = m, n
    return best


@kernel
def _opening(s, i, row):
    """A largest group (one of the hand's, drawn by the slot's generator), rightwards."""
    seat = s.current[i]
    distinct = 0
    for j in range(s.hand_n[i, seat]):
        distinct |= np.int64(1) << s.hands[i, seat, j]
    size = core.bit_count(_largest_group_mask(distinct))
    n = 0
    for k in range(12):
        n += core.bit_count(_group(distinct, k)) == size
    pick = 0 if n == 1 else randbelow(s.rng, s.rng_pos, i, n)
    m = 0
    for k in range(12):
        if core.bit_count(_group(distinct, k)) == size:
            if pick == 0:
                m = _group(distinct, k)
                break
            pick -= 1
    row[0] = size
    j = 0
    for t in range(36):
        if m >> t & 1:
            row[2 + 3 * j] = s.base[i, 0]
            row[3 + 3 * j] = s.base[i, 1] + j
            row[4 + 3 * j] = t
            j += 1


@kernel
def _exchange(s, i):
    """The greedy exchange (baselines.exchange_rule) set aside as this turn's."""
    seat = s.current[i]
    n = s.hand_n[i, seat]
    hand = s.hands[i, seat]
    distinct = 0
    for j in range(n):
        distinct |= np.int64(1) << hand[j]
    keep = _largest_group_mask(distinct)
    out = s.exch[i]  # the tiles to trade, worked out in place
    m = 0
    for j in range(n):
        t = hand[j]
        if keep >> t & 1:
            keep &= ~(np.int64(1) << t)
        else:
            out[m] = t
            m += 1
    if m == 0:
        for j in range(n):
            out[j] = hand[j]
        m = n
    # At most as many as the bag holds: the most repeated tiles first, ties at random.
    take = min(m, s.bag_n[i])
    for k in range(take):
        most = 0
        for j in range(k, m):
            most = max(most, _copies(hand, n, out[j]))
        ties = 0
        for j in range(k, m):
            ties += _copies(hand, n, out[j]) == most
        pick = 0 if ties == 1 else randbelow(s.rng, s.rng_pos, i, ties)
        for j in range(k, m):
            if _copies(hand, n, out[j]) == most:
                if pick == 0:
                    out[k], out[j] = out[j], out[k]
                    break
                pick -= 1
    for k in range(take):
        s.n_left[i] = core.remove_tile(s.left[i], s.n_left[i], out[k])
    s.n_exch[i] = take


@kernel
def _copies(hand, n, t) -> int:
    c = 0
    for j in range(n):
        c += hand[j] == t
    return c


@kernel
def _turn(s, i, out, sink, table, stack) -> int:
    """Slot i's greedy turn, with scratch for the walk. Returns 0, or (nothing played, the
    generator untouched) how many rows ``out`` must hold for this turn's ties."""
    if s.tiles[i] == 0:
        _opening(s, i, out[0])
        place_row(s, i, out[0])
        core.end_turn(s, i)
        return 0
    seat = s.current[i]
    hand = 0
    for j in range(s.hand_n[i, seat]):
        hand |= np.int64(1) << s.hands[i, seat, j]
    reset_sink(sink, TOP, 0, 0)  # only the placements scoring the most: the ties, in order
    count = walk(s.grid[i], s.cfg[C_GRID], s.front[i], s.n_front[i], hand, 0, 0, out, sink,
                 table, stack)  # fmt: skip
    if count > out.shape[0]:
        return count
    if count == 0:
        _exchange(s, i)
    else:
        place_row(s, i, out[0 if count == 1 else randbelow(s.rng, s.rng_pos, i, count)])
    core.end_turn(s, i)
    return 0


@kernel
def playout_turns(s, i, turns, out, sink, table, stack, played) -> int:
    """``greedy_playout`` for kernels that allocate nothing (the walk's scratch given:
    ``scratch``), its turns counted in ``played[0]``; returns 0 when done, or how many
    rows ``out`` must hold to go on."""
    while not s.over[i] and s.error[i] == 0 and played[0] != turns and played[0] < MAX_TURNS:
        need = _turn(s, i, out, sink, table, stack)
        if need:
            return need
        played[0] += 1
    return 0


@njit(cache=True)
def scratch(s):
    """The walk's scratch for the slots' turns: a sink, a table of anchors, a stack."""
    return sink_for(TOP), np.empty((s.front.shape[1], ANCHOR_WIDTH), np.int64), walk_stack()


@njit(cache=True)
def greedy_playout(s, i, turns, out) -> int:
    """Greedy turns in slot i until its game ends or ``turns`` turns were played (-1: no
    limit but ``MAX_TURNS``); returns the turns played. ``out``: scratch rows (a longer
    array is made for a turn with more ties than it holds)."""
    sink, table, stack = scratch(s)
    played = np.zeros(1, np.int64)
    need = playout_turns(s, i, turns, out, sink, table, stack, played)
    while need:
        out = np.empty((need, WIDTH), np.int64)
        need = playout_turns(s, i, turns, out, sink, table, stack, played)
    return played[0]


@njit(cache=True)
def greedy_turn(s, i, out) -> int:
    """Plays slot i's turn greedily (``out``: scratch rows); returns the points scored."""
    seat = s.current[i]
    before = s.scores[i, seat]
    sink, table, stack = scratch(s)
    need = _turn(s, i, out, sink, table, stack)
    if need:
        _turn(s, i, np.empty((need, WIDTH), np.int64), sink, table, stack)
    return s.scores[i, seat] - before


@njit(cache=True)
def greedy_games(s, lo, hi, games, out) -> int:
    """``games`` new greedy-vs-greedy games in each slot of [lo, hi); returns the turns."""
    turns = 0
    for i in range(lo, hi):
        for _ in range(games):
            core.new_game(s, i)
            turns += greedy_playout(s, i, -1, out)
    return turns
