"""Turning tournament records into the per-agent table, CSV, JSON and a plot."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .stats import bradley_terry, pairwise_outcomes, wilson

if TYPE_CHECKING:
    from .evaluate import Results

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


def win_matrix(results: Results) -> np.ndarray:
    """wins[i, j]: games in which agent i outscored agent j (ties count half each way)."""
    k = len(results.names)
    wins = np.zeros((k, k))
    for rec in results.records:
        for a, b, s in pairwise_outcomes(rec.scores):
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


def save_results(results: Results, out_dir: Path) -> dict[str, Path]:
    """Writes summary.csv, results.json (summary and every game) and strength.png."""
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = results.summary()
    paths = {
        "csv": out_dir / "summary.csv",
        "json": out_dir / "results.json",
        "plot": out_dir / "strength.png",
    }
    with open(paths["csv"], "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    data = results.to_dict()
    data["rating_method"] = RATING_METHOD
    data["win_matrix"] = win_matrix(results).tolist()
    paths["json"].write_text(json.dumps(data, indent=1))
    title = f"{len(results.records)} duplicate games, {results.num_players} players"
    plot_summary(rows, paths["plot"], title=title, chance=1.0 / results.num_players)
    return paths


def plot_summary(rows: list[dict], path: Path, title: str = "", chance: float = 0.5) -> None:
    """Win rates with their 95% Wilson intervals (dashed: the rate of an equal player),
    and ratings, one bar per agent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["agent"] for r in rows]
    x = np.arange(len(rows))
    rate = np.array([r["win_rate"] for r in rows])
    err = np.clip(
        np.array(
            [
                [r["win_rate"] - r["ci_low"] for r in rows],
                [r["ci_high"] - r["win_rate"] for r in rows],
            ]
        ),
        0.0,
        None,
    )
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(4 + 1.2 * len(rows), 3.6))
    ax1.bar(x, rate, yerr=err, capsize=4, color="tab:blue")
    ax1.axhline(chance, color="grey", lw=0.8, ls="--")
    ax1.set_ylim(0, 1)
    ax1.set_ylabel("win rate (95% Wilson)")
    ax2.bar(x, [r["rating"] for r in rows], color="tab:orange")
    ax2.axhline(0, color="grey", lw=0.8)
    ax2.set_ylabel("Bradley-Terry rating (Elo scale)")
    for ax in (ax1, ax2):
        ax.set_xticks(x, names, rotation=20, ha="right")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
