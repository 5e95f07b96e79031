"""The move rows at compiled speed: the columns of ``columns.py`` on the move generator's
arrays.

``reference.reference_move_rows`` computes each row in Python from tuples and the
board's frontier dict. The kernel here computes the same numbers from what the compiled
generator (``engine/movegen.py``) already holds: its placement rows (``WIDTH`` int64
columns: tiles, points, then row, col, tile per tile) and the board's grid of cell codes,
on which a frontier record is two walks away. Every value is computed in float64 by the
same operations in the same order as the reference, then rounded once to float32, so
the rows are bit-identical (``tests/env/test_rowgen.py`` checks it on every position of
36 games and 40 endgames, and of 300 games and 100 endgames more with ``-m slow``). The
exchanges are listed here too, in ``distinct_exchanges``' order.

Through ``qwirkle_env.jit`` the
kernels are compiled by numba (cached on disk) or, without it, run as plain Python.
"""

from __future__ import annotations

import numpy as np

from ..engine.lines import COMPAT_ARRAY as COMPAT
from ..jit import COMPILED, kernel, njit
from ..spec import ALL, COPIES, END_BONUS, HAND_SIZE, MAX_LINE, NUM_COLORS, NUM_SHAPES, NUM_TYPES
from .columns import (
    COL_EXCHANGE,
    COL_FIVE_RISK,
    COL_GOES_OUT,
    COL_KEPT,
    COL_LINES_2,
    COL_OPEN_FIVES,
    COL_OWN_FIVES,
    COL_OWN_SAFE,
    COL_PLACED,
    COL_POINTS,
    COL_QWIRKLES,
    NUM_ROW_FEATURES,
    POINT_SCALE,
    ROW_FEATURES,
)
from .moverows import MoveRows
from .position import Position, chance_opponent_holds, rows_pay
from .reference import context_columns, opponents_hold, playable_types, reference_move_rows

__all__ = [
    "COMPILED",
    "NUM_ROW_FEATURES",
    "POINT_SCALE",
    "ROW_FEATURES",
    "chance_of_holding",
    "empty_grid",
    "list_exchanges",
    "list_exchanges_into",
    "move_rows",
    "row_features",
    "row_features_into",
]

chance_of_holding = njit(cache=True)(
    chance_opponent_holds
)  # position.chance_opponent_holds, for kernels

# The table of an empty board: a grid of empty cells around the opening's lines, which
# run from (0, 0) right or down, at most MAX_LINE cells.
EMPTY_SIDE = 2 * (MAX_LINE + 2)
EMPTY_ORIGIN = -(MAX_LINE + 2)


def empty_grid() -> tuple[np.ndarray, int, int, int]:
    """(grid, side, r0, c0) of an empty table, as ``Board.code_grid`` gives a table's."""
    return np.zeros(EMPTY_SIDE * EMPTY_SIDE, np.int16), EMPTY_SIDE, EMPTY_ORIGIN, EMPTY_ORIGIN


@kernel
def _side(grid, p, d):
    """(length, compatible mask) of the run of tiles next to empty cell p along d: a
    frontier record's N_* and C_* (none: 0 and ALL)."""
    n, compat = 0, ALL
    q = p + d
    while grid[q] > 0:
        compat &= COMPAT[(grid[q] - 1) % NUM_TYPES]
        n += 1
        q += d
    return n, compat


