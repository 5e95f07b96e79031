"""How many legal moves does a position have? Picks the whole-move mode's row count K.

Plays games on the engine with every baseline (random, greedy, heuristic; every seat the
same agent), 2 to 4 players, and counts the legal moves (placements and distinct
exchanges) of the player to move at every turn. Prints the distribution per configuration
and, for candidate K, how often a position had more moves than K.

    python benchmarks/move_counts.py --games 10000
"""

from __future__ import annotations

import argparse
import random
import time
from multiprocessing import Pool

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


def play(policy: str, players: int, seed: int, counts: list[int]) -> None:
    game = Game(players, seed)
    agents = [make_agent(policy) for _ in range(players)]
    for seat, agent in enumerate(agents):
        agent.reset(seat, players, seed * 10 + seat)
    while not game.over:
        counts.append(count_moves(game))
        game.apply(agents[game.current].choose(PlayerView.of(game, game.current)))


def play_one(job: tuple[str, int, int]) -> list[int]:
    policy, n, seed = job
    counts: list[int] = []
    play(policy, n, seed, counts)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10000, help="games in all (default 10000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    configs = [(policy, n) for policy in ("random", "greedy", "heuristic") for n in (2, 3, 4)]
    per = max(1, args.games // len(configs))
    rng = random.Random(args.seed)
    everything: list[int] = []
    rows = []
    start = time.perf_counter()
    jobs = [(policy, n, rng.randrange(2**31)) for policy, n in configs for _ in range(per)]
    found: dict[tuple, list[int]] = {config: [] for config in configs}
    with Pool(args.processes) as pool:
        done = pool.imap(play_one, jobs, chunksize=8)
        for (policy, n, _), counts in tqdm(
            zip(jobs, done, strict=True), total=len(jobs), desc="games"
        ):
            found[(policy, n)] += counts
    for (policy, n), counts in found.items():
        everything += counts
        rows.append((f"{policy}, {n} players", per, np.array(counts)))
    rows.append(("all", per * len(configs), np.array(everything)))
    print(f"\n{per * len(configs)} games in {time.perf_counter() - start:.0f} s\n")
    head = "| games | configuration | positions | mean | p99 | p99.9 | max |"
    head += "".join(f" > {k} |" for k in CANDIDATE_K)
    print(head)
    print("|" + "---|" * (7 + len(CANDIDATE_K)))
    for name, games, c in rows:
        line = f"| {games} | {name} | {len(c)} | {c.mean():.1f} | {np.percentile(c, 99):.0f} |"
        line += f" {np.percentile(c, 99.9):.0f} | {c.max()} |"
        line += "".join(f" {int((c > k).sum())} |" for k in CANDIDATE_K)
        print(line)


if __name__ == "__main__":
    main()
