"""The move mode's table of one position, on the move simulator's arrays.

``rows.table.move_table`` and ``observation`` in compiled form, for ``VectorMoves``: the
placements from the engine's compiled generator (``engine/movegen.walk``, its anchors in
the frontier's joining order; on an empty table ``opening_rows``, the order of
``placements.opening_placements``), every row from ``rows.kernels.row_features`` and
``list_exchanges``, placements by points (stable) then exchanges, cut to K, and the
position's 86 features. Each value is computed by the same operations as the env's, so
the observation and mask are the env's bit for bit (``tests/vector/test_moves.py``).
The table's functions are kernels (no reference counting, no allocation): their scratch
comes from ``make_scratch``, and a table too long for it is shown again with a longer one
(``show_in_full``).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...engine.compiled import (
    ANCHOR_WIDTH,
    MAX_ITEMS,
    ROWS,
    TABLE_SIZE,
    WIDTH,
    opening_rows_into,
    reset_sink,
    sink_for,
    walk,
    walk_stack,
)
from ...jit import kernel, njit
from ...rows.columns import NUM_ROW_FEATURES
from ...rows.kernels import list_exchanges_into, row_features_into
from ...spec import (
    ALL,
    COPIES,
    HAND_SIZE,
    MAX_LINE,
    NUM_POSITION_FEATURES,
    NUM_SHAPES,
    NUM_TILES,
    NUM_TYPES,
    POS_BAG,
    POS_HAND_SIZES,
    POS_OPENING,
    POS_SCORES,
    POS_SEATS,
    POS_UNSEEN,
    SCORE_SCALE,
)
from .state import BASE, C_PLAYERS, C_ROWS, C_STRICT, GRID, MAX_FRONT

MOST_POINTS = 128  # above any move's points (6 Qwirkles of a 6-tile move and the bonus: 90)


@kernel
def _placements(s, i, hand_mask, w) -> int:
    """The mover's legal placements in the engine's order, into ``w.rows``; returns how
    many (more than ``w.rows`` holds: it was too short, as ``movegen.grow``)."""
    if s.tiles[i] == 0:
        size = s.opening[i] if s.cfg[C_STRICT] else 0
        return opening_rows_into(hand_mask, size, w.rows, w.opening)
    reset_sink(w.sink, ROWS, 0, 0)
    return walk(s.grid[i], GRID, s.front[i], s.n_front[i], hand_mask, -BASE, -BASE, w.rows,
                w.sink, w.anchors, w.stack)  # fmt: skip


@kernel
def _position(s, i, seat, out):
    """``rows.table.position_features`` of ``seat`` into ``out`` (86 float32)."""
    for j in range(NUM_POSITION_FEATURES):
        out[j] = 0.0
    third = np.float32(COPIES)
    hand = s.hands[i, seat]
    for j in range(s.hand_n[i, seat]):
        out[hand[j]] += np.float32(1.0)
    for t in range(NUM_TYPES):
        unseen = np.float32(COPIES - s.counts[i, t]) - out[t]
        out[t] = out[t] / third
        out[POS_UNSEEN + t] = unseen / third
    out[POS_BAG] = s.bag_n[i] / NUM_TILES
    n = s.cfg[C_PLAYERS]
    for k in range(n):
        other = (seat + k) % n
        out[POS_SCORES + k] = s.scores[i, other] / SCORE_SCALE
        out[POS_HAND_SIZES + k] = s.hand_n[i, other] / HAND_SIZE
        out[POS_SEATS + k] = 1.0
    out[POS_OPENING] = 1.0 if s.tiles[i] == 0 else 0.0


@kernel
def show(s, i, w, need) -> bool:
    """Game i's observation, mask and moves for its seat to move (a finished game: the
    position of its last mover, no rows), with the scratch ``w`` (``make_scratch``).
    False if ``w`` was too short (nothing shown): ``need`` then holds the rows and
    the moves it must hold (``make_scratch``'s arguments)."""
    obs = s.obs[i]
    seat = s.current[i]
    _position(s, i, seat, obs)
    shown = 0
    if not s.over[i]:
        shown = _table(s, i, seat, w, need)
        if shown < 0:
            return False
    else:
        s.cut[i] = 0
    rows_k = s.cfg[C_ROWS]
    for j in range(NUM_POSITION_FEATURES + shown * NUM_ROW_FEATURES,
                   NUM_POSITION_FEATURES + s.n_rows[i] * NUM_ROW_FEATURES):  # fmt: skip
        obs[j] = 0.0
    mask = s.mask[i]
    for j in range(shown, min(s.n_rows[i], rows_k)):
        mask[j] = 0
    for j in range(shown):
        mask[j] = 1
    s.n_rows[i] = shown
    return True


@kernel
def _table(s, i, seat, w, need) -> int:
    """``rows.table.move_table``: every legal move's row (``rows.kernels``), placements by points
    (stable: ties in the engine's order), then the exchanges, cut to K; returns the rows
    shown, or -1 if ``w`` was too short (``need``: what it must hold)."""
    n_hand = s.hand_n[i, seat]
    hand = w.hand[:n_hand]
    hand_mask = 0
    for j in range(n_hand):
        hand[j] = s.hands[i, seat, j]
        hand_mask |= np.int64(1) << hand[j]
    n_place = _placements(s, i, hand_mask, w)
    rows, exchanges = w.rows, w.exchanges
    n_exch = 0
    bag = s.bag_n[i]
    if s.opening[i] == 0 and bag > 0:
        n_exch = list_exchanges_into(hand, min(n_hand, bag), exchanges, w.listing)
    total = n_place + n_exch
    if n_place > rows.shape[0] or total > w.features.shape[0]:
        need[0], need[1] = n_place, total
        return -1
    features, points = w.features, w.points
    unseen = w.unseen
    for t in range(NUM_TYPES):
        unseen[t] = COPIES - s.counts[i, t]
    for j in range(n_hand):
        unseen[hand[j]] -= 1
    n = s.cfg[C_PLAYERS]
    held = 0
    others = 0
    best = -(1 << 62)
    for k in range(n):
        if k != seat:
            held += s.hand_n[i, k]
            others += s.scores[i, k]
            best = max(best, s.scores[i, k])
    playable = ALL
    if s.tiles[i]:
        playable = 0
        for f in range(s.n_front[i]):
            playable |= s.fit[i, f]
    mine = s.scores[i, seat]
    context = w.context  # candidates._context
    for j in range(NUM_ROW_FEATURES):
        context[j] = 0.0
    context[0] = bag / NUM_TILES
    context[1] = 1.0 if bag == 0 else 0.0
    context[2] = min(bag, HAND_SIZE) / HAND_SIZE
    context[3] = (mine - others / (n - 1)) / 50.0
    context[4] = (mine - best) / 50.0
    context[5] = held / (HAND_SIZE * (n - 1))
    context[6] = 1.0 if n == 3 else 0.0
    context[7] = 1.0 if n == 4 else 0.0
    row_features_into(s.grid[i], GRID, -BASE, -BASE, rows[:n_place], hand, bag, unseen, held,
                      playable, context, exchanges, n_exch, features, points, w.counted,
                      w.row, w.risk, w.known, w.groups)  # fmt: skip
    # the order: placements by points, highest first, stable (a counting sort), then
    # the exchanges
    counts = w.counts
    for v in range(MOST_POINTS + 1):
        counts[v] = 0
    for j in range(n_place):
        counts[MOST_POINTS - int(points[j])] += 1
    start = 0
    for v in range(MOST_POINTS + 1):
        c = counts[v]
        counts[v] = start
        start += c
    order = w.order
    for j in range(n_place):
        v = MOST_POINTS - int(points[j])
        order[counts[v]] = j
        counts[v] += 1
    for j in range(n_exch):
        order[n_place + j] = n_place + j
    shown = min(total, s.cfg[C_ROWS])
    s.cut[i] = total - shown
    obs = s.obs[i]
    moves = s.moves[i]
    for r in range(shown):
        j = order[r]
        at = NUM_POSITION_FEATURES + r * NUM_ROW_FEATURES
        for c in range(NUM_ROW_FEATURES):
            obs[at + c] = features[j, c]
        move = moves[r]
        if j < n_place:
            k = rows[j, 0]
            move[0] = k
            move[1] = rows[j, 1]
            for t in range(k):
                move[2 + 2 * t] = (rows[j, 2 + 3 * t] + BASE) * GRID + rows[j, 3 + 3 * t] + BASE
                move[3 + 2 * t] = rows[j, 4 + 3 * t]
        else:
            e = j - n_place
            k = exchanges[e, 0]
            move[0] = -k
            move[1] = 0
            for t in range(k):
                move[3 + 2 * t] = exchanges[e, 1 + t]
    return shown


# The scratch of the table's kernels, made once per call from Python (``make_scratch``):
# the placements' rows, the moves' features, points and order, the exchanges, and the
# small arrays of the hand, the rows' features and the walk.
MoveScratch = namedtuple(
    "MoveScratch",
    [
        "rows", "features", "points", "order", "exchanges", "hand", "unseen", "context",
        "counts", "listing", "opening", "counted", "row", "risk", "known", "groups", "sink",
        "anchors", "stack", "cells", "keys", "key_hashes", "slots", "table_hashes",
        "refreshed", "old",
    ],
)  # fmt: skip


@njit(cache=True)
def make_scratch(rows, moves):
    """Scratch for tables of up to ``rows`` placements and ``moves`` moves in all."""
    return MoveScratch(
        np.empty((rows, WIDTH), np.int64), np.empty((moves, NUM_ROW_FEATURES), np.float32),
        np.empty(moves, np.float32), np.empty(moves, np.int64),
        np.empty((64, HAND_SIZE + 1), np.int64), np.empty(HAND_SIZE, np.int64),
        np.empty(NUM_TYPES, np.int64), np.empty(NUM_ROW_FEATURES, np.float64),
        np.empty(MOST_POINTS + 1, np.int64), np.empty((4, HAND_SIZE + 1), np.int64),
        np.empty((3, MAX_LINE), np.int64), np.empty((3, HAND_SIZE + 1), np.int64),
        np.empty(NUM_ROW_FEATURES, np.float64), np.empty(NUM_TYPES, np.float64),
        np.empty(NUM_TYPES, np.bool_), np.empty(2 * NUM_SHAPES, np.int64), sink_for(ROWS),
        np.empty((MAX_FRONT, ANCHOR_WIDTH), np.int64), walk_stack(),
        np.empty(HAND_SIZE, np.int64), np.empty(MAX_ITEMS, np.int64),
        np.empty(MAX_ITEMS, np.int64), np.empty(TABLE_SIZE, np.int64),
        np.empty(TABLE_SIZE, np.int64), np.empty(MAX_ITEMS, np.int64),
        np.empty((2, TABLE_SIZE), np.int64),
    )  # fmt: skip


@njit(cache=True)
def scratch():
    """``make_scratch`` of the usual size: a longer table makes a longer one."""
    return make_scratch(512, 576)


@njit(cache=True)
def show_in_full(s, i, w, need):
    """``show``, making the scratch longer until game i's table fits; returns the scratch."""
    while not show(s, i, w, need):
        w = make_scratch(max(need[0], w.rows.shape[0]), max(need[1], w.features.shape[0]))
    return w


@njit(cache=True, nogil=True)
def show_games(s, which):
    """Shows the tables of the slots in ``which`` (after ``load.py``)."""
    w = scratch()
    need = np.zeros(2, np.int64)
    for i in which:
        w = show_in_full(s, i, w, need)


__all__ = [
    "MoveScratch", "make_scratch", "opening_rows_into", "scratch", "show",
    "show_games", "show_in_full",
]  # fmt: skip
