"""The look ahead's expectations without dealing (qwirkle_env.rows.look_ahead): exact for a known
hand, weighted by chance for an unknown one."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.move_value.features import FEATURES, POINT_SCALE, candidates
from qwirkle_env import Board, Color, Shape, Tile
from qwirkle_env.engine.lines import mask_of
from qwirkle_env.rows.afterstate import SPOT_WIDTH
from qwirkle_env.rows.look_ahead import (
    TYPE_FEATURES,
    LookAhead,
    TurnLookAhead,
    expected_best_tile,
    type_spots,
)
from qwirkle_env.rows.position import Position, chance_opponent_holds
from tests.conftest import game_at

F = {name: i for i, name in enumerate(FEATURES)}


def _best_single(board: Board, mask: int) -> int:
    return max((p for items, p in board.placements_with_points(mask) if len(items) == 1),
               default=0)  # fmt: skip


def test_the_expected_best_tile_of_a_known_hand_is_its_best_single_tile():
    for seed in range(4):
        board = game_at(seed, 10).board
        types = random.Random(seed).sample(range(36), 8)
        chance = [1.0 if t in types else 0.0 for t in range(36)]
        assert expected_best_tile(board, chance) == _best_single(board, mask_of(types))
        assert expected_best_tile(board, [0.0] * 36) == 0


def test_the_expected_best_tile_weighs_each_spot_by_its_chance():
    red = [Tile(Color.RED, s) for s in list(Shape)[:5]]
    board = Board({(0, i): t for i, t in enumerate(red)})
    star8 = Tile(Color.RED, Shape.STAR8).id
    chance = [0.0] * 36
    chance[star8] = 1.0
    assert expected_best_tile(board, chance) == 12  # the Qwirkle at either end
    chance[star8] = 0.5
    # two Qwirkle spots, then ten spots of 2 points above and below the line
    expected = 12 * 0.5 + 12 * 0.25 + sum(2 * 0.5 * 0.5 ** (2 + k) for k in range(10))
    assert expected_best_tile(board, chance) == pytest.approx(expected)
    low = list(chance)
    low[star8] = 0.2
    assert expected_best_tile(board, low) < expected_best_tile(board, chance)


def test_the_look_ahead_without_dealing_is_exact_once_the_bag_is_empty():
    game = game_at(2, 10)
    pos = Position.of_game(game)
    pos.bag_size = 0  # the opponent then holds every unseen tile
    cands = candidates(pos)
    rows = list(range(min(len(cands.placements), 8)))
    cands.look_ahead(rows, random.Random(1))
    unseen = pos.unseen()
    for i in rows:
        if cands.features[i][F["goes_out"]]:
            continue
        board = pos.board.copy()
        board.place_legal(list(cands.placements[i]))
        kept = cands.kept(i)
        f = cands.features[i]
        mask = mask_of(t for t, k in enumerate(unseen) if k)
        assert f[F["reply_expected"]] == pytest.approx(_best_single(board, mask) / POINT_SCALE)
        best = max((p for _, p in board.placements_with_points(mask_of(kept))), default=0)
        assert f[F["next_kept"]] == pytest.approx(best / POINT_SCALE if kept else 0.0)
        assert f[F["next_expected"]] == pytest.approx(
            _best_single(board, mask_of(kept)) / POINT_SCALE
        )


def test_type_spots_find_the_qwirkle_and_the_types_that_fit_nowhere():
    """Red circle to clover in a row: the red eight-point star completes it at either end
    (12 points, a Qwirkle, two spots); a blue circle fits above or below the red circle
    only (2 points); a blue eight-point star shares nothing with any of them."""
    red = [Tile(Color.RED, s) for s in list(Shape)[:5]]
    spots = type_spots(Board({(0, i): t for i, t in enumerate(red)}))

    def of(tile: Tile) -> list[float]:
        return spots[SPOT_WIDTH * tile.id : SPOT_WIDTH * (tile.id + 1)]

    assert of(Tile(Color.RED, Shape.STAR8)) == [12, 12, 1.0]  # 2 ends + 10 cells beside
    assert of(Tile(Color.BLUE, Shape.CIRCLE)) == [2, 2, 0.0]
    assert of(Tile(Color.BLUE, Shape.STAR8)) == [0, 0, 0.0]


def test_the_type_block_says_who_may_hold_each_type_and_what_it_plays_with():
    game = game_at(3, 8)
    pos = Position.of_game(game)
    ahead = TurnLookAhead(pos, random.Random(0), LookAhead())
    keep = [Tile(Color.RED, Shape.SQUARE).id, Tile(Color.RED, Shape.CIRCLE).id,
            Tile(Color.BLUE, Shape.SQUARE).id, Tile(Color.BLUE, Shape.SQUARE).id]  # fmt: skip
    kept = np.bincount(keep, minlength=36)[None]
    spots = np.zeros((1, 36 * SPOT_WIDTH))
    block = ahead.type_block(kept, spots)[0]
    col = {name: i for i, name in enumerate(TYPE_FEATURES)}
    red_square, blue_square = keep[0], keep[2]
    assert block[blue_square, col["kept"]] == 2
    assert block[red_square, col["our_chance"]] == 1.0
    assert block[red_square, col["kept_same_colour"]] == pytest.approx(1 / 5)  # red circle
    assert block[red_square, col["kept_same_shape"]] == pytest.approx(1 / 5)  # blue square
    unseen = pos.unseen()
    assert np.allclose(block[:, col["unseen"]], np.array(unseen) / 3)
    drawn = min(2, pos.bag_size)  # six minus the four kept
    for t in range(36):
        if t not in keep:
            expected = chance_opponent_holds(unseen[t], sum(unseen), drawn)
            assert block[t, col["our_chance"]] == pytest.approx(expected)
        assert block[t, col["their_chance"]] == pytest.approx(
            chance_opponent_holds(unseen[t], sum(unseen), pos.hand_sizes[1 - pos.seat])
        )


def test_the_look_fills_the_type_block_of_the_rows_it_looks_at_only():
    cands = candidates(Position.of_game(game_at(5, 6)))
    cands.look_ahead([0, 2], random.Random(1))
    block = cands.features[:, F["type0_kept"] :]
    assert block[[0, 2]].any(axis=1).all() and not block[1].any()
    assert cands.looked.tolist()[:3] == [True, False, True]
