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


def test_averaged_is_the_mean_of_the_weights_at_the_last_points(tmp_path, monkeypatch):
    import torch

    from agents.move_policy.network import MovePolicyConfig, MovePolicyNet

    monkeypatch.setattr(
        training, "quick_match", lambda *a: {"win_rate": 0.5, "margin": 0.0, "games": 2}
    )
    net = MovePolicyNet(MovePolicyConfig(max_moves=4, hidden=3))
    curve = training.Curve(tmp_path / "curve.csv", games=2, keep=2)
    seen = []
    for steps, value in [(0, -9.0), (10, 1.0), (20, 2.0), (20, 3.0), (30, 7.0)]:
        with torch.no_grad():
            for p in net.parameters():
                p.fill_(value)
        curve.point(net, steps)
        seen.append(value)
    mean, points = curve.averaged(net)
    # the start is never kept, a point at the same step count replaces the one before,
    # and only the last two are kept: 3.0 (at 20) and 7.0 (at 30)
    assert points == [20, 30]
    for p in mean.parameters():
        assert torch.allclose(p, torch.full_like(p, 5.0))
    for p in net.parameters():  # the network itself is left as it is
        assert torch.allclose(p, torch.full_like(p, 7.0))


def test_averaged_without_kept_weights_says_why(tmp_path):
    curve = training.Curve(tmp_path / "curve.csv", games=2)
    with pytest.raises(RuntimeError, match="keep above 1"):
        curve.averaged(None)
