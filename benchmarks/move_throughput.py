"""Whole turns per second of the batched move simulator, next to the move-mode AEC env.

Every row plays legal rows for about ``--seconds`` (wall clock) and counts turns (one
step of one game is one turn):

- ``VectorMoves`` (``qwirkle_env/vector/moves/simulator.py``) at batch 1, 64 and 1,024 on one
  thread, then on two threads (disjoint ranges of games, the GIL released), with
  ``copy=False`` (the simulator's own arrays) and at the largest batch with ``copy=True``
  (the default: the observations, 29 kB a game, copied for the caller every step).
  "random" picks a uniformly random legal row (``sample_rows``): random play exchanges
  often and keeps tables small; "greedy" always plays row 0, the highest-scoring move,
  so the tables grow as in real play.
- ``raw_env(action_mode="moves")`` in ``env_throughput.py``'s user loop (``last``, a
  random legal row, ``step``), one game at a time: the same observations, built in Python
  around the same compiled rows.

rows/turn is the mean number of rows shown (legal moves, at most K). cpu/wall is how many
cores the row kept busy on average: on a shared machine, read it beside the load average
printed above the table. ``--compile`` also times the
first call in fresh processes, with an empty numba cache and then with the cache filled.

    python benchmarks/move_throughput.py --seconds 5
    python benchmarks/move_throughput.py --seconds 5 --compile
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from timing import busy_while, timed

FIRST_CALL = (
    "import time; t = time.perf_counter(); from qwirkle_env.vector.moves import VectorMoves; "
    "VectorMoves(1).reset(seed=0); print(time.perf_counter() - t)"
)


def measure_vector(batch: int, threads: int, policy: str, seconds: float, copy: bool = False):
    """(turns/s, rows shown per turn, busy cores) of ``VectorMoves`` playing ``policy``."""
    from qwirkle_env.vector.moves import VectorMoves

    vec = VectorMoves(batch, copy=copy, threads=threads)
    rng = np.random.default_rng(0)
    vec.reset(seed=0)
    greedy = np.zeros(batch, np.int64)

    def step() -> tuple[int, int]:
        vec.step(vec.sample_rows(rng) if policy == "random" else greedy)
        return batch, int(vec.state.n_rows.sum())

    (turns, shown), elapsed, busy = timed(step, seconds, warm=10)
    vec.close()
    return turns / elapsed, shown / turns, busy


def measure_env(seconds: float):
    """The move-mode AEC env in env_throughput.py's loop: (turns/s, None, busy)."""
    from env_throughput import measure

    from qwirkle_env import raw_env

    def make():
        return raw_env(action_mode="moves")

    # warm: a kernel first met inside the timed loop would be compiled (or loaded) there
    measure(make, min(seconds, 1.0), time.perf_counter)
    (_, tps, _, _), busy = busy_while(lambda: measure(make, seconds, time.perf_counter))
    return tps, None, busy


def first_calls() -> tuple[float, float]:
    """Seconds to the first table in a fresh process: compiling, then from the cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        times = []
        for _ in range(2):
            out = subprocess.run([sys.executable, "-c", FIRST_CALL], env=env, check=True,
                                 capture_output=True, text=True)  # fmt: skip
            times.append(float(out.stdout.split()[-1]))
    return times[0], times[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per row (default 5)")
    parser.add_argument("--compile", action="store_true", help="also time the first call")
    args = parser.parse_args()
    warnings.simplefilter("ignore")

    from qwirkle_env.vector.moves import COMPILED, VectorMoves

    start = time.perf_counter()
    VectorMoves(1).reset(seed=0)  # compile (or load the cached kernels) before timing
    ready = time.perf_counter() - start
    cores = len(os.sched_getaffinity(0))
    plan = [(b, 1, "random", False) for b in (1, 64, 1024)]
    plan += [(1024, 1, "greedy", False)]
    if cores > 1:
        plan += [(64, 2, "random", False), (1024, 2, "random", False)]
        plan += [(1024, 2, "greedy", False), (1024, 2, "random", True)]
    else:
        plan += [(1024, 1, "random", True)]
    rows = []
    for batch, threads, policy, copy in plan:
        name = f"VectorMoves copy={copy}"
        speed = measure_vector(batch, threads, policy, args.seconds, copy)
        rows.append((name, policy, batch, threads, *speed))
        print(f"  ... {name} {policy} batch {batch} threads {threads}", flush=True)
    rows.append(('raw_env(action_mode="moves")', "random", 1, 1, *measure_env(args.seconds)))
    env = rows[-1][4]
    compiled = ""
    if args.compile:
        fresh, cached = first_calls()
        compiled = f"; first call {fresh:.1f} s compiling, {cached:.1f} s cached"

    load = os.getloadavg()
    print(
        f"\n{'' if COMPILED else 'numba MISSING (pure Python); '}2 players, K = 256, wall "
        f"clock, {cores} CPUs, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, "
        f"kernels ready in {ready:.1f} s{compiled}"
    )
    print(f"{'simulator':<30} {'rows':<7} {'batch':>5} {'threads':>7} {'turns/s':>9} "
          f"{'rows/turn':>9} {'cpu/wall':>8} {'x env':>6}")  # fmt: skip
    for name, policy, batch, threads, tps, shown, busy in rows:
        shown = "" if shown is None else f"{shown:.0f}"
        print(f"{name:<30} {policy:<7} {batch:>5} {threads:>7} {tps:>9,.0f} {shown:>9} "
              f"{busy:>8.2f} {tps / env:>6.1f}")  # fmt: skip
    at_1024 = [r for r in rows if r[2] == 1024 and r[1] == "random" and not r[0].endswith("True")]
    top = max(at_1024, key=lambda r: r[4])
    print(
        f"\ntarget: >= 20,000 turns/s at batch 1,024 on 2 cores: {top[4]:,.0f} with "
        f"{top[3]} thread(s) ({'met' if top[4] >= 20_000 else 'missed'})"
    )


if __name__ == "__main__":
    main()
