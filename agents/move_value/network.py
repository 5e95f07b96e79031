"""A small network that values a move's afterstate, and its numpy twin for play.

``MoveValueNet`` maps a move's feature row (``agents.move_value.features``) to the expected rest
of the game from the mover's seat: future score margin over ``POINT_SCALE`` plus the game
result. A move's worth is its points now plus that value, so a network whose output is
zero plays exactly like greedy; the last layer starts at zero for that reason, and
training moves the agent away from greedy only where self-play shows it pays.

With ``encoder`` > 0 it also reads the row's block of features per tile type: one small
encoder, shared by the 36 types (colours and shapes are interchangeable), whose outputs are
averaged and maxed over the types and read beside the base features. ``widened`` turns a
network without one into one with it that values every move the same, so a trained
network can be fine-tuned with the block instead of trained again from nothing.

At play time the agent runs the layers on plain arrays (``numpy_layers``, ``values``):
they pickle cheaply to self-play workers and need no autograd. The products run in torch,
one thread: numpy's threaded BLAS stalls for milliseconds per call on a busy machine.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import torch
from torch import nn

from agents.checkpoint import VALUE_FORMAT
from agents.move_value.features import NUM_BASE_FEATURES, NUM_MOVE_FEATURES
from qwirkle_env.rows.look_ahead import TYPE_FEATURES
from qwirkle_env.spec import NUM_TYPES

TYPE_WIDTH = len(TYPE_FEATURES)


@dataclass
class ValueNetConfig:
    features: int = 0  # the row's features it reads (0: those its encoder setting asks for)
    hidden: int = 64
    """value network hidden width"""
    layers: int = 2
    """value network hidden layers"""
    encoder: int = 0
    """width of the per-tile-type encoder (0: none, the base features only)"""

    def __post_init__(self) -> None:
        if self.encoder < 0:
            raise ValueError(f"the type encoder width must be >= 0 (0: none), got {self.encoder}")
        if self.layers < 1 or self.hidden < 1:
            raise ValueError(
                "a value network needs at least one hidden layer of width >= 1 "
                f"(got layers {self.layers}, hidden {self.hidden})"
            )
        if self.features == 0:
            self.features = NUM_MOVE_FEATURES if self.encoder else NUM_BASE_FEATURES

    def to_dict(self) -> dict:
        return asdict(self)


class MoveValueNet(nn.Module):
    FORMAT = VALUE_FORMAT  # its checkpoints' format (agents.checkpoint)
    CONFIG = ValueNetConfig

    def __init__(self, config: ValueNetConfig | None = None) -> None:
        super().__init__()
        self.config = config = config or ValueNetConfig()
        wanted = NUM_MOVE_FEATURES if config.encoder else NUM_BASE_FEATURES
        if config.features != wanted:
            raise ValueError(
                f"this version describes a move with {wanted} features for a network with "
                f"encoder={config.encoder}, the network config asks for {config.features}"
            )
        e = config.encoder
        self.encoder = nn.ModuleList([nn.Linear(TYPE_WIDTH, e), nn.Linear(e, e)] if e else [])
        sizes = [NUM_BASE_FEATURES + 2 * e] + [config.hidden] * config.layers
        pairs = zip(sizes[:-1], sizes[1:], strict=True)
        self.hidden = nn.ModuleList(nn.Linear(a, b) for a, b in pairs)
        self.out = nn.Linear(config.hidden, 1)
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)

    def forward(self, x: torch.Tensor, looked: bool = True) -> torch.Tensor:
        """``looked`` False: every row's type block is zero (no look ahead), so the
        encoder runs once, on one zero block."""
        h = x[..., :NUM_BASE_FEATURES]
        if self.config.encoder:
            if looked:
                t = x[..., NUM_BASE_FEATURES:].reshape(*x.shape[:-1], NUM_TYPES, TYPE_WIDTH)
            else:
                t = x.new_zeros(NUM_TYPES, TYPE_WIDTH)
            for layer in self.encoder:
                t = torch.relu(layer(t))
            pooled = torch.cat([t.mean(-2), t.amax(-2)], -1).expand(*x.shape[:-1], -1)
            h = torch.cat([h, pooled], -1)
        for layer in self.hidden:
            h = torch.relu(layer(h))
        return self.out(h).squeeze(-1)

    def numpy_layers(self) -> PlayLayers:
        """The weights as float32 arrays for ``values``."""

        def arrays(layer: nn.Linear) -> tuple[np.ndarray, np.ndarray]:
            return (
                layer.weight.detach().cpu().numpy().T.astype(np.float32).copy(),
                layer.bias.detach().cpu().numpy().astype(np.float32).copy(),
            )

        play = PlayLayers([arrays(layer) for layer in [*self.hidden, self.out]],
                          [arrays(layer) for layer in self.encoder])  # fmt: skip
        if play.encoder:
            zero = np.zeros((1, NUM_TYPES, TYPE_WIDTH), np.float32)
            play.blank = _pooled(play.encoder, torch.from_numpy(zero)).numpy()
        return play


@dataclass
class PlayLayers:
    """A network's weights for play: the value layers ((weight.T, bias), the output layer
    last) and the type encoder's (none without one); ``blank`` is the encoder's pooled
    output on a row whose type block is zero (a move not looked at)."""

    layers: list[tuple[np.ndarray, np.ndarray]]
    encoder: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    blank: np.ndarray | None = None


def _pooled(encoder: list, t: torch.Tensor) -> torch.Tensor:
    for w, b in encoder:
        t = torch.relu(torch.matmul(t, torch.from_numpy(w)) + torch.from_numpy(b))
    return torch.cat([t.mean(1), t.amax(1)], 1)


@torch.no_grad()
def values(net: PlayLayers, x: np.ndarray, looked: np.ndarray | None = None) -> np.ndarray:
    """The network's output for each row of ``x``, on one torch thread. ``looked``: the
    rows whose type block was filled (None: all); the others are read as zero without
    running the encoder on them, which gives the same numbers."""
    threads = torch.get_num_threads()
    if threads != 1:
        torch.set_num_threads(1)
    try:
        h = torch.from_numpy(np.ascontiguousarray(x[:, :NUM_BASE_FEATURES], dtype=np.float32))
        if net.encoder:
            pooled = np.repeat(net.blank, len(x), axis=0)
            rows = np.arange(len(x)) if looked is None else np.flatnonzero(looked)
            if len(rows):
                block = np.ascontiguousarray(x[rows, NUM_BASE_FEATURES:], dtype=np.float32)
                t = torch.from_numpy(block.reshape(len(rows), NUM_TYPES, TYPE_WIDTH))
                pooled[rows] = _pooled(net.encoder, t).numpy()
            h = torch.cat([h, torch.from_numpy(pooled)], 1)
        for w, b in net.layers[:-1]:
            h = torch.relu(torch.addmm(torch.from_numpy(b), h, torch.from_numpy(w)))
        w, b = net.layers[-1]
        return torch.addmm(torch.from_numpy(b), h, torch.from_numpy(w))[:, 0].numpy()
    finally:
        if threads != 1:
            torch.set_num_threads(threads)


def widened(net: MoveValueNet, encoder: int, seed: int = 0) -> MoveValueNet:
    """``net`` (no encoder) with a type encoder of this width whose outputs it does not yet
    read: the new inputs' weights are zero, so it values every move as ``net`` does."""
    if net.config.encoder:
        raise ValueError("the network already has a type encoder")
    torch.manual_seed(seed)
    wide = MoveValueNet(ValueNetConfig(hidden=net.config.hidden, layers=net.config.layers,
                                       encoder=encoder))  # fmt: skip
    with torch.no_grad():
        first, old = wide.hidden[0], net.hidden[0]
        first.weight.zero_()
        first.weight[:, :NUM_BASE_FEATURES] = old.weight
        first.bias.copy_(old.bias)
        for new, was in zip(wide.hidden[1:], net.hidden[1:], strict=True):
            new.load_state_dict(was.state_dict())
        wide.out.load_state_dict(net.out.state_dict())
    return wide
