"""The installed wheel, outside the checkout: run by .ci/run with a fresh venv's python from
an empty folder, so nothing of the checkout is importable. Checks what issue 22 promised:
PettingZoo's api_test, the shipped agent by name (registry, gymnasium id, `qwirkle
evaluate`) and `qwirkle serve` answering GET / with the learned agent offered."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import gymnasium
from pettingzoo.test import api_test

import agents
import qwirkle_env
from agents.registry import make_agent

checkout = Path(__file__).resolve().parent.parent
for module in (qwirkle_env, agents):
    assert checkout not in Path(module.__file__).resolve().parents, f"{module} is the checkout's"
assert "site-packages" in qwirkle_env.__file__, qwirkle_env.__file__
print("qwirkle_env", qwirkle_env.__version__, "from", Path(qwirkle_env.__file__).parent)

api_test(qwirkle_env.env(), num_cycles=60)
learned = make_agent("learned")  # a network per seat count: both files are in the wheel
assert type(learned).__name__ == "BySeatCount" and sorted(learned.agents) == [2, 3, 4]
assert type(make_agent("learned-search:budget=0.1")).__name__ == "LearnedSearchAgent"
env = gymnasium.make("qwirkle_env/Qwirkle-v0", opponent="learned")
obs, info = env.reset(seed=1)
for _ in range(20):
    legal = env.unwrapped.action_masks().nonzero()[0]
    obs, reward, done, truncated, info = env.step(int(legal[0]))
    if done or truncated:
        break
print("api_test, make_agent('learned'), learned-search and gymnasium.make(opponent='learned'): ok")

bin_dir = Path(sys.executable).parent
qwirkle = str(bin_dir / "qwirkle")
out = subprocess.run(
    [qwirkle, "evaluate", "--agents", "learned", "greedy", "--games", "4", "--processes", "1"],
    capture_output=True, text=True, timeout=600, check=True,
).stdout  # fmt: skip
assert "| learned" in out and "| greedy" in out, out
print(out.strip().splitlines()[-4:])

with socket.socket() as s:  # a free loopback port
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
server = subprocess.Popen(
    [qwirkle, "serve", "--host", "127.0.0.1", "--port", str(port)],
    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"},
)  # fmt: skip
try:
    base = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            page = urllib.request.urlopen(base + "/", timeout=5)
            break
        except OSError:
            if server.poll() is not None:
                raise SystemExit(f"qwirkle serve exited: {server.stdout.read().decode()}") from None
            time.sleep(0.5)
    else:
        raise SystemExit("qwirkle serve did not answer GET / in 60 s")
    assert page.status == 200 and "app.js" in page.read().decode()
    offered = json.load(urllib.request.urlopen(base + "/api/agents", timeout=5))["agents"]
    assert "learned" in offered, offered
    print("qwirkle serve: GET / 200, agents offered:", offered)
finally:
    server.terminate()
    server.wait(timeout=30)
# The benchmark's frozen deals and ladder travel as package data, and are current.
from agents.benchmark import ladder, protocol  # noqa: E402

for n in protocol.PLAYERS:
    assert len(protocol.deals(n)) == protocol.DEALS[n] and ladder.ladder(n)
print("benchmark: deals and ladder of", protocol.NAME, "found and current")
print("wheel smoke test: ok")
