"""Components (RULES.md "Components") and the tile and line primitives under the engine."""

from __future__ import annotations

import copy
import pickle
from collections import Counter
from itertools import combinations, permutations

import pytest

from qwirkle_env import Color, Shape, Tile
from qwirkle_env.engine.lines import ALL, COMPAT, compat_of, ids_of, line_fault, mask_of
from qwirkle_env.engine.tiles import NUM_TILES, TILE_TYPES, full_set


def t(name: str) -> Tile:
    return Tile.parse(name)


# --- Components -------------------------------------------------------------------------
def test_components_108_tiles_three_copies_of_each_of_36_types():
    tiles = full_set()
    assert len(tiles) == NUM_TILES == 108
    counts = Counter(tiles)
    assert len(counts) == 36
    assert set(counts.values()) == {3}
    assert {(x.color, x.shape) for x in counts} == {(c, s) for c in Color for s in Shape}


def test_components_colours_in_rule_book_order():
    assert [c.name for c in Color] == ["RED", "ORANGE", "YELLOW", "GREEN", "BLUE", "PURPLE"]
    assert [int(c) for c in Color] == list(range(6))


def test_components_shapes_in_rule_book_order():
    # circle, four-point star (criss-cross), diamond, square, clover, eight-point star
    assert [s.name for s in Shape] == ["CIRCLE", "STAR4", "DIAMOND", "SQUARE", "CLOVER", "STAR8"]
    assert [int(s) for s in Shape] == list(range(6))


def test_components_tile_id_is_colour_times_six_plus_shape():
    for c in Color:
        for s in Shape:
            tile = Tile(c, s)
            assert tile.id == c * 6 + s
            assert Tile.from_id(tile.id) is tile
            assert (tile.color, tile.shape) == (c, s)
    assert [x.id for x in TILE_TYPES] == list(range(36))


# --- Tile API ---------------------------------------------------------------------------
def test_tile_is_interned_hashable_and_comparable():
    a = Tile(Color.RED, Shape.SQUARE)
    assert a is Tile(0, 3) is Tile(Color.RED, 3)
    assert hash(a) == a.id
    assert {a: 1}[Tile(Color.RED, Shape.SQUARE)] == 1
    b = Tile(Color.ORANGE, Shape.CIRCLE)
    assert a < b and a <= b and b > a and b >= a and a != b
    assert sorted([b, a]) == [a, b]
    assert a != "red square"


def test_tile_is_immutable_and_copies_are_the_same_object():
    a = t("blue clover")
    with pytest.raises(AttributeError):
        a.color = Color.RED
    assert copy.copy(a) is a
    assert copy.deepcopy(a) is a
    assert pickle.loads(pickle.dumps(a)) is a


def test_tile_str_and_parse_round_trip():
    for tile in TILE_TYPES:
        assert Tile.parse(str(tile)) is tile
        assert eval(repr(tile), {"Tile": Tile, "Color": Color, "Shape": Shape}) is tile
    assert str(Tile(Color.PURPLE, Shape.STAR8)) == "purple star8"
    assert Tile.parse("  Green  Diamond ") is Tile(Color.GREEN, Shape.DIAMOND)


@pytest.mark.parametrize("bad", ["red", "pink square", "red hexagon", "red square x", ""])
def test_tile_parse_rejects_unknown_names(bad):
    with pytest.raises(ValueError, match="cannot read tile"):
        Tile.parse(bad)


@pytest.mark.parametrize("bad", [-1, 36, 1.0, True, "3", None])
def test_tile_from_id_rejects_bad_ids(bad):
    with pytest.raises(ValueError, match="tile id must be an int in 0..35"):
        Tile.from_id(bad)


def test_tile_rejects_colour_or_shape_out_of_range():
    with pytest.raises(ValueError, match="no tile of colour"):
        Tile(6, 0)
    with pytest.raises(ValueError, match="no tile of colour"):
        Tile(0, -1)


# --- Line masks (the rule "all one colour or all one shape, no repeats") ------------------
def test_lines_compat_is_same_colour_or_same_shape_but_never_the_same_tile():
    for a in TILE_TYPES:
        for b in TILE_TYPES:
            expected = a is not b and (a.color == b.color or a.shape == b.shape)
            assert bool(COMPAT[a.id] >> b.id & 1) == expected


def _rule_book_valid(tiles) -> bool:
    """RULES.md "Lines", written out directly."""
    if len(tiles) > 6 or len(set(tiles)) != len(tiles):
        return False
    colours = {x.color for x in tiles}
    shapes = {x.shape for x in tiles}
    one_colour = len(colours) == 1 and len(shapes) == len(tiles)
    one_shape = len(shapes) == 1 and len(colours) == len(tiles)
    return one_colour or one_shape


def test_lines_pairwise_compatibility_equals_the_rule_book_for_all_triples():
    # The engine relies on "pairwise compatible" == "valid line"; check every triple.
    for trio in combinations(TILE_TYPES, 3):
        ids = [x.id for x in trio]
        pairwise = all(COMPAT[a] >> b & 1 for a, b in combinations(ids, 2))
        assert pairwise == _rule_book_valid(trio)
        assert (line_fault(ids) is None) == _rule_book_valid(trio)


def test_lines_line_fault_names_the_rule():
    red = [Tile(Color.RED, s).id for s in Shape]
    assert line_fault(red) is None
    assert line_fault(red + [Tile(Color.RED, Shape.CIRCLE).id]).startswith("line longer than 6")
    assert line_fault(red[:2] + red[:1]).startswith("duplicate in a line")
    assert line_fault([t("red circle").id, t("blue square").id]).startswith("mixed line")
    assert line_fault([t("red circle").id, t("red square").id, t("blue circle").id]).startswith(
        "mixed line"
    )


def test_lines_compat_of_a_line_is_the_tiles_that_may_join_it():
    line = [t("red circle").id, t("red square").id]
    joinable = {Tile.from_id(i) for i in ids_of(compat_of(line))}
    assert joinable == {Tile(Color.RED, s) for s in Shape} - {t("red circle"), t("red square")}
    assert compat_of([]) == ALL
    for perm in permutations(line):
        assert compat_of(perm) == compat_of(line)


def test_lines_masks_round_trip():
    ids = [0, 5, 17, 35]
    assert ids_of(mask_of(ids)) == ids
    assert mask_of([3, 3, 3]) == 1 << 3
    assert ids_of(0) == []
