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

from ...rows.table import observation_size
from ...spec import HAND_SIZE, NUM_TYPES
from ..batch import GENERATOR_FIELDS, RESULT_FIELDS, SEAT_FIELDS, game_arrays
from ..kernels import REWARD_CODES

GRID = 256
BASE = GRID // 2
FRONT = -1  # the code of an empty cell on the frontier
MAX_FRONT = 448  # empty cells touching the table: at most 4 per tile
MOVE_WIDTH = 2 + 2 * HAND_SIZE  # a kept move: [tiles (minus: exchanged), points, cell, tile...]

# cfg entries
C_PLAYERS, C_REWARD, C_STRICT, C_ROWS = 0, 1, 2, 3

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
        *SEAT_FIELDS,  # batch.py: bag, hands, scores, seat to move, opening, over
        *GENERATOR_FIELDS,  # batch.py: the game's and the slot's generators, the seed
        "obs",  # float32[N, 86 + K*28] the move mode's observation, from the seat to move
        "mask",  # int8[N, K]
        "n_rows",  # int64[N] rows shown (the mask's ones)
        "cut",  # int64[N] legal moves left out of this turn's rows
        "moves",  # int32[N, K, MOVE_WIDTH] the move behind each row
        *RESULT_FIELDS,  # batch.py: rewards, done, final scores
    ],
)


def allocate(n: int, players: int, reward: str, strict: bool, max_moves: int) -> MoveState:
    z = np.zeros
    return MoveState(
        **game_arrays(n),
        cfg=np.array([players, REWARD_CODES[reward], int(strict), max_moves], dtype=np.int64),
        grid=z((n, GRID * GRID), np.int16),
        box=z((n, 4), np.int64),
        tiles=z(n, np.int64),
        counts=z((n, NUM_TYPES), np.int64),
        front=z((n, MAX_FRONT), np.int64),
        fit=z((n, MAX_FRONT), np.int64),
        n_front=z(n, np.int64),
        obs=z((n, observation_size(max_moves)), np.float32),
        mask=z((n, max_moves), np.int8),
        n_rows=z(n, np.int64),
        cut=z(n, np.int64),
        moves=z((n, max_moves, MOVE_WIDTH), np.int32),
    )


__all__ = ["BASE", "FRONT", "GRID", "MAX_FRONT", "MOVE_WIDTH", "MoveState", "allocate"]
