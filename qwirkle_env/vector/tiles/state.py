"""The batched simulator's state: N games as plain arrays, one row per game.

Every field is an array whose first axis is the game, so compiled kernels can step games
in parallel and Python can read any of them as numpy. Each game keeps its table on a
``grid x grid`` square of cell codes; the table moves back to the middle of that square
whenever it drifts within ``MARGIN`` cells of an edge, so the grid is a view of the
unbounded table, never a limit on it (no table can be wider than 108 tiles, and the
default grid is 128).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...spec import HAND_SIZE, NUM_FEATURES, NUM_TYPES
from ..batch import GENERATOR_FIELDS, RESULT_FIELDS, SEAT_FIELDS, game_arrays
from ..kernels import REWARD_CODES

# Cell codes: 0 empty, 1 + t a tile of type t on the table, 37 + t placed this turn.
EMPTY, TABLE, PLACED = 0, 1, 37
GRID = 128
MARGIN = 8  # the frontier, a placement's reach and the walks past its ends stay inside
MAX_FRONT = 448  # empty cells touching the table: at most 4 per tile

# cfg entries
C_GRID, C_WINDOW, C_PLAYERS, C_REWARD, C_STRICT = 0, 1, 2, 3, 4
# The last entry of a compact mask: bits 0..35 the types that may join the exchange set,
# bit END_BIT "end the turn".
END_BIT = NUM_TYPES

State = namedtuple(
    "State",
    [
        "cfg",  # int64[5]: grid, window, players, reward code, strict opening
        "grid",  # uint8[N, G*G] cell codes
        "base",  # int64[N, 2] grid row/col of the table's (0, 0)
        "box",  # int64[N, 4] min row, max row, min col, max col (grid coordinates)
        "tiles",  # int64[N] tiles on the table (this turn's included)
        "counts",  # int8[N, 36] copies of each type on the table (this turn's included)
        "front",  # int64[N, MAX_FRONT] frontier cells (flat grid index)
        "front_fit",  # int64[N, MAX_FRONT] types that fit each alone (both axes)
        "n_front",  # int64[N]
        "front_at",  # int16[N, G*G] position in ``front``, -1 if none
        *SEAT_FIELDS,  # batch.py: bag, hands, scores, seat to move, opening, over
        "truncated",  # bool[N] the window showed no legal move
        "placed",  # int64[N, 6] this turn's cells (flat grid index), in order
        "placed_t",  # int64[N, 6] their tile types
        "n_placed",  # int64[N]
        "exch",  # int64[N, 6] this turn's exchange set, in order
        "n_exch",  # int64[N]
        "left",  # int64[N, 6] the mover's hand not yet used this turn, sorted
        "n_left",  # int64[N]
        "groups",  # int64[N, 12] masks of the opening's allowed groups
        "n_groups",  # int64[N]
        "turn_points",  # int64[N] what this turn's tiles score so far
        "origin",  # int64[N, 2] grid row/col of the window's top-left cell
        "outside",  # int64[N] legal moves outside the window this game
        "check_window",  # bool[N] this turn's box reaches past the window: count outside
        *GENERATOR_FIELDS,  # batch.py: the game's and the slot's generators, the seed
        "board",  # uint8[N, W, W] the window's cell codes, the observation's board
        "features",  # float32[N, 126] the observation's features, from the mover's seat
        "mask",  # int64[N, W*W + 1] legal types per window cell; last: exchange bits + end
        "mask_cells",  # int64[N, MAX_FRONT] entries of ``mask`` set, to clear them next
        "n_mask_cells",  # int64[N]
        *RESULT_FIELDS,  # batch.py: rewards, done (ended or truncated), final scores
        "final_outside",  # int64[N]
        "final_truncated",  # bool[N] the game that ended in this step was truncated
        "error",  # int64[N] nonzero: why a kernel could not go on (see core.ERRORS)
    ],
)


def allocate(n: int, players: int, window: int, reward: str, strict: bool, grid: int) -> State:
    w2 = window * window
    z = np.zeros
    return State(
        **game_arrays(n),
        cfg=np.array([grid, window, players, REWARD_CODES[reward], int(strict)], dtype=np.int64),
        grid=z((n, grid * grid), np.uint8),
        base=z((n, 2), np.int64),
        box=z((n, 4), np.int64),
        tiles=z(n, np.int64),
        counts=z((n, NUM_TYPES), np.int8),
        front=z((n, MAX_FRONT), np.int64),
        front_fit=z((n, MAX_FRONT), np.int64),
        n_front=z(n, np.int64),
        front_at=np.full((n, grid * grid), -1, np.int16),
        truncated=z(n, np.bool_),
        placed=z((n, HAND_SIZE), np.int64),
        placed_t=z((n, HAND_SIZE), np.int64),
        n_placed=z(n, np.int64),
        exch=z((n, HAND_SIZE), np.int64),
        n_exch=z(n, np.int64),
        left=z((n, HAND_SIZE), np.int64),
        n_left=z(n, np.int64),
        groups=z((n, 12), np.int64),
        n_groups=z(n, np.int64),
        turn_points=z(n, np.int64),
        origin=z((n, 2), np.int64),
        outside=z(n, np.int64),
        check_window=z(n, np.bool_),
        board=z((n, window, window), np.uint8),
        features=z((n, NUM_FEATURES), np.float32),
        mask=z((n, w2 + 1), np.int64),
        mask_cells=z((n, MAX_FRONT), np.int64),
        n_mask_cells=z(n, np.int64),
        final_outside=z(n, np.int64),
        final_truncated=z(n, np.bool_),
        error=z(n, np.int64),
    )


__all__ = ["GRID", "MARGIN", "NUM_FEATURES", "State", "allocate"]
