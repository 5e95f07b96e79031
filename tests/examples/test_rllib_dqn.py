"""examples/rllib_dqn.py's smoke run: Ray on loopback only, a checkpoint that reads the
env's look ahead, and a game with it as ``ckpt:PATH`` in a Python where ``import ray``
fails. It needs Ray, which pins gymnasium, so CI runs it in a venv of its own (.ci/run) and
it skips in the main one; tests/examples/test_q_recipes.py checks its options."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agents.checkpoint import load_checkpoint
from agents.move_policy.network import MovePolicyNet
from tests.conftest import EXAMPLES, PLAY_WITHOUT_RAY, load_example

ROOT = EXAMPLES.parent


def test_smoke_run_stays_on_loopback_and_exports(tmp_path):
    pytest.importorskip("ray.rllib")
    loopback = load_example("ray_loopback")
    if loopback.namespace_command() is None:
        pytest.skip("this run needs a private network namespace, and none can be made here")
    out = tmp_path / "rllib_dqn.pt"
    command = [sys.executable, str(EXAMPLES / "rllib_dqn.py"), "--smoke", f"--out={out}"]
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT
    )
    with loopback.SocketWatch([proc.pid]) as watch:
        stdout, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, stdout[-4000:]
    seen = watch.summary()
    assert seen["outside_loopback"] == [], seen["outside_loopback"]
    assert f"saved {out} after" in stdout, stdout[-2000:]
    curve = Path(str(out).removesuffix(".pt") + "_curve.csv").read_text().splitlines()
    assert curve[0] == "env_steps,wall_s,win_rate,margin" and len(curve) >= 3
    net, meta = load_checkpoint(out, kind=MovePolicyNet)
    assert meta["train"]["library"] == "ray rllib DQN" and net.config.look_ahead == 16
    played = subprocess.run(
        [sys.executable, "-c", PLAY_WITHOUT_RAY, str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert played.returncode == 0, played.stderr[-3000:]
    assert played.stdout.startswith("played")
