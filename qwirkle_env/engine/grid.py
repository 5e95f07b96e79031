"""The board's grid of cell codes, played on by compiled kernels.

``Board`` keeps the table as a flat grid of cell codes (``movegen.py`` describes them) and,
beside it, the fit mask of every frontier cell, how many frontier cells each tile type
fits, and the cells changed since its frontier dict was last brought up to date. A
trusted placement is then one kernel call: the tiles go down, the cells at the ends of
every run through them are refreshed in the order the Python board walks them (the
iteration order of its set of them, ``setorder.py``, so new cells join the frontier with
the ranks the Python board gives them) and the points come back. The frontier's records,
which only Python readers need, are rebuilt from the changed cells when one asks
(``Board.frontier``).

The board's ``work`` array holds, in turn: the number of frontier cells each type fits
(``NUM_TYPES`` counts), the board's numbers while the kernel plays (at ``SEQ`` .. ``RIGHT``:
the frontier's ranks so far, the changed cells' count, the types that fit somewhere, the
grid's side and origin, the types all on the table and the bounds; at ``ON_TABLE`` the
copies of each type on the table), the changed cells (grid indices, ``CHANGED_CAP`` of room), the
frontier cells by rank (the cell that joined k-th at ``ANCHORS_AT + k``, while k <
``ANCHORS_CAP``: the move generator's anchors in order, without a scan of the table) and
the kernel's scratch, whose first entries are the placement, as codes ``(grid index << 6)
| tile id`` from ``SCRATCH_AT`` on. Fit masks use the low ``NUM_TYPES`` bits of ``fits``;
``CHANGED`` marks a cell already listed among the changed ones.
"""

from __future__ import annotations

import numpy as np

from ..jit import kernel, lowest_bit, njit
from ..spec import COPIES, MAX_LINE, NUM_TYPES
from .movegen import (
    ANCHOR_WIDTH,
    FRAME_WIDTH,
    SINK_WIDTH,
    axis_fit,
    points_of_line,
    reset_sink,
    walk,
)
from .setorder import MAX_ITEMS, REACH_CELLS, TABLE_SIZE, set_order

__all__ = [
    "ANCHORS_AT", "ANCHORS_CAP", "BOTTOM", "CHANGED", "CHANGED_AT", "CHANGED_CAP",
    "CHANGED_ROOM", "COL0", "FIT_BITS", "FITTING", "FULL", "LEFT", "LIST_SCRATCH",
    "N_CHANGED", "ON_TABLE", "RIGHT", "ROW0", "SCRATCH_AT", "SEQ", "SIDE", "SYNC_SOON", "TOP",
    "WORK_SIZE",
    "changes_in_reach", "count_fits", "placements", "play",
]  # fmt: skip

CHANGED = np.int64(1) << 62
FIT_BITS = (1 << NUM_TYPES) - 1
CHANGED_ROOM = 30  # the most cells one placement can change: 6 placed, 24 refreshed
SYNC_SOON = 1 << 32  # added to play's points: the board should bring its dicts up to date
SEQ, N_CHANGED, FITTING, SIDE, ROW0, COL0, FULL, TOP, BOTTOM, LEFT, RIGHT = range(
    NUM_TYPES, NUM_TYPES + 11
)
ON_TABLE = NUM_TYPES + 11
CHANGED_AT = ON_TABLE + NUM_TYPES
CHANGED_CAP = 512  # Board brings its dicts up to date before this many cells have changed
ANCHORS_AT = CHANGED_AT + CHANGED_CAP
ANCHORS_CAP = 512  # more ranks than a game's table reaches; past them the board scans
SCRATCH_AT = ANCHORS_AT + ANCHORS_CAP

# scratch: the placement's codes, then set_order's keys, hashes, table, order and spare.
_KEYS = 8
_KEY_HASHES = _KEYS + MAX_ITEMS
_SLOTS = _KEY_HASHES + MAX_ITEMS
_TABLE_HASHES = _SLOTS + TABLE_SIZE
_ORDER = _TABLE_HASHES + TABLE_SIZE
_SPARE = _ORDER + MAX_ITEMS
_SCRATCH = _SPARE + 2 * TABLE_SIZE
WORK_SIZE = SCRATCH_AT + _SCRATCH


def changes_in_reach(g: int, r0: int, c0: int) -> bool:
    """Whether the set's tabled hashes cover every cell of this grid (``setorder``)."""
    return -REACH_CELLS <= min(r0, c0) and max(r0, c0) + g <= REACH_CELLS


@njit(cache=True, inline="always")
def _run(grid, p, d) -> int:
    """Length of the line of tiles through the tile at p along d."""
    n = 1
    q = p - d
    while grid[q] > 0:
        n += 1
        q -= d
    q = p + d
    while grid[q] > 0:
        n += 1
        q += d
    return n


@njit(cache=True, inline="always")
def _mark(fits, changed, n_changed, p) -> int:
    if not fits[p] & CHANGED:
        fits[p] |= CHANGED
        changed[n_changed] = p
        n_changed += 1
    return n_changed


@njit(cache=True, inline="always")
def _set_fit(fits, counts, p, fit):
    old = fits[p] & FIT_BITS
    flips = old ^ fit
    if flips:
        while flips:
            low = flips & -flips
            if old & low:
                counts[lowest_bit(low)] -= 1
            else:
                counts[lowest_bit(low)] += 1
            flips ^= low
        fits[p] = (fits[p] & CHANGED) | fit


