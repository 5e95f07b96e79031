"""Load on the showdown server: clients playing whole games while agents think, and with
``--mixed`` asking hints, uploading replays and having their games analysed.

Starts ``python train.py serve`` on a free loopback port, then for ``--seconds`` runs
``--clients`` threads that each play game after game against ``--opponent`` as the page
does (poll the state every 250 ms while the agent moves, ask where a tile may go, place it,
end the turn), and ``--watchers`` threads that each step a watch game of two searching
agents. Prints the answers' status codes, the latency of each kind of request, and the
server's RSS every ``--every`` seconds. Needs the [web] extra; outside CI.

    python benchmarks/showdown_load.py --clients 8 --seconds 120
    python benchmarks/showdown_load.py --clients 8 --watchers 2 --mixed --seconds 600 --every 60
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

import httpx2
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.codes: Counter = Counter()
        self.times: dict[str, list[float]] = defaultdict(list)
        self.games = 0
        self.analyses = 0
        self.lost = 0

    def call(self, http: httpx2.Client, kind: str, method: str, url: str, **kw) -> dict:
        start = time.perf_counter()
        r = http.request(method, url, **kw)
        took = time.perf_counter() - start
        with self.lock:
            self.codes[r.status_code] += 1
            self.times[kind].append(took)
        if r.status_code >= 500 and r.status_code != 503:  # 503: busy, said so
            raise RuntimeError(f"{method} {url}: {r.status_code} {r.text[:200]}")
        return r.json()


def first_target(svg: str) -> list[int]:
    part = svg.split('class="target" data-row="')[1]
    return [int(part.split('"')[0]), int(part.split('data-col="')[1].split('"')[0])]


def player(base: str, opponent: str, stop: float, stats: Stats, seed: int, mixed: bool) -> None:
    """Plays game after game; ``mixed``: asks a hint each game, and once a game is over
    uploads its record as a replay, steps through it and has it analysed, as a person
    looking back at the game would."""
    with httpx2.Client(base_url=base, timeout=60) as http:
        while time.monotonic() < stop:
            body = {"mode": "play", "agents": [opponent], "seed": seed}
            answer = stats.call(http, "new game", "POST", "/api/games", json=body)
            seed += 1
            if "id" not in answer:  # 503: every slot holds a game in progress
                time.sleep(1)
                continue
            key = answer["id"]
            hinted = not mixed
            while time.monotonic() < stop:
                state = stats.call(http, "state", "GET", f"/api/games/{key}")
                if "error" in state and "unknown game" in str(state.get("error")):
                    stats.lost += 1  # the live game was dropped under the player
                    break
                if state["over"] or state["error"]:
                    stats.games += state["over"]
                    if mixed and state["over"]:
                        look_back(http, stats, state["record"], stop)
                    break
                if not state["human_turn"]:
                    time.sleep(0.25)
                    continue
                if not hinted:
                    stats.call(http, "hint", "POST", f"/api/games/{key}/hint", json={})
                    hinted = True
                turn = state["turn"]
                act = f"/api/games/{key}/act"
                tiles = [t["id"] for t in turn["hand"] if t["placeable"]]
                if tiles:
                    url = f"/api/games/{key}?tile={tiles[0]}"
                    svg = stats.call(http, "state", "GET", url)["board"]
                    move = {"action": "place", "tile": tiles[0], "cell": first_target(svg)}
                    stats.call(http, "act", "POST", act, json=move)
                elif turn["can_end"]:
                    stats.call(http, "act", "POST", act, json={"action": "end"})
                else:
                    tile = next(t["id"] for t in turn["hand"] if t["exchangeable"])
                    stats.call(http, "act", "POST", act, json={"action": "exchange", "tile": tile})


def look_back(http: httpx2.Client, stats: Stats, record: str, stop: float) -> None:
    """A finished game uploaded as a replay, ten frames stepped, then analysed."""
    replay = stats.call(http, "replay upload", "POST", "/api/replays", json={"content": record})
    if "id" not in replay:
        return
    for k in range(min(10, replay["count"])):
        stats.call(http, "replay frame", "GET", f"/api/replays/{replay['id']}/frames/{k}")
    job = stats.call(http, "analysis", "POST", "/api/analyses", json={"replay": replay["id"]})
    while job.get("state") == "running" and time.monotonic() < stop:
        time.sleep(0.3)
        job = {"id": job["id"], **stats.call(http, "analysis poll", "GET",
                                             f"/api/analyses/{job['id']}")}  # fmt: skip
    stats.analyses += job.get("state") == "done"


def watcher(base: str, specs: list[str], stop: float, stats: Stats, seed: int) -> None:
    with httpx2.Client(base_url=base, timeout=30) as http:
        while time.monotonic() < stop:
            body = {"mode": "watch", "agents": specs, "seed": seed}
            key = stats.call(http, "new game", "POST", "/api/games", json=body)["id"]
            seed += 1
            while time.monotonic() < stop:
                state = stats.call(http, "state", "GET", f"/api/games/{key}")
                if state["over"] or state["error"]:
                    break
                if state["thinking"]:
                    time.sleep(0.2)
                else:
                    stats.call(http, "advance", "POST", f"/api/games/{key}/advance", json={})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--opponent", default="greedy")
    parser.add_argument("--watchers", type=int, default=2)
    parser.add_argument("--watch", default="search:budget=0.5,heuristic", help="two specs")
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--every", type=float, default=15, help="RSS sample period (s)")
    parser.add_argument(
        "--mixed", action="store_true",
        help="clients also ask a hint a game, and upload, step and analyse each finished game",
    )  # fmt: skip
    args = parser.parse_args()

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, str(ROOT / "train.py"), "serve", "--port", str(port)]
    server = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx2.get(f"{base}/api/agents", timeout=1).status_code == 200:
                    break
            except httpx2.HTTPError:
                time.sleep(0.1)
        stats = Stats()
        stop = time.monotonic() + args.seconds
        threads = [
            threading.Thread(
                target=player, args=(base, args.opponent, stop, stats, 1000 * i, args.mixed)
            )
            for i in range(args.clients)
        ] + [
            threading.Thread(
                target=watcher, args=(base, args.watch.split(","), stop, stats, 7 + 1000 * i)
            )
            for i in range(args.watchers)
        ]
        for t in threads:
            t.start()
        samples = [(0.0, rss_mb(server.pid))]
        start = time.monotonic()
        with tqdm(total=int(args.seconds), unit="s", desc="load") as bar:
            while time.monotonic() < stop:
                time.sleep(min(args.every, max(0.0, stop - time.monotonic())))
                samples.append((time.monotonic() - start, rss_mb(server.pid)))
                bar.n = int(min(args.seconds, time.monotonic() - start))
                bar.refresh()
        for t in threads:
            t.join(60)
        hwm = rss_mb(server.pid, "VmHWM")
    finally:
        server.terminate()
        server.wait(10)

    print(f"\n{args.clients} clients vs {args.opponent}, {args.watchers} watch games of "
          f"{args.watch}, {args.seconds:.0f} s, {os.cpu_count()} CPUs")  # fmt: skip
    print(f"games finished by the clients: {stats.games}, analysed: {stats.analyses}, "
          f"live games lost (404 mid-game): {stats.lost}")  # fmt: skip
    print("status codes: " + ", ".join(f"{c}: {n}" for c, n in sorted(stats.codes.items())))
    print("\n| request | count | p50 ms | p95 ms | p99 ms | max ms |\n|---|---|---|---|---|---|")
    for kind, times in sorted(stats.times.items()):
        ts = sorted(times)
        q = [ts[min(len(ts) - 1, int(p * len(ts)))] * 1000 for p in (0.5, 0.95, 0.99, 1)]
        print(f"| {kind} | {len(ts)} | " + " | ".join(f"{x:.0f}" for x in q) + " |")
    print("\n| t (s) | RSS (MB) |\n|---|---|")
    for t, mb in samples:
        print(f"| {t:.0f} | {mb:.0f} |")
    print(
        f"\nRSS peak of the samples: {max(mb for _, mb in samples):.0f} MB, "
        f"server's own high-water mark (VmHWM): {hwm:.0f} MB"
    )


if __name__ == "__main__":
    main()
