"""The conventions users bring from PettingZoo and gymnasium: a versioned module, a
registered gymnasium id, opponents named by spec strings."""

from __future__ import annotations

import importlib
import warnings

import gymnasium
import numpy as np
import pytest
import tomllib
from gymnasium.utils.env_checker import check_env
from pettingzoo.utils.env import AECEnv

import qwirkle_env
from qwirkle_env import ENV_ID, env, qwirkle_v0, raw_env
from qwirkle_env.opponents import RandomActionOpponent, make_opponent, opponent_names
from qwirkle_env.wrappers import SingleAgentEnv
from tests.conftest import ROOT


def test_qwirkle_v0_is_laid_out_like_pettingzoo_classic():
    assert qwirkle_v0.env is env and qwirkle_v0.raw_env is raw_env
    assert importlib.import_module("qwirkle_env.qwirkle_v0") is qwirkle_v0
    assert "qwirkle_v0" in qwirkle_env.__all__
    e = qwirkle_v0.env()
    assert isinstance(e, AECEnv) and e.metadata["name"] == "qwirkle_v0"
    raw = qwirkle_v0.raw_env(num_players=3)
    raw.reset(seed=0)
    assert raw.agents == ["player_0", "player_1", "player_2"]


@pytest.fixture
def headless(monkeypatch):
    pytest.importorskip("pygame")  # check_env opens every render mode, "human" included
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setitem(SingleAgentEnv.metadata, "render_fps", 10_000)


@pytest.mark.parametrize("opponent", ["random-action", "greedy"])
def test_registered_id_passes_check_env_as_made(opponent, headless):
    made = gymnasium.make(ENV_ID, opponent=opponent, window=15, seat=None)
    assert isinstance(made.unwrapped, SingleAgentEnv)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(made.unwrapped)  # every render mode, and close twice
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(made)  # as made: gymnasium only notes that wrappers are applied
    assert all("different from the unwrapped" in str(w.message) for w in caught), caught


def test_registered_id_plays_whole_games_against_a_scripted_opponent():
    made = gymnasium.make(ENV_ID, opponent="greedy", num_players=3, reward="points")
    rival = made.unwrapped.opponents
    assert len(rival) == 2 and rival[0] is not rival[1]  # one agent per seat
    assert type(rival[0]).__name__ == "GreedyAgent"
    obs, info = made.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(made.unwrapped.action_masks())))
        obs, reward, terminated, truncated, info = made.step(action)
        done = terminated or truncated
    assert made.unwrapped.env.game.over


def test_opponents_accept_agents_and_callables():
    calls = []

    def first_legal(view):
        calls.append(view)
        return int(np.flatnonzero(view.action_mask)[0])

    agent = RandomActionOpponent(seed=1)
    assert make_opponent(agent) is agent and make_opponent(first_legal) is first_legal
    single = gymnasium.make(ENV_ID, opponent=first_legal, seat=1)
    single.reset(seed=0)
    assert calls  # seat 0 moved first, by the callable
    assert opponent_names()[:1] == ["ckpt"] and "random-action" in opponent_names()


@pytest.mark.parametrize(
    ("spec", "error", "message"),
    [
        ("grredy", ValueError, r"unknown opponent 'grredy'; allowed: ckpt, greedy, heuristic, "),
        ("random-action:seed=3", ValueError, "opponent 'random-action' takes no options"),
        ("greedy:depth", ValueError, "is not key=value"),
        (3, TypeError, "an opponent is a spec string, an agent with act"),
    ],
)
def test_bad_opponents_say_what_is_allowed(spec, error, message):
    with pytest.raises(error, match=message):
        make_opponent(spec)
    with pytest.raises(error, match=message):
        gymnasium.make(ENV_ID, opponent=spec)


def test_the_old_random_spec_still_builds_random_action_and_warns():
    """ "random" named two agents (issue 22): the env's, uniform over the mask's legal actions,
    is "random-action" now; the registry's "random" is uniform over whole moves."""
    with pytest.warns(DeprecationWarning, match="use the spec 'random-action'"):
        made = gymnasium.make(ENV_ID, opponent="random")
    assert isinstance(made.unwrapped.opponents[0], RandomActionOpponent)
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="takes no options"):
        make_opponent("random:seed=3")
    with pytest.warns(DeprecationWarning, match="use RandomActionOpponent"):
        from qwirkle_env.wrappers import RandomOpponent
    assert RandomOpponent is RandomActionOpponent
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        made = gymnasium.make(ENV_ID)  # the default is the new name: no warning
    assert isinstance(made.unwrapped.opponents[0], RandomActionOpponent)


def test_make_wants_opponent_not_opponents():
    with pytest.raises(TypeError, match="pass opponent=..., not opponents="):
        gymnasium.make(ENV_ID, opponents="greedy")


def test_every_opponent_entry_point_is_an_agent_name():
    base = pytest.importorskip("agents.registry")
    names = set(base.agent_names()) | set(base.SHIPPED)
    installed = set(opponent_names()) - {"random-action", "ckpt"}
    assert installed and installed <= names
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())
    declared = set(declared["project"]["entry-points"]["qwirkle_env.opponents"]) - {"ckpt"}
    # every agent by name, the shipped ones included, but "random-action" (built into the
    # env), the registry's "random" (as an opponent spec that old name still builds the
    # env's "random-action", deprecated) and the oracles, which see every hand
    assert declared == names - {"random", "random-action", "oracle", "learned-oracle"}
