"""agents.evaluation.plackett_luce on small cases whose answers are known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.evaluation.plackett_luce import expected_first, fit, fit_one, rankings_of
from agents.evaluation.stats import ELO_SCALE, bradley_terry


def test_with_two_seats_it_is_bradley_terry():
    wins = np.array([[0, 7, 3], [3, 0, 5], [1, 4, 0.0]])
    rankings = [([i, j], 1.0) for i in range(3) for j in range(3) for _ in range(int(wins[i, j]))]
    assert np.allclose(fit(rankings, 3, prior=1.0), bradley_terry(wins, prior=1.0), atol=1e-6)


def test_a_tie_is_every_order_at_an_equal_share():
    assert rankings_of([4, 5, 6], [10, 3, 10]) == [([4, 6, 5], 0.5), ([6, 4, 5], 0.5)]
    assert rankings_of([1, 2], [7, 9]) == [([2, 1], 1.0)]


def test_three_players_recover_the_strengths_that_made_the_games():
    rng = np.random.default_rng(0)
    true = np.array([0.0, 0.7, 1.4])  # log-strengths
    rankings = []
    for _ in range(6000):
        left, order = [0, 1, 2], []
        while left:
            p = np.exp(true[left]) / np.exp(true[left]).sum()
            order.append(left.pop(int(rng.choice(len(left), p=p))))
        rankings.append((order, 1.0))
    got = fit(rankings, 3, prior=0.0) / ELO_SCALE
    assert np.allclose(got - got[0], true, atol=0.06)


def test_one_player_against_fixed_ratings():
    # 30 wins and 10 losses against a player rated 0: the estimate is log(3) in strength
    rankings = [([0, 1], 1.0)] * 30 + [([1, 0], 1.0)] * 10
    rating, low, high = fit_one(rankings, {1: 0.0}, 0, prior=0.0)
    assert rating == pytest.approx(ELO_SCALE * math.log(3), abs=1e-6)
    half = 1.959963984540054 / math.sqrt(40 * 0.75 * 0.25)
    assert high - rating == pytest.approx(ELO_SCALE * half, rel=1e-6)
    assert low < rating < high
    # a clean sweep stays finite with the prior
    assert math.isfinite(fit_one([([0, 1], 1.0)] * 10, {1: 0.0}, 0, prior=1.0)[0])


def test_bad_data_is_refused():
    with pytest.raises(ValueError, match="no finite maximum"):
        fit([([0, 1], 1.0)], 2, prior=0.0)
    with pytest.raises(ValueError, match="played no game"):
        fit_one([([1, 2], 1.0)], {1: 0.0, 2: 0.0}, 0)


def test_expected_first():
    assert expected_first(0.0, [0.0, 0.0]) == pytest.approx(1 / 3)
    assert expected_first(400.0, [0.0]) == pytest.approx(10 / 11)
