"""What the benchmark costs: the ladder's round robins (from the shipped ratings file, which
records each one's games and wall time) and the bench of one agent, timed here. Prints one
table.

    python benchmarks/bench_cost.py                      # the bench of `learned`, 2 players
    python benchmarks/bench_cost.py --agent heuristic --processes 1
    python benchmarks/bench_cost.py --out runs/bench/learned-2p   # and its files

CPU is the seconds of every process together (this one and its workers), so it is the
machine-independent part of the cost; wall time depends on the cores and their load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import time

import torch

from agents.benchmark import protocol
from agents.benchmark.bench import bench
from agents.benchmark.report import save_bench


def cpu_s() -> float:
    """CPU seconds of this process and its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--agent", default="learned", help="the agent benched (learned)")
    parser.add_argument("--players", type=int, default=2, help="seats (2)")
    parser.add_argument("--processes", type=int, default=2, help="worker processes (2)")
    parser.add_argument("--out", default=None, help="also write the bench's files here")
    args = parser.parse_args()
    torch.set_num_threads(1)
    ratings = json.loads(protocol.data_file("ratings").read_text())
    print(f"{protocol.NAME}; python {platform.python_version()}, {os.cpu_count()} CPUs")
    print(f"{'what':<44} {'games':>6} {'wall s':>8} {'CPU s':>8}  result")
    for n, entry in sorted(ratings.get("players", {}).items()):
        refs = len(entry["references"])
        what = f"ladder, {n} players ({refs} references)"
        print(f"{what:<44} {entry['games']:>6} {entry['wall_s']:>8.0f} {'':>8}  "
              f"{entry.get('made_by', '')}")  # fmt: skip
    start, cpu = time.perf_counter(), cpu_s()
    result = bench(args.agent, args.players, processes=args.processes, progress=False)
    wall, used = time.perf_counter() - start, cpu_s() - cpu
    if args.out:
        save_bench(result, args.out)
    games = sum(m["games"] for m in result.matches)
    what = f"bench {args.agent}, {args.players} players, {args.processes} proc."
    print(f"{what:<44} {games:>6} {wall:>8.0f} {used:>8.0f}  rating {result.rating:.0f} "
          f"({result.rating_low:.0f} to {result.rating_high:.0f}), "
          f"{result.cpu_ms_per_move:.2f} CPU ms/move, load {os.getloadavg()[0]:.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
