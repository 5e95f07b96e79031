"""The compiled move generator: ``placements.py``'s walk on a grid of cell codes.

The same walk as ``placements.grown_placements``, anchor by anchor, tile by tile, in the
same order, so the two list the same placements with the same points in the same order
(``tests/engine/test_movegen.py`` checks it on thousands of positions). The board's frontier
records are read off the grid where the walk needs them instead of from a dict.

The grid is a flat array of cell codes, ``g`` cells to a row: 0 an empty cell, ``1 + t``
a tile of type ``t``, and a negative code ``-1 - k`` an empty cell that was the ``k``-th
to join the board's frontier (``Board`` writes them, so the anchors come in the order
of the board's frontier dict). The batched simulator's grids use the same positive codes,
so ``grow`` reads them as they are.

The walk's helpers are inlined (numba's ``inline="always"``) into ``grow_fitted``, the one
compiled copy of the walk every caller goes through: a call between compiled functions
passes each array field by field, which cost a good part of the walk. ``_grow_at``
extends along the row and the column from one call site, so the walk is inlined once;
twice was a little faster but doubled the first compile.

An output row is ``[tiles, points, row, col, tile, row, col, tile, ...]``, the form
``placements.WIDTH`` describes, the tiles in the order they were grown. With numba missing
these functions run as plain Python, exactly but far slower than ``placements.py``, which
``Board`` then uses.
"""

from __future__ import annotations

import numpy as np

from ..jit import COMPILED, njit
from ..spec import MAX_LINE, NUM_TYPES
from .lines import COMPAT as _COMPAT
from .lines import line_points

__all__ = [
    "ANCHOR_WIDTH", "COMPILED", "axis_fit", "board_placements", "fit_anchors", "grow",
    "grow_fitted", "points_of_line",
]  # fmt: skip

ALL = (1 << NUM_TYPES) - 1
COMPAT = np.array(_COMPAT, dtype=np.int64)
points_of_line = njit(cache=True)(line_points)  # lines.line_points, for kernels


@njit(cache=True, inline="always")
def _side(grid, p, d):
    """(length, type mask, compatible mask) of the run of tiles next to p in direction d."""
    n, types, compat = 0, 0, ALL
    q = p + d
    while grid[q] > 0:
        t = (grid[q] - 1) % 36
        n += 1
        types |= np.int64(1) << t
        compat &= COMPAT[t]
        q += d
    return n, types, compat


@njit(cache=True, inline="always")
def _axis(grid, p, d):
    """For empty p along d: (types that fit, tiles before p, tiles after p, the types
    compatible with both runs)."""
    n1, t1, c1 = _side(grid, p, -d)
    n2, t2, c2 = _side(grid, p, d)
    fit = 0 if t1 & ~c2 else c1 & c2
    return fit, n1, n2, c1 & c2


@njit(cache=True, inline="always")
def axis_fit(grid, p, d):
    """For empty p along d: (types that fit, length of the line a tile there makes)."""
    fit, n1, n2, _ = _axis(grid, p, d)
    return fit, n1 + n2 + 1


@njit(cache=True, inline="always")
def _touches(grid, g, q) -> bool:
    return grid[q - 1] > 0 or grid[q + 1] > 0 or grid[q - g] > 0 or grid[q + g] > 0


@njit(cache=True, inline="always")
def _emit(out, count, rows, cols, types, k, points) -> int:
    if count < out.shape[0]:  # indexed, not through a row view: a view costs a refcount
        out[count, 0] = k
        out[count, 1] = points
        for j in range(k):
            out[count, 2 + 3 * j] = rows[j]
            out[count, 3 + 3 * j] = cols[j]
            out[count, 4 + 3 * j] = types[j]
        for j in range(2 + 3 * k, out.shape[1]):
            out[count, j] = 0
    return count + 1


# The walk's stack: one frame per tile placed after the anchor's (numba can't load a
# recursive function from its cache, so the recursion of placements.py is a loop here).
# A frame holds its run and, for the branch it is trying, the cell, candidates and grown run.
LO, HI, COMPAT_, LEN, PERP, REST, FWD, NEXT, CAND, Q, RUN, NLO, NHI, NLEN, NPERP, BFWD, QR, QC = (
    range(18)
)


