"""A real two-node Ray cluster on this machine: the RLlib example across both nodes.

    python scripts/rllib_two_nodes.py            # needs the [rllib] extra; about 2 minutes

First re-executes itself in a private network namespace that holds only loopback
(examples/ray_loopback.py; it needs root or unprivileged user namespaces, and says so
otherwise): Ray swaps 127.0.0.1 for the machine's outward address, so only the namespace
keeps two nodes on loopback. There it starts a head and a worker node as two separate
``ray start --block`` processes on 127.0.0.1, one CPU each, with token authentication on
(``RAY_AUTH_MODE=token`` and one 0600 token file that every process reads, as
docs/rllib_cluster.md tells a real cluster to do), checks ``ray status`` with it, runs
examples/rllib_selfplay.py against the cluster with one env runner per node, checks from
the example's output that env runners ran on both nodes at loopback addresses, and stops
both nodes by the process ids it started. Meanwhile it samples every socket of every
process it started (``SocketWatch``) and fails if one has an address outside 127.0.0.0/8.
It never touches ~/.ray, /tmp/ray or other Ray instances, and removes its temp folder.
Exits non-zero on any failure; the last line it prints is the result as JSON.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
from ray_loopback import (  # noqa: E402  (examples/ is not a package)
    LOOPBACK,
    LoopbackRun,
    SocketWatch,
    is_loopback,
    reexec_on_loopback,
    worker_node_env,
)

HOST = LOOPBACK


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


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


def run(loopback: LoopbackRun, iters: int = 1, batch: int = 400, minibatch: int = 200) -> dict:
    """The whole check, inside the namespace; returns what it measured (node ids and
    addresses, the sockets seen, times)."""
    if not loopback.namespace:
        raise RuntimeError("two nodes on one machine stay on loopback only in a namespace")
    work = loopback.work
    env = loopback.env  # the token (0600) and RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0
    port = free_port()
    address = f"{HOST}:{port}"
    common = [
        f"--node-ip-address={HOST}",
        f"--temp-dir={loopback.ray_temp_dir}",  # session files and the address file stay ours
        "--num-cpus=1",
        "--num-gpus=0",
        "--object-store-memory=300000000",
        "--disable-usage-stats",
    ]
    nodes: list[tuple[subprocess.Popen, str]] = []
    result: dict = {"address": address, "checkpoint": str(work / "checkpoint")}
    began = time.perf_counter()
    watch = SocketWatch([os.getpid()]).__enter__()  # every process this one starts
    try:
        head = start_node(
            ["--head", f"--port={port}", "--include-dashboard=false", *common],
            env,
            work / "head.log",
        )
        nodes.append((head, "head"))
        wait_for_nodes(1, address, env)
        worker = start_node(
            [f"--address={address}", *common], worker_node_env(env), work / "worker.log"
        )
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
            for key in ("cluster nodes", "node addresses", "env runner nodes")
            if line.startswith(key + ":")
        }
        cluster, runners = lines["cluster nodes"], lines["env runner nodes"]
        addresses = lines["node addresses"]
        result.update(cluster_nodes=cluster, env_runner_nodes=runners, node_addresses=addresses)
        if len(cluster) != 2 or sorted(set(runners)) != sorted(cluster):
            raise RuntimeError(f"env runners ran on {runners}, the cluster's nodes are {cluster}")
        if not all(is_loopback(a) for a in addresses):
            raise RuntimeError(f"node addresses {addresses} are not all loopback")
        print(f"env runners ran on both nodes: {runners}, at {addresses}")
    finally:
        for proc, name in reversed(nodes):
            stop_node(proc, name)
        watch.__exit__(None, None, None)
    result["sockets"] = watch.summary()
    result["total_s"] = round(time.perf_counter() - began, 1)
    outside = result["sockets"]["outside_loopback"]
    print(
        f"sockets: {result['sockets']['sockets']} seen in {result['sockets']['samples']} "
        f"samples of {result['sockets']['processes']} processes, {len(outside)} outside "
        "127.0.0.0/8"
    )
    if outside:
        raise RuntimeError("sockets outside loopback:\n" + "\n".join(outside))
    return result


if __name__ == "__main__":
    state = reexec_on_loopback(need_namespace=True)
    outcome = run(state)
    shutil.rmtree(state.work, ignore_errors=True)  # Ray's files included (atexit does it too)
    print(json.dumps(outcome))
