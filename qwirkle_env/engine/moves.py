"""The two kinds of move: a Placement of tiles on the table, or an Exchange with the bag."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .board import Cell, as_tile, checked_pairs
from .tiles import TILE_TYPES, Tile


@dataclass(frozen=True, order=True)
class Placement:
    """Tiles put on the table this turn, as sorted ((row, col), Tile) pairs."""

    tiles: tuple[tuple[Cell, Tile], ...]

    def __init__(self, tiles: Iterable[tuple[Cell, Tile]]) -> None:
        object.__setattr__(self, "tiles", tuple(sorted(checked_pairs(tiles))))

    @classmethod
    def of_ids(cls, items) -> Placement:
        """From ((row, col), tile_id) pairs the engine has already checked: no re-parsing."""
        move = object.__new__(cls)
        if len(items) == 1:
            ((cell, t),) = items
            tiles = ((cell, TILE_TYPES[t]),)
        else:
            tiles = tuple(sorted([(cell, TILE_TYPES[t]) for cell, t in items]))
        object.__setattr__(move, "tiles", tiles)
        return move

    def __len__(self) -> int:
        return len(self.tiles)

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
