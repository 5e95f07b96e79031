"""The whole-move mode: one step is one whole turn, chosen as a row of a candidate table.

Qwirkle's legal moves change every turn and can number hundreds, so this mode lists them,
as RLCard's DouDizhu env and Jericho's valid actions do, each described by a feature row
(``qwirkle_env.rows``). A policy scores the rows with one shared network and picks
one by index. ``raw_env(action_mode="moves")`` shows it; docs/environment.md says where each
mode fits.

**Rows, in order.** Every legal placement, highest points first (ties in the order of
``Game.placements_with_points``), then every distinct exchange in the order of
``hand.distinct_exchanges`` (sorted tile ids). At most ``max_moves`` (K) rows are shown: a
position with more legal moves keeps the first K of that order, so the lowest-scoring
placements and then the exchanges are the ones left out, and the env counts them in
``infos`` (``moves_cut``). The default K was chosen by measuring positions
(benchmarks/move_counts.py, docs/environment.md).

**Observation**, a flat float32 vector ``[position (86) | rows (K * 28)]``; padding rows
(and every row of an agent not to move) are zero, and the int8 ``action_mask`` over K marks
the rows that hold a move. ``split_observation`` turns it (or a batch) into the two parts.
The position's offsets are ``qwirkle_env.spec``'s ``POS_*``; the rows' columns are
``qwirkle_env.rows.columns``.
"""

from __future__ import annotations

import random

import numpy as np

from ..engine.moves import Exchange, Move, Placement
from ..engine.tiles import COPIES, NUM_TILES, NUM_TYPES
from ..spec import (
    HAND_SIZE,
    NUM_POSITION_FEATURES,
    POS_BAG,
    POS_HAND,
    POS_HAND_SIZES,
    POS_OPENING,
    POS_SCORES,
    POS_SEATS,
    POS_UNSEEN,
    SCORE_SCALE,
)
from .afterstate import NUM_VALUES
from .columns import NUM_LOOK_AHEAD_COLUMNS, NUM_ROW_FEATURES
from .kernels import move_rows
from .look_ahead import AHEAD_SCALE, LookAhead, TurnLookAhead, look_at
from .moverows import MoveRows
from .position import Position

ACTION_MODES = ("tiles", "moves")
COL_AHEAD = NUM_ROW_FEATURES  # the look's columns follow the 28 (columns.py)
COL_LOOKED = NUM_ROW_FEATURES + NUM_LOOK_AHEAD_COLUMNS - 1
DEFAULT_MAX_MOVES = 256  # K: docs/environment.md, "How many rows"
MAX_MAX_MOVES = 4096  # no position comes near it; bounds the observation's size

# Bounds of every entry, for the Box: scores reach nowhere near 1,000 (lead features are
# score differences / 50, points / 10).
LOW, HIGH = -20.0, 20.0


def check_moves_options(action_mode: str, max_moves: int | None, look_ahead: int = 0) -> None:
    """Refuses an unknown mode, a row count that is not an int in 1..MAX_MAX_MOVES, or a
    look ahead that is not an int in 0..max_moves; both belong to the move mode only."""
    if action_mode not in ACTION_MODES:
        raise ValueError(f"action_mode must be one of {ACTION_MODES}, got {action_mode!r}")
    if action_mode != "moves":
        if max_moves is not None:
            raise ValueError('max_moves applies to action_mode="moves" only')
        if look_ahead:
            raise ValueError('look_ahead applies to action_mode="moves" only')
        return
    k = DEFAULT_MAX_MOVES if max_moves is None else max_moves
    if isinstance(k, bool) or not isinstance(k, int | np.integer):
        raise ValueError(f"max_moves must be an int in 1..{MAX_MAX_MOVES}, got {max_moves!r}")
    if not 1 <= k <= MAX_MAX_MOVES:
        raise ValueError(f"max_moves must be in 1..{MAX_MAX_MOVES}, got {max_moves}")
    if isinstance(look_ahead, bool) or not isinstance(look_ahead, int | np.integer):
        raise ValueError(
            f"look_ahead must be an int in 0..{k} (rows looked at), got {look_ahead!r}"
        )
    if not 0 <= look_ahead <= k:
        raise ValueError(
            f"look_ahead must be in 0..{k} (rows looked at, at most max_moves), got {look_ahead}"
        )


def row_width(look_ahead: int = 0) -> int:
    """Columns a row has: 28, and the look's 7 when ``look_ahead`` > 0 (columns.py)."""
    return NUM_ROW_FEATURES + (NUM_LOOK_AHEAD_COLUMNS if look_ahead else 0)


