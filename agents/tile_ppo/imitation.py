"""Warm start: behaviour cloning of a scripted teacher before PPO.

A random network needs many thousands of games to discover that long lines score; on two
CPU cores that is most of the budget. Cloning the greedy agent's sub-steps (masked
cross-entropy) and fitting the value head to the shaped returns of those games gives PPO
a greedy-like start in a few minutes; PPO self-play then has to improve on it.
"""

from __future__ import annotations

import random

import numpy as np
import torch

from agents.registry import make_agent
from agents.tile_ppo.network import PolicyValueNet, masked_logits
from agents.tile_ppo.selfplay import Buffer, episode_over
from qwirkle_env import raw_env
from qwirkle_env.spec import NUM_FEATURES, win_reward


def teacher_games(cfg, games: int, seed: int) -> Buffer:
    """Plays ``games`` teacher-vs-teacher games; every sub-step of every seat is stored,
    with its discounted shaped return in ``buf.values`` (the value target)."""
    env = raw_env(cfg.num_players, cfg.window, "margin", cfg.strict_opening)
    n = cfg.num_players
    agents = [make_agent(cfg.bc_teacher) for _ in range(n)]
    rng = random.Random(seed)
    buf = Buffer(1024, cfg.window, env.codec.num_actions, NUM_FEATURES)  # grows
    for _ in range(games):
        env.reset(seed=rng.randrange(2**31))
        for seat, agent in enumerate(agents):
            agent.reset(seat, n, rng.randrange(2**31))
        streams: list[list[int]] = [[] for _ in range(n)]
        while not episode_over(env):
            name = env.agent_selection
            seat = env.agent_name_mapping[name]
            if streams[seat]:
                reward = cfg.margin_coef_start * cfg.margin_scale * env._cumulative_rewards[name]
                buf.rewards[streams[seat][-1]] += reward
            view = env.player_view(name)
            action = agents[seat].act(view)
            streams[seat].append(buf.add(view.observation, view.action_mask, action, 0.0, 0.0))
            env.step(action)
        scores = list(env.game.scores)
        for seat, stream in enumerate(streams):
            if not stream:
                continue
            cum = env._cumulative_rewards[env.possible_agents[seat]]
            buf.rewards[stream[-1]] += (
                cfg.margin_coef_start * cfg.margin_scale * cum
                + cfg.win_coef * win_reward(scores, seat)
            )
            ret = 0.0
            for i in reversed(stream):
                ret = buf.rewards[i] + cfg.gamma * ret
                buf.values[i] = ret
    return buf


def clone(
    net: PolicyValueNet,
    buf: Buffer,
    epochs: int,
    minibatch: int,
    lr: float,
    device: torch.device,
    seed: int = 0,
    log=None,
) -> dict:
    """Masked cross-entropy to the teacher's actions plus value regression; returns the
    last epoch's mean loss and accuracy (how often the argmax equals the teacher)."""
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    gen = np.random.default_rng(seed)
    stats = {}
    for epoch in range(epochs):
        total, correct, vloss_sum = 0.0, 0, 0.0
        for idx in buf.minibatches(np.arange(buf.size), minibatch, gen):
            b = buf.batch(idx, device)
            returns = torch.from_numpy(buf.values[idx]).to(device)
            logits, values = net(b["planes"], b["features"])
            logits = masked_logits(logits, b["masks"])
            ce = torch.nn.functional.cross_entropy(logits, b["actions"])
            vloss = 0.5 * ((values - returns) ** 2).mean()
            loss = ce + vloss
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            total += ce.item() * len(idx)
            vloss_sum += vloss.item() * len(idx)
            correct += int((logits.argmax(1) == b["actions"]).sum())
        stats = {
            "bc_epoch": epoch + 1,
            "bc_loss": total / buf.size,
            "bc_value_loss": vloss_sum / buf.size,
            "bc_accuracy": correct / buf.size,
        }
        if log is not None:
            log(stats)
    return stats
