"""Masked PPO: the update lowers its loss, GAE follows each seat's own trajectory, and the
self-play bookkeeping stores legal actions with rewards on the right transitions."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.tile_ppo import selfplay
from agents.tile_ppo.network import NetConfig, PolicyValueNet
from agents.tile_ppo.ppo import PPOConfig, ppo_loss, ppo_update
from agents.tile_ppo.selfplay import Buffer, SelfPlay
from qwirkle_env import raw_env
from qwirkle_env.spec import NUM_FEATURES, win_reward
from tests.conftest import rewards_of_a_random_game

torch.set_num_threads(1)  # shared CI cores: one thread is much faster

W = 21
TINY = NetConfig(channels=8, blocks=1, hidden=16)


def tiny_config(**kw) -> PPOConfig:
    base = dict(
        window=W, num_envs=2, rollout_steps=64, minibatch=32, epochs=2, net=TINY,
        p_pool=0.0, p_scripted=0.0, bc_games=0, seed=0,
    )  # fmt: skip
    base.update(kw)
    return PPOConfig(**base)


def no_scripted(spec):
    raise AssertionError("no scripted opponent expected")


@pytest.fixture(scope="module")
def rollout():
    torch.manual_seed(0)
    cfg = tiny_config()
    net = PolicyValueNet(cfg.net).eval()
    play = SelfPlay(cfg, torch.device("cpu"))
    buf = Buffer(128, W, play.codec.num_actions, NUM_FEATURES)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(selfplay, "make_agent", no_scripted)
        play.collect(net, buf, 900)
    return cfg, net, play, buf


def test_stored_actions_are_legal(rollout):
    _, _, _, buf = rollout
    masks = np.unpackbits(buf.masks[: buf.size], axis=1, count=buf.num_actions)
    assert np.all(masks[np.arange(buf.size), buf.actions[: buf.size]] == 1)


def test_streams_link_forward_and_games_end(rollout):
    _, _, play, buf = rollout
    n = buf.size
    linked = buf.next[:n] >= 0
    assert np.all(buf.next[:n][linked] > np.flatnonzero(linked))  # next is always later
    assert len(set(buf.next[:n][linked].tolist())) == linked.sum()  # one predecessor each
    # a finished self-play game closes one transition per seat
    assert buf.dones[:n].sum() == len(play.finished) + play.truncated
    assert len(play.finished) > 0
    pending = ~buf.dones[:n] & ~linked
    assert pending.sum() <= play.cfg.num_envs * play.cfg.num_players


def test_self_play_rewards_are_zero_sum(monkeypatch):
    """With the shaping off, each seat's trajectory earns exactly its game result, once,
    at its last transition, and the two seats' results cancel."""
    cfg = tiny_config(margin_coef_start=0.0, margin_coef_end=0.0)
    net = PolicyValueNet(cfg.net).eval()
    monkeypatch.setattr(selfplay, "make_agent", no_scripted)
    play = SelfPlay(cfg, torch.device("cpu"))
    buf = Buffer(128, W, play.codec.num_actions, NUM_FEATURES)
    play.collect(net, buf, 900)
    n = buf.size
    # rewards of closed games: walk each finished stream back from its done transition
    prev = {int(j): i for i, j in enumerate(buf.next[:n]) if j >= 0}
    totals = []
    for end in np.flatnonzero(buf.dones[:n]):
        total, i = 0.0, int(end)
        while i in prev:
            total += buf.rewards[i]
            i = prev[i]
        totals.append(total + buf.rewards[i])
    assert totals and sum(totals) == pytest.approx(0.0, abs=1e-6)
    assert set(totals) <= {-1.0, 0.0, 1.0}
    assert np.all(buf.rewards[: buf.size][~buf.dones[: buf.size]] == 0)


