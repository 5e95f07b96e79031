"""The move-value learner's move features (agents/move_value/features.py and
look_ahead.py as the features use it): each legal move once, the same from a view and a
game, the risk and look-ahead columns."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from agents.move_value.agent import select
from agents.move_value.features import FEATURES, NUM_MOVE_FEATURES, POINT_SCALE, candidates
from agents.move_value.network import MoveValueNet
from qwirkle_env import Board, Color, Shape, Tile
from qwirkle_env.engine.lines import mask_of
from qwirkle_env.rows.look_ahead import LookAhead
from qwirkle_env.rows.position import Position, chance_opponent_holds
from qwirkle_env.view import PlayerView
from tests.conftest import game_at

torch.set_num_threads(1)
F = {name: i for i, name in enumerate(FEATURES)}


def _crafted(board: Board, hand: list[Tile], bag: int = 50, hand_sizes=(6, 6)) -> Position:
    ids = sorted(t.id for t in hand)

    return Position(board, ids, 0, [10, 4], list(hand_sizes), bag,
                    board.placements_with_points(mask_of(ids)), bag > 0)  # fmt: skip


@pytest.mark.usefixtures("rows_agree")  # compiled rows = the Python reference
def test_every_legal_move_is_a_candidate_once():
    for seed in range(5):
        game = game_at(seed, 6)
        cands = candidates(Position.of_game(game))
        assert len(cands) == len(game.legal_moves())
        assert cands.features.shape == (len(cands), NUM_MOVE_FEATURES)
        assert np.isfinite(cands.features).all()
        assert len(cands.exchanges) == len(game.legal_exchanges())


@pytest.mark.usefixtures("rows_agree")  # compiled rows = the Python reference
def test_features_are_the_same_from_a_view_and_from_the_game():
    game = game_at(3, 8)
    a = candidates(Position.of_game(game))
    b = candidates(Position.of_view(PlayerView.of(game, game.current)))
    assert np.array_equal(a.features, b.features) and np.array_equal(a.points, b.points)


@pytest.mark.usefixtures("rows_agree")  # compiled rows = the Python reference
def test_a_line_of_five_left_open_is_a_risk_feature():
    red = [Tile(Color.RED, s) for s in list(Shape)[:4]]
    board = Board({(0, i): t for i, t in enumerate(red)})
    fifth = Tile(Color.RED, Shape.CLOVER)
    pos = _crafted(board, [fifth, Tile(Color.BLUE, Shape.CIRCLE)])
    cands = candidates(pos)
    row = next(i for i, items in enumerate(cands.placements) if items == (((0, 4), fifth.id),))
    f = cands.features[row]
    unseen = pos.unseen()
    star8 = Tile(Color.RED, Shape.STAR8).id
    expected = chance_opponent_holds(unseen[star8], sum(unseen), 6)
    assert f[F["open_fives"]] == 1 and f[F["own_fives"]] == 0
    assert f[F["five_risk"]] == pytest.approx(expected)
    assert f[F["points"]] == pytest.approx(5 / POINT_SCALE)


@pytest.mark.usefixtures("rows_agree")  # compiled rows = the Python reference
def test_keeping_the_sixth_tile_is_an_own_five():
    red = [Tile(Color.RED, s) for s in list(Shape)[:4]]
    board = Board({(0, i): t for i, t in enumerate(red)})
    fifth, sixth = Tile(Color.RED, Shape.CLOVER), Tile(Color.RED, Shape.STAR8)
    cands = candidates(_crafted(board, [fifth, sixth]))
    row = next(i for i, items in enumerate(cands.placements) if items == (((0, 4), fifth.id),))
    f = cands.features[row]
    assert f[F["own_fives"]] == 1 and f[F["kept"]] == pytest.approx(1 / 6)
    qwirkle = [i for i, items in enumerate(cands.placements) if len(items) == 2]
    assert any(cands.features[i][F["qwirkles"]] == 1 for i in qwirkle)


@pytest.mark.usefixtures("rows_agree")  # compiled rows = the Python reference
def test_going_out_with_the_bag_empty_adds_the_bonus_and_the_reply_is_checked():
    board = Board({(0, 0): Tile(Color.RED, Shape.CIRCLE)})
    last = Tile(Color.RED, Shape.SQUARE)
    cands = candidates(_crafted(board, [last], bag=0))
    assert not cands.exchanges  # nothing to exchange with an empty bag
    f = cands.features[0]
    assert f[F["goes_out"]] == 1 and cands.points[0] == 2 + 6
    two = candidates(_crafted(board, [last, Tile(Color.BLUE, Shape.STAR8)], bag=0))
    assert two.features[0][F["reply_points"]] == 0  # looked at only for a shortlist
    two.look_ahead([0], random.Random(0))
    kept = two.features[0]
    assert kept[F["goes_out"]] == 0 and kept[F["reply_points"]] > 0
    assert kept[F["next_points"]] == 0  # the blue star fits nowhere next to two red tiles


@pytest.mark.usefixtures("rows_agree")  # compiled rows = the Python reference
def test_the_kept_tiles_best_next_move_is_looked_at():
    board = Board({(0, 0): Tile(Color.RED, Shape.CIRCLE)})
    square, diamond = Tile(Color.RED, Shape.SQUARE), Tile(Color.RED, Shape.DIAMOND)
    cands = candidates(_crafted(board, [square, diamond]))
    row = next(i for i, items in enumerate(cands.placements) if items == (((0, 1), square.id),))
    no_refill = LookAhead(reply_samples=1, refill=False)  # the kept tiles alone, no draw
    cands.look_ahead([row], random.Random(0), no_refill)
    assert cands.features[row][F["next_points"]] == pytest.approx(3 / POINT_SCALE)
    assert cands.kept(row) == [diamond.id]


@pytest.mark.usefixtures("rows_agree")  # compiled rows = the Python reference
def test_the_unknown_reply_is_dealt_from_the_unseen_tiles_reproducibly():
    game = game_at(4, 6)
    rows = []
    for _ in range(2):
        cands = candidates(Position.of_game(game))
        cands.look_ahead(range(len(cands)), random.Random(9))
        rows.append(cands.features[:, F["reply_points"]].copy())
    assert np.array_equal(rows[0], rows[1]) and rows[0].max() > 0


@pytest.mark.usefixtures("rows_agree")  # compiled rows = the Python reference
def test_late_in_the_game_the_choice_is_made_among_moves_whose_reply_was_checked():
    game = game_at(2, 0)
    layers = MoveValueNet().numpy_layers()
    while game.bag_size or game.over:
        if game.over:
            pytest.fail("the game ended before the bag emptied")
        cands = candidates(Position.of_game(game))
        move = cands.move(select(layers, cands, 0.0, random.Random(0)))
        game.apply(move)
    cands = candidates(Position.of_game(game))
    assert cands.position is not None
    i = select(layers, cands, 0.0, random.Random(0))
    row = cands.features[i]
    assert (
        row[F["reply_points"]] > 0
        or row[F["goes_out"]] == 1
        or not game.board.can_place(
            sum(1 << t for t, k in enumerate(Position.of_game(game).unseen()) if k)
        )
    )


@pytest.mark.usefixtures("rows_agree")  # compiled rows = the Python reference
def test_exchange_rows_describe_the_leave():
    game = game_at(1, 4)
    cands = candidates(Position.of_game(game))
    n = len(cands.placements)
    for i, ids in enumerate(cands.exchanges):
        f = cands.features[n + i]
        assert f[F["exchange"]] == 1 and cands.points[n + i] == 0
        assert f[F["kept"]] == pytest.approx((6 - len(ids)) / 6)
