"""Speed of the search agent: determinisations per CPU second. Prints one table.

    python benchmarks/search_speed.py                 # about a minute
    python benchmarks/search_speed.py --positions 60 --sims 8

The search agent (``agents/scripted/search.py``, default settings: 10 candidates, rollouts of two
greedy turns, to the end once the bag is empty) with a fixed number of simulations, on
positions of seeded greedy-vs-greedy 2-player games, one decision per position. A fixed
number of simulations makes the agent's choices reproducible, so the table also prints a
digest of the moves chosen: two versions of the code that print the same digest played
the same moves, and the faster one gets more simulations into ``budget=0.25``
(``sims/s x 0.25``). Run it from two checkouts to compare them:

    PYTHONPATH=/path/to/other/checkout python benchmarks/search_speed.py
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import random
import time

from agents.scripted.search import SearchAgent
from qwirkle_env import Game
from qwirkle_env.view import PlayerView


def positions(count: int, seed: int) -> list[PlayerView]:
    """Views of the player to move, every 5th move of greedy 2-player games."""
    out: list[PlayerView] = []
    game_seed = seed
    while len(out) < count:
        game = Game(2, seed=game_seed)
        game_seed += 1
        rng = random.Random(game_seed)
        move = 0
        while not game.over and len(out) < count:
            if move % 5 == 4:
                out.append(PlayerView.of(game, game.current))
            found = game.placements_with_points()
            if found:
                top = max(p for _, p in found)
                game.apply_placement(list(rng.choice([i for i, p in found if p == top])))
            else:
                hand = game.hands[game.current]
                game.apply_exchange(hand[: min(len(hand), len(game.bag))])
            move += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--sims", type=int, default=8, help="determinisations per decision")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    views = positions(args.positions, args.seed)
    digest = hashlib.sha256()
    seconds = 0.0
    for k, view in enumerate(views):
        agent = SearchAgent(sims=args.sims)
        agent.reset(view.seat, view.num_players, seed=args.seed + k)
        start = time.process_time()
        move = agent.choose(view)
        seconds += time.process_time() - start
        digest.update(str(move).encode())
    sims = args.sims * len(views)
    header = ("decisions", "sims", "CPU ms/decision", "sims/s", "sims in 0.25 s", "moves digest")
    rate = sims / seconds
    row = (str(len(views)), str(sims), f"{1000 * seconds / len(views):.0f}", f"{rate:.0f}",
           f"{0.25 * rate:.1f}", digest.hexdigest()[:12])  # fmt: skip
    widths = [max(len(h), len(r)) for h, r in zip(header, row, strict=True)]
    print(f"search agent, python {platform.python_version()}, {os.cpu_count()} CPUs, CPU clock")
    print("  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    print("  ".join(r.rjust(w) for r, w in zip(row, widths, strict=True)))


if __name__ == "__main__":
    main()
