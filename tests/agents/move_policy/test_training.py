"""The recipes' shared pieces: the learning curve's points and the word before a run."""

from __future__ import annotations

import argparse
import csv

import pytest

from agents.move_policy import training


def test_a_point_at_the_previous_step_count_replaces_it(tmp_path, monkeypatch):
    results = iter([0.25, 0.5, 0.75])
    monkeypatch.setattr(
        training,
        "quick_match",
        lambda net, opp, games, seed, players: {"win_rate": next(results), "margin": 1.0},
    )
    curve = training.Curve(tmp_path / "curve.csv", games=2)
    curve.point(None, 0)
    curve.point(None, 300)
    curve.point(None, 300)  # the network after the last update, at the same step count
    with (tmp_path / "curve.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["env_steps"], r["win_rate"]) for r in rows] == [("0", "0.2500"), ("300", "0.7500")]


def test_a_run_says_how_long_it_may_take_before_it_starts(capsys):
    args = argparse.Namespace(smoke=False, steps=300_000, eval_games=40, eval_every=25_000)
    training.announce(args, 55.0)
    training.announce(args, None)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("training for 300000 env steps or after 55 minutes of wall time")
    assert "no time limit (--max-minutes sets one)" in out[1]
    assert all("most of an hour" in line for line in out)


def test_the_recipes_help_shows_defaults_and_units(capsys):
    p = training.recipe_parser("x", "runs/x.pt")
    with pytest.raises(SystemExit):
        p.parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert (
        "stop training after this many minutes of wall time, whatever --steps says (default: 55.0)"
        in text
    )
    assert "env steps between curve points (default: 25000)" in text
