"""The numba switch: a cold cache says so once, when the first project kernel compiles."""

from __future__ import annotations

import subprocess
import sys

import pytest

from qwirkle_env.jit import COMPILE_NOTICE, COMPILED

PROBE = """
from qwirkle_env.jit import njit

def mine(x):
    return x + 1

def theirs(x):
    return x + 2

mine.__module__ = "qwirkle_env.probe"  # compiled without a cache: a compile every run
theirs.__module__ = "someone_else"
njit(theirs)(1)
print("after theirs", flush=True)
njit(mine)(1)
njit(lambda x: x * 2)(1)
mine2 = njit(mine)
mine2(1.5)
print("done", flush=True)
"""


@pytest.mark.skipif(not COMPILED, reason="numba is not installed: nothing compiles")
def test_the_first_compile_of_a_project_kernel_prints_one_notice():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["after theirs", "done"]
    assert out.stderr.count(COMPILE_NOTICE) == 1  # once, however many compile after
    theirs_only = PROBE.split('print("after theirs"')[0]
    out = subprocess.run([sys.executable, "-c", theirs_only], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert COMPILE_NOTICE not in out.stderr  # another package's function: not ours to say
    assert "once per checkout or install" in COMPILE_NOTICE
