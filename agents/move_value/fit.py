"""Fitting a move-value network to valued positions: what separates a position's moves.

The values (``agents.move_value.valued``) say how much better each move of a position is
than the others, in simulations that share their deals; their level says nothing the choice
needs. So a network's worths (points plus afterstate value) are fitted to them after the
position's mean is taken off both. Each position is fitted twice, on the rows as the look
ahead fills them and as they are before it (the cheap rows that pick the shortlist at play
time). How well it chose is judged on positions held out of the fit as *regret*: what its
move falls short of the best, by simulations no chooser saw.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import torch

from agents.move_value.features import NUM_MOVE_FEATURES, POINT_SCALE
from agents.move_value.network import MoveValueNet
from agents.move_value.valued import Valued
from qwirkle_env.rows.columns import ROW_FEATURES

__all__ = ["FitSettings", "before_look", "fit", "regret"]


class FitSettings(Protocol):
    """What the fit reads of a run's settings (``rollout_values.RolloutConfig`` has it)."""

    epochs: int
    lr: float
    lr_end: float
    batch: int
    holdout: float
    top_weight: float

    @property
    def seed_of_fit(self) -> int: ...


def _arrays(data: list[Valued]) -> dict[str, torch.Tensor]:
    """The positions padded to one width, with a mask of the real moves (and of the
    leaf-judged ones)."""
    n, k = len(data), max(len(d.points) for d in data)
    rows = np.zeros((n, k, NUM_MOVE_FEATURES), np.float32)
    points = np.zeros((n, k), np.float32)
    vals, mask = np.zeros((n, k, 2), np.float32), np.zeros((n, k), np.float32)
    judged, judged_mask = np.zeros((n, k, 2), np.float32), np.zeros((n, k), np.float32)
    for j, d in enumerate(data):
        m = len(d.points)
        rows[j, :m], points[j, :m] = d.rows, d.points / POINT_SCALE
        vals[j, :m], mask[j, :m] = d.values / POINT_SCALE, 1.0
        if d.judged is not None:
            seen = np.isfinite(d.judged).all(-1)
            judged[j, :m][seen], judged_mask[j, :m] = d.judged[seen] / POINT_SCALE, seen
    parts = {"rows": rows, "points": points, "values": vals, "mask": mask,
             "judged": judged, "judged_mask": judged_mask}  # fmt: skip
    return {name: torch.from_numpy(a) for name, a in parts.items()}


def before_look(rows: torch.Tensor) -> torch.Tensor:
    """The rows as they were before the look ahead (its columns zero): what picks the
    shortlist at play time, and the fit's second pass (``benchmarks/fit_speed.py`` too)."""
    plain = rows.clone()
    plain[..., len(ROW_FEATURES) :] = 0.0
    return plain


def _centred(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    mean = (x * mask).sum(-1, keepdim=True) / mask.sum(-1, keepdim=True).clamp(min=1)
    return (x - mean) * mask


def regret(worth: np.ndarray, judge: np.ndarray, mask: np.ndarray) -> float:
    """The mean, over positions, of how far the move of highest ``worth`` falls short of
    the best by ``judge`` (in ``judge``'s units); ``mask`` marks the real moves."""
    worth = np.where(mask > 0, worth, -np.inf)
    judge = np.where(mask > 0, judge, -np.inf)
    chosen = judge[np.arange(len(judge)), worth.argmax(-1)]
    return float((judge.max(-1) - chosen).mean())


def fit(net: MoveValueNet, data: list[Valued], cfg: FitSettings) -> list[dict]:
    """Trains ``net`` in place on ``data``'s values (and, weighed by ``cfg.top_weight``, on
    the leaf values of the moves judged closely); one dict per epoch: the loss, and on the
    held-out positions the regret of the network's choice, in points, judged by the second
    half of the simulations (``regret_first_half``: the choice of a search with the first
    half's values, for scale; ``regret_top``: the same among the closely judged moves)."""
    gen = np.random.default_rng(cfg.seed_of_fit)
    order = gen.permutation(len(data))
    cut = int(round(cfg.holdout * len(data)))
    held, train = order[:cut], order[cut:]
    a = _arrays(data)
    target = a["values"].mean(-1)
    held_idx = torch.from_numpy(held)
    held_mask = a["mask"][held_idx].numpy()
    second = a["values"][held_idx, :, 1].numpy() * POINT_SCALE
    first = a["values"][held_idx, :, 0].numpy() * POINT_SCALE
    scale = regret(first, second, held_mask) if len(held) else None
    top = a["judged_mask"][held_idx].numpy()
    top_held = top.any(-1)  # the held-out positions with closely judged moves
    top_second = a["judged"][held_idx, :, 1].numpy()[top_held] * POINT_SCALE
    top_first = a["judged"][held_idx, :, 0].numpy()[top_held] * POINT_SCALE
    top_scale = regret(top_first, top_second, top[top_held]) if top_held.any() else None
    judged_target = a["judged"].mean(-1)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    history = []
    for epoch in range(cfg.epochs):
        for group in opt.param_groups:
            group["lr"] = cfg.lr + (cfg.lr_end - cfg.lr) * epoch / max(cfg.epochs - 1, 1)
        total, steps = 0.0, 0
        gen.shuffle(train)
        for b in range(0, len(train), cfg.batch):
            idx = torch.from_numpy(train[b : b + cfg.batch])
            mask = a["mask"][idx]
            want = _centred(target[idx], mask)
            loss = 0.0
            rows = a["rows"][idx]
            closely = a["judged_mask"][idx]
            for x, looked in ((rows, True), (before_look(rows), False)):
                worth = a["points"][idx] + net(x, looked)
                loss = loss + ((_centred(worth, mask) - want) ** 2).sum() / mask.sum()
                if looked and cfg.top_weight and closely.sum() > 0:  # the leaf judge's differences
                    close = (_centred(worth, closely) - _centred(judged_target[idx], closely)) ** 2
                    loss = loss + cfg.top_weight * close.sum() / closely.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total, steps = total + loss.item(), steps + 1
        row = {"epoch": epoch + 1, "loss": total / max(steps, 1)}
        if len(held):
            with torch.no_grad():
                worth = (a["points"][held_idx] + net(a["rows"][held_idx])).numpy()
            row["regret"] = regret(worth, second, held_mask)
            row["regret_first_half"] = scale
            if top_held.any():
                row["regret_top"] = regret(worth[top_held], top_second, top[top_held])
                row["regret_top_first_half"] = top_scale
        history.append(row)
    return history
