"""Opponents named by spec strings, for ``gymnasium.make("qwirkle_env/Qwirkle-v0", ...)``.

The scripted agents live in the ``agents`` package, which builds on ``qwirkle_env``; the env
must never import it back (a layering rule). So ``"random"`` is built in here, and every
other name comes from the entry-point group ``qwirkle_env.opponents``: each entry point is
named after the spec's head (``greedy`` for ``"greedy"`` and ``"greedy:foo=1"``) and loads a
factory that takes the whole spec string and returns an agent. This project's
``pyproject.toml`` points ``greedy``, ``heuristic``, ``search`` and ``ckpt`` at
``agents.registry:make_agent``; another package can add its own agents the same way without
either side importing the other.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from typing import Any

import numpy as np

from .view import PlayerView

GROUP = "qwirkle_env.opponents"
BUILTIN = ("random",)


class RandomOpponent:
    """Uniform over the legal sub-steps of the mask (a cheap default opponent)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, view: PlayerView) -> int:
        legal = view.action_mask.view(bool).nonzero()[0]
        return int(legal[self.rng.integers(len(legal))])


def _entry_points() -> dict[str, EntryPoint]:
    return {ep.name: ep for ep in entry_points(group=GROUP)}


def opponent_names() -> list[str]:
    """Every spec head that :func:`make_opponent` accepts, built-in and installed."""
    return sorted(set(BUILTIN) | set(_entry_points()))


def make_opponent(spec: str | Callable | Any) -> Any:
    """An opponent from a spec string; agents (with ``act``) and callables pass through."""
    if not isinstance(spec, str):
        if hasattr(spec, "act") or callable(spec):
            return spec
        raise TypeError(
            "an opponent is a spec string, an agent with act(view) or a callable(view) -> "
            f"action, got {type(spec).__name__}"
        )
    head = spec.strip().partition(":")[0].strip().lower()
    if head == "random":
        if spec.strip().lower() != "random":
            raise ValueError(f"opponent 'random' takes no options, got {spec!r}")
        return RandomOpponent()
    found = _entry_points().get(head)
    if found is None:
        raise ValueError(
            f"unknown opponent {spec!r}; allowed: {', '.join(opponent_names())} "
            f"(names other than 'random' come from the {GROUP!r} entry points, which "
            "`pip install -e .` registers for this project's agents)"
        )
    return found.load()(spec.strip())
