"""The simulators' module paths from before ``vector/`` split into ``tiles/`` and ``moves/``.

Code written against an old path (``qwirkle_env.vector.core``, ``.move_table``, ...) still
imports it for one release: the old name is the new module itself, the same object, and
importing it warns with a DeprecationWarning that names the new path. One finder serves
them all, so no file of ``vector/`` is left standing for a path that moved; deleting this
module (and its line in ``__init__.py``) removes them in the next release.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from types import ModuleType

PACKAGE = __name__.rpartition(".")[0]  # qwirkle_env.vector

# old module, under PACKAGE -> the module that holds it now
MOVED = {
    "simulator": "tiles.simulator",
    "core": "tiles.core",
    "rules": "tiles.rules",
    "state": "tiles.state",
    "compact": "tiles.compact",
    "load": "tiles.load",
    "playout": "tiles.playout",
    "rollouts": "tiles.rollouts",
    "move_state": "moves.state",
    "move_table": "moves.table",
    "move_load": "moves.load",
    "turns": "moves.turns",
    "single": "moves.single",
}


class OldPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old paths (only when no file answers for them) and loads each as its new
    module."""

    def find_spec(self, fullname: str, path=None, target=None):
        package, _, old = fullname.rpartition(".")
        if package != PACKAGE or old not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec) -> None:
        return None  # a blank module, replaced by the new one in exec_module

    def exec_module(self, module: ModuleType) -> None:
        new = f"{PACKAGE}.{MOVED[module.__name__.rpartition('.')[2]]}"
        warnings.warn(
            f"{module.__name__} moved to {new}; the old path goes in the next release",
            DeprecationWarning,
            stacklevel=2,  # warnings skips the import machinery's frames: the importer's line
        )
        sys.modules[module.__name__] = importlib.import_module(new)


def install() -> None:
    """Puts the finder last on ``sys.meta_path`` (once): it answers only for the old paths
    that no file holds any more."""
    if not any(isinstance(finder, OldPaths) for finder in sys.meta_path):
        sys.meta_path.append(OldPaths())
