"""Choose between candidate policies on the choosing seeds only (101-110 by default): each
candidate against greedy in every other seat, duplicate deals, the same games for all.

    python scripts/choose_on_seeds.py ckpt:runs/a/sb3_dqn.pt ckpt:runs/b/sb3_dqn.pt
    python scripts/choose_on_seeds.py ckpt:A ckpt:B --first-deal 20 --games 100  # fresh deals

Seeds that report a result (2027 for the RL-library recipes, docs/integrations.md) are
never used here: a result picked across several seeds drifts upward where it is measured
again. For the same reason a policy chosen on some deals of these seeds reads high there
when it meets a new candidate: ``--first-deal`` plays deals that no earlier choice played.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.evaluation.harness import run_tournament  # noqa: E402
from agents.evaluation.results import summarise  # noqa: E402
from agents.evaluation.stats import wilson  # noqa: E402

REPORTING = {2027}  # seeds that report; never chosen on


def seed_range(text: str) -> list[int]:
    """'101-110' or '101,105'."""
    if "-" in text:
        low, _, high = text.partition("-")
        return list(range(int(low), int(high) + 1))
    return [int(s) for s in text.split(",")]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("candidates", nargs="+", help="agent specs (ckpt:PATH, ...)")
    p.add_argument("--seeds", type=seed_range, default=seed_range("101-110"))
    p.add_argument("--games", type=int, default=40, help="games per seed per candidate")
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    p.add_argument("--first-deal", type=int, default=0,
                   help="the first deal of each seed to play (0: from the start)")  # fmt: skip
    p.add_argument("--processes", type=int, default=2)
    args = p.parse_args()
    if REPORTING & set(args.seeds):
        raise SystemExit(f"seeds {sorted(REPORTING)} report results: choose on others")
    if args.games < 1:
        raise SystemExit(f"--games must be >= 1, got {args.games}")
    if args.first_deal < 0:
        raise SystemExit(f"--first-deal must be >= 0, got {args.first_deal}")
    deals = list(range(args.first_deal, args.first_deal + math.ceil(args.games / args.players)))
    plan = [(list(range(args.players)), deals)]  # each deal once per rotation of the seats
    others = ["greedy"] * (args.players - 1)
    print(f"against greedy, {args.players} players, deals {deals[0]}-{deals[-1]} "
          f"({len(deals) * args.players} games) of each of seeds "
          f"{args.seeds[0]}..{args.seeds[-1]}")  # fmt: skip
    print("| candidate | games | win share (95% interval) | margin |")
    print("|---|---|---|---|")
    for spec in args.candidates:
        wins = games = margin = 0.0
        for seed in args.seeds:
            results = run_tournament([spec, *others], args.games, args.players, seed,
                                     processes=args.processes, progress=False,
                                     plan=plan)  # fmt: skip
            row = summarise(results)[0]
            wins += row["wins"]
            games += row["games"]
            margin += row["mean_margin"] * row["games"]
        lo, hi = wilson(wins, games)
        print(f"| {spec} | {int(games)} | {wins / games:.1%} ({lo:.1%}-{hi:.1%}) | "
              f"{margin / games:+.1f} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
