"""Endgames alone: what a search gains once the bag is empty. Prints one table.

    python benchmarks/endgames.py                    # about 5 minutes on 2 cores
    python benchmarks/endgames.py --positions 150 --agents learned-search:endgame=0 \
        learned-search:endgame=1

A whole match decides a few endgames among many other moves, so a change to endgame play
drowns in the noise of the deals. Here every game starts where the bag has just emptied
(seeded greedy-vs-greedy 2-player games, positions the same for every agent), each agent
plays the rest once from each seat against the same opponent, and the table compares
what each agent added to its margin from that point, paired position by position with
the first agent (so the deals' luck cancels out). The search budget is CPU seconds, as
everywhere.
"""

from __future__ import annotations

import argparse
import os
import platform
from multiprocessing import Pool

import numpy as np
from tqdm import tqdm

from agents.registry import make_agent
from agents.scripted.endgame import empty_bag_positions
from qwirkle_env.spec import margin
from qwirkle_env.view import PlayerView


def play_out(job: tuple) -> tuple[float, float]:
    """One endgame: (the margin ``spec`` added from the start, its win as 1, 1/2 or 0)."""
    import torch

    torch.set_num_threads(1)
    start, spec, opponent, role, seed = job
    game = start.clone()
    ours = game.current if role == 0 else 1 - game.current
    agents = {ours: make_agent(spec), 1 - ours: make_agent(opponent)}
    for seat, agent in agents.items():
        agent.reset(seat, 2, seed)
    while not game.over:
        game.apply(agents[game.current].choose(PlayerView.of(game, game.current)))
    end = margin(game.scores, ours)
    return end - margin(start.scores, ours), float(end > 0) + 0.5 * (end == 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--seed", type=int, default=5000, help="first greedy game's seed")
    parser.add_argument("--opponent", default="search:budget=0.05")
    parser.add_argument(
        "--agents",
        nargs="+",
        default=[
            "learned-search:budget=0.05,endgame=0",
            "learned-search:budget=0.05,endgame=1",
            "learned-search:budget=0.25,endgame=1",
        ],
    )
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    for spec in [*args.agents, args.opponent]:
        make_agent(spec)  # a bad spec stops here, before any game
    starts = empty_bag_positions(args.positions, args.seed)
    gained, won = {}, {}
    with Pool(args.processes) as pool:
        for spec in args.agents:
            jobs = [(g, spec, args.opponent, role, 1000 * i + role)
                    for i, g in enumerate(starts) for role in (0, 1)]  # fmt: skip
            out = list(tqdm(pool.imap(play_out, jobs), total=len(jobs), desc=spec))
            gained[spec] = np.array([m for m, _ in out])
            won[spec] = np.array([w for _, w in out])
    first = args.agents[0]
    print(
        f"\n{len(starts)} endgames x 2 seats against {args.opponent}, python "
        f"{platform.python_version()}, {os.cpu_count()} CPUs (paired with {first}: mean ± "
        "standard error)"
    )
    print(f"{'agent':42} {'margin added':>12} {'vs first':>14} {'wins':>6} {'vs first':>15}")
    for spec in args.agents:
        d, w = gained[spec] - gained[first], won[spec] - won[first]
        se_d, se_w = d.std() / np.sqrt(len(d)), w.std() / np.sqrt(len(w))
        print(
            f"{spec:42} {gained[spec].mean():+12.2f} {d.mean():+8.2f} ± {se_d:.2f}"
            f" {won[spec].mean():6.1%} {w.mean():+8.1%} ± {se_w:.1%}"
        )


if __name__ == "__main__":
    main()
