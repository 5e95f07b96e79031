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

The walk's helpers are inlined (numba's ``inline="always"``) into ``walk_fitted``, the one
compiled copy of the walk every caller goes through, and it is a kernel
(``jit.kernel``): compiled without numba's reference counting, which the arrays handed
between the inlined parts had spent most of the walk's time on. A kernel allocates
nothing, so its scratch (``walk_stack``, a table of anchors, a sink) comes from its caller:
``walk`` and ``walk_fitted`` for kernels, ``grow`` and ``board_placements`` for the rest.
``_grow_at`` extends along the row and the column from one call site, so the walk is
inlined once; twice was a little faster but doubled the first compile.

An output row is ``[tiles, points, row, col, tile, row, col, tile, ...]``, the form
``placements.WIDTH`` describes, the tiles in the order they were grown. A caller that
wants only the best says so with a ``sink`` (``SINK_WIDTH`` int64s, ``sink_for``):
``ROWS`` writes every placement, ``TOP`` only those scoring the most (greedy play needs no
other), and ``BEST`` none, only the most points overall, of a placement of ``SINK_TILES``
tiles, and of one using only the types of ``SINK_TYPES`` (the look ahead's numbers).

With numba missing these functions run as plain Python, exactly but far slower than
``placements.py``, which ``Board`` then uses.
"""

from __future__ import annotations

import numpy as np

from ..jit import COMPILED, kernel, lowest_bit, njit
from ..spec import ALL, MAX_LINE
from .lines import COMPAT_ARRAY as COMPAT
from .lines import line_points

__all__ = [
    "ANCHOR_WIDTH", "BEST", "COMPILED", "ROWS", "SINK_MOST", "SINK_MOST_OF_TILES",
    "SINK_MOST_OF_TYPES", "SINK_TILES", "SINK_TYPES", "SINK_WIDTH", "TOP", "axis_fit",
    "board_placements", "fit_anchors", "grow", "sink_for",
    "points_of_line", "reset_sink", "walk", "walk_fitted", "walk_stack",
]  # fmt: skip

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


# What the walk does with each placement it finds (a sink's mode), and a sink's fields:
# its mode, the most points seen, and for BEST the most of a placement of SINK_TILES tiles
# and the most of one whose types are all in SINK_TYPES (-1 and 0 where none was found).
ROWS, TOP, BEST = range(3)
SINK_MODE, SINK_MOST, SINK_TILES, SINK_MOST_OF_TILES, SINK_TYPES, SINK_MOST_OF_TYPES = range(6)
SINK_WIDTH = 6


@njit(cache=True)
def sink_for(mode, tiles=0, types=0):
    """A fresh sink: ``mode`` (ROWS, TOP or BEST), and for BEST the number of tiles and the
    type mask whose best placements it also keeps."""
    sink = np.zeros(SINK_WIDTH, np.int64)
    reset_sink(sink, mode, tiles, types)
    return sink


@kernel
def reset_sink(sink, mode, tiles, types):
    """``sink_for`` on a sink already there, for kernels that allocate nothing."""
    sink[SINK_MODE] = mode
    sink[SINK_MOST] = -1 if mode == TOP else 0
    sink[SINK_TILES], sink[SINK_MOST_OF_TILES] = tiles, -1
    sink[SINK_TYPES], sink[SINK_MOST_OF_TYPES] = types, 0


@njit(cache=True, inline="always")
def _emit(out, count, st, k, points, sink) -> int:
    mode = sink[SINK_MODE]
    if mode == BEST:
        if points > sink[SINK_MOST]:
            sink[SINK_MOST] = points
        if k == sink[SINK_TILES] and points > sink[SINK_MOST_OF_TILES]:
            sink[SINK_MOST_OF_TILES] = points
        if points > sink[SINK_MOST_OF_TYPES]:
            used = 0
            for j in range(k):
                used |= np.int64(1) << st[j, TT]
            if not used & ~sink[SINK_TYPES]:
                sink[SINK_MOST_OF_TYPES] = points
        return count + 1
    if mode == TOP:
        if points < sink[SINK_MOST]:
            return count
        if points > sink[SINK_MOST]:
            sink[SINK_MOST] = points
            count = 0
    if count < out.shape[0]:
        out[count, 0] = k
        out[count, 1] = points
        for j in range(k):
            out[count, 2 + 3 * j] = st[j, TR]
            out[count, 3 + 3 * j] = st[j, TC]
            out[count, 4 + 3 * j] = st[j, TT]
        for j in range(2 + 3 * k, out.shape[1]):
            out[count, j] = 0
    return count + 1


# The walk's stack: one frame per tile placed after the anchor's (numba can't load a
# recursive function from its cache, so the recursion of placements.py is a loop here).
# A frame holds its run and, for the branch it is trying, the cell, candidates and grown run;
# row k also holds the k-th tile placed (TR, TC, TT: its row, column and type).
LO, HI, COMPAT_, LEN, PERP, REST, FWD, NEXT, CAND, Q, RUN, NLO, NHI, NLEN, NPERP, BFWD, QR, QC = (
    range(18)
)
TR, TC, TT = 18, 19, 20
FRAME_WIDTH = 21


@njit(cache=True, inline="always")
def _extend(grid, g, d, lo, hi, compat, length, perp_pts, rest, st, out, count, r0, c0,
            sink) -> int:  # fmt: skip
    """placements._extend and _branch: every run grown from [lo, hi] along d, forwards
    then backwards, after the anchor's tile (st[0, TR], st[0, TC], st[0, TT]); frame sp
    is row sp of ``st``, read field by field (st[sp, FIELD])."""
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
        t = lowest_bit(low)
        st[sp, CAND] = cand ^ low
        k = sp + 1  # tiles placed before this one
        st[k, TR], st[k, TC], st[k, TT] = st[sp, QR], st[sp, QC], t
        nlen = st[sp, NLEN]
        pts = points_of_line(nlen) + st[sp, NPERP]
        count = _emit(out, count, st, k + 1, pts, sink)
        left = st[sp, REST] & ~low
        if left and nlen < MAX_LINE:
            u = sp + 1
            st[u, LO], st[u, HI], st[u, COMPAT_] = st[sp, NLO], st[sp, NHI], st[sp, RUN] & COMPAT[t]
            st[u, LEN], st[u, PERP], st[u, REST] = nlen, st[sp, NPERP], left
            st[u, FWD], st[u, NEXT], st[u, CAND] = st[sp, BFWD], 0, 0
            sp = u
    return count


@njit(cache=True)
def walk_stack():
    """The walk's scratch (``walk_fitted``'s ``stack``): its frames and the tiles placed."""
    return np.zeros((MAX_LINE, FRAME_WIDTH), np.int64)


@njit(cache=True, inline="always")
def _grow_at(grid, g, p, cand, nl, nr, ch, nu, nd, cv, hand, r0, c0, stack, out, count,
             sink) -> int:  # fmt: skip
    """Every placement whose anchor is p, its tile one of ``cand``: p's runs are nl tiles
    to the left, nr to the right (compatible types ch), nu up and nd down (cv)."""
    len_h, len_v = nl + nr + 1, nu + nd + 1
    pts_h = points_of_line(len_h)
    pts_v = points_of_line(len_v)
    single = pts_h + pts_v
    if single == 0:
        single = 1
    stack[0, TR], stack[0, TC] = p // g + r0, p % g + c0
    while cand:
        low = cand & -cand
        t = lowest_bit(low)
        cand ^= low
        stack[0, TT] = t
        count = _emit(out, count, stack, 1, single, sink)
        rest = hand & ~low
        if not rest:
            continue
        for axis in range(2):  # along the row, then the column: one call site to inline
            if axis == 0:
                d, lo, hi, run, length, across = 1, p - nl, p + nr, ch, len_h, pts_v
            else:
                d, lo, hi, run, length, across = g, p - nu * g, p + nd * g, cv, len_v, pts_h
            count = _extend(grid, g, d, lo, hi, run & COMPAT[t], length, across, rest, stack,
                            out, count, r0, c0, sink)  # fmt: skip
    return count


# An anchor's row in ``fit_anchors``' table: its cell, the types that fit it, and its runs
# (tiles left and right and the types compatible with both, the same up and down).
CELL, FIT, NL, NR, CH, NU, ND, CV = range(8)
ANCHOR_WIDTH = 8


@kernel
def fit_anchors(grid, g, anchors, n_anchors, table) -> int:
    """The anchors where some tile fits, in order, each with its runs (a row of ``table``,
    ANCHOR_WIDTH wide): worked out once for several hands on one table (``walk_fitted``).
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


