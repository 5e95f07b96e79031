"""What both batched simulators (``VectorQwirkle`` and ``VectorMoves``) share outside
their kernels: the per-game arrays of the seats, the generators and the results (the same
names, shapes and dtypes in both states), the seeds of a reset, the threads that step
disjoint ranges of games, and loading an engine Game's seats, bag and generator into one
slot.

The kernels that step a state stay apart (the few both run, on plain arrays, are
``kernels.py``'s): each state is a namedtuple that numba compiles as its own type
(``tiles.state.State``, ``moves.state.MoveState``), and the two hold different tables. Each
splices the field blocks below in at the same place as before they were shared, so
the tuples, and the numba types and caches, are unchanged.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ..engine.game import Game
from ..spec import HAND_SIZE, MAX_PLAYERS, NUM_TILES
from .mt19937 import N_WORDS, new_generators

SEAT_FIELDS = (
    "bag",  # int8[N, 108] draw order: the next tile is the last
    "bag_n",  # int64[N]
    "hands",  # int8[N, 4, 6] sorted
    "hand_n",  # int64[N, 4]
    "scores",  # int64[N, 4]
    "current",  # int64[N] seat to move
    "opening",  # int64[N] size of the forced opening, 0 once played
    "over",  # bool[N]
)
GENERATOR_FIELDS = (
    "rng",  # uint32[N, 624] the game's generator (bag, first player, exchanges)
    "rng_pos",  # int64[N]
    "seeder",  # uint32[N, 624] the slot's generator: each new game's seed
    "seeder_pos",  # int64[N]
    "game_seed",  # int64[N]
    "key",  # int64[N, 2] room for a game seed's two 32-bit words
)
RESULT_FIELDS = (
    "rewards",  # float64[N, 4] this step's reward to each seat
    "done",  # bool[N] the game ended in this step
    "final_scores",  # int64[N, 4] scores of the game that ended in this step
)


def game_arrays(n: int) -> dict[str, np.ndarray]:
    """The arrays of SEAT_FIELDS, GENERATOR_FIELDS and RESULT_FIELDS for ``n`` games."""
    z = np.zeros
    rng, rng_pos = new_generators(n)
    seeder, seeder_pos = new_generators(n)
    return {
        "bag": z((n, NUM_TILES), np.int8),
        "bag_n": z(n, np.int64),
        "hands": z((n, MAX_PLAYERS, HAND_SIZE), np.int8),
        "hand_n": z((n, MAX_PLAYERS), np.int64),
        "scores": z((n, MAX_PLAYERS), np.int64),
        "current": z(n, np.int64),
        "opening": z(n, np.int64),
        "over": z(n, np.bool_),
        "rng": rng,
        "rng_pos": rng_pos,
        "seeder": seeder,
        "seeder_pos": seeder_pos,
        "game_seed": z(n, np.int64),
        "key": z((n, 2), np.int64),
        "rewards": z((n, MAX_PLAYERS), np.float64),
        "done": z(n, np.bool_),
        "final_scores": z((n, MAX_PLAYERS), np.int64),
    }


def per_game_ints(values: Any, n: int, what: str) -> np.ndarray:
    """``values`` (a step's actions or rows) as one int64 per game; a ValueError names the
    wrong shape or dtype."""
    arr = np.asarray(values)
    if arr.shape != (n,):
        raise ValueError(f"{what} must have shape ({n},), one per game; got {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise ValueError(f"{what} must be integers, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False)


def reset_seeds(seed: Any, n: int, seeded: bool) -> list:
    """Each slot's seed for ``reset(seed)``: an int seeds slot i with ``seed + i`` (as
    gymnasium's vector envs do); a list gives each slot's; None continues each slot's own
    sequence (None each), or draws fresh random seeds the first time."""
    if seed is None:
        if seeded:
            return [None] * n
        sysrand = random.SystemRandom()
        return [sysrand.randrange(2**63) for _ in range(n)]
    if isinstance(seed, int | np.integer) and not isinstance(seed, bool):
        return [int(seed) + i for i in range(n)]
    seeds = list(seed) if isinstance(seed, list | tuple | np.ndarray) else None
    if (
        seeds is None
        or len(seeds) != n
        or not all(isinstance(x, int | np.integer) and not isinstance(x, bool) for x in seeds)
    ):
        raise ValueError(f"seed must be an int, None or a list of {n} ints, got {seed!r}")
    return seeds


class GameThreads:
    """Runs a kernel over every game, split into one range per thread (the kernels release
    the GIL, so the ranges step in parallel)."""

    def __init__(self, num_envs: int, threads: int | None, games_per_thread: int) -> None:
        if threads is None:  # up to the cores, and no thread for fewer games than that
            threads = min(len(os.sched_getaffinity(0)), max(1, num_envs // games_per_thread))
        if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
            raise ValueError(f"threads must be a positive int or None, got {threads!r}")
        self.num_envs = num_envs
        bounds = np.linspace(0, num_envs, min(threads, num_envs) + 1).astype(int)
        self.ranges = [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        self.pool = ThreadPoolExecutor(len(self.ranges)) if len(self.ranges) > 1 else None

    def run(self, kernel: Callable, *args: Any) -> None:
        """``kernel(*args, lo, hi)`` over every game, split across the threads."""
        if self.pool is None:
            kernel(*args, 0, self.num_envs)
            return
        jobs = [self.pool.submit(kernel, *args, lo, hi) for lo, hi in self.ranges]
        for job in jobs:
            job.result()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None


def check_loadable(game: Game, players: int, strict: bool) -> None:
    """A clear error unless ``game`` can continue in a simulator of these settings."""
    if not isinstance(game, Game):
        raise TypeError(f"expected an engine Game, got {game!r}")
    if game.over:
        raise ValueError("the game is over: load a game that still has a move to play")
    if game.num_players != players or game.strict_opening != strict:
        raise ValueError(
            f"the game has {game.num_players} players, strict_opening={game.strict_opening}; "
            f"this simulator plays {players}, strict_opening={strict}"
        )


def load_seats(s: Any, i: int, game: Game) -> None:
    """Slot ``i`` of state ``s`` takes the game's bag, hands, scores, seat to move, opening,
    generator and seed, and no result yet (the table is each simulator's own)."""
    s.bag[i, : len(game.bag.tiles)] = game.bag.tiles
    s.bag_n[i] = len(game.bag.tiles)
    s.hands[i] = 0
    s.hand_n[i] = 0
    s.scores[i] = 0
    for seat in range(game.num_players):
        s.hands[i, seat, : len(game.hands[seat])] = sorted(game.hands[seat])
        s.hand_n[i, seat] = len(game.hands[seat])
        s.scores[i, seat] = game.scores[seat]
    s.current[i] = game.current
    s.opening[i] = game.opening_size or 0
    _, words, _ = game.to_dict()["rng"]  # Python's MT19937: 624 words and a position
    s.rng[i] = np.array(words[:N_WORDS], dtype=np.uint32)
    s.rng_pos[i] = words[N_WORDS]
    s.game_seed[i] = game.seed
    s.over[i] = False
    s.done[i] = False
    s.rewards[i] = 0.0
    s.final_scores[i] = 0
