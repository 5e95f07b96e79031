"""Fixtures shared by several test modules."""

from __future__ import annotations

import numpy as np
import pytest

from qwirkle_env.engine.board import Board
from qwirkle_env.engine.placements import grown_placements, opening_placements, rows_of


def reference_placements(board: Board, hand: int) -> list:
    """What the Python generator (placements.py) lists for this table and hand mask."""
    if not len(board):
        return opening_placements(hand)
    return grown_placements(board.frontier, hand)


@pytest.fixture(scope="module")
def generators_agree():
    """Every placement list the test asks for is checked against the Python generator:
    the same placements, points and order, and the same rows from ``placement_rows``."""
    listed = Board.placements_with_points
    rows = Board.placement_rows

    def checked(board: Board, hand: int) -> list:
        found = listed(board, hand)
        expected = reference_placements(board, hand)
        assert found == expected, "the compiled and the Python generators disagree"
        if all(abs(x) < 2**62 for cell in board.tile_ids for x in cell):  # int64 rows
            assert np.array_equal(rows(board, hand), rows_of(expected))
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Board, "placements_with_points", checked)
        yield
