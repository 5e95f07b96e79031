"""The TD learner's command (``python train.py train``, qwirkle_cli/commands.py and
agents/move_value/run.py): a tiny run, its files, its checks, its checkpoints."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
import torch

from agents.checkpoint import load_checkpoint, save_checkpoint
from agents.evaluation.harness import play_game
from agents.move_value.features import FEATURES, NUM_BASE_FEATURES, candidates
from agents.move_value.network import MoveValueNet, ValueNetConfig
from agents.move_value.run import env_options
from agents.move_value.td import TDConfig
from agents.registry import make_agent
from agents.tile_ppo.network import NetConfig, PolicyValueNet
from qwirkle_cli import commands as cli
from qwirkle_env.rows.look_ahead import LookAhead
from qwirkle_env.rows.position import Position
from tests.conftest import ROOT, game_at

torch.set_num_threads(1)
F = {name: i for i, name in enumerate(FEATURES)}


TINY = [
    "train", "--total-games", "6", "--games-per-batch", "3", "--eval-every", "6",
    "--eval-games", "2", "--eval-opponents", "greedy", "--final-games", "2",
    "--final-opponents", "greedy", "--processes", "1", "--hidden", "8", "--no-progress",
]  # fmt: skip


def test_default_command_trains_and_prints_a_table(tmp_path, capsys):
    cli.main([*TINY, "--out", str(tmp_path), "--name", "tiny"])
    run = tmp_path / "tiny"
    assert (run / "learning_curve.png").stat().st_size > 1000
    assert (run / "metrics.csv").read_text().startswith("games,")
    assert "eval_win_greedy" in (run / "evals.csv").read_text()
    net, meta = load_checkpoint(run / "checkpoints" / "final.pt", kind=MoveValueNet)
    assert meta["train"]["total_games"] == 6 and net.config.hidden == 8
    out = capsys.readouterr().out
    assert "| greedy" in out and "95% CI" in out
    said = out.splitlines()[0]  # before training: what the run does, and its time
    assert said.startswith("TD self-play: 6 games on 1 processes, 2 learning-curve matches")
    assert "then 2 games against each of greedy. Estimated " in said


def test_a_run_on_3_and_4_players_is_judged_in_3_and_4_player_games(tmp_path, capsys):
    """Its curve and final table play the seat counts it trains (a network trained for 3
    and 4 players is refused in 2-player games, so 2-player matches would stop the run)."""
    cli.main([*TINY, "--out", str(tmp_path), "--name", "many", "--players", "3,4"])
    evals = (tmp_path / "many" / "evals.csv").read_text()
    assert "eval_win_greedy (3 players)" in evals and "eval_win_greedy (4 players)" in evals
    assert "eval_win_greedy," not in evals
    out = capsys.readouterr().out
    assert "3 players" in out and "4 players" in out


def test_no_subcommand_means_td_training():
    args = cli.build_parser().parse_args(["train"])
    assert args.total_games == TDConfig().total_games


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--lam", "2"], "lam must be in"),
        (["--players", "2,7"], "players must list"),
        (["--final-opponents", "bogus"], "unknown agent 'bogus'"),
        (["--final-opponents", "ckpt:nowhere.pt"], "does not exist"),
        (["--final-games", "-1"], "--final-games must be >= 0"),
        (["--total-games", "0"], "total_games must be >= 1"),
        (["--play-shortlist", "-1"], "play_shortlist must be >= 0"),
    ],
)
def test_options_that_cannot_work_fail_before_training(tmp_path, option, message):
    with pytest.raises(SystemExit, match=message):
        cli.main([*TINY, "--out", str(tmp_path), *option])
    assert not (tmp_path / "checkpoints").exists()


def test_the_saved_agent_plays_with_the_play_shortlist(tmp_path):
    cli.main([*TINY, "--out", str(tmp_path), "--name", "wide", "--play-shortlist", "9",
                "--final-games", "0"])  # fmt: skip
    for name in ("final.pt", "latest.pt"):
        agent = make_agent(f"ckpt:{tmp_path / 'wide' / 'checkpoints' / name}")
        assert agent.look_ahead.shortlist == 9
    assert TDConfig(shortlist=4).play_look_ahead().shortlist == 4


def test_resume_refuses_a_tile_policy(tmp_path):
    ppo = save_checkpoint(tmp_path / "p.pt", PolicyValueNet(NetConfig(8, 1, 16)), {}, {}, 0)
    with pytest.raises(SystemExit, match="--resume: .*tile-level"):
        cli.main([*TINY, "--out", str(tmp_path), "--resume", str(ppo)])


def test_a_run_with_a_type_encoder_resumes_a_network_without_one(tmp_path):
    """``--encoder`` on a network trained without it widens it (it starts playing as
    before); its checkpoints name every feature and play as agents; a run that asks for
    another encoder width than the checkpoint has is refused."""
    cli.main([*TINY, "--out", str(tmp_path), "--name", "base", "--final-games", "0"])
    base = tmp_path / "base" / "checkpoints" / "final.pt"
    cli.main([*TINY, "--out", str(tmp_path), "--name", "typed", "--resume", str(base),
              "--encoder", "4", "--final-games", "0"])  # fmt: skip
    typed = tmp_path / "typed" / "checkpoints" / "final.pt"
    net, meta = load_checkpoint(typed, kind=MoveValueNet)
    assert net.config.encoder == 4 and meta["env"]["features"] == list(FEATURES)
    out = play_game([f"ckpt:{typed}", "greedy"], env_seed=5, agent_seeds=[1, 2])
    assert out["fallbacks"] == [0, 0] and out["end"] == "rules"
    with pytest.raises(SystemExit, match="--resume: .*type encoder of width 4, the run asks for 8"):
        cli.main([*TINY, "--out", str(tmp_path), "--resume", str(typed), "--encoder", "8"])
    with pytest.raises(SystemExit, match="encoder width"):
        cli.main([*TINY, "--out", str(tmp_path), "--encoder", "-2"])


def test_resume_and_rollout_values_refuse_a_checkpoint_they_cannot_read(tmp_path):
    """A move-value checkpoint on another feature list is refused by --resume with the
    loader's message; rollout-values refuses a tile policy as its playing network."""
    env = {"features": ["points"], "look_ahead": {}}
    odd = save_checkpoint(tmp_path / "odd.pt", MoveValueNet(ValueNetConfig(hidden=8)), env, {}, 0)
    with pytest.raises(SystemExit, match="--resume: .*trained on move features"):
        cli.main([*TINY, "--out", str(tmp_path), "--resume", str(odd)])
    ppo = save_checkpoint(tmp_path / "p.pt", PolicyValueNet(NetConfig(8, 1, 16)), {}, {}, 0)
    with pytest.raises(SystemExit, match="not a move-value network"):
        cli.main(["rollout-values", "--start", str(ppo), "--games", "1", "--to",
                  str(tmp_path / "n.pt")])  # fmt: skip


