"""The Q-learning recipes of examples/ (SB3, Tianshou and RLlib DQN over the move rows):
one shared check refuses bad options before any library starts, each smoke run exports a
checkpoint that reads the env's look ahead, and it plays as ckpt:PATH without the library.

RLlib's smoke run needs Ray, which lives in its own environment (.ci/run,
tests/examples/test_rllib_dqn.py); its options are checked here all the same, since the
check runs before Ray is imported.
"""

from __future__ import annotations

import sys

import pytest

from agents.checkpoint import load_checkpoint
from agents.evaluation.harness import play_game
from agents.move_policy.network import MovePolicyAgent, MovePolicyNet, layout
from agents.move_policy.recipe import QRecipe, q_recipe, q_recipe_parser
from agents.registry import make_agent
from tests.conftest import EXAMPLES, load_example

RECIPES = {"sb3_dqn": "stable_baselines3", "tianshou_dqn": "tianshou", "rllib_dqn": None}


def run_main(name: str, argv: list[str], monkeypatch) -> None:
    extra = RECIPES[name]
    if extra is not None:
        pytest.importorskip(extra)
    module = load_example(name)
    monkeypatch.setattr(sys, "argv", [name, *argv])
    module.main()


BAD = [
    (["--steps", "0"], "steps must be >= 1, got 0"),
    (["--minutes", "0"], "minutes must be a finite number > 0, got 0.0"),
    (["--lr", "nan"], "lr must be a finite number > 0, got nan"),
    (["--lr=-1e-3"], "lr must be a finite number > 0"),
    (["--gamma", "1.5"], "gamma must be in [0, 1], got 1.5"),
    (["--lr-end=0"], "lr_end must be a finite number > 0, got 0.0"),
    (["--eps-start", "-0.1"], "eps_start must be in [0, 1]"),
    (["--players", "5"], "num_players must be"),
    (["--look-ahead", "300"], "look_ahead must be in 0..256"),
    (["--look-ahead", "9", "--max-moves", "8"], "look_ahead must be in 0..8"),
    (["--max-moves", "0"], "max_moves must be in 1..4096"),
    (["--batch", "64", "--buffer", "10"], "buffer (10) must hold at least a batch (64)"),
    (["--hidden", "100000"], "hidden must be at most 4096"),
]


@pytest.mark.parametrize("recipe", sorted(RECIPES))
@pytest.mark.parametrize(("argv", "message"), BAD)
def test_every_recipe_refuses_bad_options_before_training(recipe, argv, message, monkeypatch):
    """The same check in all three, before the library is imported (RLlib's runs here
    without Ray installed)."""
    with pytest.raises(SystemExit) as refused:
        run_main(recipe, [*argv, "--out", "runs/never.pt"], monkeypatch)
    assert message in str(refused.value)


def test_a_word_where_a_number_goes_is_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit):
        q_recipe_parser("a recipe", "runs/x.pt").parse_args(["--steps", "many"])
    assert "invalid int value: 'many'" in capsys.readouterr().err


def test_every_problem_is_said_at_once():
    args = q_recipe_parser("a recipe", "runs/x.pt").parse_args(["--steps", "0", "--lr", "0"])
    with pytest.raises(SystemExit, match="steps must be >= 1, got 0; lr must be"):
        q_recipe(args)


def test_the_untrained_network_plays_greedy():
    """The points prior: a row's first value is its points, in reward units."""
    import numpy as np
    import torch

    from qwirkle_env import raw_env

    net = QRecipe().net()
    e = raw_env(action_mode="moves", look_ahead=16)
    e.reset(seed=4)
    e.step(0)
    obs = e.observe(e.agent_selection)
    q, _ = net(torch.from_numpy(obs["observation"])[None])
    points = e.move_table().points
    assert int(q.argmax()) in set(np.flatnonzero(points == points.max()).tolist())


@pytest.mark.parametrize("recipe", ["sb3_dqn", "tianshou_dqn"])
def test_smoke_run_exports_a_checkpoint_that_plays_without_the_library(
    recipe, tmp_path, monkeypatch
):
    import torch

    threads = torch.get_num_threads()
    out = tmp_path / f"{recipe}.pt"
    try:
        run_main(recipe, ["--smoke", "--out", str(out)], monkeypatch)
    finally:
        torch.set_num_threads(threads)
    curve = out.with_name(f"{recipe}_curve.csv").read_text().splitlines()
    assert curve[0] == "env_steps,wall_s,win_rate,margin" and len(curve) >= 3
    net, meta = load_checkpoint(out, kind=MovePolicyNet)
    assert net.config.look_ahead == 16
    assert {k: meta["env"][k] for k in layout(16)} == layout(16)
    assert isinstance(make_agent(f"ckpt:{out}"), MovePolicyAgent)
    result = play_game([f"ckpt:{out}", "greedy"], env_seed=1, agent_seeds=[1, 2])
    assert result["end"] == "rules" and sum(result["scores"]) > 0


def test_recipes_are_where_the_docs_say():
    for name in RECIPES:
        assert (EXAMPLES / f"{name}.py").exists()
