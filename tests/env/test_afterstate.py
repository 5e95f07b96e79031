"""The compiled look ahead (qwirkle_env/rows/afterstate.py) against the Python one on a
board copy (TurnLookAhead.reference_values): the same six numbers and spots by type,
exactly, with one top-up of our hand or several, for every
move of positions from 2-, 3- and 4-player games, the bag empty included."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.move_value.features import candidates
from qwirkle_env import Game, Placement
from qwirkle_env.engine.board import Board
from qwirkle_env.engine.compiled import COMPILED
from qwirkle_env.engine.placements import rows_of
from qwirkle_env.rows.afterstate import values_after
from qwirkle_env.rows.look_ahead import LookAhead, TurnLookAhead
from qwirkle_env.rows.position import Position

pytestmark = pytest.mark.skipif(not COMPILED, reason="the compiled look needs numba")


def _positions(num_players: int, games: int, seed: int):
    """Positions along greedy-ish games (random among the three best), end games included."""
    rng = random.Random(seed)
    for k in range(games):
        game = Game(num_players, seed=seed * 1000 + k)
        while not game.over:
            if len(game.board) and rng.random() < 0.3:
                yield game
            found = sorted(game.placements_with_points(), key=lambda p: -p[1])[:3]
            if found:
                game.apply_placement(list(rng.choice(found)[0]), trusted=True)
            else:
                hand = game.hands[game.current]
                game.apply_exchange(hand[: len(game.bag)])


def _compiled(ahead: TurnLookAhead, board: Board, moves: list):
    """values_after for these placements (the tiles taken from the hand: none)."""
    rows = rows_of([(items, 0) for items in moves])
    return values_after(board, rows, np.full((len(moves), 6), -1, np.int64), ahead)


def _compare(game: Game, rng: random.Random, how: LookAhead) -> int:
    """Every move's look, all in one call and one by one, against the Python look."""
    pos = Position.of_game(game)
    cands = candidates(pos)
    ahead = TurnLookAhead(pos, rng, how)
    moves = []
    for i in range(len(cands)):
        move = cands.move(i)
        moves.append((move.items if isinstance(move, Placement) else (), cands.kept(i)))
    together = ahead.values_of(moves)
    for (items, kept), row in zip(moves, together, strict=True):
        expected = ahead.reference_values(items, kept)
        assert tuple(row.tolist()) == expected, (game.to_dict(), items, kept)
        assert ahead.values(items, kept) == expected
    return len(cands)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_compiled_look_equals_the_python_one_on_every_move(num_players):
    rng = random.Random(num_players)
    moves = sum(
        _compare(game, rng, LookAhead(refill=bool(k % 2), refill_samples=1 + k % 3))
        for k, game in enumerate(_positions(num_players, 3, num_players))
    )
    assert moves > 1000


def test_the_compiled_look_equals_the_python_one_with_the_bag_empty():
    """The opponent's hand is known then, and a reply that empties it earns the bonus."""
    rng = random.Random(5)
    checked = 0
    for game in _positions(2, 6, 7):
        if game.bag_size == 0:
            checked += _compare(game, rng, LookAhead())
    assert checked > 100  # moves compared with the bag empty
    assert checked > 50


def test_the_compiled_look_serves_positions_of_played_games():
    """It is the path taken (not the Python fallback) on an ordinary table."""
    game = next(iter(_positions(2, 1, 3)))
    pos = Position.of_game(game)
    ahead = TurnLookAhead(pos, random.Random(0), LookAhead())
    items, _ = game.placements_with_points()[0]
    assert _compiled(ahead, game.board, [items]) is not None


def test_a_table_without_a_grid_takes_the_python_path_with_the_same_numbers():
    """A table far out has no grid: the compiled look declines, the Python one answers, and
    a table moved that far keeps its numbers."""
    game = next(iter(_positions(2, 1, 3)))
    pos = Position.of_game(game)
    ahead = TurnLookAhead(pos, random.Random(0), LookAhead())
    items, _ = game.placements_with_points()[0]
    kept = list(pos.hand)
    for _, t in items:
        kept.remove(t)
    near = ahead.values(items, kept)
    far_off = 2**41
    ahead.board = Board({(r + far_off, c): tile for (r, c), tile in game.board})
    assert ahead.board.code_grid is None
    moved = tuple(((r + far_off, c), t) for (r, c), t in items)
    assert _compiled(ahead, ahead.board, [moved]) is None
    assert ahead.values(moved, kept) == near


def test_a_table_beyond_int64_keeps_its_look_ahead():
    """The engine's table is unbounded: an agent's shortlist on a table past +-2**63 (no
    grid, no int64 rows) is looked at by the Python path, with the numbers it has near
    the origin."""
    game = next(iter(_positions(2, 1, 3)))
    near = Position.of_game(game)
    far_off = 2**70
    board = Board({(r + far_off, c): tile for (r, c), tile in game.board})
    moved = [
        (tuple(((r + far_off, c), t) for (r, c), t in items), pts) for items, pts in near.placements
    ]
    far = Position(board, near.hand, near.seat, near.scores, near.hand_sizes, near.bag_size,
                   moved, near.can_exchange)  # fmt: skip
    looked = {}
    for name, pos in (("near", near), ("far", far)):
        cands = candidates(pos)
        rows = np.arange(min(len(cands), 8))
        cands.look_ahead(rows, random.Random(4), LookAhead(shortlist=8))
        looked[name] = cands.features[rows]
    assert looked["far"][:, -6:].any()
    assert np.array_equal(looked["near"], looked["far"])


def test_kept_tiles_not_in_the_hand_are_refused():
    game = next(iter(_positions(2, 1, 3)))
    ahead = TurnLookAhead(Position.of_game(game), random.Random(0), LookAhead())
    missing = next(t for t in range(36) if t not in ahead.hand)
    with pytest.raises(ValueError, match="not all in the hand"):
        ahead.values_of([((), [missing])])
