"""Tiles: six colours times six shapes, three copies of each.

A tile's id is ``color * 6 + shape`` (0..35); the engine works on ids and 36-bit
masks, and hands out the interned :class:`Tile` objects at its edges.
"""

from __future__ import annotations

from enum import IntEnum

from ..spec import COPIES, NUM_COLORS, NUM_SHAPES, NUM_TILES, NUM_TYPES

__all__ = [
    "COPIES",
    "NUM_COLORS",
    "NUM_SHAPES",
    "NUM_TILES",
    "NUM_TYPES",
    "SHAPE_NAMES",
    "Color",
    "Shape",
    "Tile",
    "full_set",
]


class Color(IntEnum):
    RED = 0
    ORANGE = 1
    YELLOW = 2
    GREEN = 3
    BLUE = 4
    PURPLE = 5


class Shape(IntEnum):
    CIRCLE = 0
    STAR4 = 1  # the four-point star, "criss-cross"
    DIAMOND = 2
    SQUARE = 3
    CLOVER = 4
    STAR8 = 5  # the eight-point star


SHAPE_NAMES = ("circle", "star4", "diamond", "square", "clover", "star8")


class Tile:
    """One of the 36 tile types. Interned: ``Tile(c, s) is Tile(c, s)``."""

    __slots__ = ("color", "shape", "id")
    color: Color
    shape: Shape
    id: int

    def __new__(cls, color: Color | int, shape: Shape | int) -> Tile:
        try:
            return _TILES[Color(color) * NUM_SHAPES + Shape(shape)]
        except ValueError:
            raise ValueError(
                f"no tile of colour {color!r} and shape {shape!r}: "
                "colours and shapes are 0..5 (see Color and Shape)"
            ) from None

    @staticmethod
    def from_id(tile_id: int) -> Tile:
        if (
            not isinstance(tile_id, int)
            or isinstance(tile_id, bool)
            or not 0 <= tile_id < NUM_TYPES
        ):
            raise ValueError(f"tile id must be an int in 0..{NUM_TYPES - 1}, got {tile_id!r}")
        return _TILES[tile_id]

    @staticmethod
    def parse(name: str) -> Tile:
        """Reads the ``str()`` form back, e.g. ``"red square"``."""
        parts = name.strip().lower().split()
        if (
            len(parts) != 2
            or parts[0].upper() not in Color.__members__
            or parts[1] not in SHAPE_NAMES
        ):
            raise ValueError(
                f"cannot read tile {name!r}: expected '<colour> <shape>' with colour in "
                f"{[c.name.lower() for c in Color]} and shape in {list(SHAPE_NAMES)}"
            )
        return Tile(Color[parts[0].upper()], SHAPE_NAMES.index(parts[1]))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Tile is immutable")

    def __reduce__(self):
        return (Tile.from_id, (self.id,))

    def __copy__(self) -> Tile:
        return self

    def __deepcopy__(self, memo) -> Tile:
        return self

    def __hash__(self) -> int:
        return self.id

    def __eq__(self, other: object) -> bool:
        return self is other if isinstance(other, Tile) else NotImplemented

    def __lt__(self, other: Tile) -> bool:
        if not isinstance(other, Tile):
            return NotImplemented
        return self.id < other.id

    def __le__(self, other: Tile) -> bool:
        if not isinstance(other, Tile):
            return NotImplemented
        return self.id <= other.id

    def __gt__(self, other: Tile) -> bool:
        if not isinstance(other, Tile):
            return NotImplemented
        return self.id > other.id

    def __ge__(self, other: Tile) -> bool:
        if not isinstance(other, Tile):
            return NotImplemented
        return self.id >= other.id

    def __repr__(self) -> str:
        return f"Tile(Color.{self.color.name}, Shape.{self.shape.name})"

    def __str__(self) -> str:
        return f"{self.color.name.lower()} {SHAPE_NAMES[self.shape]}"


def _make_tiles() -> tuple[Tile, ...]:
    tiles = []
    for tile_id in range(NUM_TYPES):
        tile = object.__new__(Tile)
        object.__setattr__(tile, "color", Color(tile_id // NUM_SHAPES))
        object.__setattr__(tile, "shape", Shape(tile_id % NUM_SHAPES))
        object.__setattr__(tile, "id", tile_id)
        tiles.append(tile)
    return tuple(tiles)


_TILES = _make_tiles()
TILE_TYPES: tuple[Tile, ...] = _TILES


def full_set() -> list[Tile]:
    """The 108 tiles of a new game, in id order (the bag shuffles them)."""
    return [tile for tile in _TILES for _ in range(COPIES)]
