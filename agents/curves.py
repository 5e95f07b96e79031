"""A training run's files that both learners write the same way: metrics as CSV, and the
learning curve (win share and margin per evaluation opponent) as a PNG."""

from __future__ import annotations

import csv
import re
from pathlib import Path


def write_csv(rows: list[dict], path: Path) -> None:
    """Rows of possibly different keys as one CSV (the union of the keys, in first-seen order)."""
    fields: list[str] = []
    for row in rows:
        fields += [k for k in row if k not in fields]
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def plot_curve(
    evals: list[dict],
    path: Path,
    title: str = "",
    xlabel: str = "PPO steps (learner sub-steps; 0 = after warm start)",
) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    keys = sorted({k[9:] for e in evals for k in e if k.startswith("eval_win_")})
    for name in keys:
        pts = [(e["step"], e[f"eval_win_{name}"]) for e in evals if f"eval_win_{name}" in e]
        ax.plot(*zip(*pts, strict=True), marker="o", label=f"vs {name}")
        pts = [(e["step"], e[f"eval_margin_{name}"]) for e in evals if f"eval_margin_{name}" in e]
        ax2.plot(*zip(*pts, strict=True), marker="o", label=f"vs {name}")
    # the fair share of each seat count shown: 1/n for "(n players)" matches, else 1/2
    seats = {int(m.group(1)) if m else 2 for m in (re.search(r"\((\d) players\)", k) for k in keys)}
    for n in sorted(seats or {2}):
        ax.axhline(1 / n, color="grey", lw=0.8, ls="--")
        if len(seats) > 1:
            ax.annotate(f"1/{n}", (1.0, 1 / n), xycoords=("axes fraction", "data"),
                        xytext=(2, 0), textcoords="offset points", va="center", fontsize=8,
                        color="grey")  # fmt: skip
    ax2.axhline(0.0, color="grey", lw=0.8, ls="--")
    ax.set_ylim(0, 1)
    ax.set_ylabel("win share (argmax policy)")
    ax2.set_ylabel("mean final score margin")
    ax.set_title(f"Learning curve {title}".strip())
    for a in (ax, ax2):
        a.set_xlabel(xlabel)
        a.legend()
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
