"""The engine's compiled parts that other layers build on: one stated API.

The batched simulators (``qwirkle_env.vector``), the move rows (``qwirkle_env.rows``) and
the move-value agent's look ahead run kernels of their own on the engine's grid of cell
codes and drive its compiled move generator. They import these names from here, never
from ``movegen``, ``opening``, ``setorder`` or ``compiled_table`` themselves (an
import-linter contract in pyproject.toml checks it), so the engine may rework its insides
behind this list. Each name's own docstring says how to call it.

| name | what |
|---|---|
| ``COMPILED`` | whether numba compiles the kernels (else they run as plain Python) |
| ``COMPAT`` | ``lines.COMPAT`` as an int64 array: the types that may share a line with t |
| ``Board.code_grid`` | ``(grid, side, r0, c0)``: the table as a flat int16 grid of cell codes |
| ``GRID_MARGIN`` | empty cells kept inside the grid's edge around the table |
| ``WIDTH`` | columns of a placement row ``[tiles, points, row, col, tile, ...]`` |
| ``walk``, ``walk_fitted``, ``fit_anchors`` | every placement of a hand from anchors |
| ``walk_stack``, ``sink_for``, ``reset_sink`` | the walk's scratch and its output sink |
| ``ANCHOR_WIDTH``, ``ROWS``, ``TOP``, ``BEST`` | an anchor table's width; sink modes |
| ``SINK_MOST``, ``SINK_MOST_OF_TILES``, ``SINK_MOST_OF_TYPES`` | what a ``BEST`` sink holds |
| ``FIT``, ``NL``, ``NR``, ``NU``, ``ND`` | an anchor table's columns |
| ``points_of_line`` | ``lines.line_points`` compiled |
| ``opening_rows``, ``opening_rows_into`` | the opening's placements of a hand |
| ``set_order``, ``cell_hashes`` | the order new cells join the frontier in |
| ``REACH_CELLS``, ``MAX_ITEMS``, ``TABLE_SIZE`` | the limits of that order's tables |
"""

from __future__ import annotations

from .compiled_table import GRID_MARGIN
from .lines import COMPAT_ARRAY as COMPAT
from .movegen import (
    ANCHOR_WIDTH,
    BEST,
    COMPILED,
    FIT,
    ND,
    NL,
    NR,
    NU,
    ROWS,
    SINK_MOST,
    SINK_MOST_OF_TILES,
    SINK_MOST_OF_TYPES,
    TOP,
    fit_anchors,
    points_of_line,
    reset_sink,
    sink_for,
    walk,
    walk_fitted,
    walk_stack,
)
from .opening import opening_rows, opening_rows_into
from .placements import WIDTH
from .setorder import MAX_ITEMS, REACH_CELLS, TABLE_SIZE, cell_hashes, set_order

__all__ = [
    "ANCHOR_WIDTH", "BEST", "COMPAT", "COMPILED", "FIT", "GRID_MARGIN", "MAX_ITEMS", "ND",
    "NL", "NR", "NU", "REACH_CELLS", "ROWS", "SINK_MOST", "SINK_MOST_OF_TILES",
    "SINK_MOST_OF_TYPES", "TABLE_SIZE", "TOP", "WIDTH", "cell_hashes", "fit_anchors",
    "opening_rows", "opening_rows_into", "points_of_line", "reset_sink", "set_order",
    "sink_for", "walk", "walk_fitted", "walk_stack",
]  # fmt: skip
