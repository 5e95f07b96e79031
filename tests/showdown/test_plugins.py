"""The page never runs a plugin: a spec that names code (file.py:NAME, module:NAME) is
refused, from the new-game form and from an uploaded harness file, and the code is never
imported."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import assert_error, showdown_client

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from agents.evaluation.harness import run_tournament  # noqa: E402

client = showdown_client("function")


@pytest.fixture
def evil(tmp_path):
    """A plugin whose import leaves a mark, and the mark's path."""
    mark = tmp_path / "imported"
    path = tmp_path / "evil.py"
    path.write_text(
        f"open({str(mark)!r}, 'w').close()\n"
        "import os\nos.system('touch ' + " + repr(str(tmp_path / "ran")) + ")\n"
        "def policy(observation, mask):\n    return 0\n"
    )
    return path, mark


def test_a_plugin_spec_is_refused_and_never_imported(client, evil):
    path, mark = evil
    specs = [f"{path}:policy", "os:system", "subprocess:run", "evil:policy", f" {path} : policy "]
    for spec in specs:
        for mode, agents in (("watch", [spec, "greedy"]), ("play", [spec])):
            r = client.post("/api/games", json={"mode": mode, "agents": agents, "seed": 1})
            assert_error(r, 400, "names code to run (a plugin)")
    assert not mark.exists() and not (path.parent / "ran").exists()
    loaded = [m for m in list(sys.modules.values()) if getattr(m, "__file__", None)]
    assert not [m for m in loaded if Path(m.__file__).resolve() == path.resolve()]
    assert len(client.app.state.store) == 0


def test_a_harness_file_that_seats_a_plugin_does_not_run_it(client, evil, tmp_path):
    path, mark = evil
    out = tmp_path / "harness"
    run_tournament(["greedy", "random"], 2, processes=1, out_dir=out, progress=False, seed=3)
    results = json.loads((out / "results.json").read_text())
    for spec in (f"{path}:policy", "os:system"):
        crafted = dict(results, names=[spec, "random"])
        r = client.post("/api/replays", json={"content": crafted, "game": 0})
        assert_error(r, 400, repr(spec))  # the registry, which loads no code, refuses it
    assert not mark.exists() and not (path.parent / "ran").exists()
