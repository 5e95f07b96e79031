"""The restructure's new homes: vector/'s two simulators in their folders and their public
names, and every module path from before (qwirkle_env.old_paths), which still imports (for
one release) as the new module, with a DeprecationWarning naming where it went."""

from __future__ import annotations

import ast
import importlib
import sys
import warnings
from pathlib import Path

import pytest

import qwirkle_env.vector as vector

ROOT = Path(__file__).resolve().parents[2]
# The paths users may hold, written out here rather than read from old_paths.MOVED, so a
# path dropped from the table fails this test.
MOVED = {
    "qwirkle_env.candidates": "qwirkle_env.rows",
    "qwirkle_env.rowgen": "qwirkle_env.rows.kernels",
    "qwirkle_env.move_mode": "qwirkle_env.rows.table",
    "qwirkle_env.position": "qwirkle_env.rows.position",
    "qwirkle_env.vector.simulator": "qwirkle_env.vector.tiles.simulator",
    "qwirkle_env.vector.core": "qwirkle_env.vector.tiles.core",
    "qwirkle_env.vector.rules": "qwirkle_env.vector.tiles.rules",
    "qwirkle_env.vector.state": "qwirkle_env.vector.tiles.state",
    "qwirkle_env.vector.compact": "qwirkle_env.vector.tiles.compact",
    "qwirkle_env.vector.load": "qwirkle_env.vector.tiles.load",
    "qwirkle_env.vector.playout": "qwirkle_env.vector.tiles.playout",
    "qwirkle_env.vector.rollouts": "qwirkle_env.vector.tiles.rollouts",
    "qwirkle_env.vector.move_state": "qwirkle_env.vector.moves.state",
    "qwirkle_env.vector.move_table": "qwirkle_env.vector.moves.table",
    "qwirkle_env.vector.move_load": "qwirkle_env.vector.moves.load",
    "qwirkle_env.vector.turns": "qwirkle_env.vector.moves.turns",
    "qwirkle_env.vector.single": "qwirkle_env.vector.moves.single",
}


def test_the_public_names_are_the_simulators_own():
    from qwirkle_env.vector import COMPILED, VectorMoves, VectorQwirkle, VectorSingleAgent
    from qwirkle_env.vector.moves.simulator import VectorMoves as moves_simulator
    from qwirkle_env.vector.moves.single import VectorSingleAgent as single_agent
    from qwirkle_env.vector.tiles.simulator import VectorQwirkle as tiles_simulator

    assert VectorQwirkle is tiles_simulator and VectorMoves is moves_simulator
    assert VectorSingleAgent is single_agent
    assert isinstance(COMPILED, bool)
    assert sorted(vector.__all__) == [
        "COMPILED",
        "VectorMoves",
        "VectorQwirkle",
        "VectorSingleAgent",
    ]


def test_the_old_moves_module_is_the_new_package_and_warns_nothing():
    """``qwirkle_env.vector.moves`` was VectorMoves' module; it is now the move simulator's
    package, which exports what the module did."""
    sys.modules.pop("qwirkle_env.vector.moves", None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        moves = importlib.import_module("qwirkle_env.vector.moves")
        from qwirkle_env.vector.moves import COMPILED, VectorMoves
    assert VectorMoves is vector.VectorMoves and COMPILED is vector.COMPILED
    assert Path(moves.__file__).parent.name == "moves"


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_imports_the_new_module_and_warns(old):
    new = importlib.import_module(MOVED[old])
    sys.modules.pop(old, None)  # a first import in this process, whatever ran before
    with pytest.warns(DeprecationWarning, match=f"^{old} moved to {MOVED[old]};") as caught:
        module = importlib.import_module(old)
    assert module is new
    assert sys.modules[old] is new
    sys.modules.pop(old)
    with pytest.warns(DeprecationWarning) as caught:
        exec(f"import {old} as module_by_statement", (names := {}))
    assert names["module_by_statement"] is new
    assert caught[0].filename == "<string>", "the warning should point at the importing line"


def test_a_name_of_an_old_module_is_the_same_object():
    sys.modules.pop("qwirkle_env.vector.core", None)
    with pytest.warns(DeprecationWarning, match="qwirkle_env.vector.tiles.core"):
        from qwirkle_env.vector.core import new_game, sort_tiles
    from qwirkle_env.vector.kernels import sort_tiles as shared
    from qwirkle_env.vector.tiles.core import new_game as moved

    assert new_game is moved and sort_tiles is shared


def test_an_unknown_path_under_vector_is_still_an_import_error():
    with pytest.raises(ModuleNotFoundError, match="qwirkle_env.vector.no_such_module"):
        importlib.import_module("qwirkle_env.vector.no_such_module")


def _imported_modules(path: Path) -> list[tuple[int, str]]:
    """Absolute module names that ``path`` imports, relative imports resolved."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    if path.name == "__init__.py":
        package = ".".join(path.relative_to(ROOT).parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                up = parts[: len(parts) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{a.name}") for a in node.names]
    return found


def test_no_code_of_the_project_imports_an_old_path():
    folders = ("qwirkle_env", "agents", "showdown", "qwirkle_cli", "benchmarks", "scripts")
    paths = [p for f in (*folders, "examples", "tests") for p in sorted((ROOT / f).rglob("*.py"))]
    found = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in [*paths, ROOT / "train.py"]
        for line, name in _imported_modules(path)
        if name in MOVED and path != Path(__file__).resolve()
    ]
    assert paths and not found, "use the new paths:\n" + "\n".join(found)


def test_the_old_move_row_names_are_found_where_they_were():
    from qwirkle_env.rows import MoveRows, MoveTable, Position, move_rows, reference_move_rows

    for old in ("qwirkle_env.candidates", "qwirkle_env.move_mode", "qwirkle_env.position"):
        sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning):
        from qwirkle_env.candidates import MoveRows as old_rows
        from qwirkle_env.candidates import move_rows as old_move_rows
        from qwirkle_env.candidates import reference_move_rows as old_reference
        from qwirkle_env.move_mode import MoveTable as old_table
        from qwirkle_env.position import Position as old_position
    assert (old_rows, old_move_rows, old_reference) == (MoveRows, move_rows, reference_move_rows)
    assert (old_table, old_position) == (MoveTable, Position)


def test_the_env_package_keeps_its_names():
    from qwirkle_env import aec, qwirkle_v0, raw_env

    assert qwirkle_v0.raw_env is raw_env is aec.raw_env
    assert isinstance(raw_env(action_mode="moves"), aec.MoveEnv)
    assert isinstance(raw_env(), aec.TileEnv)
    with pytest.raises(ValueError, match="action_mode must be one of"):
        raw_env(action_mode="words")
