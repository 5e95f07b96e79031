"""The move-value agent's rows: the env's move rows plus a look two moves ahead.

The columns the env shows in its whole-move mode (``qwirkle_env.rows``) come first,
computed by the same code, so the agent and a library policy see each move alike. The last
columns, the look ahead (``qwirkle_env.rows.look_ahead``), cost a few move generations per
move, so they are filled only for the few moves the agent shortlists
(``MoveRowsAhead.look_ahead``).
"""

from __future__ import annotations

import random

import numpy as np

from qwirkle_env.rows import POINT_SCALE, ROW_FEATURES, MoveRows, move_rows
from qwirkle_env.rows.afterstate import NUM_VALUES
from qwirkle_env.rows.look_ahead import (
    AHEAD_SCALE,
    DEFAULT_LOOK_AHEAD,
    LOOK_AHEAD_FEATURES,
    TYPE_FEATURES,
    LookAhead,
    TurnLookAhead,
    look_at,
)
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
        looked, found, kept = look_at(ahead, self, rows)
        if not len(looked):
            return
        self.looked[looked] = True
        self.features[looked, _AHEAD] = found[:, :NUM_VALUES] / AHEAD_SCALE
        block = ahead.type_block(kept, found[:, NUM_VALUES:])
        self.features[looked, _TYPES] = block.reshape(len(looked), -1)


def candidates(pos: Position) -> MoveRowsAhead:
    """Every legal move of the position with its feature row."""
    rows = move_rows(pos, extra=NUM_MOVE_FEATURES - len(ROW_FEATURES))
    return MoveRowsAhead(**rows.parts(), position=pos if len(pos.board) else None)
