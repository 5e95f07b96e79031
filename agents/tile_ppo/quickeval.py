"""Fast in-training evaluation: many games at once, one batched forward per step.

The full harness (agents.evaluation.harness) plays one game per process with batch-1 forwards;
for the learning curve during training this batches the policy over all games instead.
Deals are duplicated: game 2k and 2k+1 share a seed with the seats swapped.
"""

from __future__ import annotations

import random

import numpy as np
import torch

from agents.registry import make_agent
from agents.tile_ppo.network import PolicyValueNet, masked_logits
from agents.tile_ppo.selfplay import episode_over
from qwirkle_env import raw_env
from qwirkle_env.observation import split_observation
from qwirkle_env.spec import win_reward


@torch.no_grad()
def win_rate(
    net: PolicyValueNet,
    opponent_spec: str,
    games: int,
    window: int,
    num_players: int = 2,
    strict_opening: bool = True,
    seed: int = 0,
    device: torch.device | str = "cpu",
) -> dict:
    """Greedy (argmax) policy vs ``opponent_spec`` in every other seat: win share
    (ties count 1/|winners|), mean score margin, games played."""
    rng = random.Random(seed)
    envs, controllers = [], []
    for g in range(games):
        env = raw_env(num_players, window, "win", strict_opening)
        if g % num_players == 0:
            deal = rng.randrange(2**31)
        env.reset(seed=deal)
        me = g % num_players
        ctl = []
        for seat in range(num_players):
            if seat == me:
                ctl.append(None)
            else:
                agent = make_agent(opponent_spec)
                agent.reset(seat, num_players, rng.randrange(2**31))
                ctl.append(agent)
        envs.append(env)
        controllers.append((me, ctl))
    live = list(range(games))
    while live:
        mine = []
        for i in live:
            env = envs[i]
            seat = env.agent_name_mapping[env.agent_selection]
            agent = controllers[i][1][seat]
            if agent is None:
                mine.append(i)
            else:
                env.step(agent.act(env.player_view()))
        if mine:
            for chunk in by_extent(envs, mine):
                obs = [envs[i].observe(envs[i].agent_selection) for i in chunk]
                o = torch.from_numpy(np.stack([x["observation"] for x in obs])).to(device)
                m = torch.from_numpy(np.stack([x["action_mask"] for x in obs])).to(device)
                logits, _ = net(*split_observation(o, window))
                acts = masked_logits(logits, m).argmax(dim=1).tolist()
                for i, a in zip(chunk, acts, strict=True):
                    envs[i].step(a)
        live = [i for i in live if not episode_over(envs[i])]
    wins, margins = [], []
    for env, (me, _) in zip(envs, controllers, strict=True):
        scores = list(env.game.scores)
        wins.append(
            (win_reward(scores, me) + 1 / (num_players - 1)) * (num_players - 1) / num_players
        )
        margins.append(scores[me] - max(s for k, s in enumerate(scores) if k != me))
    return {"win_rate": float(np.mean(wins)), "margin": float(np.mean(margins)), "games": games}


def by_extent(envs: list, ids: list[int], size: int = 32) -> list[list[int]]:
    """Chunks of games with similar board extents: the network runs on the union of a
    batch's regions, so one large board would make every small one cost as much."""
    extent = []
    for i in ids:
        box = envs[i].game.board.bounds()
        extent.append(0 if box is None else max(box[1] - box[0], box[3] - box[2]))
    order = [ids[k] for k in np.argsort(extent, kind="stable")]
    return [order[k : k + size] for k in range(0, len(order), size)]
