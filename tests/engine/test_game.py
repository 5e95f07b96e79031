"""A game: RULES.md "Setup", "A turn", "Exchange", "No move possible" and "End of game".

Positions are made by building a Game and then setting its state by hand (``make_game``).
"""

from __future__ import annotations

import inspect
from collections import Counter

import pytest

from qwirkle_env import Board, Exchange, Game, IllegalMove, Placement, Tile
from qwirkle_env.engine.hand import largest_group

# Every placement list in these rule tests is checked against the Python generator too.
pytestmark = pytest.mark.usefixtures("generators_agree")


def t(name: str) -> Tile:
    return Tile.parse(name)


def ids(names) -> list[int]:
    return [t(n).id for n in names]


def make_game(hands, bag=(), table=None, current=0, scores=None, strict_opening=True) -> Game:
    """A game in a chosen position: hands and bag as tile names, table as {cell: name}."""
    n = len(hands)
    game = Game(n, seed=1234, strict_opening=strict_opening)
    game.board = Board({cell: t(name) for cell, name in (table or {}).items()})
    game.hands = [sorted(ids(h)) for h in hands]
    game.bag.tiles = ids(bag)
    game.scores = list(scores or [0] * n)
    game.current = current
    if table:
        game.opening_size = None
    else:
        game.opening_size = largest_group(game.hands[current])
    return game


def place(*pairs) -> Placement:
    return Placement((cell, t(name)) for cell, name in pairs)


def exchange(*names) -> Exchange:
    return Exchange(t(n) for n in names)


