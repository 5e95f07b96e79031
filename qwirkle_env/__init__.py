"""Qwirkle for reinforcement learning: an exact rules engine and a PettingZoo environment.

The rules (``Board``, ``Game``, ``Tile`` ...) load eagerly; the PettingZoo env (``env``,
``raw_env``, ``qwirkle_v0``) loads on first use, so that the engine, the renderers and the
batched simulator (``qwirkle_env.vector``) can be imported without PettingZoo.
docs/architecture.md draws the layers.
"""

from __future__ import annotations

import importlib
from typing import Any

import gymnasium

__version__ = "0.2.0"  # the package's version (pyproject.toml reads it); CHANGELOG.md

from . import old_paths
from .engine import Board, Color, Exchange, Game, IllegalMove, Move, Placement, Shape, Tile
from .spec import ENV_ID

old_paths.install()  # the module paths from before the restructure, for one release

# gymnasium.make(ENV_ID, opponent="greedy"): the single-agent view, for tools built on ids.
if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="qwirkle_env.wrappers:make")

_LAZY = {"env": ".aec", "raw_env": ".aec", "qwirkle_v0": None}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if _LAZY[name] is None:
        return importlib.import_module(f".{name}", __name__)
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "__version__",
    "ENV_ID",
    "Board",
    "Color",
    "Exchange",
    "Game",
    "IllegalMove",
    "Move",
    "Placement",
    "Shape",
    "Tile",
    "env",
    "qwirkle_v0",
    "raw_env",
]
