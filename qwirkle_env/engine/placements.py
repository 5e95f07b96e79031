"""Move generation: every legal placement of a hand, each once, with its points.

A placement is grown from its first anchor (a placed cell touching the table) in row/column
order: forwards over any cells, then backwards over cells that touch nothing. That order
reaches each placement exactly once, and every prefix of it is itself legal, so each step
checks only the new tile against the run, reading the board's frontier records.
"""

from __future__ import annotations

from itertools import permutations

import numpy as np

from ..spec import MAX_LINE
from .frontier import C_D, C_L, C_R, C_U, FIT_H, FIT_V, LEN_H, LEN_V, N_D, N_L, N_R, N_U, T_D, T_R
from .lines import COMPAT, ids_of, line_points

Cell = tuple[int, int]

# A placement as one row of numbers (``Board.placement_rows``, what movegen.py writes):
# [tiles, points, row, col, tile, row, col, tile, ...], zero past the last tile.
WIDTH = 2 + 3 * MAX_LINE


def grown_placements(front: dict, hand: int) -> list[tuple[tuple[tuple[Cell, int], ...], int]]:
    """Every legal placement of the hand mask's types on a non-empty table whose frontier
    records are ``front``, as ``(((cell, tile_id), ...), points)``."""
    out: list = []
    for p, info in front.items():
        for t in ids_of(info[FIT_H] & info[FIT_V] & hand):
            pts_h = line_points(info[LEN_H])
            pts_v = line_points(info[LEN_V])
            first = ((p, t),)
            out.append((first, (pts_h + pts_v) or 1))
            rest = hand & ~(1 << t)
            if not rest:
                continue
            r, c = p
            # A run is (axis, fixed coordinate, lo, hi, compatible mask, length, points
            # of the perpendicular lines of the tiles placed so far).
            row = (0, r, c - info[N_L], c + info[N_R], info[C_L] & info[C_R] & COMPAT[t],
                   info[LEN_H], pts_v)  # fmt: skip
            col = (1, c, r - info[N_U], r + info[N_D], info[C_U] & info[C_D] & COMPAT[t],
                   info[LEN_V], pts_h)  # fmt: skip
            _extend(front, out, first, row, rest, True)
            _extend(front, out, first, col, rest, True)
    return out


def _extend(front: dict, out: list, items: tuple, run: tuple, rest: int, forward: bool) -> None:
    axis, fixed, lo, hi, compat, length, perp_pts = run
    if forward:
        q = (fixed, hi + 1) if axis == 0 else (hi + 1, fixed)
        info = front.get(q)
        if info is None:
            grown = (axis, fixed, lo, hi + 1, compat, length + 1, perp_pts)
            _branch(front, out, items, q, compat & rest, grown, rest, True)
        else:
            if axis == 0:
                n, types, beyond = info[N_R], info[T_R], info[C_R]
                fit, perp = info[FIT_V], line_points(info[LEN_V])
            else:
                n, types, beyond = info[N_D], info[T_D], info[C_D]
                fit, perp = info[FIT_H], line_points(info[LEN_H])
            if not types & ~compat:  # the tiles beyond q fit the run
                compat &= beyond
                grown = (axis, fixed, lo, hi + 1 + n, compat, length + 1 + n, perp_pts + perp)
                _branch(front, out, items, q, compat & fit & rest, grown, rest, True)
            compat = run[4]
    q = (fixed, lo - 1) if axis == 0 else (lo - 1, fixed)
    if q not in front:  # an anchor there generates this placement itself
        grown = (axis, fixed, lo - 1, hi, compat, length + 1, perp_pts)
        _branch(front, out, items, q, compat & rest, grown, rest, False)


def _branch(
    front: dict, out: list, items: tuple, q: Cell, cand: int, run: tuple, rest: int, forward: bool
) -> None:
    axis, fixed, lo, hi, compat, length, perp_pts = run
    points = line_points(length) + perp_pts
    for t in ids_of(cand):
        placed = items + ((q, t),)
        out.append((placed, points))
        left = rest & ~(1 << t)
        if left and length < MAX_LINE:
            grown = (axis, fixed, lo, hi, compat & COMPAT[t], length, perp_pts)
            _extend(front, out, placed, grown, left, forward)


def opening_placements(hand: int) -> list[tuple[tuple[tuple[Cell, int], ...], int]]:
    """On an empty table: lines from (0, 0) running right or down."""
    out: list = [((((0, 0), t),), 1) for t in ids_of(hand)]
    groups = []
    for c in range(6):
        groups.append(ids_of(hand & (0b111111 << (6 * c))))
    for s in range(6):
        groups.append(ids_of(hand & sum(1 << (6 * c + s) for c in range(6))))
    for group in groups:
        for k in range(2, len(group) + 1):
            for perm in permutations(group, k):
                pts = line_points(k)
                out.append((tuple(((0, i), t) for i, t in enumerate(perm)), pts))
                out.append((tuple(((i, 0), t) for i, t in enumerate(perm)), pts))
    return out


def rows_of(found: list) -> np.ndarray:
    """``placements_with_points``' tuples as rows (the form movegen.py writes); a
    ValueError for cells beyond int64, which rows cannot hold."""
    if any(not -(2**63) <= x < 2**63 for items, _ in found for cell, _ in items for x in cell):
        raise ValueError(
            "placement rows hold cells as int64: this table lies beyond +-2**63, so use "
            "placements_with_points"
        )
    out = np.zeros((len(found), WIDTH), np.int64)
    for k, (items, points) in enumerate(found):
        out[k, 0] = len(items)
        out[k, 1] = points
        for j, ((r, c), t) in enumerate(items):
            out[k, 2 + 3 * j : 5 + 3 * j] = (r, c, t)
    return out


def top_rows(rows: np.ndarray) -> np.ndarray:
    """The rows scoring the most, in their order (none if there are none)."""
    return rows[rows[:, 1] == rows[:, 1].max()] if len(rows) else rows


def rows_to_placements(rows: list) -> list:
    """Rows (as lists: ``array.tolist()``) -> ``[(((row, col), tile_id), ...), points)]``."""
    found = []
    add = found.append
    for row in rows:
        k = row[0]
        if k == 1:
            add(((((row[2], row[3]), row[4]),), row[1]))
        elif k == 2:
            add(((((row[2], row[3]), row[4]), ((row[5], row[6]), row[7])), row[1]))
        else:
            items = tuple(((row[i], row[i + 1]), row[i + 2]) for i in range(2, 2 + 3 * k, 3))
            add((items, row[1]))
    return found


def row_items(row) -> list[tuple[Cell, int]]:
    """One placement row as ``[((row, col), tile_id), ...]``, ``apply_placement``'s form."""
    values = row.tolist() if hasattr(row, "tolist") else list(row)
    k = values[0]
    if k == 1:
        return [((values[2], values[3]), values[4])]
    if k == 2:
        return [((values[2], values[3]), values[4]), ((values[5], values[6]), values[7])]
    return [((values[i], values[i + 1]), values[i + 2]) for i in range(2, 2 + 3 * k, 3)]
