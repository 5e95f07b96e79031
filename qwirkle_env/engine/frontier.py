"""The frontier record: what the board keeps for each empty cell touching a tile.

A record is a tuple indexed by these fields. Axis 0 runs along a row (left/right), axis 1
along a column; on each side of the cell, the run of tiles there: its length, the mask of
its tile types and the mask of the types compatible with all of them. That is all any rule
needs: a tile fits a cell iff it is compatible with the runs on each side, and a placement
grows a run cell by cell.
"""

from __future__ import annotations

from collections.abc import Callable

from ..spec import ALL
from .lines import COMPAT

Cell = tuple[int, int]

FIT_H, FIT_V, LEN_H, LEN_V = 0, 1, 2, 3  # fit per axis; length of the line a tile here makes
N_L, T_L, C_L = 4, 5, 6  # run to the left: length, tile mask, compatible mask
N_R, T_R, C_R = 7, 8, 9
N_U, T_U, C_U = 10, 11, 12
N_D, T_D, C_D = 13, 14, 15


def record(get: Callable[[Cell], int | None], cell: Cell) -> tuple[int, ...] | None:
    """The frontier record of an empty cell, None if it touches no tile; ``get`` reads a
    cell's tile id (None: empty). The four directions are written out: this runs for every
    cell a placement changes."""
    r, c = cell
    nl = tl = 0
    cl = ALL
    k = c - 1
    t = get((r, k))
    while t is not None:
        nl += 1
        tl |= 1 << t
        cl &= COMPAT[t]
        k -= 1
        t = get((r, k))
    nr = tr = 0
    cr = ALL
    k = c + 1
    t = get((r, k))
    while t is not None:
        nr += 1
        tr |= 1 << t
        cr &= COMPAT[t]
        k += 1
        t = get((r, k))
    nu = tu = 0
    cu = ALL
    k = r - 1
    t = get((k, c))
    while t is not None:
        nu += 1
        tu |= 1 << t
        cu &= COMPAT[t]
        k -= 1
        t = get((k, c))
    nd = td = 0
    cd = ALL
    k = r + 1
    t = get((k, c))
    while t is not None:
        nd += 1
        td |= 1 << t
        cd &= COMPAT[t]
        k += 1
        t = get((k, c))
    if not (nl or nr or nu or nd):
        return None
    fit_h = cl & cr if not tl & ~cr else 0
    fit_v = cu & cd if not tu & ~cd else 0
    return (
        fit_h, fit_v, nl + nr + 1, nu + nd + 1,
        nl, tl, cl, nr, tr, cr, nu, tu, cu, nd, td, cd,
    )  # fmt: skip
