"""The timing loop the batched-simulator benchmarks share (batch_throughput.py,
move_throughput.py): warm up, step for a wall-clock budget, and say how many cores were busy.

Wall clock, because the simulators' threads run with the GIL released; cpu/wall (``busy``)
is how many cores the run kept busy on average.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def timed(
    step: Callable[[], tuple[int, ...]], seconds: float, warm: int = 0
) -> tuple[tuple[int, ...], float, float]:
    """Calls ``step`` ``warm`` times untimed, then for ``seconds`` of wall clock, summing the
    counts each call returns; returns (the sums, the seconds elapsed, busy cores)."""
    for _ in range(warm):  # threads started, caches filled
        step()
    totals: tuple[int, ...] = ()
    wall, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        counts = step()
        totals = tuple(a + b for a, b in zip(totals, counts, strict=True)) if totals else counts
    elapsed = time.perf_counter() - wall
    return totals, elapsed, (time.process_time() - cpu) / elapsed


def busy_while(call: Callable[[], Any]) -> tuple[Any, float]:
    """What ``call()`` returns, and how many cores were busy on average while it ran."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = call()
    return out, (time.process_time() - cpu) / (time.perf_counter() - wall)
