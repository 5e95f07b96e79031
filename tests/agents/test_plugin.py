"""agents.plugin: a user's own code as an agent, named by a spec string."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import Agent
from agents.plugin import BadMove, PluginError, PolicyAgent, as_row, is_plugin_spec, load_plugin
from agents.registry import make_agent
from tests.conftest import bot_file


@pytest.mark.parametrize(
    "spec", ["bots.py:policy", "a/b/my_bot.py:Agent", "mypkg.bots:MyAgent", "os:system"]
)
def test_code_specs_are_plugins(spec):
    assert is_plugin_spec(spec)


@pytest.mark.parametrize(
    "spec", ["greedy", "search:sims=50", "search:budget=0.1,k=8", "ckpt:run/x.pt", "learned", ""]
)
def test_registry_specs_are_not(spec):
    assert not is_plugin_spec(spec)


def test_a_policy_function_plays_its_rows(tmp_path):
    agent = load_plugin(f"{bot_file(tmp_path)}:first_row")
    assert isinstance(agent, PolicyAgent) and agent.name.endswith(":first_row")


def test_an_agent_subclass_is_built_with_no_arguments(tmp_path):
    agent = load_plugin(f"{bot_file(tmp_path)}:Greedy")
    assert isinstance(agent, Agent) and type(agent).__name__ == "Greedy"


def test_a_module_plugin_is_imported_by_name(tmp_path, monkeypatch):
    bot_file(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert isinstance(load_plugin("bots:first_row"), PolicyAgent)


@pytest.mark.parametrize(
    "name, words",
    [
        ("missing", ["defines no 'missing'"]),
        ("NotAnAgent", ["not an agents.base.Agent subclass"]),
        ("BOTS_TEXT", ["not an Agent subclass or a function"]),
    ],
)
def test_what_is_not_an_agent_is_refused_by_name(tmp_path, name, words):
    path = bot_file(tmp_path)
    path.write_text(path.read_text() + "\nBOTS_TEXT = 'x'\n")
    with pytest.raises(PluginError) as err:
        load_plugin(f"{path}:{name}")
    assert str(path) in str(err.value)
    for word in words:
        assert word in str(err.value)


def test_code_that_fails_to_import_is_named_with_its_error(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("raise SystemExit('I quit')\n")
    with pytest.raises(PluginError, match=r"broken.py:policy' cannot be imported: SystemExit: I"):
        load_plugin(f"{path}:policy")
    with pytest.raises(PluginError, match="no such file"):
        load_plugin(f"{tmp_path}/absent.py:policy")
    with pytest.raises(PluginError, match=r"cannot be imported: ModuleNotFoundError.*PYTHONPATH"):
        load_plugin("no_such_module_xyz:policy")


def test_the_registry_never_loads_a_plugin(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.py"
    path.write_text(f"open({str(marker)!r}, 'w').close()\ndef policy(o, m):\n    return 0\n")
    with pytest.raises(ValueError):
        make_agent(f"{path}:policy")
    assert not marker.exists()


def test_a_row_must_be_an_unmasked_integer():
    mask = np.array([True, True, False])
    assert as_row(np.int64(1), mask) == 1 and as_row(np.array([0]), mask) == 0
    for answer, kind in [
        (2, "illegal"),
        (5, "illegal"),
        (-1, "illegal"),
        ("e4", "not_a_move"),
        (1.0, "not_a_move"),
        (True, "not_a_move"),
        (None, "not_a_move"),
    ]:
        with pytest.raises(BadMove) as err:
            as_row(answer, mask)
        assert err.value.kind == kind


def test_a_policy_sees_what_the_move_mode_env_shows():
    from qwirkle_env import raw_env

    seen = []

    def policy(observation, action_mask):
        seen.append((observation, action_mask))
        return 0

    tiles = raw_env(num_players=2)
    tiles.reset(seed=5)
    agent = PolicyAgent(policy)
    agent.reset(0, 2, 1)
    agent.act(tiles.player_view(tiles.agent_selection))
    moves = raw_env(num_players=2, action_mode="moves")
    moves.reset(seed=5)
    shown = moves.observe(moves.agent_selection)
    assert np.array_equal(seen[0][0], shown["observation"])
    assert np.array_equal(seen[0][1], shown["action_mask"].astype(bool))
