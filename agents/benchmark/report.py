"""A bench's files: its JSON (what a comparable result states) and the ladder plot with
the new agent placed on it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from agents.benchmark import protocol
from agents.benchmark.bench import BenchResult, rating_text


def file_stem(spec: str) -> str:
    """A file name for an agent spec: its characters outside [A-Za-z0-9._-] become '_'."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", spec).strip("_") or "agent"


def save_bench(result: BenchResult, out_dir: str | Path) -> dict[str, Path]:
    """Writes bench.json (the result and every game), bench.md (the table) and
    ladder.png (the ladder with the agent and its interval)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "bench.json", "table": out / "bench.md", "plot": out / "ladder.png"}
    paths["json"].write_text(json.dumps(result.to_dict(), indent=1) + "\n")
    paths["table"].write_text(rating_text(result) + "\n")
    plot_ladder(result.ladder, result, paths["plot"])
    return paths


def plot_ladder(ladder: dict[str, float], result: BenchResult | None, path: Path) -> None:
    """The references by rating, and the agent (orange) with its 95% interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [(name, value, False) for name, value in ladder.items()]
    if result is not None:
        rows.append((result.agent, result.rating, True))
    rows.sort(key=lambda row: row[1])  # the agent sits at its place on the ladder
    fig, ax = plt.subplots(figsize=(7, 0.45 * (len(rows) + 1) + 1))
    refs = [(y, value) for y, (_, value, new) in enumerate(rows) if not new]
    ax.scatter([v for _, v in refs], [y for y, _ in refs], color="tab:blue", zorder=3,
               label="reference")  # fmt: skip
    for y, (name, value, new) in enumerate(rows):
        if new and result is not None:
            err = [[value - result.rating_low], [result.rating_high - value]]
            ax.errorbar([value], [y], xerr=err, fmt="o", color="tab:orange", capsize=4,
                        zorder=4, label=f"{name} (95% interval)")  # fmt: skip
    ax.set_yticks(range(len(rows)), [name for name, _, _ in rows])
    for label, (_, _, new) in zip(ax.get_yticklabels(), rows, strict=True):
        if new:
            label.set_color("tab:orange")
    ax.axvline(protocol.ANCHOR[1], color="grey", lw=0.8, ls="--")
    ax.set_xlabel(f"rating (Elo scale, {protocol.ANCHOR[0]} = {protocol.ANCHOR[1]:.0f})")
    ax.set_title(f"{protocol.NAME}, {result.players if result else ''} players".strip())
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
