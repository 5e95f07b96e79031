"""The recipes' helper scripts: choosing between policies on the choosing seeds only, and
the curves' picture and learning-speed table."""

from __future__ import annotations

import sys

import pytest

from scripts import choose_on_seeds, plot_recipe_curves


def test_seed_ranges_read_as_written():
    assert choose_on_seeds.seed_range("101-104") == [101, 102, 103, 104]
    assert choose_on_seeds.seed_range("101,105") == [101, 105]


def test_a_reporting_seed_is_never_chosen_on(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["choose", "greedy", "--seeds", "2020-2030"])
    with pytest.raises(SystemExit, match="seeds \\[2027\\] report results: choose on others"):
        choose_on_seeds.main()


def test_choosing_plays_each_candidate_on_every_seed(monkeypatch, capsys):
    argv = ["choose", "heuristic", "--seeds", "101,102", "--games", "2", "--processes", "1"]
    monkeypatch.setattr(sys, "argv", argv)
    choose_on_seeds.main()
    row = capsys.readouterr().out.strip().splitlines()[-1]
    assert row.startswith("| heuristic | 4 |")


def test_first_deal_plays_deals_no_earlier_choice_played(monkeypatch, capsys):
    # a policy chosen on deals 0-19 reads high there; a new choice plays deals 20 on
    played = []
    real = choose_on_seeds.run_tournament

    def spy(*args, plan, **kwargs):
        played.append(plan)
        return real(*args, plan=[(plan[0][0], plan[0][1][:1])], **kwargs)  # one deal: quick

    monkeypatch.setattr(choose_on_seeds, "run_tournament", spy)
    argv = ["choose", "heuristic", "--seeds", "101", "--games", "100", "--first-deal", "20",
            "--processes", "1"]  # fmt: skip
    monkeypatch.setattr(sys, "argv", argv)
    choose_on_seeds.main()
    assert played == [[([0, 1], list(range(20, 70)))]]
    assert "deals 20-69 (100 games)" in capsys.readouterr().out


def test_a_negative_first_deal_is_refused(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["choose", "greedy", "--first-deal", "-1"])
    with pytest.raises(SystemExit, match="--first-deal must be >= 0, got -1"):
        choose_on_seeds.main()


def test_curves_give_a_picture_and_the_learning_speed(tmp_path, monkeypatch, capsys):
    curve = tmp_path / "a_curve.csv"
    curve.write_text(
        "env_steps,wall_s,win_rate,margin\n0,1.0,0.47,-1.0\n25000,120.0,0.52,1.0\n"
        "50000,240.0,0.61,4.0\n"
    )
    out = tmp_path / "curves.png"
    monkeypatch.setattr(sys, "argv", ["plot", f"A={curve}", "--out", str(out)])
    plot_recipe_curves.main()
    assert out.stat().st_size > 1000
    said = capsys.readouterr().out
    assert "| A | 50,000 | 4.0 min | 208 | 55.0%: 4.0 min (50,000 steps, 61.0%) |" in said
    # with 3 seats the mark is 1.25/3, which the start already passes
    monkeypatch.setattr(sys, "argv", ["plot", f"A={curve}", "--out", str(out), "--players", "3"])
    plot_recipe_curves.main()
    assert "| 41.7%: 0.0 min (0 steps, 47.0%) |" in capsys.readouterr().out


def test_a_seat_count_for_each_curve_or_one_for_all(tmp_path, monkeypatch):
    curve = tmp_path / "a_curve.csv"
    curve.write_text("env_steps,wall_s,win_rate,margin\n0,1.0,0.47,-1.0\n")
    argv = ["plot", f"A={curve}", f"B={curve}", "--out", "x.png", "--players", "2", "3", "4"]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit, match="one for each of the 2 curves; got 3"):
        plot_recipe_curves.main()


def test_a_missing_curve_is_named(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["plot", f"A={tmp_path}/none.csv", "--out", "x.png"])
    with pytest.raises(SystemExit, match="give LABEL=CSV with an existing curve file"):
        plot_recipe_curves.main()
