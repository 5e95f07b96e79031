"""qwirkle analyse RECORD: the analysis as JSON and a PNG chart, and its refusals."""

from __future__ import annotations

import json

import pytest

from qwirkle_cli import commands as cli
from qwirkle_env.engine.game import Game
from tests.conftest import play_record


@pytest.fixture(scope="module")
def record_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("games") / "game.json"
    record = play_record(["greedy", "random"], seed=3)
    path.write_text(json.dumps({**record, "names": ["greedy", "random"]}))
    return path


def test_analyse_writes_the_json_and_the_chart(record_file, capsys):
    cli.main(["analyse", str(record_file), "--no-progress"])
    out = record_file.with_suffix(".analysis.json")
    result = json.loads(out.read_text())
    record = json.loads(record_file.read_text())
    assert result["format"] == "qwirkle-analysis/1" and result["analyser"] == "learned"
    assert len(result["moves"]) == len(record["moves"]) and result["names"] == ["greedy", "random"]
    assert record_file.with_suffix(".analysis.png").stat().st_size > 5000
    printed = capsys.readouterr().out
    assert "greedy:" in printed and "biggest mistakes at moves" in printed


def test_a_game_state_file_is_analysed_as_its_record(tmp_path, record_file):
    record = json.loads(record_file.read_text())
    state = tmp_path / "state.json"
    state.write_text(json.dumps(Game.from_record(record).to_dict()))
    out = tmp_path / "a.json"
    cli.main(["analyse", str(state), "--no-progress", "--out", str(out),
              "--chart", str(tmp_path / "a.png"), "--analyser", "search:sims=2,k=2"])  # fmt: skip
    assert len(json.loads(out.read_text())["moves"]) == len(record["moves"])


@pytest.mark.parametrize(
    "content, args, words",
    [
        ("not json", [], "cannot read"),
        ('{"format": "other"}', [], "is not a game record: its format is 'other'"),
        (None, ["--analyser", "greedy"], "cannot value moves"),
        (None, ["--budget", "0"], "(0, 120] CPU seconds"),
    ],
)
def test_bad_input_is_refused_with_the_reason(tmp_path, record_file, content, args, words):
    path = record_file if content is None else tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    out = ["--out", str(tmp_path / "x.json"), "--chart", str(tmp_path / "x.png")]
    with pytest.raises(SystemExit) as err:
        cli.main(["analyse", str(path), "--no-progress", *out, *args])
    assert words in str(err.value)
    assert not (tmp_path / "x.json").exists()