def naive_group(hand: list[int]) -> int:
    """Largest group counting identical tiles twice: what RULES.md says not to do."""
    return max(
        max(sum(1 for x in hand if x // 6 == k), sum(1 for x in hand if x % 6 == k))
        for k in range(6)
    )


BAG = ["orange circle", "orange square", "purple star8", "blue diamond", "green circle"]


# --- Setup -----------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_all_108_tiles_in_the_bag_and_each_player_draws_six(n):
    game = Game(n, seed=5)
    assert [len(h) for h in game.hands] == [6] * n
    assert len(game.bag) == game.bag_size == 108 - 6 * n
    every = game.bag.tiles + [x for h in game.hands for x in h]
    assert Counter(every) == {x: 3 for x in range(36)}
    assert len(game.board) == 0 and game.scores == [0] * n and game.history == []


def test_setup_bag_is_shuffled_by_the_seed():
    assert Game(2, seed=7).to_dict() == Game(2, seed=7).to_dict()
    assert Game(2, seed=7).bag.tiles != Game(2, seed=8).bag.tiles
    assert Game(2, seed=7).bag.tiles != sorted(Game(2, seed=7).bag.tiles)
    assert isinstance(Game(2).seed, int)  # no seed: a fresh random one, recorded


@pytest.mark.parametrize("n", [1, 5, 0, True, "2"])
def test_setup_two_to_four_players(n):
    with pytest.raises(ValueError, match="num_players must be 2, 3 or 4"):
        Game(n)


def test_setup_seed_must_be_an_int():
    with pytest.raises(TypeError, match="seed must be an int"):
        Game(2, seed="x")


def test_setup_opener_has_largest_group_counting_identical_once():
    assert largest_group(ids(["red circle", "red circle", "red square"])) == 2
    assert largest_group(ids(["red circle"] * 3 + ["blue square"] * 3)) == 1
    assert largest_group(ids(["red circle", "blue circle", "green circle", "red square"])) == 3
    assert largest_group(ids(["red circle", "red star4", "red diamond", "red square"])) == 4
    differs = 0
    for seed in range(400):
        game = Game(3, seed=seed)
        groups = [largest_group(h) for h in game.hands]
        assert groups[game.current] == max(groups)
        assert game.opening_size == max(groups)
        assert all(len(p) == max(groups) for p in game.legal_moves())
        naive = [naive_group(h) for h in game.hands]
        differs += max(naive) != max(groups) or naive.index(max(naive)) != game.current
    assert differs > 0, "no seed exercised identical tiles in a hand"


def test_setup_opener_must_open_with_a_group_of_exactly_that_size():
    hand = ["red circle", "red square", "red diamond", "blue circle", "blue circle", "green star8"]
    game = make_game([hand, ["yellow clover"] * 2 + ["orange star4"] * 4], bag=BAG)
    assert game.opening_size == 3
    moves = game.legal_moves()
    assert moves and all(isinstance(m, Placement) and len(m) == 3 for m in moves)
    assert {tuple(sorted(x for _, x in m.tiles)) for m in moves} == {
        tuple(sorted(t(n) for n in ("red circle", "red square", "red diamond")))
    }
    with pytest.raises(IllegalMove, match="opening.*exactly 3 tiles"):
        game.apply(place(((0, 0), "red circle"), ((0, 1), "red square")))
    with pytest.raises(IllegalMove, match="opening.*exactly 3 tiles"):
        game.apply(place(((0, 0), "red circle"), ((0, 1), "blue circle")))
    points = game.apply(
        place(((0, 0), "red circle"), ((0, 1), "red square"), ((0, 2), "red diamond"))
    )
    assert points == 3 and game.opening_size is None and game.current == 1


def test_setup_the_opening_line_may_lie_anywhere_on_the_empty_table():
    game = make_game([["red circle", "red square"] + ["blue star8"] * 4, ["green clover"] * 6])
    assert game.apply(place(((-50, 9), "red circle"), ((-49, 9), "red square"))) == 2


def test_setup_tie_broken_by_seeded_rng():
    chosen = Counter()
    for seed in range(600):
        game = Game(2, seed=seed)
        groups = [largest_group(h) for h in game.hands]
        tied = [s for s, g in enumerate(groups) if g == max(groups)]
        assert game.current in tied
        assert Game(2, seed=seed).current == game.current  # same seed, same opener
        if len(tied) == 2:
            chosen[game.current] += 1
    ties = chosen[0] + chosen[1]
    assert ties > 100
    # Uniform over the tied seats, not always the first one.
    assert 0.35 < chosen[0] / ties < 0.65


def test_relaxed_opening_option():
    hand = ["red circle", "red square", "red diamond", "blue circle", "blue circle", "green star8"]
    other = ["yellow clover"] * 2 + ["orange star4"] * 4
    assert Game(2, seed=1).strict_opening is True  # the default is the forced opening
    game = make_game([hand, other], bag=BAG, strict_opening=False)
    sizes = Counter(len(m) for m in game.legal_moves())
    assert set(sizes) == {1, 2, 3}
    assert all(isinstance(m, Placement) for m in game.legal_moves())  # still never exchange
    with pytest.raises(IllegalMove, match="opening.*not exchange"):
        game.apply(exchange("green star8"))
    assert game.apply(place(((0, 0), "green star8"))) == 1
    assert game.opening_size is None and game.current == 1
    assert Game(2, seed=3, strict_opening=False).to_dict()["strict_opening"] is False


def test_setup_play_goes_round_in_seat_order():
    game = Game(4, seed=11)
    seats = [game.current]
    for _ in range(12):
        moves = game.placements_with_points()
        game.apply_placement(list(min(moves, key=lambda m: (len(m[0]), m[0]))[0]))
        seats.append(game.current)
    assert seats == [(seats[0] + i) % 4 for i in range(13)]


# --- A turn ------------------------------------------------------------------------------------
def _midgame() -> Game:
    return make_game(
        [
            [
                "red square",
                "red diamond",
                "blue circle",
                "green star8",
                "purple clover",
                "red star4",
            ],
            ["yellow clover"] * 6,
        ],
        bag=BAG,
        table={(0, 0): "red circle"},
    )


def test_turn_is_either_place_or_exchange_and_never_a_pass():
    game = _midgame()
    moves = game.legal_moves()
    assert {type(m) for m in moves} == {Placement, Exchange}
    assert all(len(m) >= 1 for m in moves)
    with pytest.raises(IllegalMove, match="empty placement"):
        game.apply(Placement([]))
    with pytest.raises(IllegalMove, match="empty exchange"):
        game.apply(Exchange([]))
    with pytest.raises(TypeError, match="a move is a Placement or an Exchange"):
        game.apply(("pass",))
    assert game.current == 0 and game.history == []


def test_place_tiles_must_come_from_the_hand():
    game = _midgame()
    before = game.to_dict()
    with pytest.raises(IllegalMove, match="not in hand.*orange circle"):
        game.apply(place(((0, 1), "orange circle")))
    # Two copies when the hand holds one.
    with pytest.raises(IllegalMove, match="not in hand"):
        game.apply(place(((0, 1), "red square"), ((0, 2), "red square")))
    assert game.to_dict() == before


def test_place_then_draw_back_to_six_from_the_bag():
    game = _midgame()
    bag = list(game.bag.tiles)
    points = game.apply(place(((0, 1), "red square"), ((0, 2), "red diamond")))
    assert points == 3 and game.scores == [3, 0]
    assert len(game.hands[0]) == 6
    assert sorted(game.hands[0]) == sorted(
        ids(["blue circle", "green star8", "purple clover", "red star4"]) + bag[-2:]
    )
    assert game.bag.tiles == bag[:-2]
    assert game.history == [(0, place(((0, 1), "red square"), ((0, 2), "red diamond")), 3)]


def test_place_draws_until_the_bag_is_empty():
    game = _midgame()
    game.bag.tiles = ids(["orange circle"])
    game.apply(place(((0, 1), "red square"), ((0, 2), "red diamond"), ((0, 3), "red star4")))
    assert len(game.hands[0]) == 4 and len(game.bag) == 0 and not game.over


# --- Exchange ------------------------------------------------------------------------------------
def test_exchange_one_or_more_tiles_at_most_as_many_as_in_the_bag():
    game = _midgame()
    game.bag.tiles = ids(["orange circle", "orange square"])
    sizes = Counter(len(m) for m in game.legal_exchanges())
    assert set(sizes) == {1, 2}
    assert sizes[1] == 6 and sizes[2] == 15
    with pytest.raises(IllegalMove, match="exchange: 3 tiles asked but the bag holds only 2"):
        game.apply(exchange("red square", "red diamond", "blue circle"))
    assert game.apply(exchange("red square", "red diamond")) == 0


def test_exchange_distinct_moves_for_a_hand_with_repeated_tiles():
    game = _midgame()
    game.hands[0] = sorted(ids(["red square"] * 3 + ["blue circle"] * 3))
    game.bag.tiles = ids(["orange circle"] * 3 + ["green clover"] * 3)
    # Sub-multisets of {3 x a, 3 x b} with 1..6 tiles: (4 * 4) - 1.
    assert len(game.legal_exchanges()) == 15
    assert len(set(game.legal_exchanges())) == 15


def test_exchange_never_redraws_own_tiles():
    for seed in range(50):
        game = _midgame()
        game.bag.rng.seed(seed)
        bag = ids(["orange circle", "orange square", "purple star8"])
        game.bag.tiles = list(bag)
        game.apply(exchange("red square", "red diamond", "blue circle"))
        # Drawn first, returned after: the hand now holds exactly the old bag.
        assert sorted(game.hands[0]) == sorted(
            ids(["green star8", "purple clover", "red star4"]) + bag
        )
        assert sorted(game.bag.tiles) == sorted(ids(["red square", "red diamond", "blue circle"]))


def test_exchange_returns_tiles_to_the_bag_and_reshuffles_it():
    orders = set()
    for seed in range(20):
        game = _midgame()
        game.bag.rng.seed(seed)
        game.apply(exchange("red square"))
        assert len(game.bag) == 5 and t("red square").id in game.bag.tiles
        assert t("red square").id not in game.hands[0]
        orders.add(tuple(game.bag.tiles))
    assert len(orders) > 1  # the returned tile does not always land in the same place


def test_exchange_scores_nothing_and_ends_the_turn():
    game = _midgame()
    assert game.apply(exchange("green star8", "purple clover")) == 0
    assert game.scores == [0, 0] and game.current == 1
    assert game.history == [(0, exchange("green star8", "purple clover"), 0)]
    assert len(game.hands[0]) == 6 and len(game.bag) == 5


def test_exchange_tiles_must_come_from_the_hand():
    game = _midgame()
    with pytest.raises(IllegalMove, match="not in hand"):
        game.apply(exchange("yellow clover"))
    with pytest.raises(IllegalMove, match="not in hand"):
        game.apply(exchange("red square", "red square"))


def test_exchange_impossible_when_bag_empty():
    game = _midgame()
    game.bag.tiles = []
    assert game.legal_exchanges() == []
    assert all(isinstance(m, Placement) for m in game.legal_moves())
    with pytest.raises(IllegalMove, match="bag is empty"):
        game.apply(exchange("red square"))


def test_exchange_forbidden_on_opening_turn():
    game = Game(2, seed=3)
    assert game.is_opening and game.legal_exchanges() == []
    with pytest.raises(IllegalMove, match="opening.*must place, not exchange"):
        game.apply(Exchange([game.hand()[0]]))
    assert game.history == [] and game.is_opening


# --- No move possible -------------------------------------------------------------------------
def test_no_move_possible_turn_is_skipped():
    # Bag empty; player 1 holds only a green star4, which fits nowhere next to red tiles.
    game = make_game(
        [
            ["red diamond", "red clover", "red star8"],
            ["green star4"],
            ["blue square", "blue circle"],
        ],
        table={(0, 0): "red circle", (0, 1): "red square"},
    )
    assert not game.can_move(1) and game.can_move(2)
    game.apply(place(((0, 2), "red diamond")))
    assert game.current == 2, "player 1 cannot move and is skipped"
    assert game.skips == [(1, 1)]
    assert game.legal_moves(), "the player to move always has a legal move"
    game.apply(place(((1, 1), "blue square")))
    assert game.current == 0 and game.skips == [(1, 1)]
    game.apply(place(((0, 3), "red clover")))
    assert game.current == 2 and game.skips == [(1, 1), (3, 1)]


def test_no_move_possible_skip_comes_round_to_the_same_player():
    game = make_game(
        [["red diamond", "red clover", "red star8"], ["green star4"]],
        table={(0, 0): "red circle", (0, 1): "red square"},
    )
    game.apply(place(((0, 2), "red diamond")))
    assert game.current == 0 and not game.over
    game.apply(place(((0, 3), "red clover")))
    assert game.current == 0
    game.apply(place(((0, 4), "red star8")))
    assert game.over and game.bonus_seat == 0


# --- End of game --------------------------------------------------------------------------------
def test_end_play_continues_without_drawing_when_the_bag_is_empty():
    game = make_game(
        [["red diamond", "red clover", "blue star8"], ["green square", "purple circle"]],
        table={(0, 0): "red circle", (0, 1): "red square"},
    )
    assert game.apply(place(((0, 2), "red diamond"))) == 3
    assert sorted(game.hands[0]) == sorted(ids(["red clover", "blue star8"]))
    assert not game.over and game.current == 1


def test_common_mistake_stopping_when_the_bag_runs_out():
    game = _midgame()
    game.bag.tiles = ids(["orange circle"])
    game.apply(place(((0, 1), "red square")))
    assert len(game.bag) == 0 and not game.over
    # Play goes on until a hand is empty or nobody can move.
    while not game.over:
        moves = game.legal_moves()
        assert moves and all(isinstance(m, Placement) for m in moves)
        game.apply(moves[0])
    assert game.bonus_seat is not None or not any(
        game.board.can_place(sum(1 << x for x in h)) for h in game.hands
    )


def test_end_last_tile_with_empty_bag_scores_six_bonus():
    game = make_game(
        [["red square"], ["green square", "purple circle"]],
        table={(0, 0): "red circle"},
        scores=[10, 12],
    )
    assert game.apply(place(((0, 1), "red square"))) == 2 + 6
    assert game.over and game.bonus_seat == 0 and game.hands[0] == []
    assert game.scores == [18, 12] and game.winners() == [0]
    assert game.history[-1] == (0, place(((0, 1), "red square")), 8)
    assert game.legal_moves() == []


def test_end_emptying_the_hand_while_the_bag_has_tiles_is_not_the_end():
    game = make_game(
        [["red square"], ["green square", "purple circle"]],
        bag=["blue star8"],
        table={(0, 0): "red circle"},
    )
    assert game.apply(place(((0, 1), "red square"))) == 2
    assert not game.over and game.bonus_seat is None
    assert game.hands[0] == ids(["blue star8"])


def test_end_when_nobody_can_place_no_bonus():
    game = make_game(
        [["red square", "green star4"], ["yellow star4", "blue star4"]],
        table={(0, 0): "red circle"},
    )
    assert game.apply(place(((0, 1), "red square"))) == 2
    assert game.over and game.bonus_seat is None
    assert game.scores == [2, 0] and game.winners() == [0]
    assert game.legal_moves() == []
    assert len(game.hands[0]) == 1 and len(game.hands[1]) == 2


def test_shared_win_on_equal_totals():
    game = make_game(
        [["red square"], ["green square", "purple circle"]],
        table={(0, 0): "red circle"},
        scores=[4, 12],
    )
    game.apply(place(((0, 1), "red square")))  # 2 + 6 bonus
    assert game.over and game.scores == [12, 12]
    assert game.winners() == [0, 1]


def test_highest_total_wins():
    game = Game(3, seed=1)
    game.scores = [5, 9, 7]
    assert game.winners() == [1]
    game.scores = [9, 3, 9]
    assert game.winners() == [0, 2]


def test_game_over_refuses_every_move():
    game = make_game([["red square"], ["green square"]], table={(0, 0): "red circle"})
    game.apply(place(((0, 1), "red square")))
    before = game.to_dict()
    with pytest.raises(IllegalMove, match="game over"):
        game.apply(place(((1, 0), "green square")))
    with pytest.raises(IllegalMove, match="game over"):
        game.apply(exchange("green square"))
    assert game.to_dict() == before
    assert game.placements_with_points() == [] and game.legal_moves() == []


# --- Every IllegalMove from a Game names its rule --------------------------------------------
def test_game_illegal_move_messages_name_the_rule():
    game = _midgame()
    game.bag.tiles = game.bag.tiles[:4]
    five = ["red square", "red diamond", "blue circle", "green star8", "red star4"]
    cases = [
        (place(((0, 1), "orange circle")), "not in hand"),
        (place(((0, 1), "red square"), ((1, 0), "blue circle")), "two directions"),
        (place(((0, 1), "red square"), ((0, 3), "red diamond")), "gap"),
        (place(((5, 5), "red square")), "not touching"),
        (place(((0, 0), "red square")), "occupied cell"),
        (place(((0, 1), "green star8")), "mixed line"),
        (Placement([]), "empty placement"),
        (Exchange([]), "empty exchange"),
        (exchange(*five), "exchange: 5 tiles asked but the bag holds only 4"),
        (exchange("yellow clover"), "not in hand"),
    ]
    before = game.to_dict()
    for move, words in cases:
        with pytest.raises(IllegalMove, match=words):
            game.apply(move)
        assert game.to_dict() == before, move
    game.bag.tiles = []
    with pytest.raises(IllegalMove, match="exchange: the bag is empty"):
        game.apply(exchange("red square"))
    opening = Game(2, seed=2)
    assert opening.opening_size > 1
    with pytest.raises(IllegalMove, match="opening: the first move must place exactly"):
        opening.apply(Placement([((0, 0), opening.hand()[0])]))


def test_illegal_move_leaves_the_game_unchanged():
    game = Game(2, seed=9)
    game.apply(game.legal_moves()[0])
    before = game.to_dict()
    hand = game.hand()
    for move in [
        Placement([((100, 100), hand[0])]),
        Placement([((0, 0), hand[0])]),
        Exchange(hand + hand),
    ]:
        with pytest.raises(IllegalMove):
            game.apply(move)
    assert game.to_dict() == before


def test_clone_is_independent_and_plays_on_identically():
    game = Game(3, seed=21)
    for _ in range(5):
        game.apply(game.legal_moves()[-1])
    twin = game.clone()
    assert twin == game and twin is not game
    move = game.legal_moves()[-1]  # an exchange: uses the RNG
    assert isinstance(move, Exchange)
    assert game.apply(move) == twin.apply(move)
    assert twin == game
    twin.apply(twin.legal_moves()[0])
    assert twin != game and len(twin.history) == len(game.history) + 1


def _dead_table_game() -> Game:
    """A 6x6 grid (row k all shape k, column c all colour c) short of its corner, the
    player to move holding the corner tile: placing it leaves no cell where any tile fits."""
    grid = {(s, c): Tile(c, s) for s in range(6) for c in range(6) if (s, c) != (5, 5)}
    game = Game(2, seed=0)
    game.board = Board(grid)
    rest = [t for t in range(36) for _ in range(3)]
    for tile in grid.values():
        rest.remove(tile.id)
    corner = Tile(5, 5).id
    rest.remove(corner)
    game.hands = [sorted([corner, *rest[:5]]), sorted(rest[5:11])]
    game.bag.tiles = rest[11:]
    game.opening_size = None
    game.current = 0
    return Game.from_dict(game.to_dict())  # a consistent, saveable state


def test_choice_dead_table_ends_the_game_without_bonus():
    game = _dead_table_game()
    assert not game.table_is_dead()
    points = game.apply(Placement([((5, 5), Tile(5, 5))]))
    assert points == 24  # two Qwirkles: row 5 and column 5
    assert game.table_is_dead() and game.bag_size > 0
    assert game.over and game.bonus_seat is None
    assert game.legal_moves() == []
    with pytest.raises(IllegalMove, match="game over"):
        game.apply(Exchange([Tile.from_id(game.hands[1][0])]))
    assert Game.from_dict(game.to_dict()) == game


def test_from_parts_takes_every_field_so_clone_load_and_sampling_cannot_drift():
    """Game.from_parts is the one place a Game is assembled; a field it does not take
    would be lost by clone, from_dict or PlayerView.sample_game."""
    game = Game(3, seed=5)
    fields = {name.lstrip("_") for name in vars(game)}
    assert set(inspect.signature(Game.from_parts).parameters) - {"cls"} == fields
    assert game.clone() == game and Game.from_dict(game.to_dict()) == game
