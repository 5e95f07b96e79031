"""The heuristic agent (agents/scripted/heuristic.py): the chance an opponent holds a tile,
the risk of an open five, and the fit of its weights (scripts/fit_heuristic.py)."""

from __future__ import annotations

import numpy as np
import pytest

from qwirkle_env import raw_env
from qwirkle_env.view import PlayerView


def test_chance_opponent_holds() -> None:
    from agents.scripted.heuristic import chance_opponent_holds

    assert chance_opponent_holds(1, 10, 1) == pytest.approx(0.1)
    assert chance_opponent_holds(2, 4, 2) == pytest.approx(1 - 1 / 6)  # 1 - C(2,2)/C(4,2)
    assert chance_opponent_holds(0, 10, 6) == 0.0
    assert chance_opponent_holds(1, 6, 6) == 1.0  # bag empty: the unseen tiles are theirs


def test_heuristic_sees_an_open_five() -> None:
    """Making a line of five whose sixth tile is unseen costs the chance they hold it."""
    from agents.scripted.heuristic import Evaluator, Weights, chance_opponent_holds, lines_through
    from qwirkle_env import Board, Tile
    from qwirkle_env.engine.tiles import Color, Shape

    board = Board({(0, c): Tile(Color.RED, Shape(c)) for c in range(4)})
    view = PlayerView(
        seat=0, num_players=2, board=board, hand=[Tile(Color.RED, Shape.CLOVER).id, 20],
        scores=[0, 0], hand_sizes=[2, 6], bag_size=60, opening_size=None,
        strict_opening=True,
    )  # fmt: skip
    items = (((0, 4), Tile(Color.RED, Shape.CLOVER).id),)
    after = board.copy()
    after.place_legal(list(items))
    ((n, mask),) = [x for x in lines_through(after, items) if x[0] > 1]
    assert n == 5 and mask == 1 << Tile(Color.RED, Shape.STAR8).id
    p = chance_opponent_holds(3, sum(view.unseen()), 6)  # all 3 red star8s unseen
    assert Evaluator(view, Weights()).detail(items) == pytest.approx(-Weights().risk * p)


def test_fit_heuristic_recovers_known_weights() -> None:
    from scripts.fit_heuristic import FEATURES, features, fit, positions

    rng = np.random.default_rng(0)
    truth = rng.normal(size=len(FEATURES))
    data = []
    for _ in range(30):
        f = rng.normal(size=(10, len(FEATURES)))
        data.append((f, f @ truth + 5.0))  # a per-position offset changes nothing
    w, r2 = fit(data)
    assert w == pytest.approx(truth) and r2 == pytest.approx(1.0)
    found = positions(seed=1, deals=2, share=0.05)
    assert found and found[0][0].shape[1] == len(FEATURES) == len(found[0][0][0])
    env = raw_env(num_players=2)
    env.reset(seed=4)
    view = env.player_view()
    items, pts = view.placements()[0]
    assert len(features(view, items, pts)) == len(FEATURES)
