"""The RLlib-style dict adapter (qwirkle_env.multi_agent), without Ray: the end of a game
and a truncation are both reported, and nothing steps past them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from qwirkle_env.multi_agent import MultiAgentDictEnv


def play(env: MultiAgentDictEnv, seed: int, limit: int = 5000) -> tuple[int, tuple]:
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for steps in range(1, limit):
        ((agent, o),) = obs.items()  # only the mover observes mid-game
        assert o["action_mask"].dtype == np.float32 and o["action_mask"].any()
        result = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
        obs, _, terminateds, truncateds, _ = result
        if terminateds["__all__"] or truncateds["__all__"]:
            return steps, result
    raise AssertionError("no end")


def test_a_small_window_reaches_a_truncation_and_reports_it():
    env = MultiAgentDictEnv(window=15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the env warns that the window is too small
        steps, (obs, rewards, terminateds, truncateds, infos) = play(env, seed=0)
    assert steps == 231 and not env.env.game.over
    assert truncateds == {"player_0": True, "player_1": True, "__all__": True}
    assert terminateds == {"__all__": False}
    assert set(obs) == set(rewards) == set(infos) == {"player_0", "player_1"}
    assert not any(o["action_mask"].any() for o in obs.values())  # nothing left to pick
    assert "too small" in infos["player_0"]["truncated"]
    assert rewards == {"player_0": 0.0, "player_1": 0.0}  # no result, no reward
    with pytest.raises(RuntimeError, match=r"the episode is over \(terminated or truncated"):
        env.step({"player_0": 0})
    obs, _ = env.reset(seed=1)  # a new game plays on
    assert len(obs) == 1


def test_the_end_of_a_game_is_a_termination_with_zero_sum_rewards():
    env = MultiAgentDictEnv(window=21, reward="win")
    _, (obs, rewards, terminateds, truncateds, _) = play(env, seed=3)
    assert env.env.game.over
    assert terminateds == {"player_0": True, "player_1": True, "__all__": True}
    assert truncateds == {"__all__": False}
    assert set(obs) == {"player_0", "player_1"} and sum(rewards.values()) == 0
    with pytest.raises(RuntimeError, match="the episode is over"):
        env.step({"player_0": 0})


def test_bad_calls_say_what_is_wrong():
    env = MultiAgentDictEnv(window=15)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        env.step({"player_0": 0})
    obs, _ = env.reset(seed=0)
    (mover,) = obs
    other = "player_1" if mover == "player_0" else "player_0"
    with pytest.raises(ValueError, match=f"{mover} is to move, so action_dict needs its action"):
        env.step({other: 0})
