"""The two kinds of move: a Placement of tiles on the table, or an Exchange with the bag."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .board import Cell, as_tile, checked_pairs
from .tiles import TILE_TYPES, Tile


class Placement:
    """Tiles put on the table this turn, as sorted ((row, col), Tile) pairs.

    Immutable, equal and ordered by its tiles, like ``Exchange``. One built by ``of_ids``
    (every placement a game applies, for its history) sorts its tiles only when they are
    first read: most histories are never read move by move."""

    __slots__ = ("_tiles", "_items")

    def __init__(self, tiles: Iterable[tuple[Cell, Tile]]) -> None:
        object.__setattr__(self, "_tiles", tuple(sorted(checked_pairs(tiles))))
        object.__setattr__(self, "_items", None)

    @classmethod
    def of_ids(cls, items) -> Placement:
        """From ((row, col), tile_id) pairs the engine has already checked: no re-parsing."""
        move = object.__new__(cls)
        object.__setattr__(move, "_tiles", None)
        object.__setattr__(move, "_items", tuple(items))
        return move

    @property
    def items(self) -> tuple[tuple[Cell, int], ...]:
        """``((cell, tile_id), ...)``: the ``of_ids`` items in their order while the tiles
        are unread, else the sorted tiles' ids."""
        if self._tiles is None:
            return self._items
        return tuple((cell, t.id) for cell, t in self._tiles)

    @property
    def tiles(self) -> tuple[tuple[Cell, Tile], ...]:
        if self._tiles is None:
            tiles = tuple(sorted([(cell, TILE_TYPES[t]) for cell, t in self._items]))
            object.__setattr__(self, "_tiles", tiles)
            object.__setattr__(self, "_items", None)
        return self._tiles

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Placement is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a Placement is immutable: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.tiles == other.tiles

    def __lt__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.tiles < other.tiles

    def __le__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.tiles <= other.tiles

    def __gt__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.tiles > other.tiles

    def __ge__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self.tiles >= other.tiles

    def __hash__(self) -> int:
        return hash((self.tiles,))

    def __repr__(self) -> str:
        return f"Placement(tiles={self.tiles!r})"

    def __reduce__(self):
        return (Placement, (self.tiles,))

    def __len__(self) -> int:
        return len(self._items) if self._tiles is None else len(self._tiles)

    def __str__(self) -> str:
        return "place " + ", ".join(f"{t} at {cell}" for cell, t in self.tiles)

    def to_json(self) -> dict:
        return {"place": [[r, c, t.id] for (r, c), t in self.tiles]}


@dataclass(frozen=True, order=True)
class Exchange:
    """Tiles of the hand traded with the bag this turn, sorted."""

    tiles: tuple[Tile, ...]

    def __init__(self, tiles: Iterable[Tile]) -> None:
        object.__setattr__(self, "tiles", tuple(sorted(as_tile(t) for t in tiles)))

    @classmethod
    def of_ids(cls, tile_ids: Iterable[int]) -> Exchange:
        """From tile ids, as the move list and the move rows hold them."""
        return cls(TILE_TYPES[t] for t in tile_ids)

    def __len__(self) -> int:
        return len(self.tiles)

    def __str__(self) -> str:
        return "exchange " + ", ".join(str(t) for t in self.tiles)

    def to_json(self) -> dict:
        return {"exchange": [t.id for t in self.tiles]}


Move = Placement | Exchange


def move_from_json(data: object) -> Move:
    """Reads a move written by ``to_json``; a malformed one raises ValueError."""
    try:
        if isinstance(data, dict) and set(data) == {"place"}:
            return Placement(((r, c), Tile.from_id(t)) for r, c, t in data["place"])
        if isinstance(data, dict) and set(data) == {"exchange"}:
            return Exchange(Tile.from_id(t) for t in data["exchange"])
    except (TypeError, ValueError) as err:
        raise ValueError(f"malformed move {data!r}: {err}") from None
    raise ValueError(
        f"malformed move {data!r}: expected {{'place': [[row, col, tile_id], ...]}} "
        "or {'exchange': [tile_id, ...]}"
    )