def test_gae_per_stream():
    """Two interleaved streams: each transition bootstraps from its own seat's next one."""
    buf = Buffer(8, W, 36 * W * W + 37, NUM_FEATURES)
    obs = np.zeros(13 * W * W + NUM_FEATURES, dtype=np.float32)
    mask = np.zeros(36 * W * W + 37, dtype=np.int8)
    for k in range(5):
        buf.add(obs, mask, 0, 0.0, value=0.1 * k)
    # seat A: 0 -> 2 -> 4 (pending); seat B: 1 -> 3 (done)
    buf.next[0], buf.next[2] = 2, 4
    buf.next[1], buf.dones[3] = 3, True
    buf.rewards[:4] = [1.0, 2.0, 3.0, 4.0]
    g, lam = 0.9, 0.8
    adv, ret = buf.gae(g, lam)
    a3 = 4.0 - 0.3
    a1 = 2.0 + g * 0.3 - 0.1 + g * lam * a3
    a2 = 3.0 + g * 0.4 - 0.2
    a0 = 1.0 + g * 0.2 - 0.0 + g * lam * a2
    assert adv[:4] == pytest.approx([a0, a1, a2, a3], rel=1e-5)
    assert adv[4] == 0.0
    assert set(buf.complete().tolist()) == {0, 1, 2, 3}
    mapping = buf.carry_pending()
    assert mapping == {4: 0} and buf.size == 1 and buf.values[0] == pytest.approx(0.4)


def test_ppo_update_decreases_its_loss(rollout):
    cfg, net, _, buf = rollout
    net = PolicyValueNet(cfg.net)
    net.load_state_dict(rollout[1].state_dict())
    adv_all, ret_all = buf.gae(cfg.gamma, cfg.gae_lambda)
    idx = buf.complete()[:48]
    b = buf.batch(idx, torch.device("cpu"))
    adv, ret = torch.from_numpy(adv_all[idx]), torch.from_numpy(ret_all[idx])
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    before, _ = ppo_loss(net, b, adv, ret, cfg)
    for _ in range(10):
        loss, _ = ppo_loss(net, b, adv, ret, cfg)
        opt.zero_grad()
        loss.backward()
        opt.step()
    after, info = ppo_loss(net, b, adv, ret, cfg)
    assert after.item() < before.item()
    assert info["kl"] >= 0


def test_ppo_update_runs_on_rollout(rollout):
    cfg, net, _, buf = rollout
    net = PolicyValueNet(cfg.net)
    opt = torch.optim.Adam(net.parameters(), lr=1e-4)
    stats = ppo_update(net, opt, buf, cfg, torch.device("cpu"), np.random.default_rng(0))
    assert {"pg", "vf", "ent", "kl", "explained_var"} <= set(stats)
    assert all(np.isfinite(v) for v in stats.values())


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_win_reward_matches_env(num_players):
    """The trainer's terminal reward is exactly what the AEC env pays with reward="win"."""
    env = raw_env(num_players, window=25, reward="win")
    env.reset(seed=num_players)
    paid = rewards_of_a_random_game(env, np.random.default_rng(num_players))
    assert env.game.over
    for seat, agent in enumerate(env.possible_agents):
        assert win_reward(env.game.scores, seat) == paid[agent]
    assert win_reward([10, 5, 3], 0) == pytest.approx(1.0)  # the documented values
    assert win_reward([10, 5, 3], 1) == pytest.approx(-0.5)
    assert sum(win_reward([7, 7, 1], s) for s in range(3)) == pytest.approx(0.0)


def test_scripted_opponents_are_not_shared_between_games():
    """Planning agents keep a per-game plan: each env needs its own instances."""

    cfg = tiny_config(p_scripted=1.0, scripted="greedy", num_envs=3)
    play = SelfPlay(cfg, torch.device("cpu"))
    net = PolicyValueNet(cfg.net).eval()
    buf = Buffer(64, W, play.codec.num_actions, NUM_FEATURES)
    play.collect(net, buf, 30)
    opponents = [c for ctl in play.controllers for c in ctl if not isinstance(c, str)]
    assert len(opponents) == 3 and len({id(a) for a in opponents}) == 3


def test_truncated_episodes_end_the_game():
    from types import SimpleNamespace

    from agents.tile_ppo.selfplay import episode_over

    running = SimpleNamespace(game=SimpleNamespace(over=False), truncations={"player_0": False})
    cut = SimpleNamespace(game=SimpleNamespace(over=False), truncations={"player_0": True})
    assert not episode_over(running) and episode_over(cut)
