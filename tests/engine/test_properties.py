"""Property-based and brute-force checks of the board's move generation.

- hypothesis: everything ``legal_placements`` lists scores (``score`` agrees with the
  internal points), and a random placement that is not listed raises IllegalMove.
- brute force: on small positions, fill every row/column segment near the board with every
  ordering of hand tiles, ask ``Board.score`` for each, and compare the legal ones with
  ``legal_placements`` exactly.
"""

from __future__ import annotations

import random
from functools import lru_cache
from itertools import permutations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from qwirkle_env import Board, Game, IllegalMove, Tile
from qwirkle_env.engine.lines import mask_of

# Every placement list in these rule tests is checked against the Python generator too.
pytestmark = pytest.mark.usefixtures("generators_agree")

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def tiles_of(ids) -> list[Tile]:
    return [Tile.from_id(x) for x in ids]


def as_tiles(items) -> tuple:
    return tuple(sorted((cell, Tile.from_id(x)) for cell, x in items))


# --- positions -----------------------------------------------------------------------------
def game_position(seed: int, moves: int) -> tuple[Board, list[int]]:
    """The board and hand to move after ``moves`` random placements of a seeded game."""
    game = Game(2 + seed % 3, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        found = game.placements_with_points()
        if game.over or not found:
            break
        game.apply_placement(list(rng.choice(found)[0]))
    return game.board, list(game.hands[game.current])


def scatter(entries) -> Board:
    """Tiles dropped on a small box, each kept if the table stays valid: dense, odd and
    often disconnected tables, where placements join separate runs."""
    tiles: dict = {}
    for r, c, x in entries:
        if (r, c) in tiles:
            continue
        trial = {**tiles, (r, c): Tile.from_id(x)}
        try:
            Board(trial)
        except IllegalMove:
            continue
        tiles = trial
    return Board(tiles)


hands = st.lists(st.integers(0, 35), min_size=0, max_size=6)
scatter_boards = st.builds(
    scatter,
    st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(0, 35)), max_size=30),
)


@st.composite
def positions(draw):
    """(board, hand): from a random game, or a scattered table with any hand."""
    if draw(st.booleans()):
        board, hand = game_position(draw(st.integers(0, 10**6)), draw(st.integers(0, 30)))
        if draw(st.booleans()):
            hand = draw(hands)
    else:
        board, hand = draw(scatter_boards), draw(hands)
    return board, hand


