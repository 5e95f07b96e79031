"""The move-value agent (agents/move_value/agent.py and network.py): its choice, its
sampling, and its checkpoints as agents (agents/loading.py, agents/checkpoint.py)."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from agents.checkpoint import load_checkpoint, save_checkpoint
from agents.evaluation.harness import play_game as play_env_game
from agents.move_value.agent import ValueAgent, move_values, pick
from agents.move_value.features import NUM_BASE_FEATURES, NUM_MOVE_FEATURES, candidates
from agents.move_value.network import MoveValueNet, ValueNetConfig, values, widened
from agents.registry import make_agent
from agents.tile_ppo.network import NetConfig, PolicyValueNet
from qwirkle_env.rows.position import Position
from tests.conftest import game_at

torch.set_num_threads(1)


def test_an_untrained_network_plays_like_greedy():
    layers = MoveValueNet().numpy_layers()
    for seed in range(5):
        cands = candidates(Position.of_game(game_at(seed, 5)))
        i = pick(move_values(layers, cands), 0.0, random.Random(0))
        assert cands.points[i] == cands.points.max() > 0


def test_softmax_sampling_is_seeded_and_prefers_better_moves():
    worth = np.array([0.0, 1.0, 3.0])
    a = [pick(worth, 0.5, random.Random(7)) for _ in range(3)]
    assert a == [pick(worth, 0.5, random.Random(7)) for _ in range(3)]
    counts = np.bincount([pick(worth, 0.5, r) for r in [random.Random(i) for i in range(400)]],
                         minlength=3)  # fmt: skip
    assert counts[2] > counts[1] > counts[0]


def test_value_agent_rejects_a_bad_temperature():
    with pytest.raises(ValueError, match="temperature must be"):
        ValueAgent(MoveValueNet(), temperature=-1)
    with pytest.raises(ValueError, match="finite"):
        ValueAgent(MoveValueNet(), temperature=float("nan"))


def test_network_config_must_match_the_features():
    with pytest.raises(ValueError, match=f"{NUM_BASE_FEATURES} features"):
        MoveValueNet(ValueNetConfig(features=NUM_MOVE_FEATURES))
    with pytest.raises(ValueError, match=f"{NUM_MOVE_FEATURES} features"):
        MoveValueNet(ValueNetConfig(features=NUM_BASE_FEATURES, encoder=8))
    with pytest.raises(ValueError, match="hidden layer"):
        MoveValueNet(ValueNetConfig(layers=0))
    with pytest.raises(ValueError, match="encoder width"):
        MoveValueNet(ValueNetConfig(encoder=-1))


def _typed(seed: int = 0) -> MoveValueNet:
    """A network with a type encoder and every weight random (its output layer too)."""
    torch.manual_seed(seed)
    net = MoveValueNet(ValueNetConfig(encoder=8))
    torch.nn.init.normal_(net.out.weight)
    return net


def test_the_type_encoder_reads_the_type_block_alike_for_every_type():
    """Colours and shapes are interchangeable: the same block with its types relabelled
    is worth the same; a change inside the block changes the value."""
    net = _typed()
    x = torch.from_numpy(np.random.default_rng(1).random((4, NUM_MOVE_FEATURES), np.float32))
    block = x[:, NUM_BASE_FEATURES:].reshape(4, 36, -1)
    relabelled = torch.cat([x[:, :NUM_BASE_FEATURES],
                            block[:, torch.randperm(36)].reshape(4, -1)], 1)  # fmt: skip
    assert torch.allclose(net(x), net(relabelled), atol=1e-5)
    changed = x.clone()
    changed[:, NUM_BASE_FEATURES + 4] += 1.0  # type 0's best_tile
    assert not torch.allclose(net(x), net(changed))


def test_rows_not_looked_at_are_valued_as_a_zero_type_block():
    """``values`` skips the encoder on rows whose block was not filled: the same numbers
    as running it on their zeros."""
    net = _typed()
    x = np.random.default_rng(2).random((6, NUM_MOVE_FEATURES)).astype(np.float32)
    looked = np.array([True, False, True, False, False, True])
    x[~looked, NUM_BASE_FEATURES:] = 0.0
    expected = net(torch.from_numpy(x)).detach().numpy()
    assert np.allclose(values(net.numpy_layers(), x, looked), expected, atol=1e-5)
    assert np.allclose(values(net.numpy_layers(), x), expected, atol=1e-5)
    plain = torch.from_numpy(x[~looked])  # the fit's shortcut for rows not looked at
    assert torch.allclose(net(plain, looked=False), net(plain), atol=1e-6)


def test_a_widened_network_values_every_move_as_before():
    torch.manual_seed(3)
    base = MoveValueNet()
    torch.nn.init.normal_(base.out.weight)
    wide = widened(base, 8)
    assert wide.config.encoder == 8 and wide.config.features == NUM_MOVE_FEATURES
    cands = candidates(Position.of_game(game_at(4, 6)))
    cands.look_ahead(range(len(cands)), random.Random(0))
    assert cands.features[:, NUM_BASE_FEATURES:].any()
    assert np.allclose(values(wide.numpy_layers(), cands.features),
                       values(base.numpy_layers(), cands.features), atol=1e-5)  # fmt: skip
    with pytest.raises(ValueError, match="already has a type encoder"):
        widened(wide, 8)


def test_numpy_and_torch_forward_agree():
    torch.manual_seed(0)
    net = MoveValueNet()
    torch.nn.init.normal_(net.out.weight)
    x = np.random.default_rng(0).normal(size=(50, NUM_MOVE_FEATURES)).astype(np.float32)
    for each in (net, _typed()):
        expected = each(torch.from_numpy(x)).detach().numpy()
        assert np.allclose(values(each.numpy_layers(), x), expected, atol=1e-5)


def test_value_checkpoint_is_an_agent_that_plays_through_the_env(value_ckpt):
    agent = make_agent(f"ckpt:{value_ckpt}")
    assert isinstance(agent, ValueAgent)
    out = play_env_game([f"ckpt:{value_ckpt}", "greedy"], env_seed=3, agent_seeds=[1, 2])
    assert out["fallbacks"] == [0, 0] and out["end"] == "rules"


def test_each_loader_refuses_the_other_kind_by_name(value_ckpt, tmp_path):
    with pytest.raises(ValueError, match="holds a move-value network.*tile-level"):
        load_checkpoint(value_ckpt, kind=PolicyValueNet)
    ppo = save_checkpoint(tmp_path / "p.pt", PolicyValueNet(NetConfig(8, 1, 16)), {}, {}, 0)
    with pytest.raises(ValueError, match="holds a tile-level masked-PPO policy"):
        load_checkpoint(ppo, kind=MoveValueNet)
    torch.save({"format": "qwirkle-ppo-v0"}, tmp_path / "old.pt")
    with pytest.raises(ValueError, match="not a qwirkle-env checkpoint"):
        make_agent(f"ckpt:{tmp_path / 'old.pt'}")


def test_edited_value_checkpoint_fails_its_checksum(value_ckpt, tmp_path):
    blob = torch.load(value_ckpt, weights_only=True)
    blob["state_dict"]["out.bias"] += 1.0
    torch.save(blob, tmp_path / "edited.pt")
    with pytest.raises(ValueError, match="SHA-256"):
        make_agent(f"ckpt:{tmp_path / 'edited.pt'}")


def test_checkpoint_from_another_feature_set_is_refused(tmp_path):
    path = save_checkpoint(tmp_path / "f.pt", MoveValueNet(), {"features": ["points"]}, {}, 0)
    with pytest.raises(ValueError, match="trained on move features"):
        make_agent(f"ckpt:{path}")
