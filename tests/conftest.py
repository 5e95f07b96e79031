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


def assert_same_rows(found, expected) -> None:
    """Two MoveRows are the same: the features and points bit for bit (float32 bit
    patterns, not a tolerance), the moves, their order and the hand."""
    assert found.features.dtype == expected.features.dtype == np.float32
    assert found.features.shape == expected.features.shape
    bits, want = found.features.view(np.uint32), expected.features.view(np.uint32)
    if not np.array_equal(bits, want):
        at = tuple(np.argwhere(bits != want)[0])
        raise AssertionError(
            f"rows differ first at {at}: {found.features[at]!r} against {expected.features[at]!r}"
        )
    assert found.points.dtype == np.float32
    assert np.array_equal(found.points.view(np.uint32), expected.points.view(np.uint32))
    assert len(found) == len(expected)
    if len(found):  # one move made alone before the lists, then the lists
        assert found.move(len(found) - 1) == expected.move(len(expected) - 1)
        assert found.move(0) == expected.move(0)
    assert found.num_placements == expected.num_placements
    assert found.placements == expected.placements
    assert found.exchanges == expected.exchanges
    assert found.hand == expected.hand


@pytest.fixture
def rows_agree(request):
    """Every move-row table the test asks for is checked against the Python reference
    (``candidates.reference_move_rows``): the same rows, bit for bit."""
    from agents import move_features
    from qwirkle_env import candidates, move_mode

    compiled = candidates.move_rows

    def checked(pos, extra=0):
        found = compiled(pos, extra)
        assert_same_rows(found, candidates.reference_move_rows(pos, extra))
        return found

    with pytest.MonkeyPatch.context() as patch:
        for module in (candidates, move_mode, move_features, request.module):
            if getattr(module, "move_rows", None) is compiled:
                patch.setattr(module, "move_rows", checked)
        yield
