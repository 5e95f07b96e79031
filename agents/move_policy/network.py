"""The reference policy of the whole-move mode: one network scores every candidate row.

A shared MLP reads [position ⊕ row] for each row of the table (``qwirkle_env.rows.table``)
and gives it a logit; the rows that hold no move are masked. The value head reads the
position with the mean of the rows' hidden features. Two options of ``MovePolicyConfig``
change the start and the critic (a points prior, afterstate values); docs/integrations.md
says what they did in training. This is the one torch module that the
SB3, Tianshou and RLlib recipes (``examples/``) wrap; whatever library trained it, the
weights are exported to the project's checkpoint format (``agents.checkpoint``) and play
as ``ckpt:PATH`` without that library (``MovePolicyAgent``).

A row that holds a move is never all zero (a placement scores at least a point, an
exchange has its flag set), so the network finds the mask in the observation itself
when a library does not hand it over.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from agents.base import PlanningAgent
from agents.checkpoint import MOVES_FORMAT
from agents.net_agent import NetAgent
from qwirkle_env.engine.moves import Move
from qwirkle_env.rows.columns import POINT_SCALE, ROW_FEATURES, row_columns
from qwirkle_env.rows.position import Position
from qwirkle_env.rows.table import (
    DEFAULT_MAX_MOVES,
    NUM_POSITION_FEATURES,
    check_moves_options,
    move_table,
    observation,
    row_width,
    split_observation,
)
from qwirkle_env.spec import MASKED_LOGIT
from qwirkle_env.view import PlayerView

POINTS = ROW_FEATURES.index("points")


def layout(look_ahead: int = 0) -> dict:
    """What a checkpoint records of the env's observation, to refuse one trained on
    another layout (a checkpoint from before the look ahead records no ``look_ahead``)."""
    found = {"row_features": list(row_columns(look_ahead)),
             "position_features": NUM_POSITION_FEATURES}  # fmt: skip
    return {**found, "look_ahead": look_ahead} if look_ahead else found


@dataclass
class MovePolicyConfig:
    max_moves: int = DEFAULT_MAX_MOVES  # K, the rows of the table
    hidden: int = 128
    layers: int = 2  # hidden layers of the row network
    # A learnable logit per point the row scores, added to the network's logit. Above
    # zero, an untrained policy already prefers the moves that score most (its argmax is
    # greedy), and training learns what to trade points for. Zero: no such term.
    points_prior: float = 0.0
    # Zero: the value comes from its own head on the position. Above zero, each row's logit
    # is also the move's afterstate value, in this many reward units per logit, and the
    # position's value is their mean under the policy: the critic's regression then
    # teaches the row network what each move is worth, as TD learning of afterstates does.
    value_per_logit: float = 0.0
    # The env's look_ahead (rows looked at two moves ahead, qwirkle_env.rows.columns): the
    # rows it reads have 35 columns instead of 28.
    look_ahead: int = 0
    # True: a row's logit reads the row's columns alone, not the position block beside them,
    # as the move-value agent's network values an afterstate from its row. The value head
    # still reads the position.
    row_only: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


class MovePolicyNet(nn.Module):
    """(logits over the K rows, value) from move-mode observations.

    The row network's first layer is one linear map of [position ⊕ row] (of the row alone
    with ``row_only``), computed as the position's part (once per observation) plus the
    row's part, and only the rows that hold a move go through the network: a table is
    mostly padding.
    """

    FORMAT = MOVES_FORMAT  # its checkpoints' format (agents.checkpoint)
    CONFIG = MovePolicyConfig

    def __init__(self, config: MovePolicyConfig | None = None) -> None:
        super().__init__()
        self.config = config = config or MovePolicyConfig()
        if config.layers < 1 or config.hidden < 1 or config.max_moves < 1:
            raise ValueError(f"unusable move-policy config {config}")
        check_moves_options("moves", config.max_moves, config.look_ahead)
        for name in ("points_prior", "value_per_logit"):
            value = getattr(config, name)
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"{name} must be a finite number >= 0, got {config}")
        if not isinstance(config.row_only, bool):
            raise ValueError(f"row_only must be True or False, got {config.row_only!r}")
        h = config.hidden
        # the first layer's bias lives in the position's part, or in the row's without one
        self.position_in = None if config.row_only else nn.Linear(NUM_POSITION_FEATURES, h)
        self.row_in = nn.Linear(row_width(config.look_ahead), h, bias=config.row_only)
        self.rows = nn.ModuleList(nn.Linear(h, h) for _ in range(config.layers - 1))
        self.logit = nn.Linear(h, 1)
        self.value = (
            None
            if config.value_per_logit
            else nn.Sequential(nn.Linear(NUM_POSITION_FEATURES + h, h), nn.ReLU(), nn.Linear(h, 1))
        )
        nn.init.orthogonal_(self.logit.weight, 0.01)  # a near-uniform policy to start
        nn.init.zeros_(self.logit.bias)
        # per point, in the rows' unit (points / POINT_SCALE)
        self.points_prior = (
            nn.Parameter(torch.tensor(config.points_prior * POINT_SCALE))
            if config.points_prior
            else None
        )

    def forward(
        self, obs: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        obs = obs.float()
        position, rows = split_observation(obs, self.config.max_moves, self.config.look_ahead)
        if mask is None:
            mask = rows.abs().amax(dim=-1) > 0
        batch, row = mask.bool().nonzero(as_tuple=True)
        picked = rows[batch, row]
        x = self.row_in(picked)
        if self.position_in is not None:
            x = x + self.position_in(position)[batch]
        x = torch.relu(x)
        for layer in self.rows:
            x = torch.relu(layer(x))
        logits = torch.full(mask.shape, MASKED_LOGIT, dtype=x.dtype, device=x.device)
        scores = self.logit(x).squeeze(-1)
        if self.points_prior is not None:
            scores = scores + self.points_prior * picked[:, POINTS]
        logits = logits.index_put((batch, row), scores)
        if self.value is None:
            chance = torch.softmax(logits, dim=1)[batch, row]
            each = chance * scores * self.config.value_per_logit
            value = torch.zeros(len(position), dtype=x.dtype, device=x.device)
            return logits, value.index_add(0, batch, each)
        pooled = torch.zeros(len(position), x.shape[-1], dtype=x.dtype, device=x.device)
        pooled = pooled.index_add(0, batch, x)
        count = torch.bincount(batch, minlength=len(position)).clamp(min=1)
        pooled = pooled / count[:, None].to(x.dtype)
        value = self.value(torch.cat([position, pooled], dim=-1)).squeeze(-1)
        return logits, value


class MovePolicyAgent(NetAgent, PlanningAgent):
    """Plays the row the policy likes best (``greedy``) or samples it; one ply, no search."""

    name = "move-policy"

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        super().reset(seat, num_players, seed)
        self.look_rng = random.Random(seed)  # deals the look ahead's hidden tiles

    @torch.no_grad()
    def choose(self, view: PlayerView) -> Move:
        pos = Position.of_view(view)
        k, ahead = self.net.config.max_moves, self.net.config.look_ahead
        table = move_table(pos, k, ahead, self.look_rng)
        if not len(table):
            raise RuntimeError("no legal move in this view: is it this agent's turn?")
        obs = torch.from_numpy(observation(pos, table, k, ahead))[None]
        mask = torch.from_numpy(np.arange(k) < len(table))[None]
        logits, _ = self.net(obs, mask)
        if self.greedy:
            row = int(logits.argmax(dim=1))
        else:
            row = int(torch.multinomial(torch.softmax(logits, dim=1), 1, generator=self.gen))
        return table.move(row)


def move_policy_agent_of(
    net: MovePolicyNet, meta: dict, path: str | Path, greedy: bool = True
) -> MovePolicyAgent:
    """A MovePolicyAgent, once the checkpoint's observation layout is checked against this
    version's."""
    shows = layout(net.config.look_ahead)
    trained_on = {k: (meta.get("env") or {}).get(k) for k in shows}
    if trained_on != shows:
        raise ValueError(
            f"checkpoint {path} was trained on a move-mode observation laid out as "
            f"{trained_on!r}; this version's env shows {shows!r}: retrain it"
        )
    return MovePolicyAgent(net, greedy=greedy, meta=meta)
