"""A match's games as Ray tasks: the same games, on one machine or spread over a cluster.

Each game is one task of one CPU; its record is the same as the worker processes'
(the game depends only on its deal, seats and agent seeds), so a round robin played on
Ray gives the same results as on one machine. The caller starts Ray (``ray.init``: the
``[rllib]`` extra installs it; examples/ray_loopback.py keeps one machine's run on
loopback, docs/rllib_cluster.md starts a cluster). Every node needs this package (and a
plugin's file at the same path).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator


def ray_map(fn: Callable, tasks: list) -> Iterator:
    """``fn(task)`` for every task, on the running Ray instance, in the order they end."""
    try:
        import ray
    except ImportError:
        raise RuntimeError(
            "playing the games on Ray needs Ray: pip install -e '.[rllib]'"
        ) from None
    if not ray.is_initialized():
        raise RuntimeError(
            "Ray is not running in this process: call ray.init() first (address='auto' to "
            "join a cluster; examples/ray_loopback.py for one machine on loopback)"
        )
    remote = ray.remote(num_cpus=1)(fn)
    pending = [remote.remote(task) for task in tasks]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        yield ray.get(done[0])
