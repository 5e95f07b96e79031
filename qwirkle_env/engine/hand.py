"""A hand: up to six tiles, hidden from the other players, as a sorted list of tile ids."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from ..spec import HAND_SIZE, NUM_SHAPES
from .lines import COLOR_MASK, SHAPE_MASK, mask_of

__all__ = ["HAND_SIZE", "distinct_exchanges", "group_members", "largest_group", "remove_tiles"]


def largest_group(tile_ids: Iterable[int]) -> int:
    """Size of the largest set sharing a colour or a shape, identical tiles counted once.

    This decides who opens and how many tiles the opening line must hold.
    """
    distinct = mask_of(tile_ids)
    return max((distinct & group).bit_count() for group in (*COLOR_MASK, *SHAPE_MASK))


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
