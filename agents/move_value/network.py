"""A small network that values a move's afterstate, and its numpy twin for play.

``MoveValueNet`` maps a move's feature row (``agents.move_value.features``) to the expected rest
of the game from the mover's seat: future score margin over ``POINT_SCALE`` plus the game
result. A move's worth is its points now plus that value, so a network whose output is
zero plays exactly like greedy; the last layer starts at zero for that reason, and
training moves the agent away from greedy only where self-play shows it pays.

At play time the agent runs the layers on plain arrays (``numpy_layers``, ``values``):
they pickle cheaply to self-play workers and need no autograd. The products run in torch,
one thread: numpy's threaded BLAS stalls for milliseconds per call on a busy machine.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn

from agents.checkpoint import VALUE_FORMAT
from agents.move_value.features import NUM_MOVE_FEATURES


@dataclass
class ValueNetConfig:
    features: int = NUM_MOVE_FEATURES
    hidden: int = 64
    """value network hidden width"""
    layers: int = 2
    """value network hidden layers"""

    def to_dict(self) -> dict:
        return asdict(self)


class MoveValueNet(nn.Module):
    FORMAT = VALUE_FORMAT  # its checkpoints' format (agents.checkpoint)
    CONFIG = ValueNetConfig

    def __init__(self, config: ValueNetConfig | None = None) -> None:
        super().__init__()
        self.config = config = config or ValueNetConfig()
        if config.features != NUM_MOVE_FEATURES:
            raise ValueError(
                f"this version describes a move with {NUM_MOVE_FEATURES} features, the network "
                f"config asks for {config.features}"
            )
        if config.layers < 1 or config.hidden < 1:
            raise ValueError("a value network needs at least one hidden layer of width >= 1")
        sizes = [config.features] + [config.hidden] * config.layers
        pairs = zip(sizes[:-1], sizes[1:], strict=True)
        self.hidden = nn.ModuleList(nn.Linear(a, b) for a, b in pairs)
        self.out = nn.Linear(config.hidden, 1)
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.hidden:
            x = torch.relu(layer(x))
        return self.out(x).squeeze(-1)

    def numpy_layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """(weight.T, bias) per layer, the output layer last, as float32 arrays."""
        layers = [*self.hidden, self.out]
        return [
            (
                layer.weight.detach().cpu().numpy().T.astype(np.float32).copy(),
                layer.bias.detach().cpu().numpy().astype(np.float32).copy(),
            )
            for layer in layers
        ]


@torch.no_grad()
def values(layers: list[tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> np.ndarray:
    """The network's output for each row of ``x`` (float32), on one torch thread."""
    threads = torch.get_num_threads()
    if threads != 1:
        torch.set_num_threads(1)
    try:
        h = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))
        for w, b in layers[:-1]:
            h = torch.relu(torch.addmm(torch.from_numpy(b), h, torch.from_numpy(w)))
        w, b = layers[-1]
        return torch.addmm(torch.from_numpy(b), h, torch.from_numpy(w))[:, 0].numpy()
    finally:
        if threads != 1:
            torch.set_num_threads(threads)
