"""Speed of the rules engine: move generation and whole games. Prints one table.

    python benchmarks/engine.py                       # defaults: about a minute
    python benchmarks/engine.py --positions 10000 --greedy-games 3000

Rows:
- move generation on mid-game positions (moves 10 to 40 of 2-player games between random
  placers), each call timed alone, side by side: the Python generator
  (``placements.grown_placements``, what ``Board.placements_with_points`` ran before the
  compiled one), the public ``Board.placements_with_points(hand_mask)`` (compiled, Python
  tuples), ``Board.placement_rows(hand_mask)`` (compiled, one int64 array) and
  ``Board.top_placement_rows(hand_mask)`` (only the rows scoring the most), then
  ``Board.legal_placements(tiles)`` (sorted Tile tuples) and ``Game.legal_moves()``
  (placements and exchanges);
- 2-player games per second, whole games from ``Game(2, seed)`` to the end:
  * random: uniform over ``Game.legal_moves()``, placements and exchanges alike;
  * greedy: the placement with the highest immediate score, ties broken uniformly at
    random; when no tile fits it exchanges its whole hand (as many tiles as the bag
    holds). Four ways, the same games: from the Python generator, from
    ``Game.placements_with_points`` (moves through ``Game.apply``), from
    ``Game.placement_rows`` and from ``Game.top_placement_rows`` (moves through
    ``Game.apply_placement``);
- the compiled greedy playout (``qwirkle_env/vector/tiles/playout.py``): whole greedy games in
  one kernel call, the simulator's rules and the compiled generator;
- the first moves in a fresh process (the opening's list, its play, the next list: the
  compiled generator and the board's kernels): compiling (an empty numba cache) and
  loading from the cache.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from qwirkle_env import Exchange, Game, Placement
from qwirkle_env.engine.lines import mask_of
from qwirkle_env.engine.placements import (
    WIDTH,
    grown_placements,
    opening_placements,
    row_items,
)
from qwirkle_env.vector import VectorQwirkle
from qwirkle_env.vector.tiles.playout import greedy_games


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


def time_calls(positions: list[Game], calls: list) -> list[list[float]]:
    """Microseconds per call, one call of each kind per position, the kinds in turn on each
    position: a shared machine's drift then weighs on every kind alike, and the ratios
    between them hold."""
    out: list[list[float]] = [[] for _ in calls]
    for game in positions:
        for times, call in zip(out, calls, strict=True):
            start = clock()
            call(game)
            times.append((clock() - start) * 1e6)
    return out


def random_move(game: Game, rng: random.Random):
    return rng.choice(game.legal_moves())


def greedy_move(game: Game, rng: random.Random):
    found = game.placements_with_points()
    if found:
        best = max(points for _, points in found)
        items = rng.choice([items for items, points in found if points == best])
        return Placement.of_ids(items)
    hand = game.hand()
    return Exchange(hand[: len(game.bag)])


def python_greedy_move(game: Game, rng: random.Random):
    """greedy_move on the Python generator: Game.placements_with_points as it was."""
    hand = mask_of(game.hands[game.current])
    if len(game.board):
        found = grown_placements(game.board.frontier, hand)
    else:
        found = [p for p in opening_placements(hand) if len(p[0]) == game.opening_size]
    if found:
        best = max(points for _, points in found)
        items = rng.choice([items for items, points in found if points == best])
        return Placement.of_ids(items)
    hand = game.hand()
    return Exchange(hand[: len(game.bag)])


def rows_greedy_move(game: Game, rng: random.Random):
    """greedy_move on Game.placement_rows: the same choice, the same RNG draws."""
    rows = game.placement_rows()
    if len(rows):
        points = rows[:, 1]
        best = np.flatnonzero(points == points.max())
        return ("place", row_items(rows[best[rng.randrange(len(best))]]))
    return ("exchange", game.hands[game.current][: len(game.bag)])


def top_greedy_move(game: Game, rng: random.Random):
    """greedy_move on Game.top_placement_rows (only the ties are listed): the same choice,
    the same RNG draws."""
    rows = game.top_placement_rows()
    if len(rows):
        return ("place", row_items(rows[rng.randrange(len(rows))]))
    return ("exchange", game.hands[game.current][: len(game.bag)])


def first_call_seconds(cache_dir: str) -> float:
    """Seconds for the first placement list in a fresh process with this numba cache."""
    code = (  # the opening's list, its play and the next list: each kernel a game calls
        "import time; from qwirkle_env import Game; g = Game(2, seed=1);"
        "t = time.perf_counter(); g.apply_placement(list(g.placements_with_points()[0][0]));"
        "g.placements_with_points(); print(time.perf_counter() - t)"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    return float(out.stdout.split()[-1])


def play_games(policy, games: int, seed: int) -> tuple[list[float], int]:
    """Seconds per game and total moves for ``games`` 2-player games of policy vs itself."""
    times = []
    moves = 0
    for i in range(games):
        rng = random.Random(seed + i)
        start = clock()
        game = Game(2, seed=seed + i)
        while not game.over:
            move = policy(game, rng)
            if isinstance(move, tuple):  # (kind, ids) through the id-level API
                if move[0] == "place":
                    game.apply_placement(move[1], trusted=True)
                else:
                    game.apply_exchange(move[1])
            else:
                game.apply(move)
            moves += 1
        times.append(clock() - start)
    return times, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=3000, help="mid-game positions")
    parser.add_argument("--random-games", type=int, default=150, help="random-vs-random games")
    parser.add_argument("--greedy-games", type=int, default=1000, help="greedy-vs-greedy games")
    parser.add_argument(
        "--playout-games", type=int, default=3000, help="compiled greedy playout games"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--skip-compile", action="store_true", help="skip the first-call compile rows"
    )
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
    # Warm up, then time each kind of call over the same positions. The Python generator
    # reads the frontier dict, which a board brings up to date when it is first read after
    # the kernel's placements: read it once here, so that its row times the generator.
    _ = [game.board.frontier for game in positions]
    for game in positions[:50]:
        game.board.legal_placements(hands[id(game)])
        game.board.placement_rows(masks[id(game)])
        game.legal_moves()
    rows = []
    calls = [
        (
            "Python generator (placements.py)",
            lambda g: grown_placements(g.board.frontier, masks[id(g)]),
        ),
        (
            "Board.placements_with_points(hand_mask)",
            lambda g: g.board.placements_with_points(masks[id(g)]),
        ),
        ("Board.placement_rows(hand_mask)", lambda g: g.board.placement_rows(masks[id(g)])),
        (
            "Board.top_placement_rows(hand_mask)",
            lambda g: g.board.top_placement_rows(masks[id(g)]),
        ),
        ("Board.legal_placements(tiles)", lambda g: g.board.legal_placements(hands[id(g)])),
        ("Game.legal_moves()", lambda g: g.legal_moves()),
    ]
    sizes = [len(g.board.placement_rows(masks[id(g)])) for g in positions]
    medians = {}
    timed = time_calls(positions, [call for _, call in calls])
    for (name, _), us in zip(calls, timed, strict=True):
        medians[name] = statistics.median(us)
        target = ok = note = ""
        if name.startswith(("Board.placement", "Board.top")):
            speedup = medians["Python generator (placements.py)"] / medians[name]
            note = f"{speedup:.1f}x the Python generator"
            if name.startswith("Board.placement_rows"):
                target = "median <= 25, >= 10x"
                ok = "yes" if medians[name] <= 25 and speedup >= 10 else "NO"
        elif name.startswith("Python"):
            note = f"{statistics.mean(sizes):.0f} placements/position"
        rows.append((name, len(us), statistics.mean(us), medians[name], "us/call",
                     target, ok, note))  # fmt: skip

    # The target is for the array API (the documented public functions greedy agents and
    # search read); the tuple list with Tile moves checked in full by Game.apply is shown
    # beside it, for readers of the whole list.
    tuples = ", Python tuples, Game.apply checks"
    for name, policy, games, target, extra in [
        ("random vs random, 2 players", random_move, args.random_games, None, ""),
        ("greedy, Python generator", python_greedy_move, args.greedy_games, None, ""),
        ("greedy, Game.placements_with_points", greedy_move, args.greedy_games, None, tuples),
        ("greedy, Game.placement_rows", rows_greedy_move, args.greedy_games, 1000.0, ""),
        ("greedy, Game.top_placement_rows", top_greedy_move, args.greedy_games, 1000.0, ""),
    ]:
        times, moves = play_games(policy, games, args.seed + 10_000)
        rate = len(times) / sum(times)
        rows.append((name, len(times), rate, 1 / statistics.median(times), "games/s",
                     f">= {target:.0f}" if target else "",
                     ("yes" if rate >= target else "NO") if target else "",
                     f"{moves / len(times):.0f} moves/game{extra}"))  # fmt: skip

    # The compiled greedy playout: whole games in one kernel call (vector/playout.py).
    sim = VectorQwirkle(1, num_players=2)
    sim.reset(seed=args.seed)
    out = np.empty((512, WIDTH), np.int64)
    greedy_games(sim.state, 0, 1, 1, out)  # compiled (or loaded from the cache) here
    start = clock()
    turns = greedy_games(sim.state, 0, 1, args.playout_games, out)
    seconds = clock() - start
    rate = args.playout_games / seconds
    rows.append(("greedy, compiled playout (vector/playout.py)", args.playout_games, rate, rate,
                 "games/s", ">= 3000", "yes" if rate >= 3000 else "NO",
                 f"{turns / args.playout_games:.0f} turns/game"))  # fmt: skip

    if not args.skip_compile:
        with tempfile.TemporaryDirectory() as cache:
            compiled = first_call_seconds(cache)  # an empty cache: compiles, then saves
            cached = first_call_seconds(cache)
        for name, seconds in [("first call, compiling", compiled), ("first call, cached", cached)]:
            rows.append((name, 1, seconds, seconds, "s (wall)", "", "", "fresh process"))

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