@njit(cache=True, inline="always")
def _extend(grid, g, d, lo, hi, compat, length, perp_pts, rest, rows, cols, types, st, out,
            count, r0, c0) -> int:  # fmt: skip
    """placements._extend and _branch: every run grown from [lo, hi] along d, forwards
    then backwards, after the anchor's tile (rows[0], cols[0], types[0]). Frames are read as
    st[sp, FIELD], not through row views, each of which would cost a reference count."""
    sp = 0
    st[0, LO], st[0, HI], st[0, COMPAT_], st[0, LEN] = lo, hi, compat, length
    st[0, PERP], st[0, REST], st[0, FWD], st[0, NEXT], st[0, CAND] = perp_pts, rest, 1, 0, 0
    while sp >= 0:
        if st[sp, CAND] == 0:  # the next branch: 0 forwards past hi, 1 backwards before lo
            which = st[sp, NEXT]
            if which == 2:
                sp -= 1
                continue
            st[sp, NEXT] = which + 1
            compat = st[sp, COMPAT_]
            if which == 0:
                if not st[sp, FWD]:
                    continue
                q = st[sp, HI] + d
                if _touches(grid, g, q):
                    n, beyond_types, beyond = _side(grid, q, d)
                    if beyond_types & ~compat:  # the tiles beyond q don't fit the run
                        continue
                    fit, perp_len = axis_fit(grid, q, g if d == 1 else 1)
                    st[sp, RUN] = compat & beyond
                    st[sp, CAND] = compat & beyond & fit & st[sp, REST]
                    st[sp, NLO], st[sp, NHI] = st[sp, LO], st[sp, HI] + d * (1 + n)
                    st[sp, NLEN] = st[sp, LEN] + 1 + n
                    st[sp, NPERP] = st[sp, PERP] + points_of_line(perp_len)
                else:
                    st[sp, RUN] = compat
                    st[sp, CAND] = compat & st[sp, REST]
                    st[sp, NLO], st[sp, NHI] = st[sp, LO], st[sp, HI] + d
                    st[sp, NLEN], st[sp, NPERP] = st[sp, LEN] + 1, st[sp, PERP]
                st[sp, BFWD] = 1
            else:
                q = st[sp, LO] - d
                if _touches(grid, g, q):  # an anchor there grows this placement itself
                    continue
                st[sp, RUN] = compat
                st[sp, CAND] = compat & st[sp, REST]
                st[sp, NLO], st[sp, NHI] = st[sp, LO] - d, st[sp, HI]
                st[sp, NLEN], st[sp, NPERP] = st[sp, LEN] + 1, st[sp, PERP]
                st[sp, BFWD] = 0
            st[sp, Q] = q
            if st[sp, CAND]:  # where the tile goes, in table coordinates, worked out once
                st[sp, QR], st[sp, QC] = q // g + r0, q % g + c0
            continue
        cand = st[sp, CAND]
        low = cand & -cand
        t = 0
        while not (low >> t) & 1:
            t += 1
        st[sp, CAND] = cand ^ low
        k = sp + 1  # tiles placed before this one
        rows[k], cols[k], types[k] = st[sp, QR], st[sp, QC], t
        nlen = st[sp, NLEN]
        count = _emit(out, count, rows, cols, types, k + 1, points_of_line(nlen) + st[sp, NPERP])
        left = st[sp, REST] & ~low
        if left and nlen < MAX_LINE:
            u = sp + 1
            st[u, LO], st[u, HI], st[u, COMPAT_] = st[sp, NLO], st[sp, NHI], st[sp, RUN] & COMPAT[t]
            st[u, LEN], st[u, PERP], st[u, REST] = nlen, st[sp, NPERP], left
            st[u, FWD], st[u, NEXT], st[u, CAND] = st[sp, BFWD], 0, 0
            sp = u
    return count


@njit(cache=True)
def _walk():
    """The walk's scratch: the tiles placed so far (rows, cols, types) and its stack."""
    rows = np.zeros(MAX_LINE, np.int64)
    cols = np.zeros(MAX_LINE, np.int64)
    types = np.zeros(MAX_LINE, np.int64)
    return rows, cols, types, np.zeros((MAX_LINE, 18), np.int64)


