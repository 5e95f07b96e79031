"""Statistics for match results: Wilson intervals and Bradley-Terry ratings.

Kept apart from the harness so each formula can be checked on small hand-computed cases.
"""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054  # two-sided 95% normal quantile
ELO_SCALE = 400.0 / math.log(10.0)  # Elo points per unit of log-strength


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion; ``successes`` may be fractional (shared wins).

    Unlike the normal interval it stays inside [0, 1] and is sensible at 0% and 100%,
    which is where baseline matches live.
    """
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in 0..n, got {successes} of {n}")
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def pairwise_outcomes(scores: list[float]) -> list[tuple[int, int, float]]:
    """(i, j, result for i) for every pair of seats in one game: 1 win, 0.5 tie, 0 loss."""
    out = []
    for i in range(len(scores)):
        for j in range(i + 1, len(scores)):
            s = 1.0 if scores[i] > scores[j] else 0.5 if scores[i] == scores[j] else 0.0
            out.append((i, j, s))
    return out


def bradley_terry(
    wins: np.ndarray, prior: float = 0.0, iters: int = 10_000, tol: float = 1e-12
) -> np.ndarray:
    """Maximum-likelihood Bradley-Terry ratings on the Elo scale, mean zero.

    ``wins[i, j]`` is how often i beat j (a tie adds 0.5 to both). The model is
    P(i beats j) = 1 / (1 + 10 ** ((r_j - r_i) / 400)), fitted by Hunter's MM algorithm.
    ``prior`` adds that many virtual draws to every pair that met, which keeps the
    estimate finite when one side won every game (the plain MLE is then infinite).
    """
    w = np.asarray(wins, dtype=float)
    k = w.shape[0] if w.ndim == 2 else -1
    if w.shape != (k, k):
        raise ValueError(f"wins must be a square matrix, got shape {w.shape}")
    if (w < 0).any():
        raise ValueError("wins must be non-negative")
    games = w + w.T
    np.fill_diagonal(games, 0.0)
    if prior > 0:
        met = games > 0
        w = w + met * (prior / 2.0)
        games = w + w.T
        np.fill_diagonal(games, 0.0)
    if k == 0:
        return np.zeros(0)
    total = w.sum(axis=1) - np.diag(w)
    if (total <= 0).any() or (total >= games.sum(axis=1)).any():
        raise ValueError(
            "Bradley-Terry has no finite maximum when a player won all or none of its games; "
            "pass prior > 0 (virtual draws)"
        )
    strength = np.ones(k)
    for _ in range(iters):
        denom = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        new = total / denom
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(new - strength)) < tol:
            strength = new
            break
        strength = new
    logs = np.log(strength)
    return ELO_SCALE * (logs - logs.mean())


def expected_score(r_i: float, r_j: float) -> float:
    """The Elo/Bradley-Terry chance that a player rated r_i beats one rated r_j."""
    return 1.0 / (1.0 + 10.0 ** ((r_j - r_i) / 400.0))
