"""The table's compiled copy: a flat grid of cell codes, and the kernels that play on it.

``Board`` (board.py, the rules) inherits this half. Beside its dicts the board keeps the
table as ``movegen.py``'s grid of cell codes (a tile ``1 + id``, a frontier cell ``-1 -
rank``, the order in which it joined the frontier), which the compiled move generator reads.
Once numba is loaded, a trusted placement is one call of ``grid.py``'s kernel on that grid,
which also keeps a fit mask per cell and the board's numbers in its work array
(``_work``); the frontier dicts are rebuilt from the cells it changed when they are next
read (``_sync``). Tables the grid can't hold (too wide, too far out) stay with the Python
half. The attributes shared by both halves: ``_cells``, ``_front``, ``_fits``, ``_counts``,
``_full`` and ``_box`` (board.py), and this class's slots.
"""

from __future__ import annotations

import numpy as np

from .placements import WIDTH, grown_placements, opening_placements, rows_of, top_rows
from .tiles import NUM_TYPES

Cell = tuple[int, int]


class CompiledTable:
    """The grid half of ``Board``: the grid of cell codes and the kernel's arrays."""

    __slots__ = ("_grid", "_g", "_r0", "_c0", "_seq", "_fitgrid", "_work")

    @property
    def code_grid(self) -> tuple[np.ndarray, int, int, int] | None:
        """``(grid, side, r0, c0)``: the table as ``movegen.py``'s flat int16 grid of cell
        codes, table cell ``(r0 + i, c0 + j)`` at index ``i * side + j``, at least
        ``GRID_MARGIN`` cells inside its edge. None while the table is empty, and for a
        crafted table too wide or too far out for a grid. Read-only: the board's own array."""
        if self._grid is None:
            return None
        return self._grid, self._g, self._r0, self._c0

    def _copy_grid_into(self, new: CompiledTable) -> None:
        """``Board.copy``'s half: the grid, its numbers and the kernel's arrays."""
        new._grid = None if self._grid is None else self._grid.copy()
        new._g, new._r0, new._c0, new._seq = self._g, self._r0, self._c0, self._seq
        new._fitgrid = None if self._fitgrid is None else self._fitgrid.copy()
        new._work = None if self._work is None else self._work.copy()

    # --- the board's numbers while the kernel keeps them (``_work`` not None) ---------
    def _kernel_box(self) -> tuple[int, int, int, int]:
        return tuple(self._work[_grid.TOP : _grid.RIGHT + 1].tolist())

    def _kernel_fitting(self) -> int:
        return self._work.item(_grid.FITTING)

    def _kernel_counts(self) -> list[int]:
        return self._work[_grid.ON_TABLE : _grid.ON_TABLE + NUM_TYPES].tolist()

    def _kernel_full(self) -> int:
        return self._work.item(_grid.FULL)

    def _stop_kernels(self) -> None:
        """The board's numbers back from the kernel's array, before a Python placement; the
        next kernel play starts them again."""
        work = self._work
        self._sync()
        self._seq, self._full = int(work[_grid.SEQ]), int(work[_grid.FULL])
        self._counts = work[_grid.ON_TABLE : _grid.ON_TABLE + NUM_TYPES].tolist()
        self._box = self.bounds()
        self._fitgrid = self._work = None

    def _kernel_play(self, items: list[tuple[Cell, int]]) -> int:
        """``play_legal`` by grid.py's kernel; -1, with nothing changed, where it can't: a
        tile would come within GRID_MARGIN of the grid's edge (``_place`` then grows the
        grid), or the table is one the kernel doesn't take (see _start_kernels), or numba
        is not loaded yet (a process that only replays records never loads it)."""
        if self._fitgrid is None:
            if not kernels_loaded():
                return -1
            if not self._cells:
                self._grid_cover([cell for cell, _ in items])  # the first tiles: a grid
            self._start_kernels()
            if self._fitgrid is None:
                return -1
        g, r0, c0 = self._g, self._r0, self._c0
        lo, hi = GRID_MARGIN, g - GRID_MARGIN
        work = self._work
        at = _SCRATCH_AT
        for (r, c), t in items:
            i, j = r - r0, c - c0
            if not (lo <= i < hi and lo <= j < hi):
                return -1
            work[at] = (i * g + j) << 6 | t
            at += 1
        points = _grid.play(self._grid, self._fitgrid, work, _HASHES, len(items))
        self._cells.update(items)
        if points >= _SYNC_SOON:  # the changed cells' list is nearly full
            self._sync()
            points -= _SYNC_SOON
        return points

    def _sync(self) -> None:
        """Brings the frontier dicts up to date with the cells the kernel changed: records
        rebuilt, taken cells dropped, new cells added in the order they joined (their
        ranks), so the dicts are what the Python refresh would have made, order included."""
        work = self._work
        n = 0 if work is None else work.item(_grid.N_CHANGED)
        if not n:
            return
        changed = work[_grid.CHANGED_AT : _grid.CHANGED_AT + n]
        self._fitgrid[changed] &= ~_grid.CHANGED
        work[_grid.N_CHANGED] = 0
        g, r0, c0 = self._g, self._r0, self._c0
        cells, front, fits = self._cells, self._front, self._fits
        codes = self._grid[changed].tolist()
        joined = []
        for p, code in zip(changed.tolist(), codes, strict=True):
            cell = (r0 + p // g, c0 + p % g)
            if cell in cells:
                front.pop(cell, None)
                fits.pop(cell, None)
            elif cell in front:
                self._keep(cell, self._record(cell))
            else:
                joined.append((-code, cell))
        joined.sort()
        for _, cell in joined:
            self._keep(cell, self._record(cell))

    def _start_kernels(self) -> None:
        """From here on grid.py's kernel places trusted placements, if it is loaded and the
        grid lies within the reach of its set order; the dicts must be up to date."""
        self._fitgrid = self._work = None
        g, r0, c0 = self._g, self._r0, self._c0
        if self._grid is None or not kernels_loaded() or not _grid.changes_in_reach(g, r0, c0):
            return
        fitgrid = np.zeros(g * g, np.int64)
        for (r, c), fit in self._fits.items():
            fitgrid[(r - r0) * g + c - c0] = fit
        work = np.zeros(_grid.WORK_SIZE, np.int64)
        grid = self._grid
        for r, c in self._front:  # the anchors by rank (those past ANCHORS_CAP unlisted)
            p = (r - r0) * g + c - c0
            rank = -1 - int(grid[p])
            if rank < _grid.ANCHORS_CAP:
                work[_grid.ANCHORS_AT + rank] = p
        work[_grid.FITTING] = _grid.count_fits(fitgrid, work) if self._fits else 0
        work[_grid.SEQ], work[_grid.SIDE], work[_grid.ROW0], work[_grid.COL0] = self._seq, g, r0, c0
        work[_grid.FULL] = self._full
        far = 1 << 62  # an empty table's bounds: the first tile sets them
        box = self.bounds() or (far, -far, far, -far)
        work[_grid.TOP : _grid.RIGHT + 1] = box
        work[_grid.ON_TABLE : _grid.ON_TABLE + NUM_TYPES] = self._counts
        self._fitgrid, self._work = fitgrid, work

    def _rows(self, hand: int, top: bool) -> np.ndarray:
        size = 32 if top else 256  # ties for the most are few
        if self._work is not None:  # the kernel's board
            mode = _movegen.TOP if top else _movegen.ROWS
            args = (self._grid, self._fitgrid, self._work, _LIST, hand)
            rows = _written(_grid.placements, args, mode, size)
            if rows is not None:
                return rows
        if movegen_ready():
            if not self._cells:
                rows = _written(_opening.opening_rows, (hand, 0), None, 64)
                return top_rows(rows) if top else rows
            if self._grid is not None:
                return self._scanned_rows(hand, top, size)
        found = grown_placements(self.frontier, hand) if self._cells else opening_placements(hand)
        rows = rows_of(found)
        return top_rows(rows) if top else rows

    def _scanned_rows(self, hand: int, top: bool, size: int) -> np.ndarray:
        """``_rows`` by ``movegen.board_placements``, which finds the anchors on the grid."""
        first, bottom, left, right = self.bounds()
        r0, c0 = self._r0, self._c0
        local = (first - r0, bottom - r0, left - c0, right - c0)
        seq = self._seq if self._work is None else int(self._work[_grid.SEQ])
        args = (self._grid, self._g, local, seq, hand, r0, c0)
        return _written(
            _movegen.board_placements, args, _movegen.TOP if top else _movegen.ROWS, size
        )

    def _grid_cover(self, new_cells: list[Cell]) -> None:
        """Makes the grid hold these cells at least GRID_MARGIN cells inside its edge:
        creates it, or doubles it about its middle; drops it past GRID_MAX."""
        g, r0, c0 = self._g, self._r0, self._c0
        grid = self._grid
        if grid is None:
            box = _box_of([*self._cells, *new_cells])
            g = GRID_START
            r0 = (box[0] + box[1]) // 2 - g // 2
            c0 = (box[2] + box[3]) // 2 - g // 2
        lo, hi = GRID_MARGIN, g - GRID_MARGIN
        if grid is not None and all(lo <= r - r0 < hi and lo <= c - c0 < hi for r, c in new_cells):
            return
        box = _box_of([*self._cells, *new_cells])
        while not (
            lo <= box[0] - r0 and box[1] - r0 < hi and lo <= box[2] - c0 and box[3] - c0 < hi
        ):
            grown = 2 * g
            r0 -= (grown - g) // 2
            c0 -= (grown - g) // 2
            g = grown
            lo, hi = GRID_MARGIN, g - GRID_MARGIN
        if g > GRID_MAX or max(abs(r0), abs(c0)) > GRID_FAR:
            self._grid = None
            return
        new = np.zeros(g * g, np.int16)
        if grid is not None:  # the old square, moved to its place in the new one
            old = grid.reshape(self._g, self._g)
            dr, dc = self._r0 - r0, self._c0 - c0
            new.reshape(g, g)[dr : dr + self._g, dc : dc + self._g] = old
        else:
            for (r, c), t in self._cells.items():
                new[(r - r0) * g + c - c0] = 1 + t
            seq = 0
            for r, c in self._front:
                new[(r - r0) * g + c - c0] = -1 - seq
                seq += 1
            self._seq = seq
        self._grid, self._g, self._r0, self._c0 = new, g, r0, c0


GRID_START = 48  # the grid's first side; it doubles when the table nears its edge
GRID_MARGIN = 8  # cells kept free past the table: a placement's reach plus a walk past it
GRID_MAX = 256  # wider than any table play can build (at most 108 tiles across)
GRID_FAR = 1 << 40  # cells beyond this stay with placements.py (int64 in the kernel)

# movegen.py, grid.py and opening.py, imported on the first placement list (they load
# numba), the set order's cell hashes (setorder.cell_hashes) for grid.play, the scratch
# of grid.placements and two of grid.py's numbers.
_movegen = _grid = _opening = _HASHES = _LIST = _SCRATCH_AT = _SYNC_SOON = None


def movegen_ready() -> bool:
    """Loads the compiled generator (numba) on the first call; whether it is compiled."""
    global _movegen, _grid, _opening, _HASHES, _LIST, _SCRATCH_AT, _SYNC_SOON
    if _movegen is None:
        from . import grid, movegen, opening
        from .setorder import cell_hashes

        _grid, _opening, _HASHES = grid, opening, cell_hashes()
        _SCRATCH_AT, _SYNC_SOON = grid.SCRATCH_AT, grid.SYNC_SOON
        _LIST = np.zeros(grid.LIST_SCRATCH, np.int64)
        _movegen = movegen  # last: _kernels_loaded() reads it
    return _movegen.COMPILED


def _written(write, args: tuple, mode: int | None, size: int) -> np.ndarray | None:
    """The rows ``write(*args, out[, mode])`` writes into a fresh array, written again into
    a longer one when the first was too short; None if ``write`` declines (-1)."""
    out = np.empty((size, WIDTH), np.int64)
    tail = () if mode is None else (mode,)
    count = write(*args, out, *tail)
    if count > size:
        out = np.empty((count, WIDTH), np.int64)
        write(*args, out, *tail)
    return None if count < 0 else out[:count]


def kernels_loaded() -> bool:
    """Whether the compiled kernels are loaded (the first placement list loads them)."""
    return _movegen is not None and _movegen.COMPILED


def _box_of(cells: list[Cell]) -> tuple[int, int, int, int]:
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    return min(rows), max(rows), min(cols), max(cols)
