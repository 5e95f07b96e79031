"""A tournament's results: every game's record, and the per-agent summary and table.

The harness (``agents.evaluation.harness``) fills a :class:`Results`;
``agents.evaluation.report`` writes it to files and plots it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field

import numpy as np

from agents.evaluation.stats import bradley_terry, pairwise_outcomes, wilson

RATING_METHOD = (
    "Bradley-Terry maximum likelihood on the Elo scale (mean 0) from every pair of seats in "
    "every game, ties as half wins, one virtual draw per pair of agents that met"
)
COLUMNS = [
    ("agent", "agent", "{}"),
    ("games", "games", "{}"),
    ("wins", "wins", "{:g}"),
    ("win_rate", "win %", "{:.1%}"),
    ("ci95", "95% CI", "{}"),
    ("mean_score", "score", "{:.1f}"),
    ("mean_margin", "margin", "{:+.1f}"),
    ("qwirkles_per_game", "qwirkles/g", "{:.2f}"),
    ("ms_per_move", "ms/move", "{:.2f}"),
    ("cpu_ms_per_move", "cpu ms/move", "{:.2f}"),
    ("rating", "rating", "{:+.0f}"),
]


@dataclass
class GameRecord:
    """One finished game; lists are by seat."""

    lineup: int  # index into Results.lineups
    deal: int
    rotation: int
    env_seed: int
    deal_digest: str  # hash of the initial hands and bag order: equal across rotations
    agents: list[int]  # agent index at each seat
    scores: list[int]
    winners: list[int]
    qwirkles: list[int]
    moves: list[int]  # turns taken
    think: list[float]  # wall seconds spent in act()
    end: str = "rules"  # or why it stopped early: "turn_cap", "truncated" (env)
    fallbacks: list[int] = field(default_factory=list)  # sub-steps taken off a stale plan
    think_cpu: list[float] = field(default_factory=list)  # CPU seconds spent in act()
    forfeits: list[str] = field(default_factory=list)  # "" or why a plugin lost the game

    def standing(self) -> list[float]:
        """Each seat's score for ranking: a seat that forfeited ranks below every other."""
        lost = self.forfeits or [""] * len(self.scores)
        return [
            float("-inf") if why else float(s) for s, why in zip(self.scores, lost, strict=True)
        ]


@dataclass
class Results:
    """Everything a tournament produced; ``summary()`` holds the per-agent rows,
    ``table()`` shows them (``agents.evaluation.report.save_results`` writes them to files)."""

    names: list[str]
    num_players: int
    seed: int
    lineups: list[list[int]]
    records: list[GameRecord] = field(default_factory=list)
    wall_s: float = 0.0

    def summary(self) -> list[dict]:
        return summarise(self)

    def table(self) -> str:
        return format_table(self)

    def to_dict(self) -> dict:
        return {
            "names": self.names,
            "num_players": self.num_players,
            "seed": self.seed,
            "lineups": self.lineups,
            "wall_s": self.wall_s,
            "summary": self.summary(),
            "games": [asdict(r) for r in self.records],
        }


def win_matrix(results: Results) -> np.ndarray:
    """wins[i, j]: games in which agent i outscored agent j (ties count half each way)."""
    k = len(results.names)
    wins = np.zeros((k, k))
    for rec in results.records:
        for a, b, s in pairwise_outcomes(rec.standing()):
            i, j = rec.agents[a], rec.agents[b]
            wins[i, j] += s
            wins[j, i] += 1.0 - s
    return wins


def summarise(results: Results) -> list[dict]:
    """One row per agent: wins (shared wins count 1/k), Wilson interval, scores, ratings."""
    k = len(results.names)
    games = np.zeros(k)
    wins = np.zeros(k)
    score = np.zeros(k)
    margin = np.zeros(k)
    qwirkles = np.zeros(k)
    moves = np.zeros(k)
    think = np.zeros(k)
    cpu = np.zeros(k)
    forfeits = np.zeros(k)
    for rec in results.records:
        n = len(rec.scores)
        for seat, i in enumerate(rec.agents):
            games[i] += 1
            if seat in rec.winners:
                wins[i] += 1.0 / len(rec.winners)
            score[i] += rec.scores[seat]
            others = (sum(rec.scores) - rec.scores[seat]) / (n - 1)
            margin[i] += rec.scores[seat] - others
            qwirkles[i] += rec.qwirkles[seat]
            moves[i] += rec.moves[seat]
            think[i] += rec.think[seat]
            cpu[i] += rec.think_cpu[seat] if rec.think_cpu else 0.0
            forfeits[i] += bool(rec.forfeits and rec.forfeits[seat])
    matrix = win_matrix(results)
    ratings = bradley_terry(matrix, prior=1.0) if results.records else np.zeros(k)
    rows = []
    for i, name in enumerate(results.names):
        g = max(games[i], 1)
        lo, hi = wilson(wins[i], games[i])
        rows.append(
            {
                "agent": name,
                "games": int(games[i]),
                "wins": round(float(wins[i]), 4),
                "win_rate": float(wins[i] / g),
                "ci_low": lo,
                "ci_high": hi,
                "mean_score": float(score[i] / g),
                "mean_margin": float(margin[i] / g),
                "qwirkles_per_game": float(qwirkles[i] / g),
                "ms_per_move": float(1000 * think[i] / max(moves[i], 1)),
                "cpu_ms_per_move": float(1000 * cpu[i] / max(moves[i], 1)),
                "rating": float(ratings[i]),
                "forfeits": int(forfeits[i]),
            }
        )
    return rows


def format_table(results: Results) -> str:
    """A plain-text (and Markdown) table of the summary."""
    rows = results.summary()
    head = [title for _, title, _ in COLUMNS]
    body = []
    for row in rows:
        cells = []
        for key, _, fmt in COLUMNS:
            if key == "ci95":
                cells.append(f"{row['ci_low']:.1%}–{row['ci_high']:.1%}")
            else:
                cells.append(fmt.format(row[key]))
        body.append(cells)
    widths = [max(len(h), *(len(r[c]) for r in body)) for c, h in enumerate(head)]
    lines = [
        "| " + " | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + " |",
        "|" + "|".join("-" * (w + 2) for w in widths) + "|",
    ]
    lines += [
        "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |" for r in body
    ]
    n = len(results.records)
    early = Counter(r.end for r in results.records if r.end != "rules")
    stopped = "".join(f", {k} stopped by the harness: {v}" for k, v in sorted(early.items()))
    lines.append(
        f"\n{n} games, {results.num_players} players, duplicate deals, seed {results.seed}, "
        f"{results.wall_s:.0f} s wall{stopped}. ms/move: wall time in the agent per turn; "
        f"cpu ms/move: its CPU time. Ratings: {RATING_METHOD}."
    )
    return "\n".join(lines)
