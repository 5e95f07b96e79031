"""The RL-library recipes' learning curves, from the CSVs they write beside their checkpoints:
win share against greedy by env steps and by wall time, and each run's learning speed (its
learner turns a second, and the minutes until its curve first passes 55%, or 1.25/n with n
seats: --players).

    python scripts/plot_recipe_curves.py SB3=docs/data/sb3_dqn_curve.csv \\
        Tianshou=docs/data/tianshou_dqn_curve.csv RLlib=docs/data/rllib_dqn_curve.csv \\
        --out docs/images/dqn_curves.png
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.move_policy.training import plot_curves  # noqa: E402

PASS = 0.55  # the learning-speed mark: a curve point above this share against greedy
# with 2 players; with n, the share 1.25/n that the 3- and 4-player policies aim at


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("curves", nargs="+", help="LABEL=CSV, one per run")
    p.add_argument("--out", required=True, help="the PNG to write")
    p.add_argument("--players", type=int, nargs="+", default=[2], choices=(2, 3, 4),
                   help="each curve's seats, in order (one value: all of them)")  # fmt: skip
    args = p.parse_args()
    found = {}
    for item in args.curves:
        label, sep, path = item.partition("=")
        if not sep or not label or not Path(path).is_file():
            raise SystemExit(f"{item!r}: give LABEL=CSV with an existing curve file")
        found[label] = path
    seats = args.players * len(found) if len(args.players) == 1 else args.players
    if len(seats) != len(found):
        raise SystemExit(f"--players: give one seat count, or one for each of the {len(found)} "
                         f"curves; got {len(seats)}")  # fmt: skip
    plot_curves(found, args.out, players=tuple(seats))
    print(f"wrote {args.out}")
    print("| run | env steps | wall | learner turns/s | first point above the mark |")
    print("|---|---|---|---|---|")
    for (label, path), n in zip(found.items(), seats, strict=True):
        mark = PASS if n == 2 else 1.25 / n
        with open(path, newline="") as f:
            rows = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]
        last = rows[-1]
        above = next((r for r in rows if r["win_rate"] > mark), None)
        passed = (f"{above['wall_s'] / 60:.1f} min ({above['env_steps']:,.0f} steps, "
                  f"{above['win_rate']:.1%})" if above else "never")  # fmt: skip
        passed = f"{mark:.1%}: {passed}"
        print(f"| {label} | {last['env_steps']:,.0f} | {last['wall_s'] / 60:.1f} min | "
              f"{last['env_steps'] / last['wall_s']:.0f} | {passed} |")  # fmt: skip


if __name__ == "__main__":
    main()
