"""Two agents benched on the same deals, compared game by game.

The bench spends its deals where each agent's games tell most, so two agents share the
games whose opponent, deal and rotation match; on those the luck of the draw is the same
for both, and the difference of their margins is a paired sample (mean, 95% interval from
the normal approximation, and how many such games each won where the other did not).
"""

from __future__ import annotations

import math

from agents.evaluation.stats import Z95


def paired(a: dict, b: dict) -> dict:
    """The paired comparison of two bench results (their JSON, with ``games``)."""
    for what in ("protocol", "players"):
        if a.get(what) != b.get(what):
            raise ValueError(
                f"the two results differ in {what} ({a.get(what)!r} and {b.get(what)!r}): "
                "only results of one protocol and seat count pair up"
            )
    key = lambda g: (g["opponent"], g["deal"], g["rotation"])  # noqa: E731
    theirs = {key(g): g for g in b["games"]}
    pairs = [(g, theirs[key(g)]) for g in a["games"] if key(g) in theirs]
    if len(pairs) < 2:
        raise ValueError(f"the two results share {len(pairs)} games; a paired test needs 2")
    diffs = [ga["margin"] - gb["margin"] for ga, gb in pairs]
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    half = Z95 * sd / math.sqrt(n)
    return {
        "a": a["agent"],
        "b": b["agent"],
        "games": n,
        "margin_difference": round(mean, 2),
        "ci_low": round(mean - half, 2),
        "ci_high": round(mean + half, 2),
        "only_a_won": sum(ga["won"] and not gb["won"] for ga, gb in pairs),
        "only_b_won": sum(gb["won"] and not ga["won"] for ga, gb in pairs),
    }