@kernel
def walk_fitted(grid, g, table, n, hand, r0, c0, out, sink, stack) -> int:
    """The walk from ``fit_anchors``' table, each placement to ``sink``, its scratch given
    (``walk_stack``): the same placements in the same order as ``grow``. Returns how many
    rows were meant for ``out`` (ROWS: every placement; TOP: those scoring the most;
    BEST: every placement, none written). Compiled without reference counting, which
    numba otherwise spends on the arrays handed between the walk's inlined parts (most
    of the walk's time)."""
    count = 0
    for a in range(n):
        cand = table[a, FIT] & hand
        if cand:
            count = _grow_at(grid, g, table[a, CELL], cand, table[a, NL], table[a, NR],
                             table[a, CH], table[a, NU], table[a, ND], table[a, CV], hand, r0,
                             c0, stack, out, count, sink)  # fmt: skip
    return count


@kernel
def walk(grid, g, anchors, n_anchors, hand, r0, c0, out, sink, table, stack) -> int:
    """``fit_anchors`` into ``table`` (``n_anchors`` rows at least), then ``walk_fitted``:
    ``grow`` for kernels that allocate nothing."""
    n = fit_anchors(grid, g, anchors, n_anchors, table)
    return walk_fitted(grid, g, table, n, hand, r0, c0, out, sink, stack)


