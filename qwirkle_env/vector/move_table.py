"""The move mode's table of one position, on the move simulator's arrays.

``move_mode.move_table`` and ``observation`` in compiled form, for ``VectorMoves``: the
placements from the engine's compiled generator (``engine/movegen.grow``, its anchors in
the frontier's joining order; on an empty table ``opening_rows``, the order of
``placements.opening_placements``), every row from ``rowgen.row_features`` and
``list_exchanges``, placements by points (stable) then exchanges, cut to K, and the
position's 86 features. Each value is computed by the same operations as the env's, so
the observation and mask are the env's bit for bit (``tests/vector/test_moves.py``).
"""

from __future__ import annotations

import numpy as np

from ..engine.movegen import grow
from ..engine.placements import WIDTH
from ..jit import njit
from ..move_mode import (
    NUM_POSITION_FEATURES,
    POS_BAG,
    POS_HAND_SIZES,
    POS_OPENING,
    POS_SCORES,
    POS_SEATS,
    POS_UNSEEN,
    SCORE_SCALE,
)
from ..rowgen import NUM_ROW_FEATURES, list_exchanges, row_features
from ..spec import COPIES, HAND_SIZE, MAX_LINE, NUM_SHAPES, NUM_TILES, NUM_TYPES, QWIRKLE_BONUS
from .move_state import BASE, C_PLAYERS, C_ROWS, C_STRICT, GRID

ALL = (1 << NUM_TYPES) - 1
COLOUR = (1 << NUM_SHAPES) - 1  # colour 0's types; << 6k for colour k
SHAPE = sum(1 << (NUM_SHAPES * c) for c in range(NUM_SHAPES))  # shape 0's; << k for shape k
MOST_POINTS = 128  # above any move's points (6 Qwirkles of a 6-tile move and the bonus: 90)


@njit(cache=True)
def _line_points(k) -> int:
    if k < 2:
        return 0
    return k + QWIRKLE_BONUS if k == MAX_LINE else k


@njit(cache=True)
def _emit_line(out, n, group, pos, k, down) -> int:
    if n < out.shape[0]:
        row = out[n]
        row[:] = 0
        row[0] = k
        row[1] = _line_points(k)
        for j in range(k):
            row[2 + 3 * j] = j if down else 0
            row[3 + 3 * j] = 0 if down else j
            row[4 + 3 * j] = group[pos[j]]
    return n + 1


@njit(cache=True)
def opening_rows(hand, size, out) -> int:
    """``placements.opening_placements`` in its order, as rows, keeping those of ``size``
    tiles (0: every size); returns how many (rows past ``out``'s end are not written)."""
    n = 0
    if size <= 1:
        for t in range(NUM_TYPES):
            if hand >> t & 1:
                if n < out.shape[0]:
                    out[n, :] = 0
                    out[n, 0] = 1
                    out[n, 1] = 1
                    out[n, 4] = t
                n += 1
    group = np.empty(MAX_LINE, np.int64)
    pos = np.empty(MAX_LINE, np.int64)
    nxt = np.empty(MAX_LINE, np.int64)
    for g in range(2 * NUM_SHAPES):  # the colours, then the shapes
        members = hand & (COLOUR << (NUM_SHAPES * g) if g < NUM_SHAPES else SHAPE << (g - 6))
        m = 0
        for t in range(NUM_TYPES):
            if members >> t & 1:
                group[m] = t
                m += 1
        for k in range(2, m + 1):
            if size and k != size:
                continue
            # itertools.permutations(group, k): positions in lexicographic order
            used = 0
            d = 0
            nxt[0] = 0
            while d >= 0:
                j = nxt[d]
                while j < m and used >> j & 1:
                    j += 1
                if j == m:
                    d -= 1
                    if d >= 0:
                        used &= ~(1 << pos[d])
                        nxt[d] = pos[d] + 1
                    continue
                pos[d] = j
                if d == k - 1:
                    n = _emit_line(out, n, group, pos, k, False)
                    n = _emit_line(out, n, group, pos, k, True)
                    nxt[d] = j + 1
                else:
                    used |= 1 << j
                    d += 1
                    nxt[d] = 0
    return n


