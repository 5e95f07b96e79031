"""The legal moves of a turn, each with its row of numbers (``columns.py`` says what each
column means): what the env's move mode shows a policy, and what the move-value agent reads.

A row's move comes out as an engine ``Move`` (``MoveRows.move``): a ``Placement`` built by
``Placement.of_ids`` from the generator's checked ``((cell, tile_id), ...)`` items, or an
``Exchange`` by ``Exchange.of_ids``. That is the one conversion from the generator's forms to
the shape ``Game.apply`` takes, for the env and the agents alike.
"""

from __future__ import annotations

import numpy as np

from ..engine.hand import HAND_SIZE, remove_tiles
from ..engine.moves import Exchange, Move, Placement
from ..engine.placements import WIDTH, rows_of, rows_to_placements

__all__ = ["MoveRows"]


class MoveRows:
    """The legal moves of a turn and their rows, in the engine's order: every placement
    (as ``Game.placements_with_points`` lists them), then every distinct exchange.

    ``placements`` (``((cell, tile_id), ...)`` each) and ``exchanges`` (tile ids each) are
    lists of tuples. The compiled rows hand them over as arrays instead
    (``placement_rows``: ``Board.placement_rows``' form; ``exchange_rows``:
    ``[size, ids...]``), and the tuples are made when first read: a turn plays one move."""

    def __init__(
        self,
        placements: list | None,
        exchanges: list | None,
        points: np.ndarray,  # float32, points scored now (end bonus included)
        features: np.ndarray,  # float32 (moves, NUM_ROW_FEATURES + extra columns)
        hand: list[int],  # the mover's tiles
        *,
        placement_rows: np.ndarray | None = None,
        exchange_rows: np.ndarray | None = None,
    ) -> None:
        if placements is None and placement_rows is None:
            raise ValueError("MoveRows needs the placements, as tuples or as rows")
        if exchanges is None and exchange_rows is None:
            raise ValueError("MoveRows needs the exchanges, as tuples or as rows")
        self._placements, self._placement_rows = placements, placement_rows
        self._exchanges, self._exchange_rows = exchanges, exchange_rows
        self.points, self.features, self.hand = points, features, hand

    def parts(self) -> dict:
        """The constructor's arguments, lazy forms kept: a subclass (the agents' rows with
        look-ahead columns) is made from them without building any tuple."""
        return {
            "placements": self._placements, "exchanges": self._exchanges,
            "points": self.points, "features": self.features, "hand": self.hand,
            "placement_rows": self._placement_rows, "exchange_rows": self._exchange_rows,
        }  # fmt: skip

    @property
    def placements(self) -> list:
        """``((cell, tile_id), ...)`` per placement: the first rows."""
        if self._placements is None:
            self._placements = [
                items for items, _ in rows_to_placements(self._placement_rows.tolist())
            ]
        return self._placements

    @property
    def exchanges(self) -> list:
        """The tile ids of each exchange: the rows after the placements."""
        if self._exchanges is None:
            self._exchanges = [tuple(row[1 : 1 + row[0]]) for row in self._exchange_rows.tolist()]
        return self._exchanges

    @property
    def num_placements(self) -> int:
        """How many of the rows are placements (the first ones)."""
        if self._placements is None:
            return len(self._placement_rows)
        return len(self._placements)

    def __len__(self) -> int:
        return len(self.points)

    def __repr__(self) -> str:
        n = self.num_placements
        return f"MoveRows({n} placements, {len(self) - n} exchanges)"

    def move(self, i: int) -> Move:
        """The engine move of row ``i``, made alone if the lists are not made yet."""
        n = self.num_placements
        if i < n:
            if self._placements is None:
                items = rows_to_placements([self._placement_rows[i].tolist()])[0][0]
                return Placement.of_ids(items)
            return Placement.of_ids(self._placements[i])
        if self._exchanges is None:
            row = self._exchange_rows[i - n].tolist()
            return Exchange.of_ids(row[1 : 1 + row[0]])
        return Exchange.of_ids(self._exchanges[i - n])

    def used(self, i: int) -> tuple:
        """The tile ids move ``i`` takes from the hand: the placed tiles' in placement
        order, or the exchanged ones."""
        n = self.num_placements
        if i < n:
            if self._placements is None:
                row = self._placement_rows[i].tolist()
                return tuple(row[4 : 4 + 3 * row[0] : 3])
            return tuple(t for _, t in self._placements[i])
        if self._exchanges is None:
            row = self._exchange_rows[i - n].tolist()
            return tuple(row[1 : 1 + row[0]])
        return self._exchanges[i - n]

    def move_arrays(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Moves ``idx`` in bulk, for kernels: their tiles as placement rows
        (``Board.placement_rows``' form, the points column 0; an exchange's row places
        nothing) and the tile ids each takes from the hand (``HAND_SIZE`` columns, -1 past
        the last)."""
        n = self.num_placements
        placed, swapped = np.nonzero(idx < n)[0], np.nonzero(idx >= n)[0]
        rows = np.zeros((len(idx), WIDTH), np.int64)
        taken = np.full((len(idx), HAND_SIZE), -1, np.int64)
        slots = np.arange(HAND_SIZE)
        if len(placed):
            if self._placements is None:
                found = self._placement_rows[idx[placed]]
            else:
                found = rows_of([(self._placements[i], 0) for i in idx[placed].tolist()])
            rows[placed] = found
            rows[placed, 1] = 0
            ids = found[:, 4 : 4 + 3 * HAND_SIZE : 3]
            taken[placed] = np.where(slots < found[:, :1], ids, -1)
        if len(swapped):
            if self._exchanges is None:
                found = self._exchange_rows[idx[swapped] - n]
            else:
                found = np.full((len(swapped), HAND_SIZE + 1), -1, np.int64)
                for j, i in enumerate(idx[swapped].tolist()):
                    ids = self._exchanges[i - n]
                    found[j, 0] = len(ids)
                    found[j, 1 : 1 + len(ids)] = ids
            width = found.shape[1] - 1
            taken[swapped, :width] = np.where(slots[:width] < found[:, :1], found[:, 1:], -1)
        return rows, taken

    def kept(self, i: int) -> list[int]:
        """The tiles the mover keeps after move ``i``."""
        return remove_tiles(self.hand, self.used(i))
