"""The README's Python examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_example_runs(index, capsys):
    exec(compile(BLOCKS[index], f"README.md block {index}", "exec"), {})


def test_readme_opens_with_the_two_commands():
    commands = re.findall(r"```bash\n(.*?)```", README.read_text(), re.S)[:2]
    assert commands[0].strip().endswith("python train.py")
    assert commands[1].strip().endswith("python -m pytest -q -n 2")
    ci = (README.parent / ".ci" / "run").read_text()
    assert "python -m pytest -q -n 2" in ci and "torch==2.13.0" in ci
