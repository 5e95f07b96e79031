"""The search's compiled rollouts (qwirkle_env/vector/tiles/rollouts.py) checked against the engine.

A candidate's margin with no greedy turns after it must be the engine's margin after that
move, for every legal move (exchanges and openings too) of seeded 2-4 player games. A
simulation deals the unseen tiles again and only them; every candidate meets the same deal;
the same seed gives the same margins.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from qwirkle_env import Game
from qwirkle_env.engine.moves import Exchange, Placement
from qwirkle_env.spec import margin
from qwirkle_env.vector.tiles.rollouts import DEAL, PLAY, Rollouts


def positions(players: int, games: int, seed: int):
    """Every position of ``games`` random-move games, as (game, its legal moves)."""
    rng = random.Random(seed)
    for k in range(games):
        game = Game(players, seed=seed + k)
        while not game.over:
            moves = game.legal_moves()
            yield game, moves
            game.apply(rng.choice(moves))


def random_game(seed: int, moves: int, players: int = 2) -> Game:
    """A game ``moves`` random legal moves in, the moves drawn from ``seed``."""
    game = Game(players, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        game.apply(rng.choice(game.legal_moves()))
    return game


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_move_scores_as_the_engine_scores_it(players):
    rng = random.Random(players)
    kinds = Counter()
    for game, moves in positions(players, 3, seed=10 * players):
        got = Rollouts(game, moves).simulate(rng.randrange(2**63), 0)
        for move, value in zip(moves, got, strict=True):
            after = game.clone()
            after.apply(move)
            assert value == pytest.approx(margin(after.scores, game.current)), move
            kinds[type(move).__name__, len(game.board) == 0] += 1
    assert kinds["Exchange", False] and kinds["Placement", True] and kinds["Placement", False]


def unseen_of(rollouts: Rollouts, slot: int, seat: int, players: int) -> Counter:
    s = rollouts.state
    tiles = Counter(int(t) for t in s.bag[slot, : s.bag_n[slot]])
    for p in range(players):
        if p != seat:
            tiles.update(int(t) for t in s.hands[slot, p, : s.hand_n[slot, p]])
    return tiles


def test_a_simulation_deals_only_the_unseen_tiles_again():
    game = random_game(4, 7, players=3)
    seat = game.current
    rollouts = Rollouts(game, game.legal_moves()[:3])
    s = rollouts.state
    before = unseen_of(rollouts, DEAL, seat, 3)
    sizes = s.hand_n[DEAL].copy()
    own = s.hands[DEAL, seat].copy()
    deals = set()
    for seed in range(20):
        rollouts.simulate(seed, 0)
        assert unseen_of(rollouts, DEAL, seat, 3) == before
        assert (s.hand_n[DEAL] == sizes).all() and (s.hands[DEAL, seat] == own).all()
        for p in range(3):
            hand = s.hands[DEAL, p, : s.hand_n[DEAL, p]]
            assert (np.diff(hand) >= 0).all(), "hands stay sorted"
        deals.add(s.bag[DEAL, : s.bag_n[DEAL]].tobytes() + s.hands[DEAL].tobytes())
    assert len(deals) == 20, "each seed deals differently"


def test_every_candidate_meets_the_same_deal_and_seeds_repeat():
    game = random_game(8, 12)
    moves = game.legal_moves()[:4]
    rollouts = Rollouts(game, moves + moves)  # each move twice: common random numbers
    for seed in (1, 2, 3):
        first = rollouts.simulate(seed, None)
        assert (first[:4] == first[4:]).all()
        assert (Rollouts(game, moves + moves).simulate(seed, None) == first).all()
    assert rollouts.state.over[PLAY], "to the end (None) plays the game out"
    deals = {tuple(rollouts.simulate(seed, 2)) for seed in range(10)}
    assert len(deals) > 1, "the margins depend on the deal"


def test_a_short_scratch_is_made_longer_and_the_simulation_repeated():
    game = random_game(9, 10)
    moves = game.legal_moves()[:3]
    expected = [Rollouts(game, moves).simulate(seed, None) for seed in range(4)]
    short = Rollouts(game, moves)
    short.scratch = short.scratch[:1]  # one row: any turn with tied best moves overflows it
    assert [list(short.simulate(seed, None)) for seed in range(4)] == [list(m) for m in expected]
    assert len(short.scratch) > 1, "a turn with ties asked for more rows"


def test_bad_candidates_are_refused():
    game = Game(2, seed=1)
    with pytest.raises(ValueError, match="at least one candidate"):
        Rollouts(game, [])
    with pytest.raises(TypeError, match="Placement or an Exchange"):
        Rollouts(game, ["place"])
    assert isinstance(game.legal_moves()[0], Placement | Exchange)


def test_without_a_deal_the_hidden_tiles_stay_as_loaded():
    game = random_game(6, 10)
    rollouts = Rollouts(game, game.legal_moves()[:3], deal=False)
    s = rollouts.state
    hands, bag = s.hands[DEAL].copy(), s.bag[DEAL, : s.bag_n[DEAL]].copy()
    for seed in range(3):
        rollouts.simulate(seed, 2)
        assert (s.hands[DEAL] == hands).all() and (s.bag[DEAL, : s.bag_n[DEAL]] == bag).all()
    assert list(bag) == list(game.bag.tiles), "the bag in the game's own order"
