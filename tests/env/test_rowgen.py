"""The compiled move rows (qwirkle_env/rows/kernels.py) against the Python reference
(``candidates.reference_move_rows``).

At every position of seeded games (2-4 players; random, greedy and heuristic play;
strict and relaxed openings; exchanges; crafted endgames with the bag empty) the rows
must be bit-identical: the same float32 bit patterns, points, moves and order, with and
without a reader's extra columns, from the game and from a windowed view, and the move
mode's table (the order, the cut at K) the same. The reference gets its placements from
the engine's tuple API, the compiled rows from its arrays. CI plays a few dozen games;
``-m slow`` plays 300 more and 100 endgames. The crafted tests of tests/env/test_move_mode.py and
tests/agents/move_value/test_features.py check every table they make through the
``rows_agree`` fixture.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys

import numpy as np
import pytest

from agents.move_value.features import candidates
from qwirkle_env import Board, Color, Game, Placement, Shape, Tile
from qwirkle_env.engine.hand import distinct_exchanges
from qwirkle_env.engine.lines import mask_of
from qwirkle_env.engine.placements import row_items
from qwirkle_env.rows import NUM_ROW_FEATURES, move_rows, position, reference_move_rows
from qwirkle_env.rows import kernels as rowgen
from qwirkle_env.rows import table as move_mode
from qwirkle_env.rows.position import Position
from qwirkle_env.rows.table import move_table
from qwirkle_env.view import PlayerView
from tests.conftest import ROOT, assert_same_rows, play_endgame, play_seeded


def tuple_position(game: Game) -> Position:
    """The mover's position with its placements from the engine's tuple API."""
    seat = game.current
    return Position(
        game.board, list(game.hands[seat]), seat, list(game.scores),
        [len(h) for h in game.hands], len(game.bag), game.placements_with_points(),
        game.opening_size is None and len(game.bag) > 0,
    )  # fmt: skip


def game_after(seed: int, turns: int, players: int = 2) -> Game:
    """A seeded game some turns in: the first placement listed, else an exchange."""
    game = Game(players, seed=seed)
    for _ in range(turns):
        found = game.placements_with_points()
        if found:
            game.apply_placement(list(found[0][0]))
        else:
            game.apply_exchange(game.hands[game.current][:1])
    return game


def check_position(game: Game, extra: int, table: bool) -> list:
    """The compiled rows of this position against the reference; the placements."""
    pos = Position.of_game(game)
    reference = tuple_position(game)
    assert pos.placements == reference.placements
    assert_same_rows(move_rows(pos, extra), reference_move_rows(reference, extra))
    if table:  # the mode's table: order by points, the cut at K
        k = 1 + len(pos.placements) // 2
        found = move_table(pos, k)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(move_mode, "move_rows", reference_move_rows)
            expected = move_table(reference, k)
        assert found.move(len(found) - 1) == expected.moves[-1]
        assert found.moves == expected.moves and found.cut == expected.cut
        assert np.array_equal(found.rows.view(np.uint32), expected.rows.view(np.uint32))
        assert np.array_equal(found.points, expected.points)
    return reference.placements


def check_view(game: Game, window: int) -> None:
    """A windowed view's position (placements outside the window left out)."""
    box = game.board.bounds() or (0, 0, 0, 0)
    origin = ((box[0] + box[1]) // 2 - window // 2, (box[2] + box[3]) // 2 - window // 2)
    view = PlayerView.of(game, game.current, origin=origin, window=window)
    pos = Position.of_view(view)
    reference = Position(
        view.board, list(view.hand), view.seat, list(view.scores), list(view.hand_sizes),
        view.bag_size, view.placements(), view.opening_size is None and view.bag_size > 0,
    )  # fmt: skip
    assert_same_rows(move_rows(pos), reference_move_rows(reference))


def play_checked(seed: int) -> int:
    """One seeded game, every position checked (the table and a windowed view at some);
    returns the positions checked."""

    def check(game: Game, n: int) -> list:
        found = check_position(game, extra=3 * (seed % 2), table=n % 5 == 0)
        if n % 9 == 4:
            check_view(game, window=11 + 2 * (seed % 3))
        return found

    return play_seeded(seed, check, p_place=0.8)


def play_endgame_checked(seed: int) -> int:
    """An endgame: a few moves in, the bag cut to 0-2 tiles and small random hands dealt
    (moves that go out, and exchanges while the bag holds tiles)."""
    return play_endgame(
        seed,
        lambda game, n: check_position(game, extra=2, table=n % 2 == 0),
        lambda game: check_position(game, extra=0, table=False),
        bag_left=lambda rng: rng.choice((0, 0, 1, 2)),
    )


@pytest.mark.parametrize("chunk", range(3))
def test_compiled_rows_equal_python_on_seeded_games(chunk):
    positions = sum(play_checked(seed) for seed in range(chunk * 12, chunk * 12 + 12))
    assert positions > 400


def test_compiled_rows_equal_python_on_endgames():
    assert sum(play_endgame_checked(seed) for seed in range(40)) > 40


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(6))
def test_compiled_rows_equal_python_on_300_games(chunk):
    start = 20_000 + chunk * 50
    assert sum(play_checked(seed) for seed in range(start, start + 50)) > 1500


