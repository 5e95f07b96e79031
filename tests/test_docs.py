"""The README's and the docs' Python examples run as written.

A block is run unless the line above its fence says ``<!-- not run: REASON -->``, and
REASON must be one this file knows and can check (``NOT_RUN``): a block is never skipped
just because it was marked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"(?:<!-- not run: (?P<reason>[^>]*?) -->\n)?```python\n(?P<code>.*?)```", re.S)

# Why a block may stay unrun, and the check that the reason holds for that block.
NOT_RUN = {
    # exec()s the Python process in a network namespace: it would replace the test run
    "re-executes the program": lambda code: "reexec_on_loopback(" in code,
}


def blocks() -> list[tuple[str, str | None, str]]:
    found = []
    for page in PAGES:
        for i, m in enumerate(FENCE.finditer(page.read_text())):
            found.append((f"{page.relative_to(ROOT)} block {i + 1}", m["reason"], m["code"]))
    return found


BLOCKS = blocks()


@pytest.mark.parametrize(("where", "reason", "code"), BLOCKS, ids=[b[0] for b in BLOCKS])
def test_python_example_runs_as_written(where, reason, code):
    if reason is not None:
        assert reason in NOT_RUN, f"{where}: unknown reason {reason!r} not to run it"
        assert NOT_RUN[reason](code), f"{where}: {reason!r} does not hold for this block"
        return
    exec(compile(code, where, "exec"), {"__name__": "__doc_example__"})


def test_every_page_with_python_blocks_is_read():
    assert len(BLOCKS) >= 8 and any(w.startswith("docs/vector.md") for w, _, _ in BLOCKS)
    assert sum(1 for _, reason, _ in BLOCKS if reason) <= 1  # the RLlib re-exec only


def test_readme_opens_with_the_two_commands():
    commands = re.findall(r"```bash\n(.*?)```", README.read_text(), re.S)[:2]
    assert commands[0].strip().endswith("python train.py")
    assert commands[1].strip().endswith("python -m pytest -q -n 2")
    ci = (README.parent / ".ci" / "run").read_text()
    assert "python -m pytest -q -n 2" in ci and "torch==2.13.0" in ci
