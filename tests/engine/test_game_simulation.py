"""Random simulation in OpenSpiel's style: whole games, invariants checked at every move.

504 games over 2, 3 and 4 players, split in chunks so ``pytest -n 2`` shares them out.
Moves come from a random player (mostly placements, some exchanges; uniform over the full
``legal_moves()`` on sampled positions) or a greedy one (highest score), both seeded.
At every move:

- 108 tiles accounted for (bag + hands + table, three of each), hands of at most 6, full
  while the bag has tiles; the player to move has a legal move; skipped seats cannot move;
- a sample of the listed placements is accepted by ``apply`` on a clone with the listed
  points, and mutated moves (a tile shifted, a tile not in hand, a gap, an L shape) are
  refused with IllegalMove, leaving the game unchanged;
- the move scores what ``Board.score`` says (plus 6 for the last tile) and each total is
  the sum of its moves' points;
- a ``clone()`` and a ``from_dict`` of the JSON of ``to_dict()`` equal the game and play on
  identically (every 7th position, and every exchange, which uses the RNG).

Every game ends within MAX_MOVES; the same seed gives the same game, and
``Game.from_record(game.record()) == game``. Random play from the start almost never
blocks, so a second simulation plays endgames (empty bag, small random hands) where skips
and blocked ends are common. ``-m slow`` runs 3,000 more checked games.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from qwirkle_env import Exchange, Game, IllegalMove, Placement, Tile
from qwirkle_env.engine.lines import mask_of

GAMES_PER_CHUNK = 28
CHUNKS = 6  # per player count: 3 * 6 * 28 = 504 games
MAX_MOVES = 1000
FULL_EVERY = 9  # full legal_moves() (and a uniform full-move choice) on every 9th move
ROUND_TRIP_EVERY = 7  # clone / from_dict on every 7th move (and every exchange)

THREE_EACH = {x: 3 for x in range(36)}


def snapshot(game: Game) -> tuple:
    """Everything a refused move must leave alone (cheaper than to_dict)."""
    return (
        dict(game.board.tile_ids),
        len(game.board.frontier),
        [list(h) for h in game.hands],
        list(game.bag.tiles),
        list(game.scores),
        game.current,
        len(game.history),
        game.opening_size,
        game.over,
        game._rng.getstate(),
    )


def choose(game: Game, rng: random.Random, greedy: bool, full: bool, found: list):
    """The policy: a move, as a Placement/Exchange or as internal placement items."""
    if full:
        return rng.choice(game.legal_moves())
    can_exchange = bool(game.bag.tiles) and not game.is_opening
    if greedy and found:
        best = max(points for _, points in found)
        return rng.choice([items for items, points in found if points == best])
    if found and (not can_exchange or rng.random() < 0.85):
        return rng.choice(found)[0]
    hand = game.hands[game.current]
    return Exchange(
        Tile.from_id(x) for x in rng.sample(hand, rng.randint(1, min(6, len(game.bag))))
    )


def as_move(choice) -> Placement | Exchange:
    if isinstance(choice, (Placement, Exchange)):
        return choice
    return Placement((cell, Tile.from_id(x)) for cell, x in choice)


def play(num_players: int, seed: int, check: bool) -> Game:
    game = Game(num_players, seed=seed)
    policy_rng = random.Random(seed)
    check_rng = random.Random(~seed)
    greedy = seed % 3 == 0
    moves = 0
    while not game.over:
        assert moves < MAX_MOVES, "the game does not end"
        full = moves % FULL_EVERY == 0
        found = game.placements_with_points()
        if check:
            check_position(game, check_rng, full, found)
        move = as_move(choose(game, policy_rng, greedy, full, found))
        if check:
            apply_checked(game, move, check_rng, moves % ROUND_TRIP_EVERY == 0)
        else:
            game.apply(move)
        moves += 1
    if check:
        check_end(game)
    return game


# --- checks -----------------------------------------------------------------------------------
def check_position(game: Game, rng: random.Random, full: bool, found: list) -> None:
    board, hands, bag = game.board, game.hands, game.bag.tiles
    every = list(board.tile_ids.values()) + bag + [x for h in hands for x in h]
    assert Counter(every) == THREE_EACH, "108 tiles, three of each"
    for hand in hands:
        assert len(hand) <= 6
        assert len(hand) == 6 or not bag, "hands are refilled while the bag has tiles"
    assert game.scores == [
        sum(p for s, _, p in game.history if s == seat) for seat in range(game.num_players)
    ]
    assert found or (bag and not game.is_opening), "the player to move has a legal move"
    if game.is_opening:
        groups = [_largest(h) for h in hands]
        assert game.opening_size == max(groups) == groups[game.current]
        assert all(len(items) == game.opening_size for items, _ in found)
    if full:
        check_legal_moves(game, found)
    # A sample of listed placements is accepted, with the listed points.
    for items, points in rng.sample(found, min(2, len(found))):
        twin = game.clone()
        emptied = len(items) == len(hands[game.current]) and not bag
        assert twin.apply(as_move(items)) == points + (6 if emptied else 0)
    if found:
        check_mutations(game, rng.choice(found)[0], {tuple(sorted(i)) for i, _ in found}, rng)


def _largest(hand) -> int:
    distinct = set(hand)
    return max(
        max(sum(1 for x in distinct if x // 6 == k), sum(1 for x in distinct if x % 6 == k))
        for k in range(6)
    )


def check_legal_moves(game: Game, found: list) -> None:
    moves = game.legal_moves()
    placements = [m for m in moves if isinstance(m, Placement)]
    exchanges = [m for m in moves if isinstance(m, Exchange)]
    assert len(moves) == len(set(moves))
    assert placements == sorted(as_move(items) for items, _ in found)
    hand = Counter(game.hands[game.current])
    if game.is_opening or not game.bag.tiles:
        assert exchanges == []
    else:
        # Distinct sub-multisets of the hand with 1..bag-size tiles.
        most = min(len(game.bag), 6)
        sizes = Counter({0: 1})
        for copies in hand.values():
            grown = Counter()
            for size, n in sizes.items():
                for k in range(copies + 1):
                    grown[size + k] += n
            sizes = grown
        assert len(exchanges) == sum(n for size, n in sizes.items() if 1 <= size <= most)
        assert all(Counter(x.id for x in e.tiles) <= hand for e in exchanges)


def check_mutations(game: Game, items: tuple, legal: set, rng: random.Random) -> None:
    """Mutated versions of a legal placement are refused and change nothing."""
    before = snapshot(game)
    hand = game.hands[game.current]
    items = sorted(items)
    (r, c), x = items[-1]
    if len(items) > 1:
        along = (0, 1) if items[0][0][0] == r else (1, 0)
    else:
        along = rng.choice([(0, 1), (1, 0)])
    across = (along[1], along[0])
    missing = [y for y in range(36) if y not in hand]
    spare = [y for y in hand if y != x] or [x]
    mutants = [
        # a tile not in the hand
        items[:-1] + [((r, c), rng.choice(missing))],
        # a gap: the last tile one cell further on (its old cell stays empty)
        items[:-1] + [((r + along[0], c + along[1]), x)] if len(items) > 1 else None,
        # an L shape: the last tile moved across, or a second tile diagonally
        items[:-1] + [((r + across[0], c + across[1]), x)]
        if len(items) > 1
        else items + [((r + 1, c + 1), rng.choice(spare))],
    ]
    # a tile shifted one step: legal only if it happens to be a listed placement
    i = rng.randrange(len(items))
    dr, dc = rng.choice([(0, 1), (0, -1), (1, 0), (-1, 0)])
    shifted = list(items)
    shifted[i] = ((items[i][0][0] + dr, items[i][0][1] + dc), items[i][1])
    if tuple(sorted(shifted)) not in legal:
        mutants.append(shifted)
    for mutant in mutants:
        if mutant is None:
            continue
        with pytest.raises(IllegalMove):
            game.apply(as_move(mutant))
        assert snapshot(game) == before, f"refused move {mutant} changed the game"


def apply_checked(game: Game, move, rng: random.Random, round_trip: bool) -> None:
    seat = game.current
    bag_before = len(game.bag)
    hand_before = len(game.hands[seat])
    if isinstance(move, Placement):
        expected = game.board.score(move.tiles)
        if len(move) == hand_before and not bag_before:
            expected += 6
    else:
        expected = 0
    copies = []
    if round_trip or isinstance(move, Exchange):
        twin = game.clone()
        loaded = Game.from_dict(json.loads(json.dumps(game.to_dict())))
        assert twin == game and loaded == game
        copies = [twin, loaded]
    previous = game.current
    skips = len(game.skips)
    assert game.apply(move) == expected
    assert game.history[-1] == (seat, move, expected)
    for other in copies:
        assert other.apply(move) == expected
        assert other == game, "a clone / a loaded save plays on differently"
    if isinstance(move, Exchange):
        assert len(game.bag) == bag_before and len(game.hands[seat]) == hand_before
    if game.over:
        return
    # Seats passed over are exactly those that could not move.
    passed = [(previous + k) % game.num_players for k in range(1, game.num_players + 1)]
    passed = passed[: passed.index(game.current)]
    assert [s for _, s in game.skips[skips:]] == passed
    for s in passed:
        assert not game.bag.tiles and not game.board.can_place(mask_of(game.hands[s]))


def check_end(game: Game) -> None:
    assert game.legal_moves() == [] and game.placements_with_points() == []
    assert not game.bag.tiles, "a game only ends once the bag is empty"
    if game.bonus_seat is not None:
        seat, move, points = game.history[-1]
        assert seat == game.bonus_seat and game.hands[seat] == []
        assert points >= 2 + 6
    else:
        for hand in game.hands:
            assert not game.board.can_place(mask_of(hand)), "nobody can place"
    best = max(game.scores)
    assert game.winners() == [s for s in range(game.num_players) if game.scores[s] == best]
    assert Game.from_record(json.loads(json.dumps(game.record()))) == game
    assert Game.from_dict(json.loads(json.dumps(game.to_dict()))) == game


# --- the tests ---------------------------------------------------------------------------------
@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_random_games_keep_every_invariant(num_players, chunk):
    ended = Counter()
    for g in range(GAMES_PER_CHUNK):
        seed = 1000 * num_players + chunk * GAMES_PER_CHUNK + g
        game = play(num_players, seed, check=True)
        ended["bonus" if game.bonus_seat is not None else "blocked"] += 1
        if g == 0:
            # Same seed, same game (the checks above use their own RNG).
            assert play(num_players, seed, check=False) == game
    assert sum(ended.values()) == GAMES_PER_CHUNK


def test_games_with_the_same_seed_are_identical_and_other_seeds_differ():
    a = play(2, 77, check=False)
    b = play(2, 77, check=False)
    c = play(2, 78, check=False)
    assert a == b and a.record() == b.record()
    assert a.record()["moves"] != c.record()["moves"]


def test_random_endgames_skip_and_block_correctly():
    """Endgames with an empty bag and small random hands, where skips and blocked ends are
    common (random play from the start almost never blocks). The 108-tile accounting is
    given up here: the hands are dealt freely."""
    ended = Counter()
    for seed in range(300):
        rng = random.Random(seed)
        n = 2 + seed % 3
        game = Game(n, seed=seed)
        for _ in range(rng.randint(3, 25)):
            found = game.placements_with_points()
            if found:
                game.apply_placement(list(rng.choice(found)[0]))
            else:
                game.apply_exchange(game.hands[game.current][:1])
        game.bag.tiles = []
        game.hands = [sorted(rng.choices(range(36), k=rng.randint(1, 4))) for _ in range(n)]
        game.scores = [sum(p for s, _, p in game.history if s == seat) for seat in range(n)]
        if not game.can_move(game.current):
            game._advance()
        while not game.over:
            seat = game.current
            found = game.placements_with_points()
            assert found, "a player is handed a turn with no legal move"
            assert all(isinstance(m, Placement) for m in game.legal_moves())
            items, points = rng.choice(found)
            last = len(items) == len(game.hands[seat])
            skips = len(game.skips)
            assert game.apply(as_move(items)) == points + (6 if last else 0)
            assert game.over == (last or not any(game.can_move(s) for s in range(n)))
            if game.over:
                break
            passed = [(seat + k) % n for k in range(1, n + 1)]
            passed = passed[: passed.index(game.current)]
            assert [s for _, s in game.skips[skips:]] == passed
            assert not any(game.can_move(s) for s in passed)
        if game.bonus_seat is None:
            ended["blocked"] += 1
            assert all(not game.board.can_place(mask_of(h)) for h in game.hands)
            assert all(game.hands), "a blocked game ends with tiles in every hand"
        else:
            ended["bonus"] += 1
            assert game.hands[game.bonus_seat] == []
        assert game.scores == [sum(p for s, _, p in game.history if s == i) for i in range(n)]
        ended["skipped"] += bool(game.skips)
    assert ended["blocked"] >= 5 and ended["skipped"] >= 10, ended


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_many_more_random_games_keep_every_invariant(num_players):
    """The same checks over 1,000 more games per player count (minutes; run with -m slow)."""
    for seed in range(100_000, 101_000):
        play(num_players, seed, check=True)
