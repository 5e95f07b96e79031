"""Old import paths of modules that moved, kept for one release: each warns once, when
first imported, and forwards every name to the module's new home (CHANGELOG.md, 0.3.0)."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any


def forward(old: str, *new: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` for the old path ``old`` that finds each name in the first
    of the ``new`` modules holding it."""
    warnings.warn(
        f"{old} has moved to {' and '.join(new)}; the old path is removed in the next release",
        DeprecationWarning,
        stacklevel=3,
    )
    homes = [importlib.import_module(name) for name in new]

    def __getattr__(name: str) -> Any:
        for home in homes:
            if hasattr(home, name):
                return getattr(home, name)
        raise AttributeError(f"module {old!r} has no attribute {name!r} (moved to {new})")

    return __getattr__
