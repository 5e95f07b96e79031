"""The examples/ integrations: a short training run per RL library, then predictions that
respect the mask on real positions.

Each test skips unless its extra is installed (``pip install -e ".[sb3]"``, ``[tianshou]``,
``[rllib]``). RLlib's start Ray instances (2 env runners; two nodes), too heavy for CI's
budget, so they are marked slow: ``pytest -m slow tests/examples/test_integrations.py``. They run
Ray in child processes and check every socket those hold (examples/ray_loopback.py).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from qwirkle_env import raw_env
from tests.conftest import EXAMPLES, ROOT, load_example


def positions(window: int, games: int = 2, every: int = 17) -> list[dict]:
    """Observations with masks from random play: openings, mid-turn sub-steps, late game."""
    rng = np.random.default_rng(7)
    found = []
    for seed in range(games):
        env = raw_env(window=window)
        env.reset(seed=seed)
        step = 0
        while not env.game.over:
            obs = env.observe(env.agent_selection)
            if step % every == 0:
                found.append(obs)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            step += 1
    return found


@pytest.fixture
def one_thread():
    """Small nets on shared cores run far faster on one intra-op thread."""
    import torch

    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


def test_sb3_maskable_ppo(tmp_path, one_thread):
    pytest.importorskip("sb3_contrib")
    ex = load_example("sb3_maskable_ppo")
    model = ex.train(steps=128, opp="random-action")
    assert model.num_timesteps >= 128
    for obs in positions(ex.WINDOW):
        mask = obs["action_mask"].astype(bool)
        for deterministic in (True, False):
            action, _ = model.predict(
                obs["observation"], action_masks=mask, deterministic=deterministic
            )
            assert mask[int(action)]
    path = tmp_path / "model.zip"
    model.save(path)
    # The harness plays at window 39: the agent crops each view to 21 and maps actions back.
    # One game in both windows at once: the crop of 39 must equal the env's own 21.
    small, big, rng = raw_env(window=ex.WINDOW), raw_env(window=39), np.random.default_rng(3)
    small.reset(seed=3)
    big.reset(seed=3)
    while not small.game.over:
        want, got = small.observe(small.agent_selection), big.observe(big.agent_selection)
        obs, mask = ex.crop(SimpleNamespace(window=39, **got), ex.WINDOW)
        assert np.array_equal(obs, want["observation"])
        assert np.array_equal(mask, want["action_mask"].astype(bool))
        action = int(rng.choice(np.flatnonzero(mask)))
        small.step(action)
        big.step(ex.uncrop(action, ex.WINDOW, 39))
    assert small.game.scores == big.game.scores
    pytest.importorskip("agents.evaluation.harness")
    table = ex.evaluate(str(path), "random", games=2)
    assert "sb3:path=" in table


def test_tianshou_multiagent(one_thread):
    pytest.importorskip("tianshou")
    ex = load_example("tianshou_multiagent")
    algorithm = ex.train(epochs=1, steps_per_epoch=100, test=False)
    for obs in positions(ex.WINDOW):
        assert obs["action_mask"][ex.learner_action(algorithm, obs)]
    result = ex.evaluate(algorithm, games=1)  # the raw env raises on an illegal action
    assert result["games"] == 1 and len(result["mean_scores"]) == 2


def run_watched(
    command: list[str], timeout: float, env: dict | None = None
) -> tuple[subprocess.CompletedProcess, dict]:
    """Runs a Ray program as a child while sampling the sockets of it and of every process
    it starts (examples/ray_loopback.py); returns its outcome and what the watch saw."""
    loopback = load_example("ray_loopback")
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT, env=env
    )
    with loopback.SocketWatch([proc.pid]) as watch:
        out, _ = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(command, proc.returncode, out), watch.summary()


@pytest.mark.slow
def test_rllib_selfplay_stays_on_loopback(tmp_path, one_thread):
    """The example's own local run (one iteration of 300 env steps from 2 env runners):
    every socket of every Ray process in 127.0.0.0/8, then the saved policy's moves are
    legal on real positions and in a game on the raw env."""
    pytest.importorskip("ray.rllib")
    from ray.rllib.core.rl_module.rl_module import RLModule

    out = tmp_path / "ckpt"
    command = [sys.executable, str(EXAMPLES / "rllib_selfplay.py"), "--iters=1", "--batch=300"]
    command += ["--minibatch=150", "--games=1", f"--out={out}"]
    # An address in the environment (nothing listens there) must not be joined: without
    # --address the example always starts its own instance.
    env = dict(os.environ, RAY_ADDRESS="127.0.0.1:9")
    done, sockets = run_watched(command, timeout=600, env=env)
    assert done.returncode == 0, done.stdout[-4000:]
    assert sockets["sockets"] > 10 and sockets["processes"] > 3, sockets  # it saw Ray
    assert sockets["outside_loopback"] == [], sockets["outside_loopback"]
    assert 'node addresses: ["127.0.0.1"]' in done.stdout, done.stdout[-2000:]
    assert "from 2 env runners" in done.stdout

    ex = load_example("rllib_selfplay")
    module = RLModule.from_checkpoint(out / "learner_group" / "learner" / "rl_module" / "shared")
    for obs in positions(ex.WINDOW):
        adapted = {
            "observations": obs["observation"],
            "action_mask": obs["action_mask"].astype(np.float32),
        }
        assert obs["action_mask"][ex.greedy_action(module, adapted)]
    result = ex.evaluate(module, games=1)  # the raw env raises on an illegal action
    assert result["games"] == 1


@pytest.mark.slow
def test_rllib_refuses_more_env_runners_than_cpus_before_training():
    """It used to wait for the missing CPUs without a word; now it names both numbers."""
    pytest.importorskip("ray.rllib")
    command = [sys.executable, str(EXAMPLES / "rllib_selfplay.py"), "--env-runners=64"]
    done, sockets = run_watched(command, timeout=300)
    assert done.returncode == 1, done.stdout[-3000:]
    needs = r"the run needs 64 CPUs \(64 env runners, 1 CPU each\) but the cluster has \d+;"
    assert re.search(needs, done.stdout), done.stdout[-3000:]
    assert "iter 1" not in done.stdout
    assert sockets["outside_loopback"] == [], sockets["outside_loopback"]


@pytest.mark.slow
def test_rllib_on_two_ray_nodes():
    """scripts/rllib_two_nodes.py: a head and a worker node as separate `ray start`
    processes in a private network namespace, token auth, the example across both, both
    stopped by pid; every socket of every process in 127.0.0.0/8, its temp folder gone."""
    pytest.importorskip("ray.rllib")
    loopback = load_example("ray_loopback")
    if loopback.namespace_command() is None:
        pytest.skip("two Ray nodes stay on loopback only in a network namespace: none here")
    script = [sys.executable, str(ROOT / "scripts" / "rllib_two_nodes.py")]
    done, sockets = run_watched(script, timeout=900)
    assert done.returncode == 0, done.stdout[-4000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(result["cluster_nodes"]) == 2
    assert sorted(set(result["env_runner_nodes"])) == sorted(result["cluster_nodes"])
    assert result["node_addresses"] == ["127.0.0.1", "127.0.0.1"]
    # The script's own watch, from inside, and this one, from outside the namespace.
    for seen in (result["sockets"], sockets):
        assert seen["sockets"] > 20 and seen["processes"] > 6, seen
        assert seen["outside_loopback"] == [], seen["outside_loopback"]
    checkpoint = Path(result["checkpoint"])
    assert checkpoint.name == "checkpoint" and not checkpoint.parent.exists()
