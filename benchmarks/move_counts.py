"""How many legal moves does a position have? Picks the whole-move mode's row count K.

Plays games on the engine with every baseline (random, greedy, heuristic; every seat the
same agent), 2 to 4 players, and counts the legal moves (placements and distinct
exchanges) of the player to move at every turn. Prints the distribution per configuration
and, for candidate K, how many positions had more moves than K.

    python benchmarks/move_counts.py --games 10000

Games run in a shuffled order, so a run stopped early (``--partial N`` writes the table
every N games) still covers every configuration evenly.
"""

from __future__ import annotations

import argparse
import random
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from tqdm import tqdm

from agents.registry import make_agent
from qwirkle_env import Game
from qwirkle_env.engine.hand import distinct_exchanges
from qwirkle_env.view import PlayerView

CANDIDATE_K = (64, 128, 192, 256, 384, 512)


def count_moves(game: Game) -> int:
    placements = len(game.placements_with_points())
    if game.opening_size is None and len(game.bag):
        return placements + len(distinct_exchanges(game.hands[game.current], len(game.bag)))
    return placements


def play_one(job: tuple[str, int, int]) -> list[int]:
    """The move counts of every turn of one game."""
    policy, players, seed = job
    game = Game(players, seed)
    agents = [make_agent(policy) for _ in range(players)]
    for seat, agent in enumerate(agents):
        agent.reset(seat, players, seed * 10 + seat)
    counts = []
    while not game.over:
        counts.append(count_moves(game))
        game.apply(agents[game.current].choose(PlayerView.of(game, game.current)))
    return counts


def table(found: dict, played: dict, seconds: float) -> str:
    """The distribution per configuration and in all, as a Markdown table."""
    rows, everything = [], []
    for (policy, n), counts in found.items():
        everything += counts
        rows.append((f"{policy}, {n} players", played[(policy, n)], np.array(counts)))
    rows.append(("all", sum(played.values()), np.array(everything)))
    out = [f"{sum(played.values())} games in {seconds:.0f} s", ""]
    head = "| games | configuration | positions | mean | p99 | p99.9 | max |"
    out += [head + "".join(f" > {k} |" for k in CANDIDATE_K)]
    out += ["|" + "---|" * (7 + len(CANDIDATE_K))]
    for name, games, c in rows:
        if not len(c):
            continue
        line = f"| {games} | {name} | {len(c)} | {c.mean():.1f} | {np.percentile(c, 99):.0f} |"
        line += f" {np.percentile(c, 99.9):.0f} | {c.max()} |"
        line += "".join(f" {int((c > k).sum())} |" for k in CANDIDATE_K)
        out.append(line)
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10000, help="games in all (default 10000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--partial", type=int, default=0, help="write the table every N games")
    parser.add_argument("--partial-file", default="runs/move_counts_partial.md")
    args = parser.parse_args()
    configs = [(policy, n) for policy in ("random", "greedy", "heuristic") for n in (2, 3, 4)]
    per = max(1, args.games // len(configs))
    rng = random.Random(args.seed)
    jobs = [(policy, n, rng.randrange(2**31)) for policy, n in configs for _ in range(per)]
    rng.shuffle(jobs)
    found: dict[tuple, list[int]] = {config: [] for config in configs}
    played = dict.fromkeys(configs, 0)
    start = time.perf_counter()
    with Pool(args.processes) as pool:
        done = pool.imap(play_one, jobs, chunksize=4)
        bar = tqdm(zip(jobs, done, strict=True), total=len(jobs), desc="games")
        for k, ((policy, n, _), counts) in enumerate(bar, 1):
            found[(policy, n)] += counts
            played[(policy, n)] += 1
            if args.partial and k % args.partial == 0:
                partial = table(found, played, time.perf_counter() - start)
                Path(args.partial_file).parent.mkdir(parents=True, exist_ok=True)
                Path(args.partial_file).write_text(partial)
    print(table(found, played, time.perf_counter() - start))


if __name__ == "__main__":
    main()
