"""The policy network: masking, action-index layout, window and batch independence."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.tile_ppo.network import (
    MASKED_LOGIT,
    NetConfig,
    PolicyValueNet,
    masked_distribution,
    num_parameters,
)
from qwirkle_env import raw_env
from qwirkle_env.observation import split_observation

torch.set_num_threads(1)  # shared CI cores: one thread is much faster

SMALL = NetConfig(channels=8, blocks=2, hidden=16)


def states(window: int, count: int, seed: int = 0) -> list[dict]:
    """Observations of the player to move along random games."""
    env = raw_env(2, window=window)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        if env.game.over:
            env.reset()
        obs = env.observe(env.agent_selection)
        out.append(obs)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


def forward(net, obs_list, window):
    o = torch.from_numpy(np.stack([o["observation"] for o in obs_list]))
    m = torch.from_numpy(np.stack([o["action_mask"] for o in obs_list]))
    with torch.no_grad():
        logits, values = net(*split_observation(o, window))
    return logits, values, m


@pytest.fixture(scope="module")
def net():
    torch.manual_seed(0)
    model = PolicyValueNet(SMALL)
    for p in model.parameters():  # non-trivial outputs everywhere
        torch.nn.init.normal_(p, std=0.2)
    return model.eval()


@pytest.mark.parametrize("window", [11, 21, 39])
def test_output_shapes_any_window(net, window):
    obs = states(window, 3)
    logits, values, m = forward(net, obs, window)
    assert logits.shape == (3, 36 * window * window + 37)
    assert values.shape == (3,)


def test_masked_distribution_never_picks_illegal(net):
    obs = states(21, 40)
    logits, _, mask = forward(net, obs, 21)
    dist = masked_distribution(logits, mask)
    assert torch.all(dist.probs[mask == 0] == 0)
    assert torch.allclose(dist.probs.sum(1), torch.ones(len(obs)))
    assert torch.isfinite(dist.entropy()).all()
    samples = dist.sample((200,))
    assert torch.all(mask.gather(1, samples.T) == 1)


def test_every_legal_placement_has_a_live_logit(net):
    """Index layout t*W*W + r*W + c: legal cells fall inside the trunk's region."""
    w = 21
    obs = states(w, 60, seed=3)
    logits, _, mask = forward(net, obs, w)
    legal = mask[:, : 36 * w * w] == 1
    assert legal.any()
    assert torch.all(logits[:, : 36 * w * w][legal] > MASKED_LOGIT / 2)


def test_output_independent_of_batch_mates(net):
    obs = states(21, 80, seed=1)
    small, big = obs[2], obs[-1]  # an early board and a later, larger one
    alone, v_alone, _ = forward(net, [small], 21)
    paired, v_paired, _ = forward(net, [small, big], 21)
    assert torch.allclose(alone[0], paired[0], atol=1e-4)
    assert torch.allclose(v_alone[0], v_paired[0], atol=1e-5)


def test_same_policy_in_any_window(net):
    """One game state seen through windows 25 and 39 gets the same legal-action logits."""
    small, large = raw_env(2, window=25), raw_env(2, window=39)
    rng = np.random.default_rng(5)
    small.reset(seed=9)
    large.reset(seed=9)
    shift = (39 - 25) // 2  # both windows are centred on the same cell
    checked = 0
    for _ in range(40):
        o_s = small.observe(small.agent_selection)
        o_l = large.observe(large.agent_selection)
        l_s, v_s, _ = forward(net, [o_s], 25)
        l_l, v_l, _ = forward(net, [o_l], 39)
        assert torch.allclose(v_s, v_l, atol=1e-4)
        for a in np.flatnonzero(o_s["action_mask"]):
            kind = small.codec.decode(int(a))
            if kind[0] == "place":
                _, t, r, c = kind
                b = large.codec.place(t, r + shift, c + shift)
                assert abs(float(l_s[0, a]) - float(l_l[0, b])) < 1e-3
                checked += 1
        a = int(rng.choice(np.flatnonzero(o_s["action_mask"])))
        kind = small.codec.decode(a)
        if kind[0] == "place":
            b = large.codec.place(kind[1], kind[2] + shift, kind[3] + shift)
        else:
            b = a - small.codec.exchange_base + large.codec.exchange_base
        small.step(a)
        large.step(b)
    assert checked > 0


def test_default_network_is_small():
    assert num_parameters(PolicyValueNet()) < 1_000_000  # < 4 MB of float32
