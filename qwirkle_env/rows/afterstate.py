"""The look ahead's numbers on the table after a move, in compiled code, with no board copy.

The Python look (``TurnLookAhead.reference_values``) copies the board, puts the move down
and lists every placement of a few hands on the copy. Here each move's tiles are written
into the board's own grid of cell codes (``Board.code_grid``) and taken out again, all
the moves of a turn in one kernel call;
the frontier after the move is the board's frontier cells still empty plus the empty
cells beside the new tiles, and the engine's compiled generator (``engine/movegen``'s walk,
with a ``BEST`` sink: no rows written, only the maxima) finds the replies from it. The
loop runs as a kernel, without reference counting; ``_look`` makes its scratch. The
numbers are the Python look ahead's, bit for bit
(``tests/agents/move_value/test_afterstate.py``): the same maxima, and ``expected_best_tile``'s sum
in the same order of the same floating-point operations.

``values_after`` (every move of a turn in one call) returns None where the kernel cannot
serve: numba missing, a table with no grid, or tiles that would come within
``GRID_MARGIN`` of the grid's edge (the board would grow its grid there); the caller then
takes the Python path.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ..engine.board import Board
from ..engine.compiled import (
    ANCHOR_WIDTH,
    BEST,
    COMPILED,
    FIT,
    GRID_MARGIN,
    ND,
    NL,
    NR,
    NU,
    SINK_MOST,
    SINK_MOST_OF_TILES,
    SINK_MOST_OF_TYPES,
    WIDTH,
    fit_anchors,
    points_of_line,
    reset_sink,
    sink_for,
    walk_fitted,
    walk_stack,
)  # fmt: skip
from ..jit import kernel, lowest_bit, njit
from ..spec import END_BONUS, HAND_SIZE, MAX_LINE, NUM_TYPES
from .kernels import chance_of_holding

__all__ = ["LOOK_WIDTH", "NUM_VALUES", "SPOT_WIDTH", "Turn", "values_after"]

NUM_VALUES = 6  # look_ahead.LOOK_AHEAD_FEATURES
SPOT_WIDTH = 3  # per tile type after the move: its best single-tile points, its spots, a Qwirkle
LOOK_WIDTH = NUM_VALUES + NUM_TYPES * SPOT_WIDTH  # a look's row: the values, then the spots


class Turn(Protocol):
    """What the look reads of a turn (``look_ahead.TurnLookAhead`` holds it)."""

    hand_counts: np.ndarray  # our tiles of each type
    draw_masks: np.ndarray  # each top-up's type mask by how many tiles we would draw
    bag_size: int
    unseen_counts: np.ndarray  # copies of each type in the bag or the opponents' hands
    unseen_total: int
    opp_masks: np.ndarray  # the next opponent's dealt (or, exact, known) hands
    exact: bool  # the opponent's hand is known
    held: int  # tiles the next opponent holds
    their: np.ndarray  # P(the next opponent holds each type)


@kernel
def _frontier(grid, g, box, cells, n_cells, anchors) -> int:
    """The frontier after the move (its tiles already in ``grid``): the board's frontier
    cells (negative codes, within a cell of ``box``) not covered, then the empty cells
    beside the new tiles, each once. Order does not matter here: only maxima and sorted
    sums are taken from it."""
    n = 0
    for r in range(box[0] - 1, box[1] + 2):
        for c in range(box[2] - 1, box[3] + 2):
            p = r * g + c
            if grid[p] < 0:
                anchors[n] = p
                n += 1
    listed = n
    for j in range(n_cells):
        p = cells[j]
        for q in (p - 1, p + 1, p - g, p + g):
            if grid[q] != 0:
                continue
            seen = False
            for k in range(listed, n):
                if anchors[k] == q:
                    seen = True
                    break
            if not seen:
                anchors[n] = q
                n += 1
    return n


@kernel
def _best(grid, g, table, n, hand, exact, held, sub, none, stack, sink):
    """(most points of one placement of the hand mask, whether one goes out, most points
    of one using only the types of ``sub``, a part of the hand): the end bonus added to
    each placement of ``held`` tiles when the hand is known (``exact``). A placement never
    holds a type twice, so the part's best is among the hand's placements. ``none``: an
    empty row array, as no row is written; ``stack`` and ``sink``: the walk's scratch."""
    reset_sink(sink, BEST, held if exact else -1, sub)
    walk_fitted(grid, g, table, n, hand, 0, 0, none, sink, stack)
    best, gone = sink[SINK_MOST], sink[SINK_MOST_OF_TILES] >= 0
    if gone:
        best = max(best, sink[SINK_MOST_OF_TILES] + END_BONUS)
    return best, gone, sink[SINK_MOST_OF_TYPES]


