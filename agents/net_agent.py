"""What every agent around a trained network keeps, written once for the learners' agents."""

from __future__ import annotations

import torch
from torch import nn


class NetAgent:
    """A mixin before ``Agent`` or ``PlanningAgent``: the network in eval mode, greedy or
    sampled play, the checkpoint's metadata, and a torch generator reseeded by every
    ``reset`` so that sampled play is reproducible per game."""

    def __init__(self, net: nn.Module, greedy: bool = True, meta: dict | None = None):
        self.net = net.eval()
        self.greedy = greedy
        self.meta = meta or {}
        self.reset(0, 2, 0)

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        super().reset(seat, num_players, seed)  # type: ignore[misc]  # Agent.reset
        self.gen = torch.Generator().manual_seed(0 if seed is None else int(seed) % 2**63)
