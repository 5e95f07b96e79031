"""A real two-node Ray cluster on this machine: the RLlib example across both nodes.

    python scripts/rllib_two_nodes.py            # needs the [rllib] extra; about 2 minutes

Starts a head and a worker node as two separate ``ray start --block`` processes on
127.0.0.1, with token authentication on (``RAY_AUTH_MODE=token`` and one token file that
every process reads, as docs/rllib_cluster.md tells a real cluster to do), checks
``ray status`` with it, runs examples/rllib_selfplay.py against the cluster with one env
runner per node (each node offers one CPU), checks from the example's output that env
runners ran on both nodes, and stops both nodes by the process ids it started. It never
touches ~/.ray, /tmp/ray or other Ray instances on the machine. Exits non-zero on any failure.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def ray_env(token_path: Path) -> dict[str, str]:
    """What every node and the driver need for token authentication."""
    env = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token_path))
    env.pop("RAY_AUTH_TOKEN", None)
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    return env


def start_node(args: list[str], env: dict, log: Path) -> subprocess.Popen:
    """``ray start --block`` in its own session: its pid is the group of all it spawns."""
    ray = Path(sys.executable).with_name("ray")
    with open(log, "w") as out:
        return subprocess.Popen(
            [str(ray), "start", "--block", *args],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def session_members(sid: int) -> list[int]:
    """Live processes of session ``sid`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def stop_node(proc: subprocess.Popen, name: str) -> None:
    """SIGTERM to the node's process group (graceful for Ray), SIGKILL what is left."""
    for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
        if not session_members(proc.pid):
            break
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        deadline = time.time() + wait
        while session_members(proc.pid) and time.time() < deadline:
            time.sleep(0.5)
    proc.wait(timeout=10)
    left = session_members(proc.pid)
    if left:
        raise RuntimeError(f"{name} node: processes {left} are still running")
    print(f"stopped the {name} node (pid {proc.pid}) and every process it started")


def wait_for_nodes(count: int, address: str, env: dict, timeout: float = 180) -> str:
    ray = Path(sys.executable).with_name("ray")
    deadline = time.time() + timeout
    status = ""
    while time.time() < deadline:
        done = subprocess.run(
            [str(ray), "status", f"--address={address}"], env=env, capture_output=True, text=True
        )
        status = done.stdout + done.stderr
        if done.returncode == 0 and status.count("node_") >= count:
            return status
        time.sleep(3)
    raise RuntimeError(f"no {count} live nodes after {timeout} s; last `ray status`:\n{status}")


def run(iters: int = 1, batch: int = 400, minibatch: int = 200) -> dict:
    """The whole check; returns what it measured (node ids, times)."""
    work = Path(tempfile.mkdtemp(prefix="qw2n_"))
    token = work / "auth_token"
    token.write_text(secrets.token_hex(32))
    token.chmod(0o600)
    env = ray_env(token)
    port = free_port()
    address = f"{HOST}:{port}"
    common = [
        f"--node-ip-address={HOST}",
        f"--temp-dir={work / 'ray'}",  # session files and the address file stay ours
        "--num-cpus=1",
        "--num-gpus=0",
        "--object-store-memory=300000000",
        "--disable-usage-stats",
    ]
    nodes: list[tuple[subprocess.Popen, str]] = []
    result: dict = {"address": address}
    began = time.perf_counter()
    try:
        head = start_node(
            ["--head", f"--port={port}", "--include-dashboard=false", *common],
            env,
            work / "head.log",
        )
        nodes.append((head, "head"))
        wait_for_nodes(1, address, env)
        worker = start_node([f"--address={address}", *common], env, work / "worker.log")
        nodes.append((worker, "worker"))
        status = wait_for_nodes(2, address, env)
        print(status.strip().split("Resources")[0].strip())
        result["cluster_up_s"] = round(time.perf_counter() - began, 1)
        example = [
            sys.executable,
            str(ROOT / "examples" / "rllib_selfplay.py"),
            f"--address={address}",
            "--env-runners=2",
            f"--iters={iters}",
            f"--batch={batch}",
            f"--minibatch={minibatch}",
            "--games=1",
            f"--out={work / 'checkpoint'}",
        ]
        t0 = time.perf_counter()
        done = subprocess.run(example, env=env, capture_output=True, text=True, cwd=ROOT)
        result["example_s"] = round(time.perf_counter() - t0, 1)
        print(done.stdout)
        if done.returncode != 0:
            raise RuntimeError(f"the example failed:\n{done.stderr[-4000:]}")
        lines = {
            key: json.loads(line.split(":", 1)[1])
            for line in done.stdout.splitlines()
            for key in ("cluster nodes", "env runner nodes")
            if line.startswith(key + ":")
        }
        cluster, runners = lines["cluster nodes"], lines["env runner nodes"]
        result.update(cluster_nodes=cluster, env_runner_nodes=runners)
        if len(cluster) != 2 or sorted(set(runners)) != sorted(cluster):
            raise RuntimeError(f"env runners ran on {runners}, the cluster's nodes are {cluster}")
        print(f"env runners ran on both nodes: {runners}")
    finally:
        for proc, name in reversed(nodes):
            stop_node(proc, name)
    result["total_s"] = round(time.perf_counter() - began, 1)
    return result


if __name__ == "__main__":
    print(json.dumps(run(), indent=1))