@kernel
def count_fits(fits, work) -> int:
    """Fills ``work``'s counts from the fit masks alone (a grid just made from the
    frontier dict) and returns the mask of the types that fit somewhere."""
    counts = work[:NUM_TYPES]
    for t in range(NUM_TYPES):
        counts[t] = 0
    for p in range(fits.shape[0]):
        fit = fits[p] & FIT_BITS
        while fit:
            low = fit & -fit
            counts[lowest_bit(low)] += 1
            fit ^= low
    fitting = 0
    for t in range(NUM_TYPES):
        if counts[t] > 0:
            fitting |= np.int64(1) << t
    return fitting


@kernel
def play(grid, fits, work, hashes, k) -> int:
    """Puts the k tiles coded at ``work[SCRATCH_AT:]`` down (known legal), refreshes the
    frontier around them and the board's numbers in ``work``, and returns the points (plus
    SYNC_SOON once the changed cells fill all but CHANGED_ROOM of their room).
    ``hashes`` is ``setorder.cell_hashes()``; the grid lies within its reach
    (``changes_in_reach``)."""
    g, r0, c0 = work[SIDE], work[ROW0], work[COL0]
    seq, n_changed = work[SEQ], work[N_CHANGED]
    counts = work[:NUM_TYPES]
    changed = work[CHANGED_AT:ANCHORS_AT]
    scratch = work[SCRATCH_AT:]
    codes = scratch[:k]
    for j in range(k):
        p = codes[j] >> 6
        t = codes[j] & 63
        _set_fit(fits, counts, p, 0)
        n_changed = _mark(fits, changed, n_changed, p)
        grid[p] = 1 + t
        copies = work[ON_TABLE + t] + 1
        work[ON_TABLE + t] = copies
        if copies >= COPIES:
            work[FULL] |= np.int64(1) << t
        r, c = r0 + p // g, c0 + p % g
        work[TOP], work[BOTTOM] = min(work[TOP], r), max(work[BOTTOM], r)
        work[LEFT], work[RIGHT] = min(work[LEFT], c), max(work[RIGHT], c)
    # Points, as Board.score_legal: the line along the placement and each tile's across it.
    p = codes[0] >> 6
    if k == 1:
        points = points_of_line(_run(grid, p, 1)) + points_of_line(_run(grid, p, g))
        if points == 0:
            points = 1
    else:
        d = 1 if abs((codes[1] >> 6) - p) < g else g
        points = points_of_line(_run(grid, p, d))
        across = g if d == 1 else 1
        for j in range(k):
            points += points_of_line(_run(grid, codes[j] >> 6, across))
    # The cells past the ends of every run through the tiles, in Board.place_legal's order.
    keys = scratch[_KEYS:_KEY_HASHES]
    key_hashes = scratch[_KEY_HASHES:_SLOTS]
    n = 0
    for j in range(k):
        p = codes[j] >> 6
        for d in (-1, 1, -g, g):
            q = p + d
            while grid[q] > 0:
                q += d
            keys[n] = q
            key_hashes[n] = hashes[r0 + q // g + REACH_CELLS, c0 + q % g + REACH_CELLS]
            n += 1
    order = scratch[_ORDER:_SPARE]
    spare = scratch[_SPARE:_SCRATCH].reshape(2, TABLE_SIZE)
    slots, table_hashes = scratch[_SLOTS:_TABLE_HASHES], scratch[_TABLE_HASHES:_ORDER]
    m = set_order(keys, key_hashes, n, slots, table_hashes, order, spare)
    for j in range(m):
        q = order[j]
        if grid[q] == 0:  # joins the frontier: its rank
            grid[q] = -1 - seq
            if seq < ANCHORS_CAP:
                work[ANCHORS_AT + seq] = q
            seq += 1
        _set_fit(fits, counts, q, axis_fit(grid, q, 1)[0] & axis_fit(grid, q, g)[0])
        n_changed = _mark(fits, changed, n_changed, q)
    fitting = 0
    for t in range(NUM_TYPES):
        if counts[t] > 0:
            fitting |= np.int64(1) << t
    work[SEQ], work[N_CHANGED], work[FITTING] = seq, n_changed, fitting
    if n_changed > CHANGED_CAP - CHANGED_ROOM:
        return points + SYNC_SOON
    return points


# placements' scratch: the anchors, their table, the sink and the walk's stack.
_TABLE = ANCHORS_CAP
_SINK = _TABLE + ANCHORS_CAP * ANCHOR_WIDTH
_STACK = _SINK + SINK_WIDTH
LIST_SCRATCH = _STACK + MAX_LINE * FRAME_WIDTH


@njit(cache=True)
def placements(grid, fits, work, scratch, hand, out, mode) -> int:
    """``movegen.board_placements`` on a board the kernel plays: the anchors come from the
    list by rank, and only those some type of the hand fits; -1 if the ranks have passed
    ANCHORS_CAP. ``scratch`` (LIST_SCRATCH int64s) may be shared: the call holds the GIL."""
    g, r0, c0, seq = work[SIDE], work[ROW0], work[COL0], work[SEQ]
    if seq > ANCHORS_CAP:
        return -1
    anchors = scratch[:ANCHORS_CAP]
    n = 0
    for k in range(seq):
        p = work[ANCHORS_AT + k]
        if grid[p] < 0 and fits[p] & hand:
            anchors[n] = p
            n += 1
    table = scratch[_TABLE:_SINK].reshape(ANCHORS_CAP, ANCHOR_WIDTH)
    sink = scratch[_SINK:_STACK]
    reset_sink(sink, mode, 0, 0)
    stack = scratch[_STACK:LIST_SCRATCH].reshape(MAX_LINE, FRAME_WIDTH)
    return walk(grid, g, anchors, n, hand, r0, c0, out, sink, table, stack)
