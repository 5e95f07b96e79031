"""The table: an unbounded grid of tiles, and which placements it accepts.

Cells are ``(row, col)`` pairs of any ints. Beside the tiles the board keeps, for each
empty cell touching a tile (the *frontier*), the runs of tiles next to it in the four
directions. That is all any rule needs: a tile fits a cell iff it is compatible with the
runs on each side, and a placement grows a run cell by cell. ``play`` updates only the
frontier cells at the ends of the runs it changed, so move generation never rescans the
table. The board also keeps the table as a flat grid of cell codes for the compiled
kernels: that half is ``compiled_table.py``, which ``Board`` inherits.

Two faces: the rules API on ``Tile`` objects (``score``, ``play``, ``legal_placements``,
``fits``) and, for the env, the game and agents in their hot loops, the same rules on tile
ids (0..35) and id masks: ``placements_with_points``, ``score_ids``, ``score_legal``,
``place_legal`` and ``play_legal`` (trusted: for placements already known legal), and the
read-only views
``tile_ids``, ``type_counts``, ``complete_types``, ``fitting_types``, ``frontier``,
``fit_masks`` and ``code_grid``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

import numpy as np

from .compiled_table import CompiledTable, movegen_ready
from .frontier import (
    C_D,
    C_L,
    C_R,
    C_U,
    FIT_H,
    FIT_V,
    LEN_H,
    LEN_V,
    N_D,
    N_L,
    N_R,
    N_U,
    T_D,
    T_L,
    T_R,
    T_U,
    record,
)
from .lines import ALL, ids_of, line_fault, line_points, mask_of
from .placements import WIDTH, grown_placements, opening_placements, rows_to_placements
from .tiles import COPIES, NUM_TYPES, Tile

Cell = tuple[int, int]
PlacedTiles = tuple[tuple[Cell, Tile], ...]  # a placement as ((row, col), Tile) pairs

_STEPS = ((0, -1), (0, 1), (-1, 0), (1, 0))  # left, right, up, down


class IllegalMove(ValueError):
    """A move the rules forbid; the message names the rule."""


class Board(CompiledTable):
    """Tiles on the table, with legality and scoring of placements."""

    __slots__ = ("_cells", "_front", "_fits", "_box", "_counts", "_full")

    def __init__(self, tiles: Mapping[Cell, Tile] | None = None) -> None:
        self._cells: dict[Cell, int] = {}
        self._front: dict[Cell, tuple[int, ...]] = {}
        self._fits: dict[Cell, int] = {}  # FIT_H & FIT_V of each frontier cell some tile fits
        self._box: tuple[int, int, int, int] | None = None  # bounds(), kept up to date
        self._counts = [0] * NUM_TYPES  # copies of each tile type on the table
        self._full = 0  # mask of the types whose copies are all on the table
        # The table as movegen.py's grid of cell codes, g cells square, grid cell (i, j)
        # holding table cell (r0 + i, c0 + j); None while empty, and for crafted tables too
        # wide or too far out for it (placements.py then grows their moves).
        self._grid = None
        self._g = self._r0 = self._c0 = 0
        self._seq = 0  # cells that have joined the frontier so far (their grid codes' order)
        # While grid.py's kernel places the trusted placements (see _start_kernels): each
        # grid cell's fit mask, and _work (grid.py): the cells each type fits, the board's
        # numbers (then kept there, not in the fields above), the cells changed since the
        # frontier dicts were brought up to date (stale until _sync) and the kernel's
        # scratch. None otherwise, the dicts and the fields above then always up to date.
        self._fitgrid = self._work = None
        if tiles:
            for cell, tile in tiles.items():
                self._cells[_as_cell(cell)] = as_tile(tile).id
            for t in self._cells.values():
                self._counts[t] += 1
                if self._counts[t] >= COPIES:
                    self._full |= 1 << t
            self._check_all_lines()
            self._grid_cover(list(self._cells))
            self._refresh({n for cell in self._cells for n in _neighbours(cell)})

    # --- reading -------------------------------------------------------------------
    def __getitem__(self, cell: Cell) -> Tile | None:
        tile_id = self._cells.get(_as_cell(cell))
        return None if tile_id is None else Tile.from_id(tile_id)

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self) -> Iterator[tuple[Cell, Tile]]:
        for cell in sorted(self._cells):
            yield cell, Tile.from_id(self._cells[cell])

    def __contains__(self, cell: object) -> bool:
        return cell in self._cells

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self._cells == other._cells

    def __repr__(self) -> str:
        return f"Board({{{', '.join(f'{c}: {t!r}' for c, t in self)}}})"

    def copy(self) -> Board:
        new = Board.__new__(Board)
        new._cells = dict(self._cells)
        new._front = dict(self._front)
        new._fits = dict(self._fits)
        new._box = self._box
        new._counts = list(self._counts)
        new._full = self._full
        self._copy_grid_into(new)
        return new

    def bounds(self) -> tuple[int, int, int, int] | None:
        """(min_row, max_row, min_col, max_col) of the tiles, None when empty."""
        if self._work is not None and self._cells:
            return self._kernel_box()
        if self._box is None and self._cells:
            rows = [r for r, _ in self._cells]
            cols = [c for _, c in self._cells]
            self._box = (min(rows), max(rows), min(cols), max(cols))
        return self._box

    def fits(self, cell: Cell) -> list[Tile]:
        """Tile types that could go on ``cell`` alone this turn."""
        if not self._cells:
            return list(Tile.from_id(t) for t in range(36))
        self._sync()
        info = self._front.get(_as_cell(cell))
        return [] if info is None else [Tile.from_id(t) for t in ids_of(info[FIT_H] & info[FIT_V])]

    # --- checking and playing ------------------------------------------------------
    def score(self, placement: Iterable[tuple[Cell, Tile]]) -> int:
        """Points the placement would score; raises IllegalMove if it breaks a rule."""
        return self.score_ids(_normalise(placement))

    def play(self, placement: Iterable[tuple[Cell, Tile]]) -> int:
        """Checks, then places the tiles; the board is unchanged if it raises."""
        items = _normalise(placement)
        points = self.score_ids(items)
        self.place_legal(items)
        return points

    def legal_placements(self, tiles: Iterable[Tile]) -> list[PlacedTiles]:
        """Every distinct legal placement of a sub-multiset of ``tiles``, sorted."""
        hand = mask_of(as_tile(t).id for t in tiles)
        found = {
            tuple(sorted((cell, Tile.from_id(t)) for cell, t in items))
            for items, _ in self.placements_with_points(hand)
        }
        return sorted(found)

    def runs_through(self, cells: Iterable[Cell]) -> list[tuple[Cell, Cell, Cell, int]]:
        """Each distinct maximal run of tiles through these (occupied) cells, along rows and
        along columns, as (first cell, last cell, step, length); a lone tile is a run of 1.

        What scorers and judges of a placement walk: its lines, each once.
        """
        tiles = self._cells
        seen = set()
        out = []
        for r, c in cells:
            for dr, dc in ((0, 1), (1, 0)):
                lo = (r, c)
                while (lo[0] - dr, lo[1] - dc) in tiles:
                    lo = (lo[0] - dr, lo[1] - dc)
                if (lo, dr) in seen:
                    continue
                seen.add((lo, dr))
                hi, n = lo, 1
                while (hi[0] + dr, hi[1] + dc) in tiles:
                    hi, n = (hi[0] + dr, hi[1] + dc), n + 1
                out.append((lo, hi, (dr, dc), n))
        return out

    def can_place(self, hand_mask: int) -> bool:
        """Whether any tile of the hand (a tile mask) fits anywhere."""
        return bool(hand_mask & self.fitting_types)

    @property
    def fitting_types(self) -> int:
        """Mask of the tile types that fit some cell alone (every type on an empty table):
        no tile outside it can be placed now."""
        if self._work is not None:
            return self._kernel_fitting()
        if not self._cells:
            return ALL
        fitting = 0
        for fit in self._fits.values():
            fitting |= fit
        return fitting

    # --- the id-level API: tile ids and masks, for the env, the game and agents -------
    @property
    def tile_ids(self) -> dict[Cell, int]:
        """cell -> tile id of every tile on the table. Read-only: the board's own dict."""
        return self._cells

    @property
    def type_counts(self) -> list[int]:
        """Copies of each tile type on the table, by id. Read-only."""
        if self._work is not None:
            return self._kernel_counts()
        return self._counts

    @property
    def complete_types(self) -> int:
        """Mask of the tile types whose every copy is on the table."""
        if self._work is not None:
            return self._kernel_full()
        return self._full

    @property
    def frontier(self) -> dict[Cell, tuple[int, ...]]:
        """Each empty cell touching a tile -> its record, indexed by ``FIT_H`` .. ``C_D``
        (this module's constants): per side the run's length, tile mask and compatible
        mask, per axis the types that fit and the line a tile there makes. Read-only."""
        self._sync()
        return self._front

    @property
    def fit_masks(self) -> dict[Cell, int]:
        """Each frontier cell some tile fits alone -> the mask of those types. Read-only."""
        self._sync()
        return self._fits

    def score_ids(self, items: list[tuple[Cell, int]]) -> int:
        """``score`` on ``[(cell, tile_id), ...]``: points if legal, else IllegalMove."""
        if not items:
            raise IllegalMove("empty placement: place at least one tile")
        cells = self._cells
        placed: dict[Cell, int] = {}
        for cell, t in items:
            if cell in placed:
                raise IllegalMove(f"occupied cell: {cell} is used twice in this placement")
            if cell in cells:
                raise IllegalMove(
                    f"occupied cell: {cell} already holds a {Tile.from_id(cells[cell])}"
                )
            placed[cell] = t
        rows = {r for r, _ in placed}
        cols = {c for _, c in placed}
        axis = None
        if len(placed) > 1:
            if len(rows) == 1:
                axis = 0
            elif len(cols) == 1:
                axis = 1
            else:
                raise IllegalMove(
                    "two directions: all tiles placed in one turn must lie in one row or one column"
                )
            if axis == 0:
                (r,) = rows
                span = [(r, c) for c in range(min(cols), max(cols) + 1)]
            else:
                (c,) = cols
                span = [(r, c) for r in range(min(rows), max(rows) + 1)]
            for cell in span:
                if cell not in placed and cell not in cells:
                    raise IllegalMove(
                        f"gap: cell {cell} between the placed tiles is empty; the placed "
                        "tiles and the tiles between them must form one unbroken line"
                    )
        if cells and not any(n in cells for cell in placed for n in _neighbours(cell)):
            raise IllegalMove(
                "not touching: at least one placed tile must touch a tile already on the table"
            )

        def line(cell: Cell, ax: int) -> list[int]:
            dr, dc = (0, 1) if ax == 0 else (1, 0)
            ids = [placed[cell]]
            for sign in (-1, 1):
                r, c = cell[0] + sign * dr, cell[1] + sign * dc
                while True:
                    t = placed.get((r, c))
                    if t is None:
                        t = cells.get((r, c))
                        if t is None:
                            break
                    ids.append(t)
                    r, c = r + sign * dr, c + sign * dc
            return ids

        lines = []
        first = next(iter(placed))
        if axis is None:
            lines += [line(first, 0), line(first, 1)]
        else:
            lines.append(line(first, axis))
            lines += [line(cell, 1 - axis) for cell in placed]
        points = 0
        any_line = False
        for ids in lines:
            if len(ids) < 2:
                continue
            any_line = True
            fault = line_fault(ids)
            if fault:
                raise IllegalMove(fault)
            points += line_points(len(ids))
        return points if any_line else 1

    def score_legal(self, items: list[tuple[Cell, int]]) -> int:
        """What ``score_ids`` returns, for a placement already known to be legal (a Turn or
        ``placements_with_points`` built it): read off the frontier records instead of
        walking and checking every line. An illegal placement gets a wrong number."""
        self._sync()
        front = self._front
        if len(items) == 1:
            info = front.get(items[0][0])
            if info is None:  # the first tile of the game
                return 1
            return (line_points(info[LEN_H]) + line_points(info[LEN_V])) or 1
        (r, c), _ = items[0]
        if items[1][0][0] == r:  # along a row
            cols = [q[1] for q, _ in items]
            lo, hi = (r, min(cols)), (r, max(cols))
            length = hi[1] - lo[1] + 1
            before, after, perp = N_L, N_R, LEN_V
        else:
            rows = [q[0] for q, _ in items]
            lo, hi = (min(rows), c), (max(rows), c)
            length = hi[0] - lo[0] + 1
            before, after, perp = N_U, N_D, LEN_H
        info = front.get(lo)
        if info is not None:
            length += info[before]
        info = front.get(hi)
        if info is not None:
            length += info[after]
        points = line_points(length)
        for q, _ in items:
            info = front.get(q)
            if info is not None:
                points += line_points(info[perp])
        return points

    def place_legal(self, items: list[tuple[Cell, int]]) -> None:
        """Puts tiles known to be legal here down (no check) and refreshes the frontier
        around them; ``play`` is the checked twin on Tiles."""
        if self._kernel_play(items) < 0:
            self._place(items)

    def play_legal(self, items: list[tuple[Cell, int]]) -> int:
        """``score_legal`` then ``place_legal``, in one pass where the kernel plays: what a
        game does with a trusted placement."""
        points = self._kernel_play(items)
        if points < 0:
            points = self.score_legal(items)
            self._place(items)
        return points

    def _place(self, items: list[tuple[Cell, int]]) -> None:
        """``place_legal`` in Python, on up-to-date dicts (the first tiles of a game, a
        grid that grows, tables beyond the kernel)."""
        if self._work is not None:
            self._stop_kernels()
        cells = self._cells
        front = self._front
        fits = self._fits
        counts = self._counts
        box = self.bounds()
        if self._grid is not None or not cells:
            self._grid_cover([cell for cell, _ in items])
        grid = self._grid
        for cell, t in items:
            if grid is not None:
                grid[(cell[0] - self._r0) * self._g + cell[1] - self._c0] = 1 + t
            cells[cell] = t
            front.pop(cell, None)
            fits.pop(cell, None)
            counts[t] += 1
            if counts[t] >= COPIES:
                self._full |= 1 << t
            r, c = cell
            if box is None:
                box = (r, r, c, c)
            elif not (box[0] <= r <= box[1] and box[2] <= c <= box[3]):
                box = (min(box[0], r), max(box[1], r), min(box[2], c), max(box[3], c))
        self._box = box
        touched = set()
        for (r, c), _ in items:
            for dr, dc in _STEPS:
                rr, cc = r + dr, c + dc
                while (rr, cc) in cells:
                    rr, cc = rr + dr, cc + dc
                touched.add((rr, cc))
        self._refresh(touched)

    def _refresh(self, empties: Iterable[Cell]) -> None:
        """Rebuilds the frontier record of each of these cells (drops it if the cell is
        taken or touches nothing); a cell new to the frontier gets the next rank."""
        cells = self._cells
        front = self._front
        fits = self._fits
        grid = self._grid
        for cell in empties:
            if cell in cells:
                continue
            info = self._record(cell)
            if info is None:
                front.pop(cell, None)
                fits.pop(cell, None)
                continue
            if grid is not None and cell not in front:  # joins the frontier: its rank
                grid[(cell[0] - self._r0) * self._g + cell[1] - self._c0] = -1 - self._seq
                self._seq += 1
            self._keep(cell, info)

    def _keep(self, cell: Cell, info: tuple[int, ...]) -> None:
        """Writes a frontier cell's record, and its fit mask where some type fits."""
        self._front[cell] = info
        fit = info[FIT_H] & info[FIT_V]
        if fit:
            self._fits[cell] = fit
        else:
            self._fits.pop(cell, None)

    def _record(self, cell: Cell) -> tuple[int, ...] | None:
        return record(self._cells.get, cell)

    def _check_all_lines(self) -> None:
        cells = self._cells
        for ax, (dr, dc) in enumerate(((0, 1), (1, 0))):
            for (r, c), _ in cells.items():
                if (r - dr, c - dc) in cells:
                    continue  # not the start of a run
                ids = []
                while (r, c) in cells:
                    ids.append(cells[(r, c)])
                    r, c = r + dr, c + dc
                if len(ids) > 1:
                    fault = line_fault(ids)
                    if fault:
                        where = "row" if ax == 0 else "column"
                        raise IllegalMove(f"{fault} (in the {where} ending at {(r - dr, c - dc)})")

    def placements_with_points(self, hand: int) -> list[tuple[tuple[tuple[Cell, int], ...], int]]:
        """Every legal placement of a sub-multiset of the hand mask's types, each once, as
        ``(((cell, tile_id), ...), points)``: ``legal_placements`` on ids, with points.

        The order is fixed by the table's history: anchor by anchor (the frontier cells in
        the order they joined it), each anchor's tiles by id, each placement followed by
        those grown from it (along the row, then the column; forwards, then backwards).
        Equal tables reached by equal moves list equal placements in equal order (a table
        built from a dict of tiles, as a loaded game's, in its own order). Grown by
        the compiled ``movegen.py`` when numba is there, else by ``placements.py``: the same
        list either way."""
        if not self._cells:
            if not movegen_ready():
                return opening_placements(hand)
        elif self._grid is None or not movegen_ready():
            return grown_placements(self.frontier, hand)
        return rows_to_placements(self.placement_rows(hand).tolist())

    def placement_rows(self, hand: int) -> np.ndarray:
        """``placements_with_points`` as an int64 array, one row per placement, in the same
        order: ``[tiles, points, row, col, tile, row, col, tile, ...]`` (``WIDTH`` columns,
        unused ones zero). What the compiled generator writes, before any Python tuple is
        built: for callers that score or filter moves in bulk."""
        return self._rows(hand, False)

    def top_placement_rows(self, hand: int) -> np.ndarray:
        """The rows of ``placement_rows`` that score the most, in its order: what a greedy
        player chooses among, without the cost of writing every other row."""
        return self._rows(hand, True)


