"""The move rows: each legal move of a turn as a row of numbers, and the table of them that
the env's move mode shows.

``position`` is what the mover knows at the start of a turn; ``columns`` what each number
of a row means; ``kernels`` computes the rows at compiled speed (``move_rows``) and
``reference`` in plain Python, bit for bit the same; ``moverows`` holds a turn's moves and
rows (``MoveRows``, whose ``move(i)`` is the engine ``Move`` of row ``i``); ``table`` orders
and cuts them to the K rows of the move mode's action (``MoveTable``) and lays out its
observation.
"""

from .columns import NUM_ROW_FEATURES, POINT_SCALE, ROW_FEATURES
from .kernels import move_rows
from .moverows import MoveRows
from .position import Position
from .reference import reference_move_rows
from .table import (
    DEFAULT_MAX_MOVES,
    MoveTable,
    move_table,
    observation_size,
    position_features,
    split_observation,
)

__all__ = [
    "DEFAULT_MAX_MOVES", "NUM_ROW_FEATURES", "POINT_SCALE", "ROW_FEATURES", "MoveRows",
    "MoveTable", "Position", "move_rows", "move_table", "observation_size",
    "position_features", "reference_move_rows", "split_observation",
]  # fmt: skip
