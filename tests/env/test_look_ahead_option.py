"""The move mode's look ahead (``look_ahead=N``): the learned agents' look, for any library."""

from __future__ import annotations

import random

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from agents.move_value.features import MoveRowsAhead, candidates
from qwirkle_env import Game, Placement, env, raw_env
from qwirkle_env.rows.columns import LOOK_AHEAD_COLUMNS, NUM_ROW_FEATURES, row_columns
from qwirkle_env.rows.look_ahead import LookAhead
from qwirkle_env.rows.position import Position
from qwirkle_env.rows.table import move_table, observation_size, split_observation

LOOKED = NUM_ROW_FEATURES + LOOK_AHEAD_COLUMNS.index("looked")


def rows_of(e, look_ahead: int, k: int = 256) -> np.ndarray:
    obs = e.observe(e.agent_selection)["observation"]
    return split_observation(obs, k, look_ahead)[1]


def midgame(seed: int, turns: int) -> Game:
    game = Game(2, seed=seed)
    for _ in range(turns):
        items, _ = max(game.placements_with_points(), key=lambda pair: pair[1])
        game.apply(Placement.of_ids(items))
    return game


def test_look_ahead_adds_seven_columns_and_keeps_the_28():
    on, off = raw_env(action_mode="moves", look_ahead=8), raw_env(action_mode="moves")
    assert on.observation_space("player_0")["observation"].shape == (observation_size(256, 8),)
    assert row_columns(8)[NUM_ROW_FEATURES:] == LOOK_AHEAD_COLUMNS
    on.reset(seed=5)
    off.reset(seed=5)
    for _ in range(6):  # the same game: the look does not touch the game's seed stream
        a, b = rows_of(on, 8), rows_of(off, 0)
        np.testing.assert_array_equal(a[:, :NUM_ROW_FEATURES], b)
        on.step(0)
        off.step(0)


def test_look_ahead_fills_the_first_rows_only_and_flags_them():
    e = raw_env(action_mode="moves", look_ahead=5)
    e.reset(seed=2)
    assert not rows_of(e, 5)[:, NUM_ROW_FEATURES:].any()  # the opening: nothing to look at
    e.step(0)
    n = int(e.observe(e.agent_selection)["action_mask"].sum())
    rows = rows_of(e, 5)
    assert n > 5
    np.testing.assert_array_equal(rows[:n, LOOKED], np.arange(n) < 5)
    assert not rows[5:, NUM_ROW_FEATURES:].any()
    assert rows[:5, NUM_ROW_FEATURES:LOOKED].any()


def test_look_ahead_columns_are_the_learned_agents_look():
    """One encoding: the env's columns equal MoveRowsAhead's for the same deals."""
    game = midgame(7, 5)
    pos = Position.of_game(game)
    table = move_table(pos, 256, 6, random.Random(1))
    cands: MoveRowsAhead = candidates(pos)
    order = np.argsort(-cands.points[: cands.num_placements], kind="stable")[:6]
    cands.look_ahead(order, random.Random(1), LookAhead(shortlist=6))
    n_look = len(LOOK_AHEAD_COLUMNS) - 1
    agent = cands.features[order, NUM_ROW_FEATURES : NUM_ROW_FEATURES + n_look]
    np.testing.assert_allclose(table.rows[:6, NUM_ROW_FEATURES:LOOKED], agent, rtol=1e-6)


def test_look_ahead_is_reproducible():
    def run(seed):
        e = raw_env(action_mode="moves", look_ahead=4)
        e.reset(seed=seed)
        seen = []
        for _ in range(8):
            seen.append(rows_of(e, 4).copy())
            e.step(int(e.observe(e.agent_selection)["action_mask"].sum()) - 1)
        return np.stack(seen)

    np.testing.assert_array_equal(run(9), run(9))


def test_look_ahead_passes_pettingzoo_api_and_seed_tests():
    api_test(env(action_mode="moves", look_ahead=4, max_moves=32), num_cycles=30)
    seed_test(lambda: env(action_mode="moves", look_ahead=4, max_moves=32), num_cycles=20)


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"action_mode": "moves", "look_ahead": -1}, "look_ahead must be in 0..256"),
        ({"action_mode": "moves", "max_moves": 8, "look_ahead": 9}, "look_ahead must be in 0..8"),
        ({"action_mode": "moves", "look_ahead": 2.0}, "look_ahead must be an int"),
        ({"action_mode": "moves", "look_ahead": True}, "look_ahead must be an int"),
        ({"look_ahead": 4}, 'applies to action_mode="moves" only'),
    ],
)
def test_look_ahead_refuses_what_the_env_does_not_have(kwargs, says):
    with pytest.raises(ValueError, match=says):
        raw_env(**kwargs)
