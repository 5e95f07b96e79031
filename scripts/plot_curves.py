"""One learning curve from a chain of TD runs (a run and the runs resumed from it).

    python scripts/plot_curves.py runs/J runs/K --out docs/images/learning_curve_td.png

Each run's ``evals.csv`` (written by ``train.py train``) counts games from its own start,
so each later run is shifted by the games of the runs before it; a resumed run's first
row (its starting checkpoint, already the previous run's last) is dropped.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.curves import plot_curve  # noqa: E402


def chained(runs: list[Path]) -> list[dict]:
    out: list[dict] = []
    offset = 0
    for i, run in enumerate(runs):
        path = run / "evals.csv"
        if not path.exists():
            raise SystemExit(f"{path} does not exist: is {run} a train.py train run folder?")
        with open(path) as f:
            rows = [{k: float(v) for k, v in row.items() if v != ""} for row in csv.DictReader(f)]
        if i and rows and rows[0]["step"] == 0:
            rows = rows[1:]
        for row in rows:
            out.append({**row, "step": row["step"] + offset})
        offset = out[-1]["step"] if out else offset
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders, in training order")
    parser.add_argument("--out", type=Path, required=True, help="the PNG to write")
    parser.add_argument("--title", default="", help="title after 'Learning curve'")
    parser.add_argument("--xlabel", default="self-play games (0 = untrained: plays as greedy)",
                        help="the x axis's label (say where a resumed chain starts)")  # fmt: skip
    args = parser.parse_args()
    title = args.title or " + ".join(run.name for run in args.runs)
    plot_curve(chained(args.runs), args.out, title, args.xlabel)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
