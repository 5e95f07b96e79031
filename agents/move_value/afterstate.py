"""The look ahead's numbers on the table after a move, in compiled code, with no board copy.

The Python look (``TurnLookAhead.reference_values``) copies the board, puts the move down
and lists every placement of a few hands on the copy. Here each move's tiles are written
into the board's own grid of cell codes (``Board.code_grid``) and taken out again, all
the moves of a turn in one kernel call;
the frontier after the move is the board's frontier cells still empty plus the empty
cells beside the new tiles, and the engine's compiled generator (``engine/movegen.grow``)
lists the replies from it. The numbers are the Python look ahead's, bit for bit
(``tests/agents/move_value/test_afterstate.py``): the same maxima, and ``expected_best_tile``'s sum
in the same order of the same floating-point operations.

``values_after`` (every move of a turn in one call) returns None where the kernel cannot
serve: numba missing, a table with no grid, or tiles that would come within
``GRID_MARGIN`` of the grid's edge (the board would grow its grid there); the caller then
takes the Python path.
"""

from __future__ import annotations

import numpy as np

from qwirkle_env.engine.board import GRID_MARGIN, Board
from qwirkle_env.engine.movegen import (
    ANCHOR_WIDTH,
    COMPILED,
    FIT,
    ND,
    NL,
    NR,
    NU,
    fit_anchors,
    grow_fitted,
    points_of_line,
)  # fmt: skip
from qwirkle_env.engine.placements import WIDTH
from qwirkle_env.jit import njit
from qwirkle_env.spec import END_BONUS

__all__ = ["values_after"]


@njit(cache=True)
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


@njit(cache=True)
def _best(grid, g, table, n, hand, exact, held, sub, out):
    """(most points of one placement of the hand mask, whether one goes out, most points
    of one using only the types of ``sub``, a part of the hand): the end bonus added to
    each placement of ``held`` tiles when the hand is known (``exact``). A placement never
    holds a type twice, so the part's best is among the hand's placements."""
    count = grow_fitted(grid, g, table, n, hand, 0, 0, out)
    if count > out.shape[0]:
        out = np.empty((count, WIDTH), np.int64)
        grow_fitted(grid, g, table, n, hand, 0, 0, out)
    best = part = 0
    gone = False
    for k in range(count):
        pts = out[k, 1]
        if exact and out[k, 0] == held:
            pts += END_BONUS
            gone = True
        best = max(best, pts)
        if sub and pts > part:
            used = 0
            for j in range(out[k, 0]):
                used |= np.int64(1) << out[k, 4 + 3 * j]
            if not used & ~sub:
                part = pts
    return best, gone, part


@njit(cache=True)
def _expected(table, n, chance, spot_pts, spot_p) -> float:
    """``look_ahead.expected_best_tile`` from ``fit_anchors``' table: the spots sorted by
    points, then chance, both falling, and summed in that order."""
    m = 0
    for a in range(n):
        fit = table[a, FIT]
        miss = 1.0
        while fit:
            low = fit & -fit
            t = 0
            while not (low >> t) & 1:
                t += 1
            miss *= 1.0 - chance[t]
            fit ^= low
        p = 1.0 - miss
        if not p > 0.0:
            continue
        pts = points_of_line(table[a, NL] + table[a, NR] + 1)
        pts += points_of_line(table[a, NU] + table[a, ND] + 1)
        if pts == 0:
            pts = 1
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


@njit(cache=True)
def _values(grid, g, box, cells, types, counts, opp, exact, held, mine, kept, their, drawn,
            chances, res):  # fmt: skip
    """Each move's six numbers into ``res``; move j places ``counts[j]`` tiles
    (``cells[j]``, ``types[j]``) and then holds ``mine[j]``, ``kept[j]`` alone; our chance
    of each type is ``chances[drawn[j]]``, a kept type's 1."""
    room = (box[1] - box[0] + 3) * (box[3] - box[2] + 3) + 4 * cells.shape[1]
    anchors = np.empty(room, np.int64)
    table = np.empty((room, ANCHOR_WIDTH), np.int64)
    spot_pts = np.empty(room, np.int64)
    spot_p = np.empty(room, np.float64)
    saved = np.empty(cells.shape[1], grid.dtype)
    ours = np.empty(chances.shape[1], np.float64)
    out = np.empty((256, WIDTH), np.int64)
    for j in range(len(counts)):
        k = counts[j]
        for i in range(k):
            saved[i] = grid[cells[j, i]]
            grid[cells[j, i]] = 1 + types[j, i]
        n = fit_anchors(grid, g, anchors, _frontier(grid, g, box, cells[j], k, anchors), table)
        total, gone = 0.0, False
        for h in range(len(opp)):
            best, out_h, _ = _best(grid, g, table, n, opp[h], exact, held, 0, out)
            total += best
            gone = gone or out_h
        # our next move from the kept tiles topped up, and (a part of it) from them alone
        topped, _, own = _best(grid, g, table, n, mine[j], False, 0, kept[j], out)
        for t in range(len(ours)):
            ours[t] = 1.0 if (kept[j] >> t) & 1 else chances[drawn[j], t]
        res[j, 0] = total / max(len(opp), 1)
        res[j, 1] = 1.0 if gone else 0.0
        res[j, 2] = topped
        res[j, 3] = _expected(table, n, their, spot_pts, spot_p)
        res[j, 4] = own
        res[j, 5] = _expected(table, n, ours, spot_pts, spot_p)
        for i in range(k):
            grid[cells[j, i]] = saved[i]


def values_after(
    board: Board,
    moves: list,
    opp: np.ndarray,
    exact: bool,
    held: int,
    mine: np.ndarray,
    kept: np.ndarray,
    their: np.ndarray,
    drawn: np.ndarray,
    chances: np.ndarray,
) -> np.ndarray | None:
    """``TurnLookAhead.values``' six numbers for each move of a turn, one row each, on a
    non-empty ``board``, or None where the compiled path cannot serve. ``moves``: each
    move's ``((cell, tile_id), ...)`` (empty: an exchange); ``opp``: the opponent hand
    masks; per move, ``mine``/``kept``: our next hand's masks, topped up and not (a part
    of it), ``drawn``: the row of ``chances`` (P(we hold each type), by how many tiles we
    would draw) to read; ``their``: P(they hold each type)."""
    coded = board.code_grid if COMPILED else None
    if coded is None:
        return None
    grid, g, r0, c0 = coded
    lo, hi = GRID_MARGIN, g - GRID_MARGIN
    width = max((len(items) for items in moves), default=0) or 1
    cells = np.zeros((len(moves), width), np.int64)
    types = np.zeros((len(moves), width), np.int64)
    counts = np.zeros(len(moves), np.int64)
    for j, items in enumerate(moves):
        counts[j] = len(items)
        for i, ((r, c), t) in enumerate(items):
            if not (lo <= r - r0 < hi and lo <= c - c0 < hi):
                return None
            cells[j, i] = (r - r0) * g + c - c0
            types[j, i] = t
    top, bottom, left, right = board.bounds()
    box = np.array((top - r0, bottom - r0, left - c0, right - c0), np.int64)
    res = np.empty((len(moves), 6), np.float64)
    _values(grid, g, box, cells, types, counts, opp, exact, held, mine, kept, their, drawn,
            chances, res)  # fmt: skip
    return res
