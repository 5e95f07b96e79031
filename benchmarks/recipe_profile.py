"""Where a training second goes, for each Q-learning recipe (examples/*_dqn.py).

    python benchmarks/recipe_profile.py --steps 20000            # SB3 and Tianshou
    .venv-ray/bin/python benchmarks/recipe_profile.py --only rllib_dqn --steps 20000

Each recipe runs for ``--steps`` env steps under cProfile, in a process of its own, with one
curve point at the start and one at the end. The table splits its wall time into the env's
step (the move table, the look ahead, the greedy opponent's move), the network's forward
passes (acting and learning), the library's learning update (its forward and backward
passes, replay sampling and targets: it overlaps the forward passes), and the curve's quick
matches; what the parts leave is the library's own loop. cProfile slows Python calls, so
the shares are rough; the turns a second of a run without it are in its curve
CSV (benchmarks/README.md, "Learning speed").
"""

from __future__ import annotations

import argparse
import pstats
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECIPES = ("sb3_dqn", "tianshou_dqn", "rllib_dqn")
# (label, [(file suffix, function name)]): the cumulative time of the first listed
# function found, summed over the list (no two of a list call each other)
PARTS = [
    ("env step (all)", [("qwirkle_env/wrappers.py", "step"), ("qwirkle_env/wrappers.py", "reset")]),
    ("  of which the opponent's moves", [("qwirkle_env/wrappers.py", "_play_opponents")]),
    ("  of which the look ahead", [("qwirkle_env/rows/look_ahead.py", "look_at")]),
    ("network forward (acting + learning)", [("agents/move_policy/network.py", "forward")]),
    ("learning update (all)", [
        ("stable_baselines3/dqn/dqn.py", "train"),
        ("tianshou/algorithm/algorithm_base.py", "update"),
        ("ray/rllib/core/learner/learner.py", "update"),
    ]),
    ("curve points (quick matches)", [("agents/move_policy/training.py", "quick_match")]),
]  # fmt: skip


def measure(recipe: str, steps: int, out: Path) -> dict[str, float]:
    """Runs the recipe under cProfile; the seconds of each part and the total."""
    prof = out / f"{recipe}.prof"
    command = [
        sys.executable, "-m", "cProfile", "-o", str(prof), str(ROOT / "examples" / f"{recipe}.py"),
        "--steps", str(steps), "--eval-every", str(10 * steps), "--eval-games", "20",
        "--out", str(out / f"{recipe}.pt"),
    ]  # fmt: skip
    subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    stats = pstats.Stats(str(prof)).stats  # type: ignore[attr-defined]
    found = {}
    for label, wanted in PARTS:
        found[label] = sum(
            cumulative
            for (path, _, name), (_, _, _, cumulative, _) in stats.items()
            for suffix, function in wanted
            if path.endswith(suffix) and name == function
        )
    main = [c for (path, _, name), (_, _, _, c, _) in stats.items()
            if name == "main" and path.endswith(f"{recipe}.py")]  # fmt: skip
    found["total (the recipe's main)"] = max(main) if main else float("nan")
    return found


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=20_000, help="env steps per recipe")
    p.add_argument("--only", nargs="+", choices=RECIPES, default=["sb3_dqn", "tianshou_dqn"])
    args = p.parse_args()
    if args.steps < 1:
        raise SystemExit(f"--steps must be >= 1, got {args.steps}")
    with tempfile.TemporaryDirectory() as tmp:
        results = {r: measure(r, args.steps, Path(tmp)) for r in args.only}
    labels = [label for label, _ in PARTS] + ["total (the recipe's main)"]
    print(f"{args.steps} env steps each, under cProfile; seconds (share of the total)")
    print(f"| part | {' | '.join(results)} |")
    print("|---" * (len(results) + 1) + "|")
    for label in labels:
        cells = []
        for found in results.values():
            total = found["total (the recipe's main)"]
            cells.append(f"{found[label]:.1f} s ({found[label] / total:.0%})")
        print(f"| {label} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
