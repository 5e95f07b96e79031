"""qwirkle bench: a rating, its files, and exit status 2 with the plugin named."""

from __future__ import annotations

import json

import pytest

from qwirkle_cli import commands as cli
from tests.conftest import bot_file, small_ladder


def test_bench_prints_a_table_and_writes_its_files(tmp_path, monkeypatch, capsys):
    small_ladder(tmp_path / "ratings.json", monkeypatch)
    out = tmp_path / "out"
    spec = f"{bot_file(tmp_path)}:first_row"
    cli.main(["bench", "--agent", spec, "--deals", "2", "--processes", "1", "--out", str(out)])
    text = capsys.readouterr().out
    assert "qwirkle-bench-v1, 2 players" in text and "| greedy | 1000 |" in text
    data = json.loads((out / "bench.json").read_text())
    assert data["agent"] == spec and data["players"] == 2
    assert (out / "ladder.png").is_file() and (out / "bench.md").is_file()


@pytest.mark.parametrize(
    "name, words",
    [("raises", ["forfeited all", "RuntimeError: boom"]), ("absent", ["defines no 'absent'"])],
)
def test_a_bad_plugin_exits_2_and_is_named(tmp_path, monkeypatch, capsys, name, words):
    small_ladder(tmp_path / "ratings.json", monkeypatch)
    spec = f"{bot_file(tmp_path)}:{name}"
    with pytest.raises(SystemExit) as exit_:
        cli.main(["bench", "--agent", spec, "--deals", "0", "--processes", "1"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert spec in err
    for word in words:
        assert word in err


def test_bad_options_are_refused(tmp_path, monkeypatch):
    small_ladder(tmp_path / "ratings.json", monkeypatch)
    with pytest.raises(SystemExit, match="2, 3, 4 players, got 5"):
        cli.main(["bench", "--agent", "greedy", "--players", "5"])
    with pytest.raises(SystemExit, match="--ladder: .*2, 3, 4 players, got 1"):
        cli.main(["bench", "--ladder", "--players", "1"])
    with pytest.raises(SystemExit, match="extra deals must be at least 0, got -1"):
        cli.main(["bench", "--agent", "greedy", "--deals", "-1"])
    with pytest.raises(SystemExit, match="--processes must be at least 1"):
        cli.main(["bench", "--agent", "greedy", "--processes", "0"])
    with pytest.raises(SystemExit, match="only results of one protocol and seat count"):
        a, b = tmp_path / "a.json", tmp_path / "b.json"
        a.write_text(json.dumps({"protocol": "qwirkle-bench-v1", "players": 2, "games": []}))
        b.write_text(json.dumps({"protocol": "qwirkle-bench-v1", "players": 3, "games": []}))
        cli.main(["bench", "--compare", str(a), str(b)])


def test_the_ladder_command_rates_the_references_on_the_anchor(tmp_path, monkeypatch, capsys):
    from agents.benchmark import ladder, protocol

    path = small_ladder(tmp_path / "ratings.json", monkeypatch)
    path.unlink()  # the command writes it afresh
    out = tmp_path / "runs"
    cli.main(["bench", "--ladder", "--players", "2", "--processes", "1", "--out", str(out)])
    assert "2 players: 64 games" in capsys.readouterr().out
    refs = ladder.ladder(2)
    assert refs["greedy"]["rating"] == protocol.ANCHOR[1]
    assert refs["random"]["rating"] < refs["random"]["rating_high"] < 1000
    assert refs["greedy"]["version"] == ladder.reference_version("greedy")
    data = json.loads(path.read_text())
    assert data["players"]["2"]["made_by"] == "qwirkle bench --ladder --players 2 --processes 1"
    assert (out / "2p" / "results.json").is_file()  # every game, for a later look


def test_ray_without_ray_is_a_clear_error(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # as in a Python without Ray
    with pytest.raises(SystemExit, match=r"--ray needs Ray: pip install -e '.\[rllib\]'"):
        cli.main(["bench", "--agent", "greedy", "--ray", "auto"])