@st.composite
def random_placements(draw, board: Board, hand: list[int], legal: list):
    """Tiles of the hand near the board: a legal placement changed a little (a tile moved,
    swapped, dropped or added), tiles in a line with holes, or tiles anywhere."""
    mode = draw(
        st.sampled_from(["near legal", "line", "anywhere"] if legal else ["line", "anywhere"])
    )
    if mode == "near legal":
        placement = list(draw(st.sampled_from(legal)))
        spare = list(hand)
        for _, x in placement:
            spare.remove(x.id)
        i = draw(st.integers(0, len(placement) - 1))
        (r, c), x = placement[i]
        change = draw(st.sampled_from(["move", "swap", "drop", "add"]))
        if change == "move":
            dr, dc = draw(st.sampled_from([(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (0, 2)]))
            placement[i] = ((r + dr, c + dc), x)
        elif change == "swap" and spare:
            placement[i] = ((r, c), Tile.from_id(draw(st.sampled_from(spare))))
        elif change == "drop" and len(placement) > 1:
            del placement[i]
        elif spare:
            dr, dc = draw(st.sampled_from([(0, 1), (0, -1), (1, 0), (-1, 0), (0, 2), (2, 0)]))
            placement.append(((r + dr, c + dc), Tile.from_id(draw(st.sampled_from(spare)))))
        return placement
    k = draw(st.integers(1, max(1, len(hand))))
    picked = draw(st.permutations(hand))[:k]
    r0, r1, c0, c1 = board.bounds() or (0, 0, 0, 0)
    near_r = st.integers(r0 - 3, r1 + 3)
    near_c = st.integers(c0 - 3, c1 + 3)
    if mode == "line":
        # In one row or column, at distinct offsets that may leave holes.
        fixed = draw(near_r if draw(st.booleans()) else near_c)
        start = draw(st.integers(min(r0, c0) - 7, max(r1, c1) + 3))
        offsets = draw(st.lists(st.integers(0, 8), min_size=k, max_size=k, unique=True))
        vertical = draw(st.booleans())
        cells = [(start + o, fixed) if vertical else (fixed, start + o) for o in offsets]
    else:
        cells = [(draw(near_r), draw(near_c)) for _ in range(k)]
    return [(cell, Tile.from_id(x)) for cell, x in zip(cells, picked, strict=True)]


# --- hypothesis -----------------------------------------------------------------------------
@SETTINGS
@given(positions())
def test_every_listed_placement_scores_its_internal_points(position):
    board, hand = position
    internal = board.placements_with_points(mask_of(hand))
    listed = board.legal_placements(tiles_of(hand))
    keys = [as_tiles(items) for items, _ in internal]
    assert len(keys) == len(set(keys)), "the generator lists a placement twice"
    assert listed == sorted(set(keys))
    before = dict(board)
    for items, points in internal:
        placement = as_tiles(items)
        assert {x.id for _, x in placement} <= set(hand)
        assert board.score(placement) == points
        # The commit path's scorer for placements known legal, in any tile order.
        assert board.score_legal(list(items)) == board.score_legal(list(items)[::-1]) == points
    assert dict(board) == before
    assert board.can_place(mask_of(hand)) == bool(listed)


@SETTINGS
@given(st.data())
def test_random_placement_not_listed_raises_illegal_move(data):
    board, hand = data.draw(positions())
    assume(hand)
    legal = {
        as_tiles(items): points for items, points in board.placements_with_points(mask_of(hand))
    }
    listed = sorted(legal)
    for _ in range(10):
        placement = data.draw(random_placements(board, hand, listed))
        key = tuple(sorted(placement))
        if not len(board):
            # An empty table lists its lines from (0, 0): move the placement there.
            r, c = min(cell for cell, _ in placement)
            key = tuple(sorted(((a - r, b - c), x) for (a, b), x in placement))
        if key in legal:
            assert board.score(placement) == legal[key]
        else:
            with pytest.raises(IllegalMove):
                board.score(placement)


@SETTINGS
@given(st.data())
def test_play_of_a_listed_placement_updates_the_board_like_building_it_anew(data):
    board, hand = data.draw(positions())
    listed = board.legal_placements(tiles_of(hand))
    assume(listed)
    placement = data.draw(st.sampled_from(listed))
    points = board.score(placement)
    assert board.play(placement) == points
    fresh = Board(dict(board))
    assert fresh == board
    assert fresh.frontier == board.frontier, "incremental frontier differs from a rebuilt one"
    assert (
        fresh.fit_masks
        == board.fit_masks
        == {cell: info[0] & info[1] for cell, info in board.frontier.items() if info[0] & info[1]}
    )
    assert (fresh.type_counts, fresh.complete_types) == (board.type_counts, board.complete_types)


# --- brute force -------------------------------------------------------------------------------
def _valid_line(ids) -> bool:
    """RULES.md "Lines" for the placed tiles alone (they all lie in one line)."""
    if len(set(ids)) != len(ids):
        return False
    colours = {x // 6 for x in ids}
    shapes = {x % 6 for x in ids}
    return len(colours) == 1 or len(shapes) == 1


def brute_force(board: Board, hand: list[int]) -> dict:
    """Every legal placement found by trying each segment with each tile ordering."""
    r0, r1, c0, c1 = board.bounds()
    distinct = sorted(set(hand))
    orderings = {k: [p for p in permutations(distinct, k) if _valid_line(p)] for k in range(1, 7)}
    lines = [[(r, c) for c in range(c0 - 6, c1 + 7)] for r in range(r0 - 1, r1 + 2)]
    lines += [[(r, c) for r in range(r0 - 6, r1 + 7)] for c in range(c0 - 1, c1 + 2)]
    found = {}
    for line in lines:
        empty = [i for i, cell in enumerate(line) if cell not in board]
        for a in range(len(empty)):
            for b in range(a, min(a + 6, len(empty))):
                # Fill every empty cell from the a-th to the b-th: no gap is left.
                cells = [line[k] for k in empty[a : b + 1]]
                for order in orderings[len(cells)]:
                    placement = tuple(sorted(zip(cells, tiles_of(order), strict=True)))
                    try:
                        found[placement] = board.score(placement)
                    except IllegalMove:
                        pass
    return found


@lru_cache(maxsize=1)
def _brute_force_positions() -> list:
    rng = random.Random(2024)
    out = []
    for i in range(20):
        out.append(game_position(rng.randrange(10**6), 1 + i % 8))
    for _ in range(10):
        entries = [(rng.randint(-2, 2), rng.randint(-2, 2), rng.randrange(36)) for _ in range(14)]
        board = scatter(entries)
        if len(board):
            out.append((board, [rng.randrange(36) for _ in range(6)]))
    # Holes to fill with red tiles (a Qwirkle joining three runs) or a column of star4s.
    table = [(0, 0, 0), (0, 2, 2), (0, 4, 4), (1, 2, 8), (-1, 0, 6)]
    out.append((scatter(table), [1, 3, 5, 13, 19, 25]))
    return out


@pytest.mark.parametrize("index", range(len(_brute_force_positions())))
def test_legal_placements_equal_brute_force_enumeration(index):
    board, hand = _brute_force_positions()[index]
    expected = brute_force(board, hand)
    listed = board.legal_placements(tiles_of(hand))
    assert listed == sorted(expected)
    internal = {
        as_tiles(items): points for items, points in board.placements_with_points(mask_of(hand))
    }
    assert internal == expected


def test_empty_board_lists_every_opening_line_from_the_origin():
    for seed in range(40):
        hand = random.Random(seed).choices(range(36), k=6)
        listed = Board().legal_placements(tiles_of(hand))
        expected = set()
        distinct = sorted(set(hand))
        for k in range(1, 7):
            for order in permutations(distinct, k):
                if _valid_line(order):
                    for step in ((0, 1), (1, 0)):
                        expected.add(
                            tuple(
                                sorted(
                                    ((i * step[0], i * step[1]), Tile.from_id(x))
                                    for i, x in enumerate(order)
                                )
                            )
                        )
        assert listed == sorted(expected)
        for placement in listed:
            assert Board().score(placement) == (len(placement) if len(placement) > 1 else 1) + (
                6 if len(placement) == 6 else 0
            )
