"""The module paths from before the restructure (CHANGELOG.md): the move rows' modules that
became ``qwirkle_env.rows`` and the simulators' that split into ``vector/tiles/`` and
``vector/moves/``.

Code written against an old path (``qwirkle_env.move_mode``, ``qwirkle_env.vector.core``,
...) still imports it for one release: the old name is the new module itself, the same
object, and importing it warns with a DeprecationWarning that names the new path. One
finder serves them all, so no file is left standing for a path that moved; deleting this
module (and its line in ``qwirkle_env/__init__.py``) removes them in the next release.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from types import ModuleType

PACKAGE = __name__.rpartition(".")[0]  # qwirkle_env

# old module, under PACKAGE -> the module that holds it now
MOVED = {
    "candidates": "rows",  # MoveRows, move_rows, reference_move_rows, the column names
    "rowgen": "rows.kernels",
    "move_mode": "rows.table",
    "position": "rows.position",
    "vector.simulator": "vector.tiles.simulator",
    "vector.core": "vector.tiles.core",
    "vector.rules": "vector.tiles.rules",
    "vector.state": "vector.tiles.state",
    "vector.compact": "vector.tiles.compact",
    "vector.load": "vector.tiles.load",
    "vector.playout": "vector.tiles.playout",
    "vector.rollouts": "vector.tiles.rollouts",
    "vector.move_state": "vector.moves.state",
    "vector.move_table": "vector.moves.table",
    "vector.move_load": "vector.moves.load",
    "vector.turns": "vector.moves.turns",
    "vector.single": "vector.moves.single",
}


class OldPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old paths (only when no file answers for them) and loads each as its new
    module."""

    def find_spec(self, fullname: str, path=None, target=None):
        package, _, old = fullname.partition(".")
        if package != PACKAGE or old not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec) -> None:
        return None  # a blank module, replaced by the new one in exec_module

    def exec_module(self, module: ModuleType) -> None:
        new = f"{PACKAGE}.{MOVED[module.__name__.partition('.')[2]]}"
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