def observation_size(max_moves: int, look_ahead: int = 0) -> int:
    return NUM_POSITION_FEATURES + max_moves * row_width(look_ahead)


def split_observation(obs, max_moves: int, look_ahead: int = 0) -> tuple:
    """(position ``(..., 86)``, rows ``(..., K, columns)``) of an observation or a batch of
    them (numpy arrays or torch tensors)."""
    position = obs[..., :NUM_POSITION_FEATURES]
    shape = (*obs.shape[:-1], max_moves, row_width(look_ahead))
    return position, obs[..., NUM_POSITION_FEATURES:].reshape(shape)


class MoveTable:
    """The rows of one turn, in the mode's order and cut to K: ``rows`` (float32
    ``(len, NUM_ROW_FEATURES)``), ``points`` (float32, each move's points now, end bonus
    included), ``cut`` (legal moves left out, beyond K), ``position`` (what the mover knew:
    the observation's first part) and the moves, ``("place", ((cell, tile_id), ...))`` or
    engine moves: all of them as ``moves``, one as ``move(i)`` (a step reads one, so the
    list is made only when asked for)."""

    def __init__(self, found: MoveRows, keep: np.ndarray, position: Position) -> None:
        self.rows = found.features[keep]
        self.points = found.points[keep]
        self.cut = len(found) - len(keep)
        self.position = position
        self._found, self._keep = found, keep.tolist()

    @property
    def moves(self) -> list[Move]:
        """Every row's engine move, in row order."""
        found = self._found
        n = found.num_placements
        placements, exchanges = found.placements, found.exchanges
        return [Placement.of_ids(placements[i]) if i < n else Exchange.of_ids(exchanges[i - n])
                for i in self._keep]  # fmt: skip

    def move(self, i: int) -> Move:
        """The move of row ``i``: ``moves[i]``, made alone."""
        return self._found.move(self._keep[i])

    def __len__(self) -> int:
        return len(self._keep)


def move_table(
    pos: Position, max_moves: int, look_ahead: int = 0, rng: random.Random | None = None
) -> MoveTable:
    """The legal moves of ``pos`` as the mode shows them; with ``look_ahead`` N, the first N
    rows looked at two moves ahead, ``rng`` dealing the hidden tiles (columns.py)."""
    found = move_rows(pos, extra=NUM_LOOK_AHEAD_COLUMNS if look_ahead else 0)
    n_place = found.num_placements
    order = np.argsort(-found.points[:n_place], kind="stable")
    order = np.concatenate([order, np.arange(n_place, len(found))])[:max_moves]
    if look_ahead and len(pos.board):  # the opening: nothing on the table to look at
        if rng is None:
            raise ValueError("a look ahead deals the hidden tiles: give it an rng")
        first = order[:look_ahead]
        ahead = TurnLookAhead(pos, rng, LookAhead(shortlist=look_ahead))
        looked, values, _ = look_at(ahead, found, first)
        found.features[looked, COL_AHEAD : COL_AHEAD + NUM_VALUES] = (
            values[:, :NUM_VALUES] / AHEAD_SCALE
        )
        found.features[first, COL_LOOKED] = 1.0
    return MoveTable(found, order, pos)


def position_features(pos: Position) -> np.ndarray:
    """The position part of the observation, from ``pos.seat``'s side."""
    out = np.zeros(NUM_POSITION_FEATURES, dtype=np.float32)
    counts = np.zeros(NUM_TYPES, dtype=np.float32)
    for t in pos.hand:
        counts[t] += 1
    out[POS_HAND:POS_UNSEEN] = counts / COPIES
    out[POS_UNSEEN:POS_BAG] = np.asarray(pos.unseen(), dtype=np.float32) / COPIES
    out[POS_BAG] = pos.bag_size / NUM_TILES
    n = len(pos.scores)
    for k in range(n):
        s = (pos.seat + k) % n
        out[POS_SCORES + k] = pos.scores[s] / SCORE_SCALE
        out[POS_HAND_SIZES + k] = pos.hand_sizes[s] / HAND_SIZE
        out[POS_SEATS + k] = 1.0
    out[POS_OPENING] = float(not len(pos.board))
    return out


def observation(
    pos: Position, table: MoveTable | None, max_moves: int, look_ahead: int = 0
) -> np.ndarray:
    """The flat observation: the position, then the table's rows (none: all zero)."""
    obs = np.zeros(observation_size(max_moves, look_ahead), dtype=np.float32)
    obs[:NUM_POSITION_FEATURES] = position_features(pos)
    if table is not None:
        rows = table.rows
        obs[NUM_POSITION_FEATURES : NUM_POSITION_FEATURES + rows.size] = rows.ravel()
    return obs
