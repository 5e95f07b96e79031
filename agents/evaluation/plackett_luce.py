"""Plackett-Luce ratings: Bradley-Terry for games of any number of seats.

A game's finishing order is read as a sequence of choices: the winner chosen among all
seats with probability proportional to its strength, the second among the rest, and so on.
With two seats this is Bradley-Terry exactly, so one model rates 2-, 3- and 4-player games
on the Elo scale (``ELO_SCALE`` points per unit of log-strength). Tied seats count as every
order of the tie, each with an equal share of the game's weight. A prior of virtual draws
(half a win each way per pair of players that met) keeps a rating finite when one side won
every game.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from agents.evaluation.stats import ELO_SCALE, Z95

Ranking = tuple[list[int], float]  # players best first, and the ranking's weight


def rankings_of(players: list[int], standing: list[float]) -> list[Ranking]:
    """One game's rankings: ``players[seat]`` finished with ``standing[seat]`` (higher is
    better); a tie becomes every order of the tied players, sharing the weight."""
    levels = sorted(set(standing), reverse=True)
    groups = [[p for p, s in zip(players, standing, strict=True) if s == level] for level in levels]
    orders = [list(itertools.permutations(g)) for g in groups]
    combos = list(itertools.product(*orders))
    return [([p for part in combo for p in part], 1.0 / len(combos)) for combo in combos]


def virtual_draws(pairs: set[tuple[int, int]], prior: float) -> list[Ranking]:
    """``prior`` virtual games per pair, half won by each side."""
    out: list[Ranking] = []
    for i, j in sorted(pairs):
        out += [([i, j], prior / 2.0), ([j, i], prior / 2.0)]
    return out


def met_pairs(rankings: list[Ranking]) -> set[tuple[int, int]]:
    pairs = set()
    for order, _ in rankings:
        for a, b in itertools.combinations(sorted(set(order)), 2):
            pairs.add((a, b))
    return pairs


def fit(rankings: list[Ranking], k: int, prior: float = 1.0, iters: int = 50_000,
        tol: float = 1e-10) -> np.ndarray:  # fmt: skip
    """Maximum-likelihood Plackett-Luce ratings of players 0..k-1 on the Elo scale, mean
    zero (Hunter's MM algorithm); ``prior`` virtual draws per pair that met."""
    data = rankings + virtual_draws(met_pairs(rankings), prior) if prior > 0 else rankings
    by_length: dict[int, tuple[list, list]] = {}
    for order, weight in data:
        if len(order) >= 2:
            rows, weights = by_length.setdefault(len(order), ([], []))
            rows.append(order)
            weights.append(weight)
    wins = np.zeros(k)
    blocks = []
    for m, (rows, weights) in by_length.items():
        r, w = np.asarray(rows, dtype=int), np.asarray(weights)
        for j in range(m - 1):
            np.add.at(wins, r[:, j], w)
        blocks.append((m, r, w))
    if (wins <= 0).any():
        raise ValueError(
            "Plackett-Luce has no finite maximum when a player never finished above anyone; "
            "pass prior > 0 (virtual draws)"
        )
    strength = np.ones(k)
    for _ in range(iters):
        denom = np.zeros(k)
        for m, r, w in blocks:
            for j in range(m - 1):
                tail = r[:, j:]
                share = w / strength[tail].sum(axis=1)
                np.add.at(denom, tail.ravel(), np.repeat(share, m - j))
        new = wins / denom
        new /= math.exp(np.log(new).mean())
        done = np.max(np.abs(np.log(new) - np.log(strength))) < tol
        strength = new
        if done:
            break
    logs = np.log(strength)
    return ELO_SCALE * (logs - logs.mean())


def fit_one(rankings: list[Ranking], fixed: dict[int, float], new: int, prior: float = 1.0,
            z: float = Z95) -> tuple[float, float, float]:  # fmt: skip
    """The rating of player ``new`` when every other player's rating is ``fixed`` (Elo
    scale): the maximum-likelihood estimate and its Wald interval, (rating, low, high).
    ``prior`` virtual draws against each opponent it met."""
    met = {p for order, _ in rankings if new in order for p in order if p != new}
    data = [(o, w) for o, w in rankings if new in o]
    data += virtual_draws({(min(new, p), max(new, p)) for p in met}, prior) if prior > 0 else []
    stages = []  # (weight, chosen is new, sum of the others' strengths at that stage)
    for order, weight in data:
        at = order.index(new)
        for j in range(at + 1):
            if j == len(order) - 1:
                break
            others = sum(math.exp(fixed[p] / ELO_SCALE) for p in order[j:] if p != new)
            stages.append((weight, order[j] == new, others))
    if not stages:
        raise ValueError(f"player {new} played no game: nothing to rate")
    w = np.array([s[0] for s in stages])
    chosen = np.array([s[1] for s in stages], dtype=float)
    others = np.array([s[2] for s in stages])
    theta = 0.0
    for _ in range(200):
        p = 1.0 / (1.0 + others * math.exp(-theta))
        grad = float((w * (chosen - p)).sum())
        info = float((w * p * (1 - p)).sum())
        if info <= 0:
            raise ValueError(f"player {new}'s games carry no information about its rating")
        step = max(-2.0, min(2.0, grad / info))
        theta += step
        if abs(step) < 1e-12:
            break
    p = 1.0 / (1.0 + others * math.exp(-theta))
    half = z / math.sqrt(float((w * p * (1 - p)).sum()))
    return ELO_SCALE * theta, ELO_SCALE * (theta - half), ELO_SCALE * (theta + half)


def expected_first(rating: float, others: list[float]) -> float:
    """The chance that a player rated ``rating`` finishes first among ``others``."""
    mine = math.exp(rating / ELO_SCALE)
    return mine / (mine + sum(math.exp(r / ELO_SCALE) for r in others))
