"""The tile-level PPO policy as an Agent: it acts one sub-step of the AEC env at a time."""

from __future__ import annotations

import numpy as np
import torch

from agents.base import Agent
from agents.net_agent import NetAgent
from agents.tile_ppo.network import masked_logits
from qwirkle_env.observation import split_observation
from qwirkle_env.view import PlayerView


class PolicyAgent(NetAgent, Agent):
    """Picks the most likely legal action (``greedy``) or samples the masked policy."""

    name = "policy"

    @torch.no_grad()
    def act(self, view: PlayerView) -> int:
        if view.observation is None or view.action_mask is None:
            raise ValueError("PolicyAgent needs a view from raw_env.player_view (observation)")
        obs = torch.from_numpy(np.asarray(view.observation, dtype=np.float32))[None]
        mask = torch.from_numpy(np.asarray(view.action_mask))[None]
        planes, features = split_observation(obs, view.window)
        logits, _ = self.net(planes, features)
        logits = masked_logits(logits, mask)
        if self.greedy:
            return int(logits.argmax(dim=1))
        probs = torch.softmax(logits, dim=1)
        return int(torch.multinomial(probs, 1, generator=self.gen))
