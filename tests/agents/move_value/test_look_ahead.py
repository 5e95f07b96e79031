"""The look ahead's expectations without dealing (agents.move_value.look_ahead): exact for a known
hand, weighted by chance for an unknown one."""

from __future__ import annotations

import random

import pytest

from agents.move_value.features import FEATURES, POINT_SCALE, candidates
from agents.move_value.look_ahead import expected_best_tile
from qwirkle_env import Board, Color, Shape, Tile
from qwirkle_env.engine.lines import mask_of
from qwirkle_env.position import Position
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
