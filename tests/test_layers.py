"""The architecture of docs/architecture.md holds: layers, private names, one source of facts."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from qwirkle_env.engine import Board, Game

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "qwirkle_env" / "engine"
OUTSIDE_ENGINE = [
    path
    for folder in (
        "qwirkle_env",
        "agents",
        "showdown",
        "qwirkle_cli",
        "benchmarks",
        "scripts",
        "examples",
    )
    for path in sorted((ROOT / folder).rglob("*.py"))
    if ENGINE not in path.parents
] + [ROOT / "train.py"]


def _private_names(cls: type) -> set[str]:
    names = {n for n in vars(cls) if n.startswith("_") and not n.startswith("__")}
    names |= {n for n in getattr(cls, "__slots__", ()) if n.startswith("_")}
    return names


def _underscore_uses(path: Path, names: set[str]) -> list[str]:
    """`x._name` where x is not self or cls and _name is private to Board or Game."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in names
            and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
        ):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    return found


def test_no_module_outside_the_engine_reaches_into_a_board_or_game_underscore():
    game = Game(2, seed=0)
    names = _private_names(Board) | _private_names(Game)
    names |= {n for n in vars(game) if n.startswith("_")}
    assert names, "the check would find nothing"
    found = [hit for path in OUTSIDE_ENGINE for hit in _underscore_uses(path, names)]
    assert not found, "use the engine's public API:\n" + "\n".join(found)


PETTINGZOO_API = {"_cumulative_rewards"}  # AECEnv's own attribute, read by its wrappers too


def _defined_here(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


@pytest.mark.parametrize("package", ["qwirkle_env", "agents", "showdown", "qwirkle_cli"])
def test_an_underscore_name_is_used_only_in_its_own_module(package):
    """No import of another module's underscore name, and no ``x._name`` on another object
    unless this module defines ``_name`` (a subclass's own ``self._name`` is its business)."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        mine = _defined_here(tree) | PETTINGZOO_API
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                found += [
                    f"{path.relative_to(ROOT)}:{node.lineno} imports {a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
            elif (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and node.attr not in mine
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    assert not found, "private names used outside their module:\n" + "\n".join(found)


def test_each_rule_fact_is_written_once_in_spec():
    """The facts both rule implementations and the trainers share are assigned in
    qwirkle_env/spec.py and nowhere else (a second copy is how they drift apart)."""
    import qwirkle_env.spec as spec

    facts = {name for name in vars(spec) if name.isupper()} | {"win_share", "win_reward"}
    found = []
    for folder in ("qwirkle_env", "agents"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name == "spec.py":
                continue
            # an agents module may name another quantity NUM_FEATURES (move features are
            # agents.move_value.features.NUM_MOVE_FEATURES): only spec defines the observation's
            shared = facts - {"NUM_FEATURES"} if folder == "agents" else facts
            for node in ast.parse(path.read_text(), str(path)).body:
                targets = []
                if isinstance(node, ast.Assign):
                    targets = [t for t in node.targets if isinstance(t, (ast.Name, ast.Tuple))]
                    targets = [
                        n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)
                    ]
                elif isinstance(node, (ast.FunctionDef, ast.AnnAssign)):
                    name = node.name if isinstance(node, ast.FunctionDef) else node.target
                    targets = [name if isinstance(name, str) else getattr(name, "id", "")]
                found += [
                    f"{path.relative_to(ROOT)}:{node.lineno} {t}" for t in targets if t in shared
                ]
    assert not found, "read these from qwirkle_env.spec:\n" + "\n".join(found)


def test_importing_the_simulator_the_engine_or_the_renderers_loads_no_pettingzoo_or_torch():
    code = (
        "import sys, qwirkle_env.vector, qwirkle_env.engine, qwirkle_env.render, qwirkle_env.spec\n"
        "print(sorted(m for m in ('pettingzoo', 'torch', 'qwirkle_env.aec') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_pettingzoo_face_still_loads_from_the_top():
    code = (
        "from qwirkle_env import Board, Game, Tile, Color, Shape, IllegalMove, env, raw_env\n"
        "from qwirkle_env import qwirkle_v0\n"
        "import qwirkle_env\n"
        "assert qwirkle_env.env is env and qwirkle_v0.raw_env is raw_env\n"
        "assert callable(env) and isinstance(raw_env, type)\n"
        "from qwirkle_env.vector import VectorQwirkle\n"
        "from qwirkle_env.render import board_svg\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_import_linter_contracts_hold():
    """The layers, the engine's and the simulator's forbidden imports and agents/ without
    cycles: the contracts in pyproject.toml, checked by import-linter as CI runs it."""
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if lint is None:
        pytest.skip("import-linter is not installed (the [dev] extra)")
    out = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


# Each folder of tests/ and the code it tests (docs/architecture.md, "Tests").
TESTED = {
    "engine": "qwirkle_env/engine",
    "env": "qwirkle_env",
    "vector": "qwirkle_env/vector",
    "render": "qwirkle_env/render",
    "agents": "agents",
    "agents/scripted": "agents/scripted",
    "agents/move_value": "agents/move_value",
    "agents/tile_ppo": "agents/tile_ppo",
    "agents/move_policy": "agents/move_policy",
    "agents/evaluation": "agents/evaluation",
    "agents/benchmark": "agents/benchmark",
    "showdown": "showdown",
    "cli": "qwirkle_cli",
    "examples": "examples",
}


def test_the_tests_mirror_the_packages_and_share_only_conftest():
    """Every test folder is a package (two test files may share a name) that stands for a
    package of the code, and no test module imports another: what they share is in
    tests/conftest.py."""
    tests = ROOT / "tests"
    folders = {p.parent.relative_to(tests).as_posix() for p in tests.rglob("test_*.py")}
    assert folders - {"."} == set(TESTED), "name the folder's package in TESTED"
    assert all((ROOT / code).is_dir() for code in TESTED.values())
    assert not [f for f in folders if not (tests / f / "__init__.py").is_file()]
    found = []
    for path in sorted(tests.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            found += [
                f"{path.relative_to(ROOT)}:{node.lineno} imports {name}"
                for name in names
                if name != "tests.conftest"
                and name.split(".")[-1].startswith(("test_", "conftest"))
            ]
    assert not found, "share helpers through tests/conftest.py:\n" + "\n".join(found)
