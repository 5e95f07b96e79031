"""A hand: up to six tiles, hidden from the other players, as a sorted list of tile ids."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from ..spec import HAND_SIZE, NUM_SHAPES

__all__ = ["HAND_SIZE", "distinct_exchanges", "group_members", "largest_group", "remove_tiles"]

_COLOUR = (1 << NUM_SHAPES) - 1  # the types of colour 0 (a tile's id is colour * 6 + shape)
_SHAPE = sum(1 << (NUM_SHAPES * c) for c in range(NUM_SHAPES))  # the types of shape 0


def largest_group(tile_ids: Iterable[int]) -> int:
    """Size of the largest set sharing a colour or a shape, identical tiles counted once.

    This decides who opens and how many tiles the opening line must hold.
    """
    distinct = 0
    for t in tile_ids:
        distinct |= 1 << t
    best = 0
    for k in range(NUM_SHAPES):
        colour = (distinct >> (NUM_SHAPES * k) & _COLOUR).bit_count()
        shape = (distinct >> k & _SHAPE).bit_count()
        best = max(best, colour, shape)
    return best


def group_members(tile_ids: Iterable[int], size: int) -> list[frozenset[int]]:
    """Every colour or shape group of exactly ``size`` distinct tiles in the hand."""
    distinct = set(tile_ids)
    groups = []
    for k in range(6):
        for members in (
            frozenset(t for t in distinct if t // NUM_SHAPES == k),
            frozenset(t for t in distinct if t % NUM_SHAPES == k),
        ):
            if len(members) == size:
                groups.append(members)
    return groups


def distinct_exchanges(hand: list[int], bag_size: int) -> list[tuple[int, ...]]:
    """Every distinct sub-multiset of the hand that may be exchanged (1 tile up to as many
    as the bag holds), sorted; identical tiles make one choice, not several."""
    most = min(len(hand), bag_size)
    ordered = sorted(hand)
    return sorted({combo for k in range(1, most + 1) for combo in combinations(ordered, k)})


def remove_tiles(hand: list[int], tile_ids: Iterable[int]) -> list[int] | None:
    """The hand without these tiles (as a multiset), or None if it does not hold them."""
    rest = list(hand)
    for t in tile_ids:
        try:
            rest.remove(t)
        except ValueError:
            return None
    return rest
