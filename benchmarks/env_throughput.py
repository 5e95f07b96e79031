"""Agent-steps and turns per second through the AEC API, in both action modes, next to
PettingZoo's connect four and chess.

Every env runs the same loop a user would write: ``last()``, sample uniformly from the
mask (``mask.view(bool).nonzero()[0]``), ``step``, and ``step(None)`` for finished agents.
A tile-mode turn is several sub-steps; a move-mode step is one whole turn, its candidate
rows and their features computed. One process, one core. Prints one table. The default
clock is this process's CPU time, so other jobs on a shared machine don't skew it;
``--clock wall`` for elapsed time.

    python benchmarks/env_throughput.py --seconds 10

Connect four and chess need ``pip install -e ".[bench]"`` (pygame, chess); without them
their rows are left out, and the ratio column says so.
"""

from __future__ import annotations

import argparse
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time per row (default 10)")
    parser.add_argument(
        "--clock",
        choices=("cpu", "wall"),
        default="cpu",
        help="cpu: this process's CPU time, steady on a shared machine (default); wall: elapsed",
    )
    args = parser.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    warnings.simplefilter("ignore")

    from qwirkle_env import env, raw_env
    from qwirkle_env.spec import DEFAULT_WINDOW

    rows = []
    for n in (2, 3, 4):
        rows.append((f"qwirkle_v0 raw_env, {n} players", lambda n=n: raw_env(num_players=n)))
    for n in (2, 3, 4):
        rows.append((f"qwirkle_v0 env() wrapped, {n} players", lambda n=n: env(num_players=n)))
    for n in (2, 3, 4):
        rows.append(
            (
                f"moves mode raw_env, {n} players",
                lambda n=n: raw_env(num_players=n, action_mode="moves"),
            )
        )
    try:
        from pettingzoo.classic import chess_v6, connect_four_v3

        rows.append(("connect_four_v3 env()", connect_four_v3.env))
        rows.append(("chess_v6 env()", chess_v6.env))
    except ImportError as err:
        print(f"(PettingZoo classic games unavailable: {err}; pip install -e '.[bench]')")

    results = [(name, *measure(make, args.seconds, clock)) for name, make in rows]
    reference = {name: sps for name, sps, _, _, _ in results}
    c4 = reference.get("connect_four_v3 env()")
    print(
        f"window W = {DEFAULT_WINDOW}, mask length {36 * DEFAULT_WINDOW**2 + 37}, "
        f"{args.clock} clock, random legal sub-steps through last()/step()"
    )
    head = f"{'env':<36}{'agent-steps/s':>15}{'turns/s':>10}{'games/s':>10}{'steps':>9}"
    print(head + f"{'x connect four':>16}")
    for name, sps, tps, gps, steps in results:
        ratio = f"{sps / c4:.1f}" if c4 else "n/a"
        turns = f"{tps:,.0f}" if tps else "n/a"
        print(f"{name:<36}{sps:>15,.0f}{turns:>10}{gps:>10.1f}{steps:>9}{ratio:>16}")


if __name__ == "__main__":
    main()
