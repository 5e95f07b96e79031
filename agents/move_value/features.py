"""The move-value agent's rows: the env's move rows plus a look two moves ahead.

The columns the env shows in its whole-move mode (``qwirkle_env.rows``) come first,
computed by the same code, so the agent and a library policy see each move alike. The last
columns, the look ahead (``agents.move_value.look_ahead``), cost a few move generations per
move, so they are filled only for the few moves the agent shortlists
(``MoveRowsAhead.look_ahead``).
"""

from __future__ import annotations

import random

import numpy as np

from agents.move_value.afterstate import NUM_VALUES
from agents.move_value.look_ahead import (
    DEFAULT_LOOK_AHEAD,
    LOOK_AHEAD_FEATURES,
    TYPE_FEATURES,
    LookAhead,
    TurnLookAhead,
)
from qwirkle_env.engine.moves import Placement
from qwirkle_env.rows import POINT_SCALE, ROW_FEATURES, MoveRows, move_rows
from qwirkle_env.rows.columns import COL_GOES_OUT
from qwirkle_env.rows.position import Position
from qwirkle_env.spec import NUM_TYPES

__all__ = [
    "BASE_FEATURES", "FEATURES", "NUM_BASE_FEATURES", "NUM_MOVE_FEATURES", "POINT_SCALE",
    "MoveRowsAhead", "candidates",
]  # fmt: skip

# A move's row: the env's columns and the look's values (what every network reads), then
# the look's block of TYPE_FEATURES per tile type (what a network with a type encoder reads).
BASE_FEATURES = (*ROW_FEATURES, *LOOK_AHEAD_FEATURES)
NUM_BASE_FEATURES = len(BASE_FEATURES)
FEATURES = (
    *BASE_FEATURES,
    *(f"type{t}_{name}" for t in range(NUM_TYPES) for name in TYPE_FEATURES),
)
NUM_MOVE_FEATURES = len(FEATURES)
_AHEAD = slice(len(ROW_FEATURES), NUM_BASE_FEATURES)
_TYPES = slice(NUM_BASE_FEATURES, NUM_MOVE_FEATURES)
# what the look's values are divided by: points by POINT_SCALE, the 0/1 flag by 1
_AHEAD_SCALE = np.array([1.0 if name.endswith("goes_out") else POINT_SCALE
                         for name in LOOK_AHEAD_FEATURES])  # fmt: skip


class MoveRowsAhead(MoveRows):
    """The env's move rows with the look-ahead columns, zero until ``look_ahead`` fills them."""

    def __init__(self, *args, position: Position | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.position = position  # for the look ahead; None on an empty table
        self.looked = np.zeros(len(self.points), bool)  # the rows ``look_ahead`` filled

    def look_ahead(self, rows, rng: random.Random, how: LookAhead = DEFAULT_LOOK_AHEAD) -> None:
        """Fills the look-ahead features of these rows (a few move generations each, so
        only for a shortlist); ``rng`` deals the hidden tiles."""
        if self.position is None:
            return
        ahead = TurnLookAhead(self.position, rng, how)
        rows = np.asarray(rows, np.int64)
        over = (rows < self.num_placements) & (self.features[rows, COL_GOES_OUT] != 0)
        looked = rows[~over]  # a move that goes out ends the game: nothing to look at
        if not len(looked):
            return
        self.looked[looked] = True
        kept = np.zeros((len(looked), NUM_TYPES), np.int64)
        if self.position.board.code_grid is None:  # a table beyond any grid: the Python look
            moves = [self._items_kept(i) for i in looked.tolist()]
            found = ahead.values_of(moves)
            for j, (_, keep) in enumerate(moves):
                np.add.at(kept[j], np.array(keep, np.int64), 1)
        else:
            rows, taken = self.move_arrays(looked)
            found = ahead.values_of_rows(rows, taken)
            kept[:] = ahead.hand_counts
            for j, i in np.argwhere(taken >= 0).tolist():
                kept[j, taken[j, i]] -= 1
        self.features[looked, _AHEAD] = found[:, :NUM_VALUES] / _AHEAD_SCALE
        block = ahead.type_block(kept, found[:, NUM_VALUES:])
        self.features[looked, _TYPES] = block.reshape(len(looked), -1)

    def _items_kept(self, i: int) -> tuple[tuple, list[int]]:
        move = self.move(i)
        return (move.items if isinstance(move, Placement) else ()), self.kept(i)


def candidates(pos: Position) -> MoveRowsAhead:
    """Every legal move of the position with its feature row."""
    rows = move_rows(pos, extra=NUM_MOVE_FEATURES - len(ROW_FEATURES))
    return MoveRowsAhead(**rows.parts(), position=pos if len(pos.board) else None)
