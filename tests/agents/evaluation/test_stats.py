"""agents.evaluation.stats: each formula against small cases worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.evaluation.stats import bradley_terry, expected_score, pairwise_outcomes, wilson


def test_wilson_known_values() -> None:
    # 8 of 10: p = 0.8, z = 1.96 -> centre 0.71674, half-width 0.22658.
    lo, hi = wilson(8, 10)
    assert lo == pytest.approx(0.49016, abs=1e-4)
    assert hi == pytest.approx(0.94332, abs=1e-4)
    # 0 of 10: the upper end is z^2 / (n + z^2).
    lo, hi = wilson(0, 10)
    assert lo == 0.0
    assert hi == pytest.approx(1.96**2 / (10 + 1.96**2), abs=1e-4)
    lo, hi = wilson(10, 10)
    assert hi == pytest.approx(1.0) and lo == pytest.approx(1 - 1.96**2 / (10 + 1.96**2), abs=1e-4)


def test_wilson_half_wins_and_symmetry() -> None:
    lo, hi = wilson(5, 10)
    assert lo + hi == pytest.approx(1.0)
    a = wilson(2.5, 10)  # shared wins count as fractions
    b = wilson(7.5, 10)
    assert a[0] == pytest.approx(1 - b[1]) and a[1] == pytest.approx(1 - b[0])
    assert wilson(0, 0) == (0.0, 1.0)


def test_wilson_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError, match="successes must be in 0..n"):
        wilson(11, 10)


def test_pairwise_outcomes_ties_count_half() -> None:
    assert pairwise_outcomes([10, 10, 5]) == [(0, 1, 0.5), (0, 2, 1.0), (1, 2, 1.0)]


def test_bradley_terry_two_players_is_the_log_odds() -> None:
    wins = np.array([[0, 3], [1, 0]])
    r = bradley_terry(wins)
    assert r[0] - r[1] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert r.sum() == pytest.approx(0.0, abs=1e-9)
    assert expected_score(r[0], r[1]) == pytest.approx(0.75)
    # One virtual draw: 3.5 against 1.5.
    r = bradley_terry(wins, prior=1.0)
    assert r[0] - r[1] == pytest.approx(400 * math.log10(3.5 / 1.5), abs=1e-6)


def test_bradley_terry_recovers_exact_strengths() -> None:
    # Strengths 4 : 2 : 1, and results exactly as expected under them:
    # A-B 3 games (A 2/3), B-C 3 games (B 2/3), A-C 5 games (A 4/5).
    wins = np.array([[0, 2, 4], [1, 0, 2], [1, 1, 0]])
    r = bradley_terry(wins)
    step = 400 * math.log10(2)
    assert r == pytest.approx([step, 0.0, -step], abs=1e-6)


def test_bradley_terry_cycle_is_all_equal() -> None:
    wins = np.array([[0, 2, 1], [1, 0, 2], [2, 1, 0]])
    assert bradley_terry(wins) == pytest.approx([0, 0, 0], abs=1e-6)


def test_bradley_terry_errors_name_the_problem() -> None:
    with pytest.raises(ValueError, match="square"):
        bradley_terry(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="non-negative"):
        bradley_terry(np.array([[0, -1], [1, 0]]))
    with pytest.raises(ValueError, match="prior > 0"):
        bradley_terry(np.array([[0, 4], [0, 0]]))
    r = bradley_terry(np.array([[0, 4], [0, 0]]), prior=1.0)
    assert r[0] - r[1] == pytest.approx(400 * math.log10(4.5 / 0.5), abs=1e-6)
