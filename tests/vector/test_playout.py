"""The compiled greedy playout (qwirkle_env/vector/tiles/playout.py) checked against the engine.

Turn by turn, on the simulator's own games and on engine games loaded into it: a placement
must be one the engine lists for that table and hand, with the engine's points, and among
the highest-scoring ones; an exchange must trade tiles of the hand (never more than the bag
holds) only when nothing can be placed. Scores add up and games end as the engine's do.
"""

from __future__ import annotations

import random

import numpy as np

from qwirkle_env import Game
from qwirkle_env.engine.lines import mask_of
from qwirkle_env.engine.placements import WIDTH
from qwirkle_env.spec import END_BONUS, MAX_TURNS
from qwirkle_env.vector import VectorQwirkle
from qwirkle_env.vector.tiles import playout


def check_turns(sim: VectorQwirkle, i: int, out: np.ndarray) -> int:
    """Greedy turns in slot i to the end of its game, each checked; returns the turns."""
    s = sim.state
    turns = 0
    while not s.over[i]:
        seat = int(s.current[i])
        hand = sorted(int(t) for t in s.hands[i, seat, : s.hand_n[i, seat]])
        bag = int(s.bag_n[i])
        before = sim.table(i)
        found = before.placements_with_points(mask_of(hand))
        if not len(before):
            found = [p for p in found if len(p[0]) == s.opening[i]]
        gained = int(playout.greedy_turn(s, i, out))
        after = sim.table(i)
        placed = [(cell, tile) for cell, tile in after if before[cell] is None]
        if placed:
            points = before.score(placed) if len(before) else len(placed) + 6 * (len(placed) == 6)
            bonus = END_BONUS if s.over[i] and s.hand_n[i, seat] == 0 else 0
            assert gained == points + bonus
            assert points == max(p for _, p in found), "greedy plays a highest-scoring move"
            assert sorted(((c, t.id) for c, t in placed)) in [sorted(p[0]) for p in found]
        else:
            assert not found and bag > 0, "an exchange only when nothing fits"
            assert int(s.bag_n[i]) == bag and gained == 0
        turns += 1
    return turns


def test_greedy_playouts_play_legal_greedy_games():
    sim = VectorQwirkle(3, num_players=3)
    sim.reset(seed=5)
    out = np.empty((64, WIDTH), np.int64)  # short: long lists take the retry path
    for i in range(3):
        for _ in range(2):
            assert check_turns(sim, i, out) > 10
            playout.greedy_games(sim.state, i, i + 1, 0, out)
            sim.reset(seed=[50 + i] * 3)


def test_greedy_playout_continues_a_loaded_engine_game():
    sim = VectorQwirkle(1, num_players=2)
    sim.reset(seed=0)
    out = np.empty((512, WIDTH), np.int64)
    for seed in range(4):
        rng = random.Random(seed)
        game = Game(2, seed=seed)
        for _ in range(rng.randint(1, 30)):
            found = game.placements_with_points()
            game.apply_placement(list(rng.choice(found)[0]))
        sim.load(0, game)
        check_turns(sim, 0, out)


def test_greedy_games_and_turn_limits():
    sim = VectorQwirkle(2, num_players=2)
    sim.reset(seed=1)
    out = np.empty((512, WIDTH), np.int64)
    assert playout.greedy_playout(sim.state, 0, 3, out) == 3
    turns = playout.greedy_games(sim.state, 0, 2, 2, out)
    assert 4 * 20 < turns < 4 * MAX_TURNS
    assert sim.state.over[:2].all()
