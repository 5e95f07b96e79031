"""The compiled move generator (engine/movegen.py) against the Python one (placements.py).

At every position of seeded games (2-4 players; random, greedy and heuristic play; strict
and relaxed openings; crafted endgames with an empty bag) the public lists must be equal,
placement for placement, points and order included: ``Board.placements_with_points``,
``Board.placement_rows``, the top rows of both, ``Game.placements_with_points`` and
``Game.legal_moves``. CI plays
a few dozen games; ``-m slow`` plays 1,000 more and 300 endgames. The crafted rule tests
(tests/engine/: test_board, test_game, test_properties) check every list they make through the
``generators_agree`` fixture.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys

import numpy as np
import pytest

from agents.scripted.baselines import best_by_points, best_row
from qwirkle_env import Board, Color, Game, Shape, Tile
from qwirkle_env.engine import compiled_table as board_module
from qwirkle_env.engine import movegen
from qwirkle_env.engine.lines import mask_of
from qwirkle_env.engine.placements import WIDTH, row_items, rows_of, top_rows
from qwirkle_env.view import PlayerView
from tests.conftest import ROOT, play_endgame, play_seeded, reference_placements


def check_position(game: Game) -> list:
    """Every public list of this position, compiled against Python; the game's list."""
    board = game.board
    hand = mask_of(game.hands[game.current])
    expected = reference_placements(board, hand)
    assert board.placements_with_points(hand) == expected
    assert np.array_equal(board.placement_rows(hand), rows_of(expected))
    assert np.array_equal(board.top_placement_rows(hand), top_rows(rows_of(expected)))
    found = game.placements_with_points()
    if game.strict_opening and game.opening_size is not None:
        expected = [p for p in expected if len(p[0]) == game.opening_size]
    assert found == expected
    assert np.array_equal(game.top_placement_rows(), top_rows(rows_of(expected)))
    return found


def play_checked(seed: int) -> int:
    """One seeded game, every position checked (the full move list at some); returns the
    positions checked."""

    def check(game: Game, n: int) -> list:
        found = check_position(game)
        if seed % 5 == 0 and n % 10 == 0:  # the full list: placements, exchanges
            assert game.legal_moves()[: len(found)] == game.legal_placements()
        return found

    return play_seeded(seed, check, p_place=0.9)


def play_endgame_checked(seed: int) -> int:
    """An endgame: a few moves in, the bag emptied and small random hands dealt."""
    return play_endgame(seed, lambda game, n: check_position(game), check_position)


@pytest.mark.parametrize("chunk", range(3))
def test_compiled_generator_equals_python_on_seeded_games(chunk):
    positions = sum(play_checked(seed) for seed in range(chunk * 10, chunk * 10 + 10))
    assert positions > 300


def test_compiled_generator_equals_python_on_endgames():
    assert sum(play_endgame_checked(seed) for seed in range(40)) > 40


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(10))
def test_compiled_generator_equals_python_on_1000_games(chunk):
    start = 10_000 + chunk * 100
    assert sum(play_checked(seed) for seed in range(start, start + 100)) > 3000


@pytest.mark.slow
def test_compiled_generator_equals_python_on_300_endgames():
    assert sum(play_endgame_checked(seed) for seed in range(10_000, 10_300)) > 300


def test_the_grid_doubles_as_the_table_grows(monkeypatch):
    """A small first grid doubles many times during a game; the lists stay equal."""
    monkeypatch.setattr(board_module, "GRID_START", 20)
    for seed in range(3):
        play_checked(seed)


def test_crafted_tables_far_out_or_too_wide_take_the_python_generator():
    red = [Tile(Color.RED, s) for s in Shape]
    far = Board({(10**15, 10**15): red[0], (10**15, 10**15 + 1): red[1]})
    wide = Board({(0, 0): red[0], (0, 1): red[1], (0, 500): red[2]})
    near = Board({(-3, 7): red[0], (-3, 8): red[1]})
    hand = mask_of([t.id for t in red[2:]])
    for board in (far, wide, near):
        expected = reference_placements(board, hand)
        assert board.placements_with_points(hand) == expected
        assert np.array_equal(board.placement_rows(hand), rows_of(expected))
    assert near.placement_rows(hand).shape[1] == WIDTH
    huge = Board({(10**30, 0): red[0]})
    with pytest.raises(ValueError, match="int64"):
        huge.placement_rows(hand)
    wide.place_legal([((1, 0), red[3].id)])  # a table without a grid keeps none
    assert wide.placements_with_points(hand) == reference_placements(wide, hand)


def test_a_short_output_buffer_is_retried():
    """More placements than the first buffer holds: the call is repeated with room."""
    game = Game(2, seed=3, strict_opening=False)
    game.apply_placement([((0, 0), 0)])
    board = game.board
    hand = mask_of(range(1, 6)) | mask_of([6, 12, 18, 24, 30])
    expected = reference_placements(board, hand)
    assert len(expected) > 256
    assert board.placements_with_points(hand) == expected


def test_placement_order_is_the_same_for_a_clone():
    game = Game(3, seed=5)
    for _ in range(12):
        game.apply_placement(list(game.placements_with_points()[-1][0]))
    twin = game.clone()
    assert twin.placements_with_points() == game.placements_with_points()


def test_the_generator_runs_as_plain_python_without_numba():
    """NUMBA_DISABLE_JIT=1 runs movegen.py's functions as Python: the same lists."""
    code = (
        "from tests.engine.test_movegen import play_checked, movegen;"
        "assert movegen.grow.__class__.__name__ == 'function';"
        "print(sum(play_checked(s) for s in range(2)))"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) > 20


def test_compiled_kernels_are_compiled():
    assert movegen.COMPILED
    assert hasattr(movegen.grow, "py_func")


@pytest.mark.parametrize("window", [0, 11, 39])
def test_view_rows_and_best_row_pick_what_the_tuple_lists_pick(window):
    """PlayerView.placement_rows is placements() as rows (opening and window filters
    included), its top rows are those scoring the most, and best_row draws like
    best_by_points on either: greedy plays the same moves."""
    for seed in range(6):
        rng = random.Random(seed)
        game = Game(2 + seed % 3, seed=seed)
        while not game.over:
            box = game.board.bounds() or (0, 0, 0, 0)
            origin = ((box[0] + box[1]) // 2 - window // 2, (box[2] + box[3]) // 2 - window // 2)
            view = PlayerView.of(game, game.current, origin=origin, window=window)
            found = view.placements()
            rows = view.placement_rows()
            assert np.array_equal(rows, rows_of(found))
            top = view.top_placement_rows()
            assert np.array_equal(top, top_rows(rows))
            if found:
                a, b = random.Random(seed), random.Random(seed)
                assert row_items(rows[best_row(rows, a)]) == list(best_by_points(found, b))
                assert a.random() == b.random()
                a, b = random.Random(seed), random.Random(seed)  # on the top rows alone
                assert row_items(top[best_row(top, a)]) == row_items(rows[best_row(rows, b)])
                assert a.random() == b.random()
            moves = game.placements_with_points()  # the game goes on outside the window too
            if moves:
                game.apply_placement(list(rng.choice(moves)[0]))
            else:
                game.apply_exchange(game.hands[game.current][:1])
