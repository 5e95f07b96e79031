"""The opening's placements, compiled: ``placements.opening_placements`` as rows.

On an empty table a placement is a line from (0, 0) running right or down, of distinct
tiles sharing a colour or a shape: every single tile, then group by group (the colours,
then the shapes) every ordered choice of 2 or more of the group's tiles, in
``itertools.permutations``' order, each line along the row and then down the column. The
rows are ``movegen.py``'s; ``tests/vector/test_moves.py`` checks them against
``placements.py``.
"""

from __future__ import annotations

import numpy as np

from ..jit import kernel, njit
from ..spec import MAX_LINE, NUM_SHAPES, NUM_TYPES
from .movegen import points_of_line

__all__ = ["opening_rows", "opening_rows_into"]

COLOUR = (1 << NUM_SHAPES) - 1  # colour 0's types; << 6k for colour k
SHAPE = sum(1 << (NUM_SHAPES * c) for c in range(NUM_SHAPES))  # shape 0's; << k for shape k


@kernel
def _emit_line(out, n, group, pos, k, down) -> int:
    if n < out.shape[0]:
        row = out[n]
        for j in range(row.shape[0]):
            row[j] = 0
        row[0] = k
        row[1] = points_of_line(k)
        for j in range(k):
            row[2 + 3 * j] = j if down else 0
            row[3 + 3 * j] = 0 if down else j
            row[4 + 3 * j] = group[pos[j]]
    return n + 1


@njit(cache=True)
def opening_rows(hand, size, out) -> int:
    """``placements.opening_placements`` in its order, as rows, keeping those of ``size``
    tiles (0: every size); returns how many (rows past ``out``'s end are not written)."""
    return opening_rows_into(hand, size, out, np.empty((3, MAX_LINE), np.int64))


@kernel
def opening_rows_into(hand, size, out, scratch) -> int:
    """``opening_rows`` for kernels that allocate nothing (``scratch``: 3 x MAX_LINE)."""
    n = 0
    if size <= 1:
        for t in range(NUM_TYPES):
            if hand >> t & 1:
                if n < out.shape[0]:
                    for j in range(out.shape[1]):
                        out[n, j] = 0
                    out[n, 0] = 1
                    out[n, 1] = 1
                    out[n, 4] = t
                n += 1
    group, pos, nxt = scratch[0], scratch[1], scratch[2]
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
