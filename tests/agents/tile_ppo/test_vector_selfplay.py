"""The "vector" rollout backend (agents.tile_ppo.vector_selfplay): legal stored actions, the AEC
backend's reward bookkeeping, and a training run through train.py."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import torch

from agents.checkpoint import load_checkpoint
from agents.tile_ppo.network import NetConfig, PolicyValueNet, masked_distribution, sample_legal
from agents.tile_ppo.ppo import PPOConfig, make_rollouts, ppo_update
from agents.tile_ppo.vector_selfplay import LEARNER
from qwirkle_cli import commands as cli
from qwirkle_env.engine.tiles import NUM_TYPES
from qwirkle_env.spec import win_reward
from qwirkle_env.vector.tiles.compact import dense_mask, dense_planes

torch.set_num_threads(1)  # shared CI cores: one thread is much faster

W = 21
TINY = NetConfig(channels=8, blocks=1, hidden=16)
SCORES = 3 * NUM_TYPES + 1  # features: own score, then the next seats'


def tiny_config(**kw) -> PPOConfig:
    base = dict(
        window=W, num_envs=4, rollout_steps=64, minibatch=32, epochs=1, net=TINY,
        p_pool=0.0, p_scripted=0.0, bc_games=0, seed=0, backend="vector",
    )  # fmt: skip
    base.update(kw)
    return PPOConfig(**base)


def collect(cfg: PPOConfig, steps: int):
    """A rollout of ``steps`` learner transitions; every game end recorded with the seats'
    last transitions and the final scores, from either backend."""
    torch.manual_seed(0)
    net = PolicyValueNet(cfg.net).eval()
    play, buf = make_rollouts(cfg, torch.device("cpu"))
    ends, end_game = [], play._end_game

    def recording(i, buf, *args):
        if args:  # vector: final scores and truncated are passed in
            scores, truncated = [int(x) for x in args[0]], args[1]
        else:
            env = play.envs[i]
            scores, truncated = list(env.game.scores), not env.game.over
        ends.append((play.streams[i].copy(), scores, truncated))
        end_game(i, buf, *args)

    play._end_game = recording
    play.collect(net, buf, steps)
    return net, play, buf, ends


@pytest.fixture(scope="module")
def rollout():
    return collect(tiny_config(), 1600)


def test_stored_actions_are_legal(rollout):
    _, play, buf, ends = rollout
    n = buf.size
    masks = dense_mask(buf.masks[:n])
    assert masks.shape == (n, play.codec.num_actions)
    assert np.all(masks[np.arange(n), buf.actions[:n]] == 1)
    assert play.agent_steps >= n and len(ends) > 0


def test_batch_expands_to_the_env_layout(rollout):
    _, _, buf, _ = rollout
    idx = np.arange(0, buf.size, 97)
    b = buf.batch(idx, torch.device("cpu"))
    assert np.array_equal(b["planes"].numpy(), dense_planes(buf.boards[idx]))
    assert np.array_equal(b["masks"].numpy(), dense_mask(buf.masks[idx]).astype(bool))
    occupied = dense_planes(buf.boards[idx])[:, :6].any(axis=1)
    side = np.maximum(occupied.any(axis=1).sum(1), occupied.any(axis=2).sum(1))
    assert np.array_equal(buf.extent[idx], side)


def test_sample_legal_draws_from_the_masked_policy():
    torch.manual_seed(0)
    logits = torch.tensor([[0.0, 1.0, 2.0, 1.5], [3.0, 0.0, -1.0, 0.5]]).repeat(5000, 1)
    mask = torch.tensor([[1, 1, 0, 1], [0, 1, 1, 1]]).repeat(5000, 1)
    actions, logp = sample_legal(logits, *mask.nonzero(as_tuple=True))
    dist = masked_distribution(logits, mask)
    assert torch.all(mask[torch.arange(len(mask)), actions] == 1)
    assert torch.allclose(logp, dist.log_prob(actions), atol=1e-5)
    for r in (0, 1):
        freq = torch.bincount(actions[r::2], minlength=4) / 5000
        assert torch.allclose(freq, dist.probs[r], atol=0.02)


def stream_totals(buf, ends, cfg):
    """Per finished learner stream: (sum of its rewards, what the AEC bookkeeping says it
    must be): the shaped margin gained from the seat's first action to the end, plus the
    game result (none for a truncated game)."""
    n = buf.size
    prev = {int(j): i for i, j in enumerate(buf.next[:n]) if j >= 0}
    coef = cfg.margin_coef_start * cfg.margin_scale
    out = []
    for streams, scores, truncated in ends:
        for seat, last in enumerate(streams):
            if last < 0:
                continue
            assert buf.dones[last]
            total, i = float(buf.rewards[last]), int(last)
            while i in prev:
                i = prev[i]
                total += float(buf.rewards[i])
            before = buf.features[i, SCORES] - buf.features[i, SCORES + 1]  # at its 1st action
            margin = scores[seat] - scores[1 - seat]
            win = 0.0 if truncated else cfg.win_coef * win_reward(scores, seat)
            out.append((total, coef * (margin - before) + win))
    return out


@pytest.mark.parametrize("backend", ["vector", "aec"])
def test_finished_streams_earn_the_shaped_margin_and_the_result(backend):
    """The same check on both backends: the vector one keeps the AEC bookkeeping."""
    cfg = tiny_config(backend=backend, margin_coef_start=0.5, win_coef=2.0)
    _, _, buf, ends = collect(cfg, 1600)
    pairs = stream_totals(buf, ends, cfg)
    assert len(pairs) >= 2
    got, want = np.array(pairs).T
    np.testing.assert_allclose(got, want, atol=1e-4)


def test_streams_link_forward_and_games_end(rollout):
    _, play, buf, _ = rollout
    n = buf.size
    linked = buf.next[:n] >= 0
    assert np.all(buf.next[:n][linked] > np.flatnonzero(linked))
    assert len(set(buf.next[:n][linked].tolist())) == linked.sum()
    assert buf.dones[:n].sum() == len(play.finished) + play.truncated
    pending = ~buf.dones[:n] & ~linked
    assert pending.sum() <= play.cfg.num_envs * play.cfg.num_players


def test_update_and_carry_over(rollout):
    net, play, buf, _ = rollout
    cfg = play.cfg
    opt = torch.optim.Adam(net.parameters(), lr=1e-4)
    stats = ppo_update(net, opt, buf, cfg, torch.device("cpu"), np.random.default_rng(0))
    assert all(np.isfinite(v) for v in stats.values())
    streams = play.streams.copy()
    pending_boards = buf.boards[streams[streams >= 0]]
    play.remap(buf.carry_pending())
    assert np.array_equal(buf.boards[play.streams[play.streams >= 0]], pending_boards)
    before = buf.size
    play.collect(net, buf, 64)  # the carried streams go on
    assert buf.size >= before + 64


def test_pool_games_have_one_learner_seat():
    cfg = tiny_config(p_pool=1.0)
    net = PolicyValueNet(cfg.net).eval()
    play, buf = make_rollouts(cfg, torch.device("cpu"))
    play.set_pool([net.state_dict()], PolicyValueNet(cfg.net))
    for i in range(cfg.num_envs):
        play._new_game(i)
    assert np.all((play.controllers == LEARNER).sum(axis=1) == 1)
    play.collect(net, buf, 100)
    n = buf.size
    assert np.all(dense_mask(buf.masks[:n])[np.arange(n), buf.actions[:n]] == 1)


SMOKE = [
    "ppo", "--backend", "vector", "--total-steps", "128", "--num-envs", "4",
    "--rollout-steps", "64", "--minibatch", "32", "--bc-games", "0", "--eval-every", "128",
    "--eval-games", "2", "--eval-opponents", "random", "--final-games", "0", "--window", "25",
    "--channels", "8", "--blocks", "1", "--hidden", "16", "--no-progress",
]  # fmt: skip


def test_training_run_with_the_vector_backend(tmp_path):
    from agents.evaluation.harness import play_game

    cli.main([*SMOKE, "--out", str(tmp_path), "--name", "vec"])
    run = tmp_path / "vec"
    with open(run / "metrics.csv") as f:
        rows = [r for r in csv.DictReader(f) if r["collect_s"]]
    assert len(rows) == 2
    for r in rows:  # at least the rollout's transitions, in the rollout's time
        assert round(float(r["collect_steps_per_s"]) * float(r["collect_s"])) >= 64
        assert float(r["env_steps_per_s"]) >= float(r["collect_steps_per_s"]) > 0
    path = run / "checkpoints" / "final.pt"
    _, meta = load_checkpoint(path, kind=PolicyValueNet)
    assert meta["train"]["backend"] == "vector" and meta["train"]["total_steps"] == 128
    out = play_game([f"ckpt:{path}", "random"], env_seed=3, agent_seeds=[1, 2])
    assert len(out["scores"]) == 2


def test_scripted_opponents_asked_for_with_the_vector_backend_is_an_error():
    with pytest.raises(ValueError, match="vector backend has no scripted opponents"):
        PPOConfig(backend="vector", p_scripted=0.5)
    with pytest.raises(ValueError, match="vector backend has no scripted opponents"):
        PPOConfig(backend="vector", scripted="heuristic")
    with pytest.raises(SystemExit, match="vector backend has no scripted opponents"):
        cli.main(["ppo", "--backend", "vector", "--p-scripted", "0.5"])
    assert PPOConfig(backend="vector").backend == "vector"  # the default share: self-play
    assert PPOConfig(backend="vector", p_scripted=0.0, scripted="").p_scripted == 0.0
    with pytest.raises(ValueError, match="backend"):
        PPOConfig(backend="gpu")
