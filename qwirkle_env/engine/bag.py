"""The bag: hidden tiles in a seeded order, drawn from the end."""

from __future__ import annotations

import random

from .tiles import COPIES, NUM_TYPES


class Bag:
    """Tile ids in draw order; the game's RNG shuffles it, so a seed fixes every draw."""

    __slots__ = ("tiles", "rng")

    def __init__(self, rng: random.Random, tiles: list[int] | None = None) -> None:
        self.rng = rng
        if tiles is None:
            tiles = [t for t in range(NUM_TYPES) for _ in range(COPIES)]
            rng.shuffle(tiles)
        self.tiles = tiles

    def __len__(self) -> int:
        return len(self.tiles)

    def draw(self, n: int) -> list[int]:
        n = min(n, len(self.tiles))
        if n <= 0:
            return []
        drawn = self.tiles[-n:]
        del self.tiles[-n:]
        return drawn

    def exchange(self, returned: list[int]) -> list[int]:
        """Draws as many as are returned, then puts those back and reshuffles."""
        if len(returned) > len(self.tiles):
            raise ValueError(f"cannot exchange {len(returned)} tiles: the bag holds {len(self)}")
        drawn = self.draw(len(returned))
        self.tiles.extend(returned)
        self.rng.shuffle(self.tiles)
        return drawn
