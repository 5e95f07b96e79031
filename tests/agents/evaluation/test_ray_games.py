"""agents.evaluation.ray_games: a round robin played as Ray tasks gives the same games as
the worker processes, and a one-machine run stays on loopback.

The Ray run needs Ray (the ``[rllib]`` extra); in the main venv it is skipped. It runs in
a child process that re-executes itself in a private network namespace
(examples/ray_loopback.py); the test watches every socket of that child's processes and
fails on any outside 127.0.0.0/8, as tests/examples/test_rllib_moves.py does.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from agents.evaluation.ray_games import ray_map
from tests.conftest import ROOT, bot_file, load_example

DRIVER = """
import json, sys
sys.path.insert(0, sys.argv[1] + "/examples")
from ray_loopback import reexec_on_loopback
run = reexec_on_loopback(need_namespace=True)
import ray
from dataclasses import asdict
from agents.evaluation.harness import run_tournament
ray.init(address="local", num_cpus=2, include_dashboard=False, _temp_dir=str(run.ray_temp_dir))
specs = ["greedy", "random", "heuristic", sys.argv[2]]
kept = ("lineup", "deal", "rotation", "env_seed", "deal_digest", "agents", "scores",
        "winners", "moves", "forfeits")
def games(**how):
    res = run_tournament(specs, 4, 2, seed=7, progress=False, move_limit=1.0, **how)
    return [{k: asdict(r)[k] for k in kept} for r in res.records]
on_ray, local = games(on_ray=True), games(processes=2)
assert on_ray == local, "the games differ"
print("same", len(on_ray), "namespace", run.namespace)
ray.shutdown()
"""


def test_without_a_running_ray_the_error_says_what_to_do(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # as in a Python without Ray
    with pytest.raises(RuntimeError, match=r"needs Ray: pip install -e '.\[rllib\]'"):
        list(ray_map(abs, [1]))


def test_a_round_robin_on_ray_plays_the_same_games_on_loopback(tmp_path):
    pytest.importorskip("ray")
    loopback = load_example("ray_loopback")
    if loopback.namespace_command() is None:
        pytest.skip("this run needs a private network namespace, and none can be made here")
    plugin = f"{bot_file(tmp_path)}:first_row"  # each Ray worker loads it itself
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(ROOT), plugin],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT, env=env,
    )  # fmt: skip
    with loopback.SocketWatch([proc.pid]) as watch:
        stdout, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, stdout[-4000:]
    assert "same 24 namespace True" in stdout, stdout[-2000:]  # 6 lineups, 2 deals, 2 seats
    seen = watch.summary()
    assert seen["sockets"] > 10 and seen["processes"] > 3, seen  # it did see Ray
    assert seen["outside_loopback"] == [], seen["outside_loopback"]