def _neighbours(cell: Cell) -> list[Cell]:
    r, c = cell
    return [(r, c - 1), (r, c + 1), (r - 1, c), (r + 1, c)]


def _as_cell(cell: object) -> Cell:
    if (
        isinstance(cell, tuple)
        and len(cell) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) for x in cell)
    ):
        return cell  # type: ignore[return-value]
    try:
        r, c = cell  # type: ignore[misc]
        if int(r) == r and int(c) == c and not isinstance(r, bool) and not isinstance(c, bool):
            return (int(r), int(c))
    except (TypeError, ValueError):
        pass
    raise TypeError(f"a cell is a (row, col) pair of ints, got {cell!r}")


def as_tile(tile: object) -> Tile:
    if isinstance(tile, Tile):
        return tile
    raise TypeError(f"expected a Tile, got {tile!r} (make one with Tile(Color.RED, Shape.SQUARE))")


def checked_pairs(placement: Iterable[tuple[Cell, Tile]]) -> list[tuple[Cell, Tile]]:
    """The placement as checked ((row, col), Tile) pairs; TypeError says what is wrong."""
    pairs = []
    for entry in placement:
        try:
            cell, tile = entry
        except (TypeError, ValueError):
            raise TypeError(
                f"a placement is a list of ((row, col), Tile) pairs; got {entry!r}"
            ) from None
        pairs.append((_as_cell(cell), as_tile(tile)))
    return pairs


def _normalise(placement: Iterable[tuple[Cell, Tile]]) -> list[tuple[Cell, int]]:
    return [(cell, tile.id) for cell, tile in checked_pairs(placement)]


__all__ = [  # the frontier fields too, where agents and the turn have always read them
    "C_D", "C_L", "C_R", "C_U", "FIT_H", "FIT_V", "LEN_H", "LEN_V", "N_D", "N_L", "N_R",
    "N_U", "T_D", "T_L", "T_R", "T_U", "WIDTH", "Board", "Cell", "IllegalMove", "PlacedTiles",
    "as_tile", "checked_pairs",
]  # fmt: skip
