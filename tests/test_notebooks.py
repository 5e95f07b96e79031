"""Every notebook runs top to bottom (with QWIRKLE_NOTEBOOK_FAST=1), as CI runs them, and
is stored with the outputs of its full-size run (scripts/run_notebooks.py).

Running needs the ``[notebooks]`` extra (nbclient, nbformat, ipykernel); skipped without it.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
IDS = [p.name for p in NOTEBOOKS]
# Where this machine keeps things: none of it may appear in a stored output.
LOCAL = {str(ROOT), str(Path.home()), tempfile.gettempdir(), sys.prefix, sys.base_prefix} - {"/"}
# Any absolute path under the usual roots of Linux and macOS machines.
ABSOLUTE = re.compile(r"(?<![\w.~-])/(?:home|root|tmp|work|Users|opt|var|usr|mnt|srv)/")


def source(cell: dict) -> str:
    text = cell["source"]
    return text if isinstance(text, str) else "".join(text)


def displays(code: str) -> bool:
    """Whether a cell shows something when run: it prints, displays or shows a figure, or
    ends with an expression (without Jupyter's ``;`` that silences it)."""
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name in ("print", "display", "show"):
                return True
    last = tree.body[-1] if tree.body else None
    return isinstance(last, ast.Expr) and not code.rstrip().endswith(";")


def output_text(output: dict) -> str:
    """The text an output holds: streams, tracebacks, and every text form of its data
    (not the base64 of pictures, where any short string turns up by chance)."""
    parts = [output.get("text", ""), *output.get("traceback", [])]
    for kind, value in output.get("data", {}).items():
        if kind.startswith("text/") or kind.endswith(("+xml", "json")):
            parts.append(value if isinstance(value, str) else json.dumps(value))
    return "\n".join(p if isinstance(p, str) else "".join(p) for p in parts)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_runs_top_to_bottom(path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    monkeypatch.setenv("QWIRKLE_NOTEBOOK_FAST", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()  # raises CellExecutionError naming the failing cell; nothing written back


def stored_problems(nb: dict) -> list[str]:
    """What is wrong with a notebook's stored outputs (nothing: an empty list)."""
    cells = [cell for cell in nb["cells"] if cell["cell_type"] == "code"]
    counts = [cell["execution_count"] for cell in cells]
    if counts != list(range(1, len(cells) + 1)):
        return [f"cells were not all run once, in order, in one kernel (execution counts {counts})"]
    problems = []
    for i, cell in enumerate(cells):
        if displays(source(cell)) and not cell["outputs"]:
            problems.append(f"code cell {i} shows something but has no stored output")
        for output in cell["outputs"]:
            text = output_text(output)
            if output["output_type"] == "error" or "Traceback (most recent call last)" in text:
                problems.append(f"code cell {i} has a traceback stored")
            for local in LOCAL:
                if local in text:
                    problems.append(f"code cell {i} shows the local path {local}")
            found = ABSOLUTE.search(text)
            if found:
                problems.append(
                    f"code cell {i} shows an absolute path: {text[found.start() :][:80]!r}"
                )
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_is_stored_with_the_outputs_of_one_clean_run(path):
    problems = stored_problems(json.loads(path.read_text()))
    assert not problems, (
        f"{path.name}: "
        + "; ".join(problems)
        + f". Rerun: python scripts/run_notebooks.py {path.name}"
    )


def test_the_stored_output_check_finds_each_fault():
    def notebook(*cells):
        return {"cells": [
            {"cell_type": "code", "source": code, "execution_count": i + 1, "outputs": outputs}
            for i, (code, outputs) in enumerate(cells)
        ]}  # fmt: skip

    shown = [{"output_type": "stream", "name": "stdout", "text": "42\n"}]
    assert stored_problems(notebook(("x = 1", []), ("print(x)", shown))) == []
    unrun = notebook(("print(1)", shown))
    unrun["cells"][0]["execution_count"] = None
    assert "not all run once" in stored_problems(unrun)[0]
    assert "no stored output" in stored_problems(notebook(("print(1)", [])))[0]
    error = {"output_type": "error", "ename": "E", "evalue": "", "traceback": ["boom"]}
    assert "traceback" in stored_problems(notebook(("1 / 0", [error])))[0]
    leak = [{"output_type": "stream", "name": "stdout", "text": f"saved {ROOT}/runs/x.pt\n"}]
    assert "local path" in stored_problems(notebook(("print(p)", leak)))[0]
    elsewhere = [{"output_type": "display_data", "data": {"text/plain": "'/home/ann/q.pt'"}}]
    assert "absolute path" in stored_problems(notebook(("p", elsewhere)))[0]
    relative = [{"output_type": "stream", "name": "stdout", "text": "ckpt:../checkpoints/a.pt\n"}]
    assert stored_problems(notebook(("print(p)", relative))) == []


@pytest.mark.parametrize(
    ("code", "shows"),
    [
        ("print(1)", True),
        ("x = 1\nx", True),
        ("x = 1\nx;", False),
        ("display(SVG(s))", True),
        ("plt.show()", True),
        ("import os\nFAST = True", False),
        ("for a in b:\n    env.step(a)", False),
    ],
)
def test_what_counts_as_a_cell_that_shows_something(code, shows):
    assert displays(code) is shows


def test_the_runner_refuses_an_unknown_notebook():
    from scripts.run_notebooks import main

    with pytest.raises(
        SystemExit, match="unknown notebooks .'04_nope.ipynb'.; known: .'01_quickstart"
    ):
        main(["04_nope.ipynb"])
