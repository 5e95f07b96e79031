"""The rules on one game's arrays: the frontier, the exact sub-step mask and scoring.

Compiled twins of ``board.Board`` and ``turn.Turn`` for the batched simulator (same
frontier idea, same masks; ``tests/vector/test_simulator.py`` checks them against the AEC env
step by step). Functions take the ``State`` and a game's row ``i``, or, on the hot
paths, just that game's grid row. Cells are flat grid indices, so a step along a row is
+-1 and along a column +-grid.
"""

from __future__ import annotations

import numpy as np

from ...engine.compiled import COMPAT
from ...jit import kernel
from ...spec import ALL, MAX_LINE, QWIRKLE_BONUS
from .state import C_GRID, C_STRICT, C_WINDOW, EMPTY, END_BIT, MARGIN, TABLE

END_MASK = 1 << END_BIT  # the "end" bit of the mask's last entry


@kernel
def tile_of(code) -> int:
    return (np.int64(code) - 1) % 36


@kernel
def side(grid, p, d):
    """(length, type mask, compatible mask) of the run of tiles next to p in direction d."""
    n, types, compat = 0, 0, ALL
    q = p + d
    while grid[q] != EMPTY:
        t = tile_of(grid[q])
        n += 1
        types |= 1 << t
        compat &= COMPAT[t]
        q += d
    return n, types, compat


@kernel
def axis_fit(grid, p, d) -> int:
    """Types a tile alone on empty p may have for its line along d (ALL if it makes none)."""
    _, t1, c1 = side(grid, p, -d)
    _, t2, c2 = side(grid, p, d)
    if t1 & ~c2:
        return 0
    return c1 & c2


@kernel
def front_drop(s, i, p):
    k = s.front_at[i, p]
    if k < 0:
        return
    last = s.n_front[i] - 1
    moved = s.front[i, last]
    s.front[i, k] = moved
    s.front_fit[i, k] = s.front_fit[i, last]
    s.front_at[i, moved] = k
    s.front_at[i, p] = -1
    s.n_front[i] = last


@kernel
def refresh(s, i, p):
    """The frontier record of cell p, as the engine's Board refreshes its frontier."""
    g = s.cfg[C_GRID]
    grid = s.grid[i]
    if grid[p] != EMPTY:
        front_drop(s, i, p)
        return
    if (
        grid[p - 1] == EMPTY
        and grid[p + 1] == EMPTY
        and grid[p - g] == EMPTY
        and grid[p + g] == EMPTY
    ):
        front_drop(s, i, p)
        return
    fit = axis_fit(grid, p, 1) & axis_fit(grid, p, g)
    k = s.front_at[i, p]
    if k < 0:
        k = s.n_front[i]
        s.front[i, k] = p
        s.front_at[i, p] = k
        s.n_front[i] = k + 1
    s.front_fit[i, k] = fit


@kernel
def can_place(s, i, hand) -> bool:
    """Whether a tile of the type mask ``hand`` fits anywhere on the (non-empty) table."""
    if hand == 0:
        return False
    for k in range(s.n_front[i]):
        if s.front_fit[i, k] & hand:
            return True
    return False


@kernel
def line_points(length) -> int:
    if length < 2:
        return 0
    return length + QWIRKLE_BONUS if length == MAX_LINE else length


@kernel
def run_length(grid, p, d) -> int:
    """Length of the line through occupied p along d."""
    return 1 + side(grid, p, -d)[0] + side(grid, p, d)[0]


@kernel
def score_placed(s, i) -> int:
    """What this turn's tiles (already on the grid) score, as Board.score_ids."""
    g = s.cfg[C_GRID]
    grid = s.grid[i]
    k = s.n_placed[i]
    first = s.placed[i, 0]
    if k == 1:
        points = line_points(run_length(grid, first, 1)) + line_points(run_length(grid, first, g))
        return points if points else 1
    d = 1 if s.placed[i, 1] // g == first // g else g
    perp = g if d == 1 else 1
    points = line_points(run_length(grid, first, d))
    for j in range(k):
        points += line_points(run_length(grid, s.placed[i, j], perp))
    return points if points else 1


@kernel
def hand_mask(s, i) -> int:
    m = 0
    for j in range(s.n_left[i]):
        m |= 1 << s.left[i, j]
    return m


@kernel
def _offer(s, i, p, m):
    """Sets grid cell p's legal types in the mask if the window shows it."""
    g = s.cfg[C_GRID]
    w = s.cfg[C_WINDOW]
    r = p // g - s.origin[i, 0]
    c = p % g - s.origin[i, 1]
    if 0 <= r < w and 0 <= c < w:
        cell = r * w + c
        s.mask[i, cell] = m
        s.mask_cells[i, s.n_mask_cells[i]] = cell
        s.n_mask_cells[i] += 1


@kernel
def _ends(s, i, d, hand):
    """The two cells that extend this turn's run along d, as Turn._ends."""
    g = s.cfg[C_GRID]
    perp = g if d == 1 else 1
    grid = s.grid[i]
    first = s.placed[i, 0]
    compat = COMPAT[s.placed_t[i, 0]]
    low = first - d
    while grid[low] != EMPTY:
        compat &= COMPAT[tile_of(grid[low])]
        low -= d
    high = first + d
    while grid[high] != EMPTY:
        compat &= COMPAT[tile_of(grid[high])]
        high += d
    for q, sign in ((low, -1), (high, 1)):
        _, types, beyond = side(grid, q, sign * d)
        if types & ~compat:
            continue
        m = compat & hand & beyond & axis_fit(grid, q, perp)
        if m:
            _offer(s, i, q, m)