@kernel
def _spot_points(table, a) -> int:
    """What one tile scores at anchor ``a`` of ``fit_anchors``' table: both lines through
    it, or 1 alone (``look_ahead._spot_points``)."""
    pts = points_of_line(table[a, NL] + table[a, NR] + 1)
    pts += points_of_line(table[a, NU] + table[a, ND] + 1)
    return pts if pts else 1


@kernel
def _expected(table, n, chance, spot_pts, spot_p) -> float:
    """``look_ahead.expected_best_tile`` from ``fit_anchors``' table: the spots sorted by
    points, then chance, both falling, and summed in that order."""
    m = 0
    for a in range(n):
        fit = table[a, FIT]
        miss = 1.0
        while fit:
            low = fit & -fit
            t = lowest_bit(low)
            miss *= 1.0 - chance[t]
            fit ^= low
        p = 1.0 - miss
        if not p > 0.0:
            continue
        pts = _spot_points(table, a)
        k = m  # insertion: after every spot worth more, or as much with a chance as high
        while k > 0 and (spot_pts[k - 1] < pts or (spot_pts[k - 1] == pts and spot_p[k - 1] < p)):
            spot_pts[k] = spot_pts[k - 1]
            spot_p[k] = spot_p[k - 1]
            k -= 1
        spot_pts[k] = pts
        spot_p[k] = p
        m += 1
    expected, none_yet = 0.0, 1.0
    for k in range(m):
        expected += spot_pts[k] * spot_p[k] * none_yet
        none_yet *= 1.0 - spot_p[k]
        if none_yet < 1e-6:
            break
    return expected


@kernel
def _type_spots(table, n, res, j) -> None:
    """For each tile type, into ``res[j, NUM_VALUES:]`` (SPOT_WIDTH a type): the most one
    tile of it scores on the table after the move, the cells where it fits, and 1 if one
    of them completes a line of six."""
    for k in range(NUM_VALUES, NUM_VALUES + NUM_TYPES * SPOT_WIDTH):
        res[j, k] = 0.0
    for a in range(n):
        pts = _spot_points(table, a)
        h = table[a, NL] + table[a, NR] + 1
        v = table[a, NU] + table[a, ND] + 1
        six = 1.0 if (h == MAX_LINE or v == MAX_LINE) else 0.0
        fit = table[a, FIT]
        while fit:
            low = fit & -fit
            k = NUM_VALUES + SPOT_WIDTH * lowest_bit(low)
            fit ^= low
            res[j, k] = max(res[j, k], pts)
            res[j, k + 1] += 1.0
            res[j, k + 2] = max(res[j, k + 2], six)


@kernel
def _values(grid, g, box, cells, types, counts, opp, exact, held, mine, kept, their, drawn,
            chances, res, anchors, table, spot_pts, spot_p, saved, ours, none, stack,
            sink):  # fmt: skip
    """Each move's six numbers and its spots by type into ``res``; move j places
    ``counts[j]`` tiles (``cells[j]``, ``types[j]``) and then holds ``mine[j, d]`` after
    top-up d, ``kept[j]`` alone; our chance of each type is ``chances[drawn[j]]``, a kept
    type's 1. The rest is scratch (``_look`` makes it): compiled without reference
    counting."""
    for j in range(len(counts)):
        k = counts[j]
        for i in range(k):
            saved[i] = grid[cells[j, i]]
            grid[cells[j, i]] = 1 + types[j, i]
        n = fit_anchors(grid, g, anchors, _frontier(grid, g, box, cells[j], k, anchors), table)
        total, gone = 0.0, False
        for h in range(len(opp)):
            best, out_h, _ = _best(grid, g, table, n, opp[h], exact, held, 0, none, stack, sink)
            total += best
            gone = gone or out_h
        # our next move from the kept tiles topped up (the mean over the top-ups), and (a
        # part of it) from them alone
        topped = 0.0
        for d in range(mine.shape[1]):
            best, _, own = _best(grid, g, table, n, mine[j, d], False, 0, kept[j], none, stack,
                                 sink)  # fmt: skip
            topped += best
        topped /= mine.shape[1]
        for t in range(len(ours)):
            ours[t] = 1.0 if (kept[j] >> t) & 1 else chances[drawn[j], t]
        res[j, 0] = total / max(len(opp), 1)
        res[j, 1] = 1.0 if gone else 0.0
        res[j, 2] = topped
        res[j, 3] = _expected(table, n, their, spot_pts, spot_p)
        res[j, 4] = own
        res[j, 5] = _expected(table, n, ours, spot_pts, spot_p)
        _type_spots(table, n, res, j)
        for i in range(k):
            grid[cells[j, i]] = saved[i]


