"""The batched move simulator's state: N games as plain arrays, one row per game.

Like ``state.py``'s, but for whole turns: no window, no sub-step, and the frontier kept in
the order its cells joined it, as the engine's ``Board`` keeps it, because that order is
the order of the move list. Each table lies on a ``GRID x GRID`` square of cell codes
(0 empty, 1 + t a tile of type t, -1 an empty frontier cell), its cell (0, 0) at
(``BASE``, ``BASE``): a table is connected and holds at most 108 tiles, so no cell of it,
nor any walk past it, reaches within 13 cells of the square's edge, and the table never
has to move.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..move_mode import observation_size
from ..spec import HAND_SIZE, MAX_PLAYERS, NUM_TILES, NUM_TYPES, REWARD_MODES
from .mt19937 import new_generators

GRID = 256
BASE = GRID // 2
FRONT = -1  # the code of an empty cell on the frontier
MAX_FRONT = 448  # empty cells touching the table: at most 4 per tile
MOVE_WIDTH = 2 + 2 * HAND_SIZE  # a kept move: [tiles (minus: exchanged), points, cell, tile...]

# cfg entries
C_PLAYERS, C_REWARD, C_STRICT, C_ROWS = 0, 1, 2, 3
REWARD_CODES = {mode: code for code, mode in enumerate(REWARD_MODES)}

MoveState = namedtuple(
    "MoveState",
    [
        "cfg",  # int64[4]: players, reward code, strict opening, K
        "grid",  # int16[N, GRID*GRID] cell codes
        "box",  # int64[N, 4] min row, max row, min col, max col (grid coordinates)
        "tiles",  # int64[N] tiles on the table
        "counts",  # int64[N, 36] copies of each type on the table
        "front",  # int64[N, MAX_FRONT] frontier cells (flat grid index), in joining order
        "fit",  # int64[N, MAX_FRONT] types that fit each alone (both axes)
        "n_front",  # int64[N]
        "bag",  # int8[N, 108] draw order: the next tile is the last
        "bag_n",  # int64[N]
        "hands",  # int8[N, 4, 6] sorted
        "hand_n",  # int64[N, 4]
        "scores",  # int64[N, 4]
        "current",  # int64[N] seat to move
        "opening",  # int64[N] size of the forced opening, 0 once played
        "over",  # bool[N]
        "rng",  # uint32[N, 624] the game's generator (bag, first player, exchanges)
        "rng_pos",  # int64[N]
        "seeder",  # uint32[N, 624] the slot's generator: each new game's seed
        "seeder_pos",  # int64[N]
        "game_seed",  # int64[N]
        "key",  # int64[N, 2] room for a game seed's two 32-bit words
        "obs",  # float32[N, 86 + K*28] the move mode's observation, from the seat to move
        "mask",  # int8[N, K]
        "n_rows",  # int64[N] rows shown (the mask's ones)
        "cut",  # int64[N] legal moves left out of this turn's rows
        "moves",  # int32[N, K, MOVE_WIDTH] the move behind each row
        "rewards",  # float64[N, 4] this step's reward to each seat
        "done",  # bool[N] the game ended in this step
        "final_scores",  # int64[N, 4] scores of the game that ended in this step
    ],
)


def allocate(n: int, players: int, reward: str, strict: bool, max_moves: int) -> MoveState:
    rng, rng_pos = new_generators(n)
    seeder, seeder_pos = new_generators(n)
    z = np.zeros
    return MoveState(
        cfg=np.array([players, REWARD_CODES[reward], int(strict), max_moves], dtype=np.int64),
        grid=z((n, GRID * GRID), np.int16),
        box=z((n, 4), np.int64),
        tiles=z(n, np.int64),
        counts=z((n, NUM_TYPES), np.int64),
        front=z((n, MAX_FRONT), np.int64),
        fit=z((n, MAX_FRONT), np.int64),
        n_front=z(n, np.int64),
        bag=z((n, NUM_TILES), np.int8),
        bag_n=z(n, np.int64),
        hands=z((n, MAX_PLAYERS, HAND_SIZE), np.int8),
        hand_n=z((n, MAX_PLAYERS), np.int64),
        scores=z((n, MAX_PLAYERS), np.int64),
        current=z(n, np.int64),
        opening=z(n, np.int64),
        over=z(n, np.bool_),
        rng=rng,
        rng_pos=rng_pos,
        seeder=seeder,
        seeder_pos=seeder_pos,
        game_seed=z(n, np.int64),
        key=z((n, 2), np.int64),
        obs=z((n, observation_size(max_moves)), np.float32),
        mask=z((n, max_moves), np.int8),
        n_rows=z(n, np.int64),
        cut=z(n, np.int64),
        moves=z((n, max_moves, MOVE_WIDTH), np.int32),
        rewards=z((n, MAX_PLAYERS), np.float64),
        done=z(n, np.bool_),
        final_scores=z((n, MAX_PLAYERS), np.int64),
    )


__all__ = ["BASE", "FRONT", "GRID", "MAX_FRONT", "MOVE_WIDTH", "MoveState", "allocate"]
