"""The board's kernel (engine/grid.py) against the board in Python.

A board the kernel plays keeps its frontier on the grid and brings its dicts up to date
only when they are read. Move by move through seeded games (2-4 players, random, greedy
and heuristic play, relaxed openings, grids that grow), it must be the board the Python
refresh builds: the frontier and fit masks with their order, the grid's codes (the
frontier's ranks), the bounds, the counts, the points, and which hands can place, whether
the dicts are read after every move or only now and then.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from qwirkle_env import Board, Game
from qwirkle_env.engine import compiled_table as board_module
from qwirkle_env.engine import grid as grid_module
from qwirkle_env.engine.lines import ALL, mask_of
from qwirkle_env.engine.placements import row_items
from tests.conftest import POLICIES, choose_move


class PythonBoard(Board):
    """A board that never hands its placements to the kernel."""

    def _start_kernels(self) -> None:
        self._fitgrid = self._work = None


def assert_same_board(board: Board, python: Board) -> None:
    assert list(board.frontier.items()) == list(python.frontier.items())
    assert list(board.fit_masks.items()) == list(python.fit_masks.items())
    grid, side, r0, c0 = board.code_grid
    want, want_side, want_r0, want_c0 = python.code_grid
    assert (side, r0, c0) == (want_side, want_r0, want_c0)
    assert np.array_equal(grid, want)
    assert board.bounds() == python.bounds()
    assert board.type_counts == python.type_counts
    assert board.complete_types == python.complete_types
    assert board.tile_ids == python.tile_ids


def mirrored_game(seed: int, read_every: int) -> int:
    """A seeded game (as ``play_seeded`` plays it) whose every placement is also played,
    in the same order of tiles, on a PythonBoard; the kernel board's dicts are read every
    ``read_every``-th placement (1: after every one). Returns the placements played."""
    rng = random.Random(seed)
    checks = random.Random(-seed)
    game = Game(2 + seed % 3, seed=seed, strict_opening=seed % 7 != 0)
    python = PythonBoard()
    placed = by_kernel = 0
    while not game.over:
        found = game.placements_with_points()
        kind, data = choose_move(game, POLICIES[seed % 3], rng, found, p_place=0.9)
        if kind == "exchange":
            game.apply_exchange(data)
            continue
        game.apply_placement(list(data), trusted=True)
        python.place_legal(list(data))
        placed += 1
        board = game.board
        by_kernel += board._fitgrid is not None  # None just after the grid grew
        for mask in (ALL, ALL & ~board.complete_types, checks.getrandbits(36)):
            assert board.can_place(mask) == python.can_place(mask)
        if placed % read_every == 0:
            assert_same_board(board, python)
    assert by_kernel >= placed - 4, "the kernel should play nearly every placement"
    return placed


def test_the_kernel_board_is_the_python_board_move_by_move():
    assert sum(mirrored_game(seed, read_every=1) for seed in range(12)) > 200


def test_the_kernel_board_is_the_python_board_when_read_now_and_then():
    """Several placements' changes brought into the dicts at once: the same dicts."""
    for read_every in (2, 3, 7, 1000):
        assert sum(mirrored_game(seed, read_every) for seed in range(20, 26)) > 100


def test_the_kernel_board_is_the_python_board_as_its_grid_grows(monkeypatch):
    monkeypatch.setattr(board_module, "GRID_START", 20)
    for seed in range(40, 44):
        mirrored_game(seed, read_every=3)


@pytest.mark.slow
def test_the_kernel_board_is_the_python_board_in_300_games():
    for seed in range(1000, 1300):
        mirrored_game(seed, read_every=1 + seed % 4)


def test_points_from_the_kernel_are_the_checked_points():
    for seed in range(6):
        game = Game(2 + seed % 3, seed=seed)
        while not game.over:
            found = game.placements_with_points()
            if not found:
                game.apply_exchange(game.hands[game.current][:1])
                continue
            for items, points in found[:: max(1, len(found) // 8)]:
                board = game.board.copy()
                assert board.play_legal(list(items)) == points == game.board.score_ids(items)
            game.apply_placement(list(found[-1][0]), trusted=True)


def test_a_copy_with_changes_not_yet_read_goes_its_own_way():
    """Copies share nothing: each brings its own dicts up to date, after its own moves."""
    game = Game(2, seed=8)
    for _ in range(6):
        game.apply_placement(list(game.placements_with_points()[0][0]), trusted=True)
    board = game.board
    assert board._work[grid_module.N_CHANGED] > 0  # the dicts are unread since the last moves
    twin = board.copy()
    hand = ALL
    first, last = board.placements_with_points(hand)[0][0], twin.placements_with_points(hand)[-1][0]
    board.place_legal(list(first))
    twin.place_legal(list(last))
    for one in (board, twin):
        rebuilt = Board({cell: tile for cell, tile in one})
        assert one.frontier == rebuilt.frontier
        assert one.fit_masks == rebuilt.fit_masks
    assert board != twin


def test_tables_the_kernel_does_not_take_stay_in_python():
    """Beyond the reach of the set order's hashes, or without a grid: the Python board."""
    game = Game(2, seed=1)
    game.apply_placement(list(game.placements_with_points()[0][0]))
    assert game.board._fitgrid is not None
    far = Board({(10**6 + r, 5): tile for (r, _), tile in game.board})
    assert far.code_grid is not None and far._fitgrid is None
    found = far.placements_with_points(ALL)
    far.place_legal(list(found[0][0]))
    assert far._fitgrid is None and far.frontier == Board(dict(far)).frontier


def changed(board: Board) -> int:
    """How many cells the kernel changed since the dicts were read (0 if it is not playing)."""
    return 0 if board._work is None else board._work.item(grid_module.N_CHANGED)


def test_a_long_run_of_unread_placements_brings_the_dicts_up_to_date_by_itself():
    """More cells changed than the kernel's list holds: the board syncs before it fills."""
    board, python = Board(), PythonBoard()
    rng = random.Random(3)
    synced = False
    for _ in range(5000):  # a table of many copies: Board alone does not count them
        hand = mask_of(rng.sample(range(36), 6))
        rows = board.top_placement_rows(hand)
        if not len(rows):
            continue
        items = row_items(rows[rng.randrange(len(rows))])
        before, side, playing = changed(board), board._g, board._work is not None
        board.play_legal(items)
        synced = playing and board._g == side and changed(board) < before
        python.place_legal(items)
        if synced:
            break
    assert synced, "the changed cells' list should have filled"
    assert_same_board(board, python)