@pytest.mark.slow
def test_compiled_rows_equal_python_on_100_endgames():
    assert sum(play_endgame_checked(seed) for seed in range(20_000, 20_100)) > 100


def test_breaking_the_kernel_breaks_the_comparison(monkeypatch):
    """One value off by one float32 step, or two exchanges swapped, fail the check."""
    game = game_after(4, 6)
    pos = Position.of_game(game)
    assert_same_rows(move_rows(pos), reference_move_rows(pos))
    kernel = rowgen.row_features

    def off_by_one_step(*args):
        kernel(*args)
        out = args[-2]
        out[len(out) // 2, 17] = np.nextafter(out[len(out) // 2, 17], np.float32(1))

    monkeypatch.setattr(rowgen, "row_features", off_by_one_step)
    with pytest.raises(AssertionError, match="rows differ"):
        assert_same_rows(move_rows(pos), reference_move_rows(pos))
    monkeypatch.undo()
    listing = rowgen.list_exchanges

    def swapped(hand, most, out):
        n = listing(hand, most, out)
        out[[0, 1]] = out[[1, 0]]
        return n

    monkeypatch.setattr(rowgen, "list_exchanges", swapped)
    with pytest.raises(AssertionError):
        assert_same_rows(move_rows(pos), reference_move_rows(pos))


def test_exchanges_are_listed_in_distinct_exchanges_order():
    rng = random.Random(0)
    for _ in range(300):
        hand = sorted(rng.choices(range(8), k=rng.randint(1, 6)))
        most = rng.randint(1, 6)
        out = np.zeros((2 ** len(hand), len(hand) + 1), np.int64)
        n = rowgen.list_exchanges(np.array(hand, np.int64), most, out)
        listed = [tuple(row[1 : 1 + row[0]]) for row in out[:n].tolist()]
        assert listed == distinct_exchanges(hand, most)


def test_crafted_open_fives_and_qwirkles_agree():
    """Lines of five left open (the sixth tile unseen, kept, or all on the table) and
    Qwirkles, across and along, with tiles between the placed ones."""
    red = [Tile(Color.RED, s) for s in Shape]
    blue = [Tile(Color.BLUE, s) for s in Shape]
    circles = [Tile(c, Shape.CIRCLE) for c in Color if c != Color.BLUE]  # purple last
    tables = [
        {(0, k): red[k] for k in range(4)},
        {(0, k): red[k] for k in range(5)} | {(1, 0): blue[0], (2, 0): Tile(Color.GREEN, 0)},
        {(0, 0): red[0], (0, 2): red[2], (0, 4): red[4], (1, 0): blue[0]},
        {(k, 0): blue[k] for k in range(4)} | {(0, k): circles[k - 1] for k in range(1, 5)},
    ]
    hands = [red[4:] + blue[4:], [red[5], red[5], blue[5], blue[1]], [red[1], red[3], red[5]],
             [blue[4], blue[5], circles[-1], Tile(Color.ORANGE, Shape.STAR4)]]  # fmt: skip
    for tiles, hand in zip(tables, hands, strict=True):
        board = Board(tiles)
        ids = sorted(t.id for t in hand)
        for bag, sizes in ((40, [6, 6]), (0, [len(ids), 3]), (2, [len(ids), 6, 1])):
            found = board.placements_with_points(mask_of(ids))
            pos = Position(board, ids, 0, [10, 4, 7][: len(sizes)], sizes, bag, found, bag > 0)
            rows = move_rows(pos, extra=1)
            assert len(rows)
            assert_same_rows(rows, reference_move_rows(pos, extra=1))


def test_tables_without_a_grid_and_without_numba_take_the_reference(monkeypatch):
    """A table too wide for a grid gets its rows from the reference, and so does every
    table when numba is missing: the same rows either way."""
    red = [Tile(Color.RED, s) for s in Shape]
    wide = Board({(0, 0): red[0], (0, 1): red[1], (0, 500): red[2]})
    ids = [red[3].id, red[4].id]
    pos = Position(
        wide, ids, 0, [3, 5], [2, 6], 30, wide.placements_with_points(mask_of(ids)), True
    )
    assert wide.code_grid is None
    assert_same_rows(move_rows(pos), reference_move_rows(pos))
    calls = []
    reference = rowgen.reference_move_rows
    monkeypatch.setattr(
        rowgen, "reference_move_rows", lambda p, e=0: calls.append(p) or reference(p, e)
    )
    move_rows(pos)
    game = game_after(2, 1, players=3)
    assert_same_rows(move_rows(Position.of_game(game)), reference(Position.of_game(game)))
    assert len(calls) == 1
    monkeypatch.setattr(position, "COMPILED", False)
    later = Position.of_game(game)
    assert_same_rows(move_rows(later), reference(later))
    assert len(calls) == 2


def test_a_position_holds_its_placements_as_tuples_or_rows():
    game = game_after(9, 5)
    from_rows = Position.of_game(game)
    from_tuples = tuple_position(game)
    assert from_rows.placements == from_tuples.placements
    assert np.array_equal(from_rows.placement_rows, from_tuples.placement_rows)
    with pytest.raises(ValueError, match="exactly one of the two"):
        Position(game.board, [1], 0, [0, 0], [6, 6], 10, None, True)
    with pytest.raises(ValueError, match="exactly one of the two"):
        Position(game.board, [1], 0, [0, 0], [6, 6], 10, [], True, rows=np.zeros((0, 20)))


def test_a_placement_off_the_grid_is_refused_not_read():
    """A hand-made position whose placements are not its board's: the kernel refuses a
    cell off the grid instead of reading past it."""
    game = game_after(5, 4)
    far = [((((10**6, 0), 3),), 1)]
    pos = Position(game.board, [3], 0, [0, 0], [1, 6], 20, far, True)
    with pytest.raises(ValueError, match="off the table's grid"):
        move_rows(pos)


def test_the_agents_rows_keep_the_lazy_lists_and_the_look_ahead():
    """The move-value agent's candidates are the env's rows plus its columns: made from
    the arrays, their moves read one at a time, as the reference's."""
    game = game_after(12, 8)
    cands = candidates(Position.of_game(game))
    extra = cands.features.shape[1] - NUM_ROW_FEATURES
    expected = reference_move_rows(tuple_position(game), extra=extra)
    assert [cands.move(i) for i in range(len(cands))] == [
        expected.move(i) for i in range(len(expected))
    ]
    assert [cands.used(i) for i in range(len(cands))] == [
        expected.used(i) for i in range(len(expected))
    ]
    assert [cands.kept(i) for i in range(len(cands))] == [
        expected.kept(i) for i in range(len(expected))
    ]
    assert_same_rows(cands, expected)
    cands.look_ahead(range(3), random.Random(0))
    assert cands.features[:3, NUM_ROW_FEATURES:].any()


def test_the_moves_in_bulk_are_the_moves_one_by_one():
    """move_arrays (a shortlist's placement rows and the tiles each takes, for kernels)
    says what move() and kept() say, from the lazy arrays and from the tuples alike."""
    for seed in (3, 12, 40):
        game = game_after(seed, 6 + seed % 9)
        lazy = move_rows(Position.of_game(game))
        tuples = reference_move_rows(tuple_position(game))
        idx = np.arange(len(lazy))[::-1]  # any order, exchanges and placements mixed
        rows, taken = lazy.move_arrays(idx)
        assert np.array_equal(rows, tuples.move_arrays(idx)[0])
        assert np.array_equal(taken, tuples.move_arrays(idx)[1])
        for j, i in enumerate(idx.tolist()):
            move = lazy.move(i)
            if isinstance(move, Placement):
                assert row_items(rows[j]) == list(move.items)
                ids = [t for _, t in move.items]
            else:
                assert rows[j, 0] == 0
                ids = [t.id for t in move.tiles]
            assert tuple(ids) == lazy.used(i)
            assert sorted(t for t in taken[j].tolist() if t >= 0) == sorted(ids)
            assert sorted(lazy.hand) == sorted(lazy.kept(i) + ids)


def test_the_rows_run_as_plain_python_without_numba():
    """NUMBA_DISABLE_JIT=1 runs rows/kernels.py as Python: the same rows."""
    code = (
        "import sys;"
        "from tests.env.test_rowgen import play_checked, rowgen;"
        "assert rowgen.row_features.__class__.__name__ == 'function';"
        "print(play_checked(3))"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) > 20


def test_compiled_row_kernels_are_compiled():
    assert rowgen.COMPILED
    assert hasattr(rowgen.row_features, "py_func")
    assert hasattr(rowgen.list_exchanges, "py_func")
