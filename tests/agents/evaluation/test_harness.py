"""The evaluation harness: duplicate deals, per-agent statistics, outputs and errors."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from agents.evaluation.harness import count_qwirkles, run_tournament
from agents.evaluation.report import save_results
from agents.evaluation.results import GameRecord, Results
from qwirkle_cli import commands as cli
from qwirkle_env import Placement, Tile, raw_env
from qwirkle_env.engine.tiles import Color, Shape
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def match():
    return run_tournament(["greedy", "random"], games=12, seed=3, processes=1, progress=False)


def test_duplicate_deals_repeat_the_same_bag(match) -> None:
    by_deal = defaultdict(list)
    for rec in match.records:
        by_deal[rec.deal].append(rec)
    assert len(by_deal) == 6 and len(match.records) == 12
    digests = set()
    for recs in by_deal.values():
        assert [r.rotation for r in recs] == [0, 1]
        assert len({r.env_seed for r in recs}) == 1
        assert len({r.deal_digest for r in recs}) == 1  # same hands and bag order
        assert recs[0].agents == [0, 1] and recs[1].agents == [1, 0]  # seats swapped
        digests.add(recs[0].deal_digest)
    assert len(digests) == 6  # and the deals differ from each other


def test_same_env_seed_same_initial_hands_and_bag() -> None:
    a, b = raw_env(num_players=3), raw_env(num_players=3)
    a.reset(seed=77)
    b.reset(seed=77)
    assert a.game.hands == b.game.hands and a.game.bag.tiles == b.game.bag.tiles


def test_summary_adds_up(match) -> None:
    rows = {r["agent"]: r for r in match.summary()}
    assert rows["greedy"]["games"] == rows["random"]["games"] == 12
    assert rows["greedy"]["wins"] + rows["random"]["wins"] == pytest.approx(12)
    assert rows["greedy"]["mean_margin"] == pytest.approx(-rows["random"]["mean_margin"])
    greedy = rows["greedy"]
    assert greedy["ci_low"] <= greedy["win_rate"] <= greedy["ci_high"]
    assert greedy["rating"] == pytest.approx(-rows["random"]["rating"])
    assert greedy["win_rate"] > 0.8 and greedy["rating"] > 0
    assert greedy["ms_per_move"] > 0
    scores = [r.scores[r.agents.index(0)] for r in match.records]
    assert greedy["mean_score"] == pytest.approx(sum(scores) / 12)
    table = match.table()
    assert "greedy" in table and "random" in table and "Bradley-Terry" in table


def test_shared_wins_count_as_fractions() -> None:
    res = Results(["a", "b", "c"], 3, 0, [[0, 1, 2]])
    common = dict(lineup=0, deal=0, env_seed=0, deal_digest="", qwirkles=[0] * 3)
    res.records = [
        GameRecord(rotation=0, agents=[0, 1, 2], scores=[10, 10, 4], winners=[0, 1],
                   moves=[1, 1, 1], think=[0.1] * 3, **common),
        GameRecord(rotation=1, agents=[2, 0, 1], scores=[9, 3, 1], winners=[0],
                   moves=[1, 1, 1], think=[0.1] * 3, **common),
    ]  # fmt: skip
    rows = {r["agent"]: r for r in res.summary()}
    assert rows["a"]["wins"] == 0.5 and rows["b"]["wins"] == 0.5 and rows["c"]["wins"] == 1
    # margin: own minus the mean of the two opponents
    assert rows["c"]["mean_margin"] == pytest.approx(((4 - 10) + (9 - 2)) / 2)


def test_saves_csv_json_and_plot(match, tmp_path) -> None:
    paths = save_results(match, tmp_path / "out")
    assert paths["csv"].read_text().startswith("agent,games,wins,win_rate")
    data = json.loads(paths["json"].read_text())
    assert len(data["games"]) == 12 and data["summary"][0]["agent"] == "greedy"
    assert "Bradley-Terry" in data["rating_method"]
    assert paths["plot"].stat().st_size > 1000


def test_parallel_workers_give_the_same_games(match) -> None:
    par = run_tournament(["greedy", "random"], games=12, seed=3, processes=2, progress=False)
    assert [r.scores for r in par.records] == [r.scores for r in match.records]


def test_round_robin_and_four_players() -> None:
    res = run_tournament(["greedy", "random", "greedy"], games=2, processes=1, progress=False)
    assert res.names == ["greedy", "random", "greedy#2"]
    assert res.lineups == [[0, 1], [0, 2], [1, 2]] and len(res.records) == 6
    four = run_tournament(
        ["greedy", "random", "heuristic", "random"], games=4, num_players=4, progress=False,
        processes=1,
    )  # fmt: skip
    assert len(four.records) == 4
    assert sorted(r.agents for r in four.records)[0] == [0, 1, 2, 3]
    assert {r.deal_digest for r in four.records} == {four.records[0].deal_digest}


def test_the_evaluation_command_line(tmp_path, capsys) -> None:
    cli.main(["evaluate", "--agents", "greedy", "random", "--games", "2", "--processes", "1",
                "--out", str(tmp_path)])  # fmt: skip
    out = capsys.readouterr().out
    assert "greedy" in out and (tmp_path / "summary.csv").is_file()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(agent_specs=["greedy"], games=2), "at least 2 agents"),
        (dict(agent_specs=["greedy", "random"], games=2, num_players=3), "one agent per seat"),
        (dict(agent_specs=["greedy", "nosuch"], games=2), "unknown agent 'nosuch'"),
        (dict(agent_specs=["greedy", "random"], games=0), "games must be at least 1"),
        (dict(agent_specs=["greedy", "random"], games=2, num_players=5), "2, 3 or 4"),
    ],
)
def test_bad_tournaments_fail_before_playing(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        run_tournament(processes=1, progress=False, **kwargs)


def _line(row: int, col: int, shapes, color=Color.RED) -> list:
    return [((row, col + i), Tile(color, s)) for i, s in enumerate(shapes)]


def test_count_qwirkles_from_the_history() -> None:
    shapes = list(Shape)
    history = [
        (0, Placement(_line(0, 0, shapes[:3])), 3),
        (1, Placement(_line(0, 3, shapes[3:])), 12),  # completes a row of six
        (0, Placement([((1, 0), Tile(Color.ORANGE, Shape.CIRCLE))]), 2),
    ]
    assert count_qwirkles(history, 2) == [0, 1]
    # Two Qwirkles in one move: a column of six through the end of a row of six.
    column = [((r, 5), Tile(Color(r), Shape.STAR8)) for r in range(1, 6)]
    board_moves = [
        (0, Placement(_line(0, 0, shapes[:5])), 5),
        (1, Placement([((1, 4), Tile(Color.ORANGE, Shape.CLOVER))]), 2),
        (1, Placement(column), 7),
        (0, Placement([((0, 5), Tile(Color.RED, Shape.STAR8))]), 24),
    ]
    assert count_qwirkles(board_moves, 2) == [2, 0]


def test_strength_benchmark_quick_run(tmp_path) -> None:
    """The one command behind docs/strength.md, on a few games and a tiny search budget."""
    import subprocess
    import sys

    root = ROOT
    sys.path.insert(0, str(root / "benchmarks"))
    from strength import checkpoint_of, library_matches

    out = tmp_path / "strength.md"
    cmd = [sys.executable, "benchmarks/strength.py", "--quick", "--budget", "0.01",
           "--processes", "1", "--out", str(out), "--runs", str(tmp_path / "runs")]  # fmt: skip
    subprocess.run(cmd, cwd=root, check=True, capture_output=True, timeout=600)
    page = out.read_text()
    libraries = sum((root / checkpoint_of(m)).is_file() for m in library_matches())
    assert page.count("Target: ") == 15 + libraries and "duplicate deals" in page
    if (root / "checkpoints" / "rllib_dqn_3p.pt").is_file():
        assert "### ckpt:checkpoints/rllib_dqn_3p.pt vs greedy vs greedy (" in page
    assert (tmp_path / "runs" / "search_vs_greedy_2p" / "summary.csv").is_file()
    assert (tmp_path / "runs" / "learned_vs_greedy_4p" / "summary.csv").is_file()


def test_strength_sections_replaced_in_place_keep_their_blank_lines() -> None:
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from strength import TUNED, merge_sections

    page = f"# S\n\n### a\n\nold a\n\n### b\n\nold b\n\n{TUNED}\nnotes\n"
    page = merge_sections(page, ["### a\n\nnew a\n"], "--only a")
    page = merge_sections(page, ["### b\n\nnew b\n", "### c\n\nnew c\n"], "--only b c")
    made = "\n\nMade by `python benchmarks/strength.py"
    assert page == (
        f"# S\n\n### a\n\nnew a{made} --only a`.\n\n### b\n\nnew b{made} --only b c`.\n\n"
        f"### c\n\nnew c{made} --only b c`.\n\n{TUNED}\nnotes\n"
    )