@njit(cache=True)
def _grow_to(grid, g, anchors, n_anchors, hand, r0, c0, out, mode) -> int:
    table = np.empty((n_anchors, ANCHOR_WIDTH), np.int64)
    return walk(grid, g, anchors, n_anchors, hand, r0, c0, out, sink_for(mode), table,
                walk_stack())  # fmt: skip


@njit(cache=True)
def grow(grid, g, anchors, n_anchors, hand, r0, c0, out) -> int:
    """Every legal placement of the hand mask's types grown from these anchors (the
    frontier cells, flat indices, in order) on a non-empty grid; rows into ``out``.

    Returns how many placements there are: more than ``len(out)`` means ``out`` was too
    short (the rows past its end were not written) and the call should be repeated."""
    return _grow_to(grid, g, anchors, n_anchors, hand, r0, c0, out, ROWS)


@njit(cache=True)
def board_placements(grid, g, box, ranks, hand, r0, c0, out, mode) -> int:
    """``grow`` on a ``Board``'s grid, every row (``mode`` ROWS) or those scoring the most
    (TOP): the anchors are the cells with negative codes around ``box`` (min row, max row,
    min col, max col, grid coordinates), taken in the order they joined the frontier:
    codes -1 to -``ranks``, each rank once, so each cell is put in its place instead of
    sorted."""
    at = np.full(ranks, -1, np.int64)  # at[k]: the cell ranked k, if still a frontier cell
    for r in range(box[0] - 1, box[1] + 2):
        for c in range(box[2] - 1, box[3] + 2):
            code = grid[r * g + c]
            if code < 0:
                at[-1 - code] = r * g + c
    return _grow_ranked(grid, g, at, ranks, hand, r0, c0, out, mode)


@njit(cache=True, inline="always")
def _grow_ranked(grid, g, at, ranks, hand, r0, c0, out, mode) -> int:
    """``_grow_to`` from ``at``, the cells by rank (-1 where none), packed in order."""
    n = 0
    for k in range(ranks):
        if at[k] >= 0:
            at[n] = at[k]
            n += 1
    return _grow_to(grid, g, at, n, hand, r0, c0, out, mode)
