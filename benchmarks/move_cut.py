"""What does the whole-move mode's cut at K rows cost? The move-value agent shown only the
first K rows (the move mode's order) against itself shown every legal move.

    python benchmarks/move_cut.py --k 256 --games 400

Duplicate deals through the harness (``agents.evaluation.harness``), 2 players. The restricted agent
is the shipped checkpoint's ``ValueAgent`` whose candidates are cut to the rows the env
would show; the table below prints its result against the unrestricted one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.base import PlanningAgent  # noqa: E402
from agents.evaluation.harness import run_tournament  # noqa: E402
from agents.loading import load_agent  # noqa: E402
from agents.move_value.agent import select  # noqa: E402
from agents.move_value.features import MoveRowsAhead, candidates  # noqa: E402
from agents.registry import register  # noqa: E402
from qwirkle_env.rows.position import Position  # noqa: E402

CKPT = "checkpoints/move_value.pt"


def cut(cands: MoveRowsAhead, k: int) -> MoveRowsAhead:
    """The candidates the move mode would show with K rows: placements by points (stable),
    then exchanges, the first K."""
    n = len(cands.placements)
    order = np.argsort(-cands.points[:n], kind="stable")
    order = np.concatenate([order, np.arange(n, len(cands))])[:k]
    kept = sorted(int(i) for i in order)  # the engine's order within what is kept
    return MoveRowsAhead(
        placements=[cands.placements[i] for i in kept if i < n],
        exchanges=[cands.exchanges[i - n] for i in kept if i >= n],
        points=cands.points[kept],
        features=cands.features[kept],
        hand=cands.hand,
        position=cands.position,
    )


@register("value-top")
class TopRowsAgent(PlanningAgent):
    """The shipped move-value agent, choosing among the first ``k`` rows only."""

    def __init__(self, k: int = 256) -> None:
        self.k = k
        self.inner = load_agent(CKPT)
        self.reset(0, 2, 0)

    def choose(self, view):
        cands = cut(candidates(Position.of_view(view)), self.k)
        i = select(self.inner.layers, cands, 0.0, self.rng, self.inner.look_ahead)
        return cands.move(i)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=256)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    specs = [f"value-top:k={args.k}", f"ckpt:{CKPT}"]
    results = run_tournament(specs, args.games, seed=args.seed, processes=args.processes)
    print(results.table())


if __name__ == "__main__":
    main()
