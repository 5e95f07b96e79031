"""How large must the env's window be? Measures board extents over many games.

For every turn of every game it records the bounding box of the table and how far the
legal placements of the player to move reach from the box's centre cell (the window is
re-centred there each turn). A window of side W holds every legal move iff that reach is
at most W // 2 up/left and (W - 1) // 2 down/right. Prints one table and the smallest W
that held every legal move.

    python benchmarks/window.py --games 10000
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

from tqdm import tqdm

from qwirkle_env import Game


def play_and_measure(game: Game, policy: str, rng: random.Random, stats: dict) -> None:
    while not game.over:
        placements = game.placements_with_points()
        box = game.board.bounds()
        if box is not None and placements:
            r0, r1, c0, c1 = box
            cr, cc = (r0 + r1) // 2, (c0 + c1) // 2
            stats["height"][r1 - r0 + 1] += 1
            stats["width"][c1 - c0 + 1] += 1
            for items, _ in placements:
                for (r, c), _t in items:
                    stats["up"] = max(stats["up"], cr - r)
                    stats["down"] = max(stats["down"], r - cr)
                    stats["left"] = max(stats["left"], cc - c)
                    stats["right"] = max(stats["right"], c - cc)
        exchanges = game.legal_exchanges() if game.bag.tiles else []
        if policy == "greedy" and placements:
            best = max(p for _, p in placements)
            items = rng.choice([i for i, p in placements if p == best])
            game.apply_placement(list(items))
            continue
        n_moves = len(placements) + len(exchanges)
        k = rng.randrange(n_moves)
        if k < len(placements):
            game.apply_placement(list(placements[k][0]))
        else:
            game.apply(exchanges[k - len(placements)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10000, help="games in all (default 10000)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows = []
    configs = [(policy, n) for policy in ("random", "greedy") for n in (2, 3, 4)]
    per = max(1, args.games // len(configs))
    overall = {"up": 0, "down": 0, "left": 0, "right": 0}
    max_dim = 0
    for policy, n in configs:
        stats = {"height": Counter(), "width": Counter(), "up": 0, "down": 0, "left": 0, "right": 0}
        start = time.perf_counter()
        for _ in tqdm(range(per), desc=f"{policy} {n}p", leave=False):
            play_and_measure(Game(n, seed=rng.randrange(2**63)), policy, rng, stats)
        dims = stats["height"] + stats["width"]
        biggest = max(dims)
        max_dim = max(max_dim, biggest)
        p99 = sorted(dims.elements())[int(0.99 * sum(dims.values()))]
        reach = max(stats[k] for k in ("up", "down", "left", "right"))
        for k in overall:
            overall[k] = max(overall[k], stats[k])
        rows.append((policy, n, per, biggest, p99, reach, time.perf_counter() - start))
    print(f"{'players':<8}{'n':>3}{'games':>7}{'max box side':>14}{'p99 side':>10}"
          f"{'max reach':>11}{'time s':>8}")  # fmt: skip
    for policy, n, games, biggest, p99, reach, secs in rows:
        print(f"{policy:<8}{n:>3}{games:>7}{biggest:>14}{p99:>10}{reach:>11}{secs:>8.1f}")
    need = max(2 * overall["up"], 2 * overall["left"], 2 * overall["down"] + 1,
               2 * overall["right"] + 1)  # fmt: skip
    print(f"reach from the box centre: {overall}; smallest window holding every legal move: {need}")


if __name__ == "__main__":
    main()
