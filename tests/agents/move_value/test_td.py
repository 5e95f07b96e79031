"""TD(lambda) self-play (agents/move_value/td.py): targets, returns, reproducibility and
its configuration's checks."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.move_value.features import NUM_MOVE_FEATURES, POINT_SCALE
from agents.move_value.network import MoveValueNet
from agents.move_value.td import TDConfig, Trajectory, lambda_returns, play_game, targets
from qwirkle_env.spec import margin, win_reward

torch.set_num_threads(1)


def test_lambda_returns_span_td0_to_monte_carlo():
    rewards = np.array([1.0, -2.0, 4.0], np.float32)
    traj = Trajectory(np.zeros((3, NUM_MOVE_FEATURES), np.float32), rewards)
    nxt = np.array([10.0, 20.0, 0.0], np.float32)
    assert lambda_returns(traj, nxt, 1.0).tolist() == [3.0, 2.0, 4.0]
    assert lambda_returns(traj, nxt, 0.0).tolist() == [11.0, 18.0, 4.0]
    half = lambda_returns(traj, nxt, 0.5)
    assert half[2] == 4.0 and half[1] == pytest.approx(-2 + 0.5 * 20 + 0.5 * 4)


def test_targets_read_the_next_afterstate_of_the_same_trajectory():
    torch.manual_seed(1)
    net = MoveValueNet()
    torch.nn.init.normal_(net.out.weight)
    rng = np.random.default_rng(1)
    a = Trajectory(
        rng.normal(size=(2, NUM_MOVE_FEATURES)).astype(np.float32), np.ones(2, np.float32)
    )
    b = Trajectory(
        rng.normal(size=(1, NUM_MOVE_FEATURES)).astype(np.float32), np.ones(1, np.float32)
    )
    x, y = targets(net, [a, b], 0.0)
    v = net(torch.from_numpy(x)).detach().numpy()
    assert y.tolist() == pytest.approx([1 + v[1], 1.0, 1.0])


@pytest.mark.parametrize("players", [2, 3])
def test_self_play_returns_are_the_margin_after_the_first_move_plus_the_result(players):
    layers = MoveValueNet().numpy_layers()
    trajs, decisions, game = play_game(layers, 5, players, 0.2, None, 2.0)
    assert len(trajs) == players and decisions == sum(len(t.rewards) for t in trajs)
    scores, first = [0] * players, {}
    for seat, _, points in game.history:  # the margin right after each seat's first move
        scores[seat] += points
        if seat not in first:
            first[seat] = scores[seat] - (sum(scores) - scores[seat]) / (players - 1)
    for seat, traj in enumerate(trajs):
        final = margin(game.scores, seat)
        expected = (final - first[seat]) / POINT_SCALE + 2.0 * win_reward(game.scores, seat)
        assert float(traj.rewards.sum()) == pytest.approx(expected, abs=1e-4)
    one, _, _ = play_game(layers, 6, 3, 0.2, "greedy", 2.0)
    assert len(one) == 1  # only the learner's seat is recorded against scripted agents


def test_self_play_is_reproducible():
    layers = MoveValueNet().numpy_layers()
    a, _, _ = play_game(layers, 11, 2, 0.3, None, 2.0)
    b, _, _ = play_game(layers, 11, 2, 0.3, None, 2.0)
    assert all(np.array_equal(x.features, y.features) for x, y in zip(a, b, strict=True))


def test_bad_training_config_says_what_is_wrong():
    with pytest.raises(ValueError, match="lam must be in"):
        TDConfig(lam=1.5)
    with pytest.raises(ValueError, match="players must list"):
        TDConfig(players="2,5")
    with pytest.raises(ValueError, match="comma-separated integers"):
        TDConfig(players="two")
    with pytest.raises(ValueError, match="needs at least one --scripted"):
        TDConfig(scripted="", p_scripted=0.5)
