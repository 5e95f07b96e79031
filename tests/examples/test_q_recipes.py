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
    (["--win-bonus=-1"], "win_bonus must be in [0, 100], got -1.0"),
    (["--win-bonus", "inf"], "win_bonus must be in [0, 100], got inf"),
    (["--average", "0"], "average must be >= 1, got 0"),
    (["--average", "101"], "average must be at most 100 curve points, got 101"),
    (["--n-step", "0"], "n_step must be >= 1, got 0"),
    (["--n-step", "1001"], "n_step must be at most 1000 (a game's turns), got 1001"),
]


@pytest.mark.parametrize("recipe", sorted(RECIPES))
@pytest.mark.parametrize(("argv", "message"), BAD)
def test_every_recipe_refuses_bad_options_before_training(recipe, argv, message, monkeypatch):
    """The same check in all three, before the library is imported (RLlib's runs here
    without Ray installed)."""
    with pytest.raises(SystemExit) as refused:
        run_main(recipe, [*argv, "--out", "runs/never.pt"], monkeypatch)
    assert message in str(refused.value)


def test_rllib_refuses_a_horizon_its_one_seat_replay_cannot_sample(monkeypatch):
    """RLlib's episode replay never finished a batch with --n-step 100 (round G,
    docs/integrations.md): refused before Ray starts; its self-play replay has no limit."""
    with pytest.raises(SystemExit) as refused:
        run_main("rllib_dqn", ["--n-step", "4", "--out", "runs/never.pt"], monkeypatch)
    said = str(refused.value)
    assert "n_step must be at most 3 with this library against an agent spec" in said
    assert said.endswith("got 4")
    args = q_recipe_parser("r", "runs/x.pt").parse_args(["--n-step", "8", "--opponent", "self"])
    assert q_recipe(args, self_play=True, one_seat_n_step=3).n_step == 8


def test_a_word_where_a_number_goes_is_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit):
        q_recipe_parser("a recipe", "runs/x.pt").parse_args(["--steps", "many"])
    assert "invalid int value: 'many'" in capsys.readouterr().err


def test_every_problem_is_said_at_once():
    args = q_recipe_parser("a recipe", "runs/x.pt").parse_args(["--steps", "0", "--lr", "0"])
    with pytest.raises(SystemExit, match="steps must be >= 1, got 0; lr must be"):
        q_recipe(args)


def test_a_library_limit_is_said_with_the_other_problems():
    """A library's own limits (self-play, RLlib's one-seat horizon) join the option
    problems in the same message, so one try shows everything to fix."""
    parse = q_recipe_parser("a recipe", "runs/x.pt").parse_args
    with pytest.raises(SystemExit) as refused:
        q_recipe(parse(["--steps", "0", "--n-step", "5"]), one_seat_n_step=3)
    assert str(refused.value) == (
        "error: steps must be >= 1, got 0; n_step must be at most 3 with this library "
        "against an agent spec (its replay mis-counts longer returns), got 5"
    )
    with pytest.raises(SystemExit) as refused:
        q_recipe(parse(["--lr", "0", "--opponent", "self"]))
    said = str(refused.value)
    assert said.startswith("error: lr must be a finite number > 0, got 0.0; opponent 'self'")


def test_row_only_is_a_switch_that_reaches_the_network():
    parse = q_recipe_parser("a recipe", "runs/x.pt").parse_args
    assert q_recipe(parse([])).net().config.row_only is False
    assert q_recipe(parse(["--row-only"])).net().config.row_only is True
    assert q_recipe(parse(["--row-only", "--no-row-only"])).row_only is False
    with pytest.raises(ValueError, match="row_only must be True or False, got 1"):
        QRecipe(row_only=1)


def one_seat_rewards(win_bonus: float) -> tuple[list[float], list[int], int]:
    """A whole game through the recipe's one-seat env, the learner always playing row 0."""
    env = QRecipe(win_bonus=win_bonus, look_ahead=0).make_env()
    env.reset(seed=3)
    rewards, done = [], False
    while not done:
        _, reward, terminated, truncated, _ = env.step(0)
        rewards.append(reward)
        done = terminated or truncated
    view = env.unwrapped
    assert terminated and view.env.game.over
    return rewards, list(view.env.game.scores), view.seat


def test_the_win_bonus_is_paid_once_at_the_games_end():
    """The margin teaches every move; the bonus says who won, on the last step only."""
    plain, scores, seat = one_seat_rewards(0.0)
    bonus, same_scores, same_seat = one_seat_rewards(2.5)
    assert (same_scores, same_seat) == (scores, seat)
    assert bonus[:-1] == plain[:-1]
    won = max(scores) == scores[seat]
    assert bonus[-1] - plain[-1] == pytest.approx(2.5 if won else -2.5)


def test_self_play_pays_every_seat_its_win_bonus_at_the_end():
    """``--opponent self``: each seat's margin (scaled) and, when the game ends, its share
    of the win bonus; the bonuses sum to zero, as the "win" reward does."""
    from agents.move_policy.recipe import SelfPlayRows
    from qwirkle_env.spec import win_reward

    for players in (2, 3):
        runs = {}
        for bonus in (0.0, 3.0):
            env = SelfPlayRows(QRecipe(opponent="self", players=players, win_bonus=bonus,
                                       look_ahead=0))  # fmt: skip
            obs, _ = env.reset(seed=5)
            steps = []
            while True:
                mover = next(iter(obs))
                obs, rewards, terminateds, truncateds, _ = env.step({mover: 0})
                steps.append(rewards)
                if terminateds["__all__"] or truncateds["__all__"]:
                    break
            assert terminateds["__all__"]
            runs[bonus] = (steps, list(env.env.game.scores))
        (plain, scores), (paid, same) = runs[0.0], runs[3.0]
        assert same == scores and paid[:-1] == plain[:-1]
        extra = {a: paid[-1][a] - plain[-1][a] for a in paid[-1]}
        assert set(extra) == {f"player_{s}" for s in range(players)}
        for s in range(players):
            assert extra[f"player_{s}"] == pytest.approx(3.0 * win_reward(scores, s))
        assert sum(extra.values()) == pytest.approx(0.0)


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


def test_average_saves_the_mean_and_the_last_network_beside_it(tmp_path, monkeypatch, capsys):
    import torch

    threads = torch.get_num_threads()
    out = tmp_path / "sb3_dqn.pt"
    try:  # --smoke: a curve point every 150 env steps, and one at the end
        run_main("sb3_dqn", ["--smoke", "--average", "2", "--out", str(out)], monkeypatch)
    finally:
        torch.set_num_threads(threads)
    mean, meta = load_checkpoint(out, kind=MovePolicyNet)
    last, last_meta = load_checkpoint(out.with_name("sb3_dqn_last.pt"), kind=MovePolicyNet)
    points = meta["train"]["averaged_points"]
    assert len(points) == 2 and 0 < points[0] < points[1] == meta["train"]["env_steps"]
    assert meta["train"]["average"] == 2 and "averaged_points" not in last_meta["train"]
    assert any(
        not torch.equal(a, b) for a, b in zip(mean.parameters(), last.parameters(), strict=True)
    )
    assert f"[average] the mean of the weights at {points} env steps" in capsys.readouterr().out
    assert isinstance(make_agent(f"ckpt:{out}"), MovePolicyAgent)


def test_recipes_are_where_the_docs_say():
    for name in RECIPES:
        assert (EXAMPLES / f"{name}.py").exists()
