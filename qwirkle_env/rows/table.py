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
from .columns import NUM_ROW_FEATURES
from .kernels import move_rows
from .moverows import MoveRows
from .position import Position

ACTION_MODES = ("tiles", "moves")
DEFAULT_MAX_MOVES = 256  # K: docs/environment.md, "How many rows"
MAX_MAX_MOVES = 4096  # no position comes near it; bounds the observation's size

# Bounds of every entry, for the Box: scores reach nowhere near 1,000 (lead features are
# score differences / 50, points / 10).
LOW, HIGH = -20.0, 20.0


def check_moves_options(action_mode: str, max_moves: int | None) -> None:
    """Refuses an unknown mode, or a row count that is not an int in 1..MAX_MAX_MOVES."""
    if action_mode not in ACTION_MODES:
        raise ValueError(f"action_mode must be one of {ACTION_MODES}, got {action_mode!r}")
    if max_moves is None:
        return
    if action_mode != "moves":
        raise ValueError('max_moves applies to action_mode="moves" only')
    if isinstance(max_moves, bool) or not isinstance(max_moves, int | np.integer):
        raise ValueError(f"max_moves must be an int in 1..{MAX_MAX_MOVES}, got {max_moves!r}")
    if not 1 <= max_moves <= MAX_MAX_MOVES:
        raise ValueError(f"max_moves must be in 1..{MAX_MAX_MOVES}, got {max_moves}")


def observation_size(max_moves: int) -> int:
    return NUM_POSITION_FEATURES + max_moves * NUM_ROW_FEATURES


def split_observation(obs, max_moves: int) -> tuple:
    """(position ``(..., 86)``, rows ``(..., K, 28)``) of an observation or a batch of them
    (numpy arrays or torch tensors)."""
    position = obs[..., :NUM_POSITION_FEATURES]
    rows = obs[..., NUM_POSITION_FEATURES:].reshape(*obs.shape[:-1], max_moves, NUM_ROW_FEATURES)
    return position, rows


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


def move_table(pos: Position, max_moves: int) -> MoveTable:
    """The legal moves of ``pos`` as the mode shows them."""
    found = move_rows(pos)
    n_place = found.num_placements
    order = np.argsort(-found.points[:n_place], kind="stable")
    order = np.concatenate([order, np.arange(n_place, len(found))])
    return MoveTable(found, order[:max_moves], pos)


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


def observation(pos: Position, table: MoveTable | None, max_moves: int) -> np.ndarray:
    """The flat observation: the position, then the table's rows (none: all zero)."""
    obs = np.zeros(observation_size(max_moves), dtype=np.float32)
    obs[:NUM_POSITION_FEATURES] = position_features(pos)
    if table is not None:
        rows = table.rows
        obs[NUM_POSITION_FEATURES : NUM_POSITION_FEATURES + rows.size] = rows.ravel()
    return obs
