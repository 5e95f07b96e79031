"""The whole-move recipes of examples/: each library's smoke run trains a few steps,
exports a checkpoint, and the checkpoint plays as ckpt:PATH without the library.

Each skips unless its extra is installed; CI installs [sb3] and [tianshou]. RLlib's runs
in its own environment (.ci/run).
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

from agents.evaluation.harness import play_game
from agents.move_policy.network import MovePolicyAgent
from agents.registry import make_agent
from tests.conftest import EXAMPLES


def run_example(name: str, argv: list[str], monkeypatch) -> None:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(sys, "argv", [name, *argv])
    module.main()


@pytest.mark.parametrize(
    ("example", "extra", "options"),
    [
        ("sb3_moves", "sb3_contrib", []),  # self-play through the gym view
        ("sb3_moves", "sb3_contrib", ["--opponent", "greedy"]),
        ("sb3_moves", "sb3_contrib", ["--fast"]),
        ("sb3_moves", "sb3_contrib", ["--fast", "--opponent", "greedy"]),
        ("tianshou_moves", "tianshou", []),
    ],
)
def test_smoke_run_exports_a_checkpoint_that_plays_without_the_library(
    example, extra, options, tmp_path, monkeypatch
):
    pytest.importorskip(extra)
    import torch

    threads = torch.get_num_threads()
    out = tmp_path / f"{example}.pt"
    try:
        argv = ["--smoke", "--envs", "2", "--out", str(out), *options]
        run_example(example, argv, monkeypatch)
    finally:
        torch.set_num_threads(threads)
    curve = out.with_name(f"{example}_curve.csv").read_text().splitlines()
    assert curve[0] == "env_steps,wall_s,win_rate,margin" and len(curve) >= 3
    assert isinstance(make_agent(f"ckpt:{out}"), MovePolicyAgent)
    result = play_game([f"ckpt:{out}", "greedy"], env_seed=1, agent_seeds=[1, 2])
    assert sum(result["scores"]) > 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--steps", "0"], "must be >= 1, got 0"),
        (["--lr", "nan"], "must be a finite number > 0"),
        (["--envs", "two"], "'two' is not an int"),
        (["--prior", "-1"], "must be a finite number >= 0, got -1"),
        (["--ent-coef", "inf"], "must be a finite number >= 0, got inf"),
        (["--minutes", "0"], "must be a finite number > 0, got 0"),
        (["--gae-lambda", "1.5"], "must be in [0, 1], got 1.5"),
        (["--value", "q"], "invalid choice: 'q'"),
    ],
)
def test_bad_recipe_options_are_refused_with_what_is_allowed(argv, message, capsys):
    from agents.move_policy.training import recipe_parser

    with pytest.raises(SystemExit):
        recipe_parser("a recipe", "runs/x.pt").parse_args(argv)
    assert message in capsys.readouterr().err


def test_an_afterstate_critic_without_a_points_prior_is_refused():
    from agents.move_policy.training import net_options, recipe_parser

    args = recipe_parser("a recipe", "runs/x.pt").parse_args(["--prior", "0"])
    with pytest.raises(SystemExit, match="--value afterstate needs --prior > 0"):
        net_options(args, 0.1)


def test_the_fast_sb3_recipe_refuses_an_opponent_it_cannot_batch(monkeypatch):
    pytest.importorskip("sb3_contrib")
    with pytest.raises(SystemExit, match="--fast plays against 'greedy' or 'self', not 'heur"):
        run_example("sb3_moves", ["--smoke", "--fast", "--opponent", "heuristic"], monkeypatch)