def test_fast_evaluate_refuses_a_value_checkpoint(value_ckpt):
    with pytest.raises(SystemExit, match="--fast batches tile-level PPO policies only"):
        cli.main(["evaluate", "--fast", "--agents", f"ckpt:{value_ckpt}", "greedy"])


def test_look_ahead_settings_are_checked_and_stored():
    with pytest.raises(ValueError, match="shortlist, reply_samples and refill_samples must be"):
        LookAhead(shortlist=0)
    with pytest.raises(ValueError, match="shortlist, reply_samples and refill_samples"):
        TDConfig(reply_samples=0)
    with pytest.raises(ValueError, match="refill_samples"):
        TDConfig(refill_samples=0)
    assert env_options(LookAhead(8, 2, True, 4))["look_ahead"] == {
        "shortlist": 8, "reply_samples": 2, "refill": True, "refill_samples": 4,
    }  # fmt: skip


def test_a_refill_only_adds_to_what_the_next_move_can_score():
    game = game_at(5, 6)
    plain = candidates(Position.of_game(game))
    fuller = candidates(Position.of_game(game))
    rows = range(len(plain))
    plain.look_ahead(rows, random.Random(3), LookAhead(reply_samples=1, refill=False))
    fuller.look_ahead(rows, random.Random(3), LookAhead(reply_samples=3, refill=True))
    col = F["next_points"]
    assert (fuller.features[:, col] >= plain.features[:, col]).all()
    assert (fuller.features[:, col] > plain.features[:, col]).any()


def test_checkpoint_without_look_ahead_settings_is_refused(tmp_path):
    env = {"features": list(FEATURES[:NUM_BASE_FEATURES])}
    path = save_checkpoint(tmp_path / "n.pt", MoveValueNet(), env, {}, 0)
    with pytest.raises(ValueError, match="no usable look-ahead settings"):
        make_agent(f"ckpt:{path}")


def test_the_agent_plays_with_the_look_ahead_it_was_trained_with(tmp_path):
    env = env_options(LookAhead(shortlist=3, reply_samples=2, refill=True))
    path = save_checkpoint(tmp_path / "l.pt", MoveValueNet(), env, {}, 0)
    assert make_agent(f"ckpt:{path}").look_ahead == LookAhead(3, 2, True)


FORKED_MATCH = """
import sys, torch
from agents.checkpoint import save_checkpoint
from agents.evaluation.harness import run_tournament
from qwirkle_env.rows.look_ahead import LookAhead
from agents.move_value.run import env_options
from agents.move_value.network import MoveValueNet, ValueNetConfig
torch.set_num_threads(2)
torch.ones(512, 512) @ torch.ones(512, 512)  # the parent's OpenMP pool is running
path = save_checkpoint(sys.argv[1], MoveValueNet(ValueNetConfig(hidden=256)),
                       env_options(LookAhead()))
res = run_tournament([f"ckpt:{path}", "greedy"], 2, seed=0, processes=2, progress=False)
print(len(res.records))
"""


def test_a_wide_checkpoint_plays_in_forked_evaluation_workers(tmp_path):
    # Regression: workers forked from a parent with a running OpenMP pool hung for ever
    # at the first large tensor copy of loading the checkpoint.
    script = tmp_path / "match.py"
    script.write_text(FORKED_MATCH)
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "wide.pt")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "2"


def test_chained_runs_make_one_learning_curve(tmp_path):
    from scripts.plot_curves import chained

    first, second = tmp_path / "D", tmp_path / "G"
    for run, text in ((first, "0,0.5\n400,0.6\n"), (second, "0,0.6\n100,0.7\n")):
        run.mkdir()
        (run / "evals.csv").write_text("step,eval_win_greedy\n" + text)
    steps = [(row["step"], row["eval_win_greedy"]) for row in chained([first, second])]
    assert steps == [(0, 0.5), (400, 0.6), (500, 0.7)]
    with pytest.raises(SystemExit, match="evals.csv does not exist"):
        chained([tmp_path / "nowhere"])