@kernel
def set_mask(s, i):
    """The mask of the sub-step to come, as ``aec.raw_env.mover_mask``: clears the last one,
    sets this one."""
    w = s.cfg[C_WINDOW]
    last = w * w
    mask = s.mask[i]
    cells = s.mask_cells[i]
    for j in range(s.n_mask_cells[i]):
        mask[cells[j]] = 0
    s.n_mask_cells[i] = 0
    mask[last] = 0
    if s.over[i] or s.truncated[i]:
        return
    k = s.n_placed[i]
    opening = s.opening[i]
    strict = s.cfg[C_STRICT] != 0
    # placements
    if s.n_exch[i] == 0:
        hand = hand_mask(s, i)
        if opening and strict:
            placed = 0
            for j in range(k):
                placed |= 1 << s.placed_t[i, j]
            allowed = 0
            for j in range(s.n_groups[i]):
                if placed & ~s.groups[i, j] == 0:
                    allowed |= s.groups[i, j]
            hand &= allowed
            if k >= opening:
                hand = 0
        if hand:
            if k == 0:
                if s.tiles[i] == 0:
                    g = s.cfg[C_GRID]
                    _offer(s, i, s.base[i, 0] * g + s.base[i, 1], hand)
                else:
                    front = s.front[i]
                    fits = s.front_fit[i]
                    for j in range(s.n_front[i]):
                        m = fits[j] & hand
                        if m:
                            _offer(s, i, front[j], m)
            elif k == 1:
                _ends(s, i, 1, hand)
                _ends(s, i, s.cfg[C_GRID], hand)
            else:
                g = s.cfg[C_GRID]
                _ends(s, i, 1 if s.placed[i, 1] // g == s.placed[i, 0] // g else g, hand)
    # exchange picks
    if k == 0 and opening == 0 and s.n_exch[i] < s.bag_n[i]:
        s.mask[i, last] = hand_mask(s, i)
    # end
    if s.n_exch[i] > 0 or (k > 0 and not (opening and strict and k != opening)):
        s.mask[i, last] |= END_MASK


@kernel
def commit_tiles(s, i):
    """This turn's tiles join the table: codes, bounding box and frontier, as Board.place_legal."""
    g = s.cfg[C_GRID]
    grid = s.grid[i]
    k = s.n_placed[i]
    for j in range(k):
        p = s.placed[i, j]
        grid[p] = TABLE + s.placed_t[i, j]
        front_drop(s, i, p)
        r, c = p // g, p % g
        if s.tiles[i] == k and j == 0:
            s.box[i, 0], s.box[i, 1], s.box[i, 2], s.box[i, 3] = r, r, c, c
        else:
            s.box[i, 0] = min(s.box[i, 0], r)
            s.box[i, 1] = max(s.box[i, 1], r)
            s.box[i, 2] = min(s.box[i, 2], c)
            s.box[i, 3] = max(s.box[i, 3], c)
    for j in range(k):
        p = s.placed[i, j]
        for d in (-1, 1, -g, g):
            q = p + d
            while grid[q] != EMPTY:
                q += d
            refresh(s, i, q)


@kernel
def recentre(s, i) -> bool:
    """Moves the table back to the grid's middle when it nears an edge; False if it can't."""
    g = s.cfg[C_GRID]
    r0, r1, c0, c1 = s.box[i, 0], s.box[i, 1], s.box[i, 2], s.box[i, 3]
    if r0 >= MARGIN and c0 >= MARGIN and r1 < g - MARGIN and c1 < g - MARGIN:
        return True
    if r1 - r0 + 1 > g - 2 * MARGIN or c1 - c0 + 1 > g - 2 * MARGIN:
        return False
    dr = (g - (r1 - r0 + 1)) // 2 - r0
    dc = (g - (c1 - c0 + 1)) // 2 - c0
    shift = dr * g + dc
    grid = s.grid[i]
    # Move whole rows r0..r1 as one flat range, like memmove (each cell lands on exactly one
    # other; a row's empty ends may wrap, but they are empty), then clear what was left.
    lo, hi = r0 * g, (r1 + 1) * g
    if shift > 0:
        for p in range(hi - 1, lo - 1, -1):
            grid[p + shift] = grid[p]
    else:
        for p in range(lo, hi):
            grid[p + shift] = grid[p]
    for p in range(lo, hi):
        if not lo + shift <= p < hi + shift:
            grid[p] = EMPTY
    for k in range(s.n_front[i]):
        s.front_at[i, s.front[i, k]] = -1
    for k in range(s.n_front[i]):
        s.front[i, k] += shift
        s.front_at[i, s.front[i, k]] = k
    s.box[i, 0] += dr
    s.box[i, 1] += dr
    s.box[i, 2] += dc
    s.box[i, 3] += dc
    s.base[i, 0] += dr
    s.base[i, 1] += dc
    return True
