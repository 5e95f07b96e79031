"""Agent-steps and whole games per second of the batched simulator, next to the AEC env.

Every row plays uniformly random legal sub-steps for about ``--seconds``:

- ``VectorQwirkle`` at batch 1, 64, 256 and 1024: ``sample_actions`` (a uniform legal
  action per game, read off the compact mask) then ``step``, with automatic reset. Its
  threads step disjoint ranges of games with the GIL released, so a batch uses both cores.
  ``copy=False`` hands out the simulator's own arrays; ``copy=True`` (the default) copies
  the compact observation and mask for the caller every step.
- the same at batch 256 with the dense forms built every step (``dense_mask`` and
  ``dense_observation``, the AEC env's 55k-entry mask and 20k-float observation), to show
  what the compact form saves;
- the AEC ``raw_env`` in the user loop of ``env_throughput.py``, one game at a time.

Wall clock (threads); the cpu/wall column is how many cores were busy on average.

    python benchmarks/batch_throughput.py --seconds 5
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from timing import busy_while, timed


def measure_vector(batch: int, seconds: float, copy: bool = False, dense: bool = False):
    from qwirkle_env.vector import VectorQwirkle
    from qwirkle_env.vector.tiles.compact import dense_mask, dense_observation

    vec = VectorQwirkle(batch, copy=copy)
    rng = np.random.default_rng(0)
    vec.reset(seed=0)

    def step() -> tuple[int, int]:
        obs, _, terminated, truncated, _ = vec.step(vec.sample_actions(rng))
        if dense:
            dense_mask(obs["action_mask"])
            dense_observation(obs["board"], obs["features"])
        return batch, int(terminated.sum() + truncated.sum())

    (steps, games), elapsed, busy = timed(step, seconds, warm=20)
    vec.close()
    return steps / elapsed, games / elapsed, busy


def measure_aec(seconds: float):
    """The AEC env in env_throughput.py's user loop, with the busy-cores ratio added."""
    from env_throughput import measure

    from qwirkle_env import raw_env

    (sps, _, gps, _), busy = busy_while(lambda: measure(raw_env, seconds, time.perf_counter))
    return sps, gps, busy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per row (default 5)")
    parser.add_argument("--batches", default="1,64,256,1024", help="comma-separated batch sizes")
    args = parser.parse_args()
    warnings.simplefilter("ignore")

    from qwirkle_env.vector import COMPILED, VectorQwirkle

    start = time.perf_counter()
    VectorQwirkle(1).reset(seed=0)  # compile (or load the cached kernels) before timing
    ready = time.perf_counter() - start
    rows = []
    for batch in (int(b) for b in args.batches.split(",")):
        rows.append(("VectorQwirkle copy=False", batch, *measure_vector(batch, args.seconds)))
        print(f"  ... {rows[-1][0]} batch {batch}", flush=True)
    best = max(rows, key=lambda row: row[2])[1]
    rows.append(("VectorQwirkle copy=True", best, *measure_vector(best, args.seconds, copy=True)))
    rows.append(
        ("VectorQwirkle + dense forms", 256, *measure_vector(256, args.seconds, dense=True))
    )
    rows.append(("AEC raw_env (one game)", 1, *measure_aec(args.seconds)))
    aec = rows[-1][2]

    print(
        f"\n2 players, window 39, random legal sub-steps, wall clock, {os.cpu_count()} CPUs, "
        f"numba {'compiled' if COMPILED else 'MISSING (pure Python)'}, kernels ready in "
        f"{ready:.1f} s"
    )
    print(f"{'simulator':<30} {'batch':>5} {'agent-steps/s':>14} {'games/s':>9} "
          f"{'cpu/wall':>8} {'x AEC':>7}")  # fmt: skip
    for name, batch, sps, gps, busy in rows:
        print(f"{name:<30} {batch:>5} {sps:>14,.0f} {gps:>9,.1f} {busy:>8.2f} {sps / aec:>7.1f}")
    top = max(rows[:-3], key=lambda row: row[2])
    print(
        f"\ntargets: >= 250,000 agent-steps/s with compact masks: {top[2]:,.0f} "
        f"({'met' if top[2] >= 250_000 else 'missed'}); >= 1,500 games/s: {top[3]:,.0f} "
        f"({'met' if top[3] >= 1_500 else 'missed'}), both at batch {top[1]}"
    )


if __name__ == "__main__":
    main()
