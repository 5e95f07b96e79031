"""examples/rllib_moves.py: its options, the shipped checkpoint, and a smoke run.

The smoke run needs Ray (``pip install -e ".[rllib]"``), which pins gymnasium, so CI runs
it in a venv of its own (.ci/run) and skips it here in the main one. It starts Ray in a
child process, which keeps to a private network namespace (examples/ray_loopback.py);
the test watches every socket of that child's processes and fails on any outside
127.0.0.0/8. The exported checkpoint then plays a game as ``ckpt:PATH`` in a Python where
``import ray`` fails.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agents.checkpoint import load_checkpoint
from agents.evaluation.harness import play_game
from agents.move_policy.network import MovePolicyNet, layout
from tests.conftest import EXAMPLES, PLAY_WITHOUT_RAY, load_example

ROOT = EXAMPLES.parent
SHIPPED = ROOT / "checkpoints" / "rllib_moves.pt"

ex = load_example("rllib_moves")  # imports no Ray at module level


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--steps", "0"], "--steps must be >= 1"),
        (["--eval-games", "3"], "--eval-games must be even"),
        (["--batch", "100", "--minibatch", "200"], "--minibatch 200 is larger than --batch 100"),
        (["--lr", "0"], "--lr must be > 0"),
        (["--max-minutes", "-1"], "--max-minutes must be > 0"),
        (["--prior", "-1"], "--prior must be >= 0"),
        (["--ent-coef", "nan"], "--ent-coef must be >= 0"),
        (["--value", "afterstate", "--prior", "0"], "--value afterstate needs --prior > 0"),
        (["--out", "runs/x.zip"], "--out must end in .pt"),
        (["--reward", "score"], "invalid choice: 'score'"),
    ],
)
def test_bad_options_say_what_is_allowed(argv, message, capsys):
    with pytest.raises(SystemExit):
        ex.parse_args(argv)
    assert message in capsys.readouterr().err


def test_smoke_options_are_small():
    args = ex.parse_args(["--smoke"])
    assert (args.steps, args.eval_games) == (256, 2) and args.minibatch <= args.batch


def test_shipped_checkpoint_plays_without_ray():
    """checkpoints/rllib_moves.pt: at most 2 MB, the env's layout, and a legal game."""
    assert SHIPPED.stat().st_size <= 2 * 2**20
    net, meta = load_checkpoint(SHIPPED, kind=MovePolicyNet)
    assert meta["env"]["library"] == "rllib"
    assert {k: meta["env"][k] for k in layout()} == layout()
    result = play_game([f"ckpt:{SHIPPED}", "greedy"], env_seed=5, agent_seeds=[0, 1])
    assert result["end"] == "rules" and sum(result["moves"]) > 10


def test_smoke_run_stays_on_loopback_and_exports(tmp_path):
    pytest.importorskip("ray.rllib")
    loopback = load_example("ray_loopback")
    if loopback.namespace_command() is None:
        pytest.skip("this run needs a private network namespace, and none can be made here")
    out = tmp_path / "rllib_moves.pt"
    command = [sys.executable, str(EXAMPLES / "rllib_moves.py"), "--smoke", f"--out={out}"]
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT
    )
    with loopback.SocketWatch([proc.pid]) as watch:
        stdout, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, stdout[-4000:]
    seen = watch.summary()
    assert seen["sockets"] > 10 and seen["processes"] > 3, seen  # it did see Ray
    assert seen["outside_loopback"] == [], seen["outside_loopback"]
    assert f"saved {out} after 256 env steps" in stdout, stdout[-2000:]
    curve = Path(str(out).removesuffix(".pt") + "_curve.csv").read_text().splitlines()
    assert curve[0] == "env_steps,wall_s,win_rate,margin" and len(curve) >= 3
    assert curve[-1].startswith("256,")
    _, meta = load_checkpoint(out, kind=MovePolicyNet)
    assert meta["step"] == 256 and meta["train"]["library"].startswith("ray rllib")
    played = subprocess.run(
        [sys.executable, "-c", PLAY_WITHOUT_RAY, str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert played.returncode == 0, played.stderr[-3000:]
    assert played.stdout.startswith("played")