@njit(cache=True)
def _prepare(rows, taken, g, r0, c0, hand_counts, draw_masks, bag_size, unseen, unseen_total,
             cells, types, mine, kept, drawn, chances) -> bool:  # fmt: skip
    """Each move's tiles on the grid (False if one would come within GRID_MARGIN of its
    edge, where the board would grow the grid), and our hand after it: its masks topped up
    by the draw and not, how many tiles we would draw, and for each such number the chance
    that the draw holds each type (``TurnLookAhead._drawn_chance``)."""
    lo, hi = GRID_MARGIN, g - GRID_MARGIN
    left = np.empty(NUM_TYPES, np.int64)
    have = np.zeros(HAND_SIZE + 1, np.bool_)
    for j in range(rows.shape[0]):
        for i in range(rows[j, 0]):
            r, c = rows[j, 2 + 3 * i] - r0, rows[j, 3 + 3 * i] - c0
            if not (lo <= r < hi and lo <= c < hi):
                return False
            cells[j, i] = r * g + c
            types[j, i] = rows[j, 4 + 3 * i]
        left[:] = hand_counts
        for i in range(taken.shape[1]):
            if taken[j, i] >= 0:
                left[taken[j, i]] -= 1
        n_kept, mask = 0, 0
        for t in range(NUM_TYPES):
            n_kept += left[t]
            if left[t] > 0:
                mask |= np.int64(1) << t
        kept[j] = mask
        for d in range(draw_masks.shape[0]):
            mine[j, d] = mask | draw_masks[d, HAND_SIZE - n_kept]
        d = min(HAND_SIZE - n_kept, bag_size)
        drawn[j] = d
        if not have[d]:
            for t in range(NUM_TYPES):
                chances[d, t] = chance_of_holding(unseen[t], unseen_total, d)
            have[d] = True
    return True


@njit(cache=True)
def _look(grid, g, box, r0, c0, rows, taken, hand_counts, draw_masks, bag_size, unseen,
          unseen_total, opp, exact, held, their, res) -> bool:  # fmt: skip
    """``_prepare``, then ``_values``: one call from Python for a turn's moves."""
    m = rows.shape[0]
    width = 1
    for j in range(m):
        width = max(width, rows[j, 0])
    cells = np.zeros((m, width), np.int64)
    types = np.zeros((m, width), np.int64)
    mine = np.empty((m, draw_masks.shape[0]), np.int64)
    kept = np.empty(m, np.int64)
    drawn = np.empty(m, np.int64)
    chances = np.zeros((HAND_SIZE + 1, NUM_TYPES))
    if not _prepare(rows, taken, g, r0, c0, hand_counts, draw_masks, bag_size, unseen,
                    unseen_total, cells, types, mine, kept, drawn, chances):  # fmt: skip
        return False
    counts = rows[:, 0].copy()
    room = (box[1] - box[0] + 3) * (box[3] - box[2] + 3) + 4 * width
    _values(grid, g, box, cells, types, counts, opp, exact, held, mine, kept, their, drawn,
            chances, res, np.empty(room, np.int64), np.empty((room, ANCHOR_WIDTH), np.int64),
            np.empty(room, np.int64), np.empty(room, np.float64), np.empty(width, grid.dtype),
            np.empty(NUM_TYPES, np.float64), np.empty((0, WIDTH), np.int64), walk_stack(),
            sink_for(BEST))  # fmt: skip
    return True


def values_after(
    board: Board, rows: np.ndarray, taken: np.ndarray, turn: Turn
) -> np.ndarray | None:
    """``TurnLookAhead.values``' six numbers and spots by type for each move of a turn,
    one row each (LOOK_WIDTH wide), on a
    non-empty ``board``, or None where the compiled path cannot serve. ``rows``: the moves'
    tiles as placement rows (``Board.placement_rows``' form; an exchange's places none);
    ``taken``: the tile ids each move takes from the hand (-1: none); ``turn``: the
    turn's hand, deals and chances as arrays."""
    coded = board.code_grid if COMPILED else None
    if coded is None:
        return None
    grid, g, r0, c0 = coded
    top, bottom, left, right = board.bounds()
    box = np.array((top - r0, bottom - r0, left - c0, right - c0), np.int64)
    res = np.empty((len(rows), LOOK_WIDTH), np.float64)
    ok = _look(grid, g, box, r0, c0, rows, taken, turn.hand_counts, turn.draw_masks,
               turn.bag_size, turn.unseen_counts, turn.unseen_total, turn.opp_masks,
               turn.exact, turn.held, turn.their, res)  # fmt: skip
    return res if ok else None