@kernel
def _leave(row, kept, vals, m, unseen, playable, colours, shapes):
    """The eight leave columns of the kept tiles: ``kept[i]`` copies of type ``vals[i]``
    (the hand's distinct types, ascending), as the reference describes them; ``colours``
    and ``shapes``: scratch, one count per colour and per shape."""
    n_kept = 0
    distinct = 0
    colours[:] = 0
    shapes[:] = 0
    fit = 0
    live = 0
    for i in range(m):
        k = kept[i]
        if k == 0:
            continue
        t = vals[i]
        n_kept += k
        distinct += 1
        colours[t // NUM_SHAPES] += 1
        shapes[t % NUM_SHAPES] += 1
        fit += k * ((playable >> t) & 1)
        live += k * unseen[t]
    if n_kept == 0:
        for j in range(8):
            row[COL_KEPT + j] = 0.0
        return
    groups = 0
    top_colour = 0
    for size in colours:
        if size:
            groups += 1
        top_colour = max(top_colour, size)
    top_shape = 0
    for size in shapes:
        if size:
            groups += 1
        top_shape = max(top_shape, size)
    row[COL_KEPT] = n_kept / HAND_SIZE
    row[COL_KEPT + 1] = distinct / HAND_SIZE
    row[COL_KEPT + 2] = (n_kept - distinct) / HAND_SIZE
    row[COL_KEPT + 3] = top_colour / HAND_SIZE
    row[COL_KEPT + 4] = top_shape / HAND_SIZE
    row[COL_KEPT + 5] = (2 * distinct - groups) / 10.0
    row[COL_KEPT + 6] = fit / HAND_SIZE
    row[COL_KEPT + 7] = live / (COPIES * HAND_SIZE)


@kernel
def _count_line(row, length, compat, kept, vals, m, risk, known, unseen, total, held):
    """Adds one line through the placed tiles, (length, compatible mask) after the move,
    to the line columns: the loop at the end of the reference's line features."""
    if length == MAX_LINE:
        row[COL_QWIRKLES] += 1.0
    elif 2 <= length <= 4:
        row[COL_LINES_2 + length - 2] += 1.0
    elif length == MAX_LINE - 1:
        x = 0
        while compat:  # the tile types that complete it, lowest id first
            if compat & 1:
                if not known[x]:
                    risk[x] = chance_of_holding(unseen[x], total, held)
                    known[x] = True
                p = risk[x]
                own = False
                for i in range(m):
                    if vals[i] == x and kept[i] > 0:
                        own = True
                if p > 0 or own:
                    row[COL_OPEN_FIVES] += 1.0
                    row[COL_FIVE_RISK] += p
                if own:
                    row[COL_OWN_FIVES] += 1.0
                    row[COL_OWN_SAFE] += 1.0 - p
            compat >>= 1
            x += 1


@njit(cache=True)
def row_features(grid, g, r0, c0, placements, hand, bag_size, unseen, held, playable,
                 context, exchanges, n_exchanges, out, points) -> None:  # fmt: skip
    """Writes the row and points of every move into ``out`` and ``points``: the
    placements (``Board.placement_rows``' array, in its order), then the first
    ``n_exchanges`` rows of ``exchanges`` (``list_exchanges``' form).

    ``grid`` is the table before the move (``Board.code_grid``: side ``g``, table cell
    (r0, c0) at index 0), ``hand`` the mover's tile ids sorted, ``unseen`` the copies of
    each type not seen, ``held`` the tiles the opponents hold, ``playable`` the mask of
    the types that fit somewhere now, ``context`` the float64 values of the position's
    columns (the rest of each row starts at zero, ``extra`` columns included)."""
    n = hand.shape[0] + 1
    counted = np.zeros((3, n), np.int64)  # the hand's distinct types, their copies, kept
    row_features_into(grid, g, r0, c0, placements, hand, bag_size, unseen, held, playable,
                      context, exchanges, n_exchanges, out, points, counted,
                      np.zeros(context.shape[0]), np.zeros(NUM_TYPES),
                      np.zeros(NUM_TYPES, np.bool_),
                      np.zeros(NUM_COLORS + NUM_SHAPES, np.int64))  # fmt: skip


@kernel
def row_features_into(grid, g, r0, c0, placements, hand, bag_size, unseen, held, playable,
                      context, exchanges, n_exchanges, out, points, counted, row, risk, known,
                      groups) -> None:  # fmt: skip
    """``row_features`` for kernels that allocate nothing, its scratch given: ``counted``
    (3 x len(hand) + 1 ints), ``row`` (a row's width of float64), ``risk`` and ``known``
    (NUM_TYPES float64 and bools) and ``groups`` (NUM_COLORS + NUM_SHAPES ints)."""
    for t in range(NUM_TYPES):
        known[t] = False
    width = context.shape[0]
    n_place = placements.shape[0]
    vals, counts, kept = counted[0], counted[1], counted[2]
    colours, shapes = groups[:NUM_COLORS], groups[NUM_COLORS:]
    m = 0
    for t in hand:
        if m and vals[m - 1] == t:
            counts[m - 1] += 1
        else:
            vals[m] = t
            counts[m] = 1
            m += 1
    total = 0
    for t in range(NUM_TYPES):
        total += unseen[t]
    for j in range(n_place):
        move = placements[j]
        k = move[0]
        for s in range(k):  # the walks below read the grid unchecked: keep them on it
            if not (0 < move[2 + 3 * s] - r0 < g - 1 and 0 < move[3 + 3 * s] - c0 < g - 1):
                raise ValueError("a placement lies off the table's grid: not this board's move")
        for i in range(width):
            row[i] = context[i]
        for i in range(m):
            kept[i] = counts[i]
        for s in range(k):
            t = move[4 + 3 * s]
            for i in range(m):
                if vals[i] == t:
                    kept[i] -= 1
                    break
        n_kept = 0
        for i in range(m):
            n_kept += kept[i]
        goes_out = n_kept == 0 and bag_size == 0
        pts = move[1] + (END_BONUS if goes_out else 0)
        row[COL_POINTS] = pts / POINT_SCALE
        row[COL_PLACED] = k / HAND_SIZE
        row[COL_GOES_OUT] = 1.0 if goes_out else 0.0
        # the lines through the placed tiles: the run along the placement, then across
        # each tile in the order placed (a single tile: its row, then its column)
        r, c = move[2], move[3]
        p = (r - r0) * g + c - c0
        t = move[4]
        if k == 1:
            nl, cl = _side(grid, p, -1)
            nr, cr = _side(grid, p, 1)
            nu, cu = _side(grid, p, -g)
            nd, cd = _side(grid, p, g)
            _count_line(row, nl + nr + 1, cl & cr & COMPAT[t], kept, vals, m, risk, known,
                        unseen, total, held)  # fmt: skip
            _count_line(row, nu + nd + 1, cu & cd & COMPAT[t], kept, vals, m, risk, known,
                        unseen, total, held)  # fmt: skip
        else:
            step = 1 if move[5] == r else g  # along the row, or down the column
            lo = hi = p
            compat = ALL
            for s in range(k):
                q = (move[2 + 3 * s] - r0) * g + move[3 + 3 * s] - c0
                lo = min(lo, q)
                hi = max(hi, q)
                compat &= COMPAT[move[4 + 3 * s]]
            for q in range(lo, hi + 1, step):
                if grid[q] > 0:  # a table tile between the placed ones
                    compat &= COMPAT[(grid[q] - 1) % NUM_TYPES]
            n_lo, c_lo = _side(grid, lo, -step)
            n_hi, c_hi = _side(grid, hi, step)
            length = (hi - lo) // step + 1 + n_lo + n_hi
            _count_line(row, length, compat & c_lo & c_hi, kept, vals, m, risk, known,
                        unseen, total, held)  # fmt: skip
            across = g if step == 1 else 1
            for s in range(k):
                q = (move[2 + 3 * s] - r0) * g + move[3 + 3 * s] - c0
                n1, c1 = _side(grid, q, -across)
                n2, c2 = _side(grid, q, across)
                _count_line(row, n1 + n2 + 1, c1 & c2 & COMPAT[move[4 + 3 * s]], kept, vals,
                            m, risk, known, unseen, total, held)  # fmt: skip
        _leave(row, kept, vals, m, unseen, playable, colours, shapes)
        for i in range(width):
            out[j, i] = row[i]
        points[j] = pts
    for e in range(n_exchanges):
        for i in range(width):
            row[i] = context[i]
        row[COL_EXCHANGE] = 1.0
        for i in range(m):
            kept[i] = counts[i]
        for s in range(exchanges[e, 0]):
            t = exchanges[e, 1 + s]
            for i in range(m):
                if vals[i] == t:
                    kept[i] -= 1
                    break
        _leave(row, kept, vals, m, unseen, playable, colours, shapes)
        for i in range(width):
            out[n_place + e, i] = row[i]
        points[n_place + e] = 0.0


@njit(cache=True)
def list_exchanges(hand, most, out) -> int:
    """Every distinct sub-multiset of the sorted ``hand`` of 1 to ``most`` tiles, in the
    order of sorted tuples (``hand.distinct_exchanges``' order), as rows ``[size, ids...]``
    of ``out``; returns how many. ``out`` needs ``2 ** len(hand) - 1`` rows at most."""
    return list_exchanges_into(hand, most, out, np.zeros((4, hand.shape[0] + 1), np.int64))


@kernel
def list_exchanges_into(hand, most, out, listing) -> int:
    """``list_exchanges`` for kernels that allocate nothing: ``listing`` is scratch of
    4 x len(hand) + 1 ints."""
    n_hand = hand.shape[0]
    vals, counts, used, chosen = listing[0], listing[1], listing[2], listing[3]
    for j in range(n_hand + 1):
        used[j] = 0
    m = 0
    for t in hand:
        if m and vals[m - 1] == t:
            counts[m - 1] += 1
        else:
            vals[m] = t
            counts[m] = 1
            m += 1
    # chosen[d]: the distinct-type index of the d-th tile taken
    found = 0
    depth = 0
    start = 0  # the first distinct type the next tile may take: a prefix's tiles ascend
    while True:
        i = start
        while i < m and used[i] >= counts[i]:
            i += 1
        if i < m and depth < most:  # take a tile of type i: a new, longer choice
            chosen[depth] = i
            used[i] += 1
            depth += 1
            out[found, 0] = depth
            for s in range(depth):
                out[found, 1 + s] = vals[chosen[s]]
            found += 1
            start = i
        elif depth == 0:
            return found
        else:  # back up: the last tile taken moves on to the next type
            depth -= 1
            used[chosen[depth]] -= 1
            start = chosen[depth] + 1


def move_rows(pos: Position, extra: int = 0) -> MoveRows:
    """Every legal move of the position with its row; ``extra`` zero columns are appended
    for a reader's own features.

    Computed by the kernel above from the generator's rows; where the placements come only
    as tuples (numba missing, or a crafted table without a grid) by
    ``reference_move_rows``. The rows are the same, bit for bit."""
    if not rows_pay(pos.board):
        return reference_move_rows(pos, extra)
    board = pos.board
    grid, side, r0, c0 = board.code_grid if len(board) else _EMPTY
    placements = pos.placement_rows
    hand = np.array(sorted(pos.hand), np.int64)
    exchanges = np.zeros((2 ** len(hand), len(hand) + 1), np.int64)
    most = min(len(hand), pos.bag_size)
    n_exchanges = list_exchanges(hand, most, exchanges) if pos.can_exchange else 0
    unseen = pos.unseen()
    opp_held = opponents_hold(pos)
    n = len(placements) + n_exchanges
    features = np.zeros((n, NUM_ROW_FEATURES + extra), np.float32)
    points = np.zeros(n, np.float32)
    row_features(
        grid, side, r0, c0, placements, hand, pos.bag_size, np.array(unseen, np.int64),
        opp_held, playable_types(board), context_columns(pos, NUM_ROW_FEATURES + extra, opp_held),
        exchanges, n_exchanges, features, points,
    )  # fmt: skip
    return MoveRows(
        None, None, points, features, list(pos.hand),
        placement_rows=placements, exchange_rows=exchanges[:n_exchanges],
    )  # fmt: skip


_EMPTY = empty_grid()
