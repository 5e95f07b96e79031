"""Agent-steps and turns per second through the AEC API, in both action modes, next to
PettingZoo's connect four and chess.

Every env runs the same loop a user would write: ``last()``, sample uniformly from the
mask (``mask.view(bool).nonzero()[0]``), ``step``, and ``step(None)`` for finished agents.
A tile-mode turn is several sub-steps; a move-mode step is one whole turn, its candidate
rows and their features computed. One process, one core. Prints one table. The default
clock is this process's CPU time, so other jobs on a shared machine don't skew it;
``--clock wall`` for elapsed time.

The move mode runs twice, side by side: with the rows the env computes
(``candidates.move_rows``, compiled) and with the Python reference
(``candidates.reference_move_rows``, what the env ran before). Its µs/row column times the
two row builders alone on the positions of seeded random games (``--row-games`` per
player count; the same positions for both).

    python benchmarks/env_throughput.py --seconds 10
    python benchmarks/env_throughput.py --only moves --seconds 10   # the move mode's rows

Connect four and chess need ``pip install -e ".[bench]"`` (pygame, chess); without them
their rows are left out, and the ratio column says so.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import time
import warnings

import numpy as np


def measure(make, seconds: float, clock, seed: int = 0) -> tuple[float, float, float, int]:
    """(agent-steps/s, turns/s, games/s, steps) for random legal play for about ``seconds``;
    turns are counted in finished games."""
    env = make()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps = games = turns = 0
    start = clock()
    deadline = start + seconds
    while True:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            if not env.agents:
                games += 1
                game = getattr(env, "game", None) or env.unwrapped.game
                turns += len(game.history)
                if clock() > deadline:
                    break
                env.reset()
            continue
        legal = obs["action_mask"].view(bool).nonzero()[0]
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    elapsed = clock() - start
    return steps / elapsed, turns / elapsed, games / elapsed, steps


@contextlib.contextmanager
def python_rows():
    """The move mode with its rows from the Python reference, as before the compiled rows."""
    from qwirkle_env.rows import reference, table

    compiled = table.move_rows
    table.move_rows = reference.reference_move_rows
    try:
        yield
    finally:
        table.move_rows = compiled


def row_builders(num_players: int, games: int, clock) -> tuple[float, float]:
    """µs per row of (the Python reference, the compiled rows) over every position of
    seeded random games: the reference reads the engine's placement tuples, as the env
    did before, the compiled rows its arrays; each position is built once per builder."""
    from qwirkle_env import Game
    from qwirkle_env.rows import move_rows, reference_move_rows
    from qwirkle_env.rows.position import Position

    tuples, arrays = [], []
    for seed in range(games):
        rng = random.Random(seed)
        game = Game(num_players, seed=seed)
        while not game.over:
            snap = game.clone()  # the table as it is now, for both builders
            arrays.append(Position.of_game(snap))
            tuples.append(Position(
                snap.board, list(snap.hands[snap.current]), snap.current, list(snap.scores),
                [len(h) for h in snap.hands], len(snap.bag), snap.placements_with_points(),
                snap.opening_size is None and len(snap.bag) > 0,
            ))  # fmt: skip
            moves = game.legal_moves()
            game.apply(moves[rng.randrange(len(moves))])
    costs = []
    for build, positions in ((reference_move_rows, tuples), (move_rows, arrays)):
        start = clock()
        rows = sum(len(build(pos)) for pos in positions)
        costs.append((clock() - start) / rows * 1e6)
    return costs[0], costs[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time per row (default 10)")
    parser.add_argument(
        "--clock",
        choices=("cpu", "wall"),
        default="cpu",
        help="cpu: this process's CPU time, steady on a shared machine (default); wall: elapsed",
    )
    parser.add_argument(
        "--only",
        choices=("all", "tiles", "moves"),
        default="all",
        help="which rows: all (default), the tile mode and PettingZoo's games, the move mode",
    )
    parser.add_argument(
        "--row-games",
        type=int,
        default=20,
        help="seeded random games per player count whose positions time the row builders",
    )
    args = parser.parse_args()
    if args.seconds <= 0 or args.row_games < 1:
        parser.error("--seconds must be > 0 and --row-games >= 1")
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    warnings.simplefilter("ignore")

    from qwirkle_env import env, raw_env
    from qwirkle_env.spec import DEFAULT_WINDOW

    rows = []  # (name, make, Python rows?, µs per row)
    if args.only in ("all", "tiles"):
        for n in (2, 3, 4):
            rows.append((f"qwirkle_v0 raw_env, {n} players", lambda n=n: raw_env(num_players=n)))
        for n in (2, 3, 4):
            rows.append((f"qwirkle_v0 env() wrapped, {n} players", lambda n=n: env(num_players=n)))
    if args.only in ("all", "moves"):
        for n in (2, 3, 4):
            python_us, compiled_us = row_builders(n, args.row_games, clock)
            make = lambda n=n: raw_env(num_players=n, action_mode="moves")  # noqa: E731
            rows.append((f"moves mode raw_env, {n} players, Python rows", make, True, python_us))
            rows.append((f"moves mode raw_env, {n} players", make, False, compiled_us))
        for n in (2, 3, 4):  # the look two moves ahead at the 16 best rows (recipes' default)
            make = lambda n=n: raw_env(num_players=n, action_mode="moves", look_ahead=16)  # noqa: E731
            rows.append((f"moves mode, look_ahead=16, {n} players", make, False, None))
    rows = [row if len(row) == 4 else (*row, False, None) for row in rows]
    if args.only in ("all", "tiles"):
        try:
            from pettingzoo.classic import chess_v6, connect_four_v3

            rows.append(("connect_four_v3 env()", connect_four_v3.env, False, None))
            rows.append(("chess_v6 env()", chess_v6.env, False, None))
        except ImportError as err:
            print(f"(PettingZoo classic games unavailable: {err}; pip install -e '.[bench]')")

    results = []
    for name, make, python, per_row in rows:
        with python_rows() if python else contextlib.nullcontext():
            results.append((name, *measure(make, args.seconds, clock), per_row))
    reference = {name: sps for name, sps, *_ in results}
    c4 = reference.get("connect_four_v3 env()")
    print(
        f"window W = {DEFAULT_WINDOW}, mask length {36 * DEFAULT_WINDOW**2 + 37}, "
        f"{args.clock} clock, random legal sub-steps through last()/step(); µs/row: the "
        f"move rows alone, over {args.row_games} random games per player count"
    )
    head = f"{'env':<46}{'agent-steps/s':>15}{'turns/s':>10}{'games/s':>10}{'steps':>9}"
    print(head + f"{'µs/row':>8}{'x connect four':>16}")
    for name, sps, tps, gps, steps, per_row in results:
        ratio = f"{sps / c4:.1f}" if c4 else "n/a"
        turns = f"{tps:,.0f}" if tps else "n/a"
        cost = f"{per_row:.2f}" if per_row is not None else ""
        print(f"{name:<46}{sps:>15,.0f}{turns:>10}{gps:>10.1f}{steps:>9}{cost:>8}{ratio:>16}")


if __name__ == "__main__":
    main()
