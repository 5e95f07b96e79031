"""What makes a line valid, as 36-bit masks over tile ids.

A set of tiles is a valid line iff every pair shares a colour or a shape and no two are
identical: pairwise compatibility already forces "all one colour" or "all one shape"
(three tiles a, b, c with a~b by colour and a~c by shape leave b and c sharing nothing).
So the tiles that may join a line are the AND of each member's compatible set, and a line
can be extended, merged and checked with a few integer operations.
"""

from __future__ import annotations

import numpy as np

from ..spec import ALL, MAX_LINE, NUM_SHAPES, NUM_TYPES, QWIRKLE_BONUS

__all__ = [
    "ALL",
    "COLOR_MASK",
    "COMPAT",
    "COMPAT_ARRAY",
    "SHAPE_MASK",
    "MAX_LINE",
    "compat_of",
    "ids_of",
    "line_fault",
    "line_points",
    "mask_of",
]

COLOR_MASK = tuple(sum(1 << (c * NUM_SHAPES + s) for s in range(NUM_SHAPES)) for c in range(6))
SHAPE_MASK = tuple(sum(1 << (c * NUM_SHAPES + s) for c in range(6)) for s in range(NUM_SHAPES))

# COMPAT[t]: the tile ids that may share a line with t (same colour or same shape, not t).
COMPAT = tuple(
    (COLOR_MASK[t // NUM_SHAPES] | SHAPE_MASK[t % NUM_SHAPES]) & ~(1 << t) for t in range(NUM_TYPES)
)
COMPAT_ARRAY = np.array(COMPAT, dtype=np.int64)  # the same table, as compiled kernels read it


def compat_of(ids) -> int:
    """The tile ids that could join a line holding ``ids`` (ALL for no tiles)."""
    mask = ALL
    for t in ids:
        mask &= COMPAT[t]
    return mask


def mask_of(ids) -> int:
    mask = 0
    for t in ids:
        mask |= 1 << t
    return mask


def ids_of(mask: int) -> list[int]:
    """The set bits of a tile mask, lowest id first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def line_fault(ids: list[int]) -> str | None:
    """Why these tiles can't form one line, or None if they can."""
    from .tiles import Tile

    if len(ids) > MAX_LINE:
        return f"line longer than 6: a line of {len(ids)} tiles"
    seen = set()
    for t in ids:
        if t in seen:
            return f"duplicate in a line: two {Tile.from_id(t)} tiles in one line"
        seen.add(t)
    colors = {t // NUM_SHAPES for t in ids}
    shapes = {t % NUM_SHAPES for t in ids}
    if len(colors) > 1 and len(shapes) > 1:
        names = ", ".join(str(Tile.from_id(t)) for t in ids)
        return f"mixed line: {names} are neither all one colour nor all one shape"
    return None


def line_points(length: int) -> int:
    """What a line of ``length`` tiles scores: its length, plus the Qwirkle bonus at six;
    a lone tile (length 1) is no line and scores nothing."""
    if length < 2:
        return 0
    return length + QWIRKLE_BONUS if length == MAX_LINE else length