@njit(cache=True)
def _placements(s, i, hand_mask, rows):
    """(rows, count): the mover's legal placements in the engine's order."""
    if s.tiles[i] == 0:
        size = s.opening[i] if s.cfg[C_STRICT] else 0
        count = opening_rows(hand_mask, size, rows)
        if count > rows.shape[0]:
            rows = np.empty((count, WIDTH), np.int64)
            opening_rows(hand_mask, size, rows)
        return rows, count
    grid = s.grid[i]
    count = grow(grid, GRID, s.front[i], s.n_front[i], hand_mask, -BASE, -BASE, rows)
    if count > rows.shape[0]:
        rows = np.empty((count, WIDTH), np.int64)
        grow(grid, GRID, s.front[i], s.n_front[i], hand_mask, -BASE, -BASE, rows)
    return rows, count


@njit(cache=True)
def _position(s, i, seat, out):
    """``move_mode.position_features`` of ``seat`` into ``out`` (86 float32)."""
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


@njit(cache=True)
def show(s, i, scratch_rows, features, points, exchanges):
    """Game i's observation, mask and moves for its seat to move (a finished game: the
    position of its last mover, no rows)."""
    obs = s.obs[i]
    seat = s.current[i]
    _position(s, i, seat, obs)
    shown = 0
    if not s.over[i]:
        shown = _table(s, i, seat, scratch_rows, features, points, exchanges)
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


@njit(cache=True)
def _table(s, i, seat, scratch_rows, features, points, exchanges) -> int:
    """``move_mode.move_table``: every legal move's row (``rowgen``), placements by points
    (stable: ties in the engine's order), then the exchanges, cut to K; returns the rows
    shown."""
    n_hand = s.hand_n[i, seat]
    hand = np.empty(n_hand, np.int64)
    hand_mask = 0
    for j in range(n_hand):
        hand[j] = s.hands[i, seat, j]
        hand_mask |= np.int64(1) << hand[j]
    rows, n_place = _placements(s, i, hand_mask, scratch_rows)
    n_exch = 0
    bag = s.bag_n[i]
    if s.opening[i] == 0 and bag > 0:
        n_exch = list_exchanges(hand, min(n_hand, bag), exchanges)
    total = n_place + n_exch
    if total > features.shape[0]:
        features = np.empty((total, NUM_ROW_FEATURES), np.float32)
        points = np.empty(total, np.float32)
    unseen = np.empty(NUM_TYPES, np.int64)
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
    context = np.zeros(NUM_ROW_FEATURES, np.float64)  # candidates._context
    context[0] = bag / NUM_TILES
    context[1] = 1.0 if bag == 0 else 0.0
    context[2] = min(bag, HAND_SIZE) / HAND_SIZE
    context[3] = (mine - others / (n - 1)) / 50.0
    context[4] = (mine - best) / 50.0
    context[5] = held / (HAND_SIZE * (n - 1))
    context[6] = 1.0 if n == 3 else 0.0
    context[7] = 1.0 if n == 4 else 0.0
    row_features(s.grid[i], GRID, -BASE, -BASE, rows[:n_place], hand, bag, unseen, held,
                 playable, context, exchanges, n_exch, features, points)  # fmt: skip
    # the order: placements by points, highest first, stable (a counting sort), then
    # the exchanges
    counts = np.zeros(MOST_POINTS + 1, np.int64)
    for j in range(n_place):
        counts[MOST_POINTS - int(points[j])] += 1
    start = 0
    for v in range(MOST_POINTS + 1):
        c = counts[v]
        counts[v] = start
        start += c
    order = np.empty(total, np.int64)
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


@njit(cache=True, nogil=True)
def show_games(s, which):
    """Shows the tables of the slots in ``which`` (after ``move_load``)."""
    rows, features, points, exchanges = scratch()
    for i in which:
        show(s, i, rows, features, points, exchanges)


@njit(cache=True)
def scratch():
    return (np.empty((512, WIDTH), np.int64), np.empty((576, NUM_ROW_FEATURES), np.float32),
            np.empty(576, np.float32), np.empty((64, HAND_SIZE + 1), np.int64))  # fmt: skip


__all__ = ["opening_rows", "scratch", "show", "show_games"]
