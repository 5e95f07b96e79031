"""Speed of the rules engine: move generation and whole games. Prints one table.

    python benchmarks/engine.py                       # defaults: about half a minute
    python benchmarks/engine.py --positions 10000 --greedy-games 3000

Rows:
- move generation on mid-game positions (moves 10 to 40 of 2-player games between random
  placers), each call timed alone: the public ``Board.legal_placements(tiles)`` (sorted
  Tile tuples), the internal ``Board.placements_with_points(hand_mask)`` (what the env and the
  agents use) and the full ``Game.legal_moves()`` (placements and exchanges);
- 2-player games per second, whole games from ``Game(2, seed)`` to the end:
  * random: uniform over ``Game.legal_moves()``, placements and exchanges alike;
  * greedy: the placement with the highest immediate score (from ``Game.placements_with_points``,
    which carries the points), ties broken uniformly at random; when no tile fits it
    exchanges its whole hand (as many tiles as the bag holds). Moves go through the public
    ``Game.apply``.

Targets (2-core machine): legal_placements median <= 300 us, greedy >= 30 games/s.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time

from qwirkle_env import Exchange, Game, Placement, Tile
from qwirkle_env.engine.lines import mask_of


def mid_game_positions(count: int, seed: int) -> list[Game]:
    """Positions at moves 10..40 of 2-player games between random placers."""
    rng = random.Random(seed)
    positions: list[Game] = []
    game_seed = seed
    while len(positions) < count:
        game = Game(2, seed=game_seed)
        game_seed += 1
        keep = set(rng.sample(range(10, 41), 8))
        move = 0
        while not game.over and move <= 40:
            if move in keep:
                positions.append(game.clone())
            found = game.placements_with_points()
            if found:
                game.apply_placement(list(rng.choice(found)[0]))
            else:
                hand = game.hands[game.current]
                game.apply_exchange(hand[: min(len(hand), len(game.bag))])
            move += 1
    return positions[:count]


CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
clock = CLOCKS["cpu"]


def time_calls(positions: list[Game], call) -> list[float]:
    """Microseconds per call, one call per position."""
    out = []
    for game in positions:
        start = clock()
        call(game)
        out.append((clock() - start) * 1e6)
    return out


def random_move(game: Game, rng: random.Random):
    return rng.choice(game.legal_moves())


def greedy_move(game: Game, rng: random.Random):
    found = game.placements_with_points()
    if found:
        best = max(points for _, points in found)
        items = rng.choice([items for items, points in found if points == best])
        return Placement((cell, Tile.from_id(t)) for cell, t in items)
    hand = game.hand()
    return Exchange(hand[: len(game.bag)])


def play_games(policy, games: int, seed: int) -> tuple[list[float], int]:
    """Seconds per game and total moves for ``games`` 2-player games of policy vs itself."""
    times = []
    moves = 0
    for i in range(games):
        rng = random.Random(seed + i)
        start = clock()
        game = Game(2, seed=seed + i)
        while not game.over:
            game.apply(policy(game, rng))
            moves += 1
        times.append(clock() - start)
    return times, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=3000, help="mid-game positions")
    parser.add_argument("--random-games", type=int, default=150, help="random-vs-random games")
    parser.add_argument("--greedy-games", type=int, default=1000, help="greedy-vs-greedy games")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="cpu",
        help="cpu: this process's CPU time, steady on a shared machine (default); wall: elapsed",
    )
    args = parser.parse_args()
    global clock
    clock = CLOCKS[args.clock]

    positions = mid_game_positions(args.positions, args.seed)
    hands = {id(g): g.hand() for g in positions}
    masks = {id(g): mask_of(g.hands[g.current]) for g in positions}
    # Warm up, then time each kind of call over the same positions.
    for game in positions[:50]:
        game.board.legal_placements(hands[id(game)])
        game.legal_moves()
    rows = []
    calls = [
        ("Board.legal_placements(tiles)", lambda g: g.board.legal_placements(hands[id(g)])),
        (
            "Board.placements_with_points(hand_mask)",
            lambda g: g.board.placements_with_points(masks[id(g)]),
        ),
        ("Game.legal_moves()", lambda g: g.legal_moves()),
    ]
    sizes = [len(g.board.legal_placements(hands[id(g)])) for g in positions]
    for name, call in calls:
        us = time_calls(positions, call)
        target = "median <= 300" if name.startswith("Board.legal") else ""
        ok = ("yes" if statistics.median(us) <= 300 else "NO") if target else ""
        note = f"{statistics.mean(sizes):.0f} placements/position" if "tiles" in name else ""
        rows.append((name, len(us), statistics.mean(us), statistics.median(us), "us/call",
                     target, ok, note))  # fmt: skip

    for name, policy, games, target in [
        ("random vs random, 2 players", random_move, args.random_games, None),
        ("greedy vs greedy, 2 players", greedy_move, args.greedy_games, 30.0),
    ]:
        times, moves = play_games(policy, games, args.seed + 10_000)
        rate = len(times) / sum(times)
        rows.append((name, len(times), rate, 1 / statistics.median(times), "games/s",
                     f">= {target:.0f}" if target else "",
                     ("yes" if rate >= target else "NO") if target else "",
                     f"{moves / len(times):.0f} moves/game"))  # fmt: skip

    header = ("measure", "n", "mean", "median", "unit", "target", "met", "note")
    table = [header] + [
        (r[0], str(r[1]), f"{r[2]:.1f}", f"{r[3]:.1f}", r[4], r[5], r[6], r[7]) for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    right = {1, 2, 3}
    print(
        f"qwirkle-env engine, python {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"{args.clock} clock (games/s: mean = games / total time, median = 1 / median game time)"
    )
    for k, row in enumerate(table):
        cells = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        print("  ".join(cells).rstrip())
        if k == 0:
            print("  ".join("-" * w for w in widths))


if __name__ == "__main__":
    main()
