"""Opponents named by spec strings, for ``gymnasium.make("qwirkle_env/Qwirkle-v0", ...)``.

The scripted agents live in the ``agents`` package, which builds on ``qwirkle_env``; the env
must never import it back (a layering rule). So ``"random-action"`` is built in here, and
every other name comes from the entry-point group ``qwirkle_env.opponents``: each entry point is
named after the spec's head (``greedy`` for ``"greedy"`` and ``"greedy:foo=1"``) and loads a
factory that takes the whole spec string and returns an agent. This project's
``pyproject.toml`` points ``greedy``, ``heuristic``, ``search`` and ``ckpt`` at
``agents.registry:make_agent``; another package can add its own agents the same way without
either side importing the other.

``"random-action"`` (uniform over the env's legal actions) was called ``"random"``, the
name of another agent, ``agents.registry``'s uniform over whole moves; the old spec still
builds it, with a DeprecationWarning.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from typing import Any

import numpy as np

from .view import PlayerView

GROUP = "qwirkle_env.opponents"
BUILTIN = ("random-action",)
RENAMED = {"random": "random-action"}  # an old spec of a built-in opponent -> its name now


class RandomActionOpponent:
    """Uniform over the legal actions of the env's mask (a cheap default opponent): a
    sub-step in the tile mode, one of the listed moves in the move mode. Not the registry's
    ``random``, which is uniform over whole moves."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, view: PlayerView) -> int:
        legal = view.action_mask.view(bool).nonzero()[0]
        return int(legal[self.rng.integers(len(legal))])


def __getattr__(name: str) -> Any:
    if name == "RandomOpponent":  # the old name
        warnings.warn(
            "RandomOpponent is deprecated: use RandomActionOpponent (spec 'random-action')",
            DeprecationWarning,
            stacklevel=2,
        )
        return RandomActionOpponent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    if head in RENAMED:
        warnings.warn(
            f"opponent spec {head!r} is deprecated: use the spec {RENAMED[head]!r} (uniform "
            "over the env's legal actions; agents.registry's 'random', uniform over whole "
            "moves, is another agent)",
            DeprecationWarning,
            stacklevel=2,
        )
    if RENAMED.get(head, head) == "random-action":
        if spec.strip().lower() != head:
            raise ValueError(f"opponent 'random-action' takes no options, got {spec!r}")
        return RandomActionOpponent()
    found = _entry_points().get(head)
    if found is None:
        raise ValueError(
            f"unknown opponent {spec!r}; allowed: {', '.join(opponent_names())} "
            f"(names other than 'random-action' come from the {GROUP!r} entry points, which "
            "`pip install -e .` registers for this project's agents)"
        )
    return found.load()(spec.strip())
