"""Reports of a tournament: its results as CSV, JSON and a plot."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from agents.evaluation.results import RATING_METHOD, Results, win_matrix


def save_results(results: Results, out_dir: str | Path) -> dict[str, Path]:
    """Writes summary.csv, results.json (summary and every game) and strength.png."""
    out_dir = Path(out_dir)
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
