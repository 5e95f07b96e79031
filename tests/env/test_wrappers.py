"""The single-agent gymnasium view: env_checker, masks, rewards, opponents."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from qwirkle_env.wrappers import RandomActionOpponent, SingleAgentEnv


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_single_agent_env_passes_gymnasium_check_env(num_players):
    check_env(SingleAgentEnv(num_players=num_players, seat=None), skip_render_check=True)


def play(env: SingleAgentEnv, seed: int) -> tuple[float, int]:
    obs, info = env.reset(seed=seed)
    total = info["reward_before_first_move"]
    rng = np.random.default_rng(seed)
    steps = 0
    while True:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        assert np.array_equal(mask, info["action_mask"].astype(bool))
        legal = np.flatnonzero(mask)
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        assert env.observation_space.contains(obs)
        total += reward
        steps += 1
        if terminated:
            return total, steps


@pytest.mark.parametrize("seat", [0, 1, None])
def test_points_reward_sums_to_the_learners_final_score(seat):
    env = SingleAgentEnv(num_players=2, seat=seat, reward="points")
    for seed in range(3):
        total, _ = play(env, seed)
        assert total == env.env.game.scores[env.seat]


def test_win_reward_is_plus_or_minus_one_for_two_players():
    env = SingleAgentEnv(num_players=2, seat=1)
    total, _ = play(env, 4)
    winners = env.env.game.winners()
    expected = 0.0 if len(winners) == 2 else (1.0 if winners == [1] else -1.0)
    assert total == expected


def test_illegal_action_loses_by_default_and_raises_on_request():
    env = SingleAgentEnv(num_players=2)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    strict = SingleAgentEnv(num_players=2, illegal="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action"):
        strict.step(illegal)


def test_opponents_can_be_callables_or_agents_and_are_checked():
    calls = []

    def first_legal(view):
        calls.append(view.seat)
        return int(np.flatnonzero(view.action_mask)[0])

    env = SingleAgentEnv([first_legal, RandomActionOpponent(1)], num_players=3, seat=0)
    play(env, 2)
    assert calls and set(calls) <= {1, 2}
    with pytest.raises(ValueError, match="3 players need 2 opponents"):
        SingleAgentEnv([first_legal], num_players=3)
    with pytest.raises(ValueError, match="illegal must be"):
        SingleAgentEnv(illegal="ignore")
    with pytest.raises(ValueError, match="seat must be"):
        SingleAgentEnv(seat=2)


def test_same_seed_same_episode():
    a = SingleAgentEnv(num_players=2, seat=None)
    b = SingleAgentEnv(num_players=2, seat=None)
    oa, _ = a.reset(seed=9)
    ob, _ = b.reset(seed=9)
    assert np.array_equal(oa, ob) and a.seat == b.seat


@pytest.mark.parametrize("action_mode", ["tiles", "moves"])
def test_the_made_envs_mask_is_found_the_way_sb3_contrib_finds_it(action_mode):
    """gymnasium.make wraps the env (OrderEnforcing, PassiveEnvChecker), which forward no
    attributes: MaskablePPO finds ``action_masks`` with ``get_wrapper_attr`` (one env) or
    ``env_method`` (a VecEnv), the README calls ``env.unwrapped.action_masks()``, and
    ``info["action_mask"]`` carries the same mask."""
    gymnasium = pytest.importorskip("gymnasium")
    utils = pytest.importorskip("sb3_contrib.common.maskable.utils")
    from stable_baselines3.common.vec_env import DummyVecEnv

    import qwirkle_env  # noqa: F401  (registers the id)

    def made():
        return gymnasium.make("qwirkle_env/Qwirkle-v0", opponent="greedy", action_mode=action_mode)

    env = made()
    _, info = env.reset(seed=3)
    assert utils.is_masking_supported(env)
    mask = utils.get_action_masks(env)
    assert mask.any() and np.array_equal(mask, env.unwrapped.action_masks())
    assert np.array_equal(mask, np.asarray(info["action_mask"]).astype(bool))
    vec = DummyVecEnv([made, made])
    vec.seed(3)
    vec.reset()
    assert utils.is_masking_supported(vec)
    masks = utils.get_action_masks(vec)
    assert masks.shape == (2, *mask.shape) and np.array_equal(masks[0], mask)


def test_the_move_mode_view_refuses_a_row_outside_the_table_with_what_is_allowed():
    """The single-agent view checks an action against the env's own action space: in the
    move mode, rows 0..K-1 (an out-of-range row once reached the mask as an IndexError)."""
    env = SingleAgentEnv(opponents="greedy", action_mode="moves", max_moves=64)
    env.reset(seed=3)
    with pytest.raises(ValueError, match=r"out of range: rows are 0\.\.63, and player_0 has"):
        env.step(64)
    with pytest.raises(ValueError, match="a row index"):
        env.step(1.5)