@njit(cache=True, inline="always")
def _grow_at(grid, g, p, cand, nl, nr, ch, nu, nd, cv, hand, r0, c0, rows, cols, types,
             stack, out, count) -> int:  # fmt: skip
    """Every placement whose anchor is p, its tile one of ``cand``: p's runs are nl tiles
    to the left, nr to the right (compatible types ch), nu up and nd down (cv)."""
    len_h, len_v = nl + nr + 1, nu + nd + 1
    pts_h = points_of_line(len_h)
    pts_v = points_of_line(len_v)
    single = pts_h + pts_v
    if single == 0:
        single = 1
    rows[0], cols[0] = p // g + r0, p % g + c0
    while cand:
        low = cand & -cand
        t = 0
        while not (low >> t) & 1:
            t += 1
        cand ^= low
        types[0] = t
        count = _emit(out, count, rows, cols, types, 1, single)
        rest = hand & ~low
        if not rest:
            continue
        for axis in range(2):  # along the row, then the column: one call site to inline
            if axis == 0:
                d, lo, hi, run, length, across = 1, p - nl, p + nr, ch, len_h, pts_v
            else:
                d, lo, hi, run, length, across = g, p - nu * g, p + nd * g, cv, len_v, pts_h
            count = _extend(grid, g, d, lo, hi, run & COMPAT[t], length, across, rest, rows,
                            cols, types, stack, out, count, r0, c0)  # fmt: skip
    return count


# An anchor's row in ``fit_anchors``' table: its cell, the types that fit it, and its runs
# (tiles left and right and the types compatible with both, the same up and down).
CELL, FIT, NL, NR, CH, NU, ND, CV = range(8)
ANCHOR_WIDTH = 8


@njit(cache=True)
def fit_anchors(grid, g, anchors, n_anchors, table) -> int:
    """The anchors where some tile fits, in order, each with its runs (a row of ``table``,
    ANCHOR_WIDTH wide): worked out once for several hands on one table (``grow_fitted``).
    Returns how many rows."""
    n = 0
    for a in range(n_anchors):
        p = anchors[a]
        fit_h, nl, nr, ch = _axis(grid, p, 1)
        if not fit_h:
            continue
        fit_v, nu, nd, cv = _axis(grid, p, g)
        if not fit_h & fit_v:
            continue
        table[n, CELL], table[n, FIT] = p, fit_h & fit_v
        table[n, NL], table[n, NR], table[n, CH] = nl, nr, ch
        table[n, NU], table[n, ND], table[n, CV] = nu, nd, cv
        n += 1
    return n


@njit(cache=True)
def grow_fitted(grid, g, table, n, hand, r0, c0, out) -> int:
    """``grow`` from ``fit_anchors``' table: the same placements in the same order."""
    rows, cols, types, stack = _walk()
    count = 0
    for a in range(n):
        cand = table[a, FIT] & hand
        if cand:
            count = _grow_at(grid, g, table[a, CELL], cand, table[a, NL], table[a, NR],
                             table[a, CH], table[a, NU], table[a, ND], table[a, CV], hand, r0,
                             c0, rows, cols, types, stack, out, count)  # fmt: skip
    return count


@njit(cache=True)
def grow(grid, g, anchors, n_anchors, hand, r0, c0, out) -> int:
    """Every legal placement of the hand mask's types grown from these anchors (the
    frontier cells, flat indices, in order) on a non-empty grid; rows into ``out``.

    Returns how many placements there are: more than ``len(out)`` means ``out`` was too
    short (the rows past its end were not written) and the call should be repeated."""
    table = np.empty((n_anchors, ANCHOR_WIDTH), np.int64)
    n = fit_anchors(grid, g, anchors, n_anchors, table)
    return grow_fitted(grid, g, table, n, hand, r0, c0, out)


@njit(cache=True)
def board_placements(grid, g, box, ranks, hand, r0, c0, out) -> int:
    """``grow`` on a ``Board``'s grid: the anchors are the cells with negative codes
    around ``box`` (min row, max row, min col, max col, grid coordinates), taken in the
    order they joined the frontier: codes -1 to -``ranks``, each rank once, so each cell
    is put in its place instead of sorted."""
    at = np.full(ranks, -1, np.int64)  # at[k]: the cell ranked k, if still a frontier cell
    for r in range(box[0] - 1, box[1] + 2):
        for c in range(box[2] - 1, box[3] + 2):
            code = grid[r * g + c]
            if code < 0:
                at[-1 - code] = r * g + c
    n = 0
    for k in range(ranks):
        if at[k] >= 0:
            at[n] = at[k]
            n += 1
    return grow(grid, g, at, n, hand, r0, c0, out)
