"""The policy-value network: a small fully convolutional residual net over the board.

Input is the env's observation split by ``split_observation``: 13 board planes (W, W)
and 126 non-spatial features. The features are normalised here (so checkpoints don't
depend on outside preprocessing), embedded, and injected into every residual block by
FiLM (a per-channel scale and shift), so each cell knows the hand, scores and phase.

Outputs, matching the env's action index exactly:

| slice | head |
|---|---|
| ``[0, 36*W*W)`` | one logit per (tile type, cell): a 1x1 conv to 36 channels, flattened |
| ``[36*W*W, 36*W*W + 36)`` | exchange logits, from pooled trunk + features |
| ``36*W*W + 36`` | the "end" logit, likewise |

and a scalar value. Convolutions with zero padding make it work for any window W.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F
from torch import nn

from agents.checkpoint import TILE_FORMAT
from qwirkle_env.engine.tiles import NUM_TYPES
from qwirkle_env.spec import (
    BAG,
    COPIES,
    HAND,
    HAND_SIZE,
    HAND_SIZES,
    MASKED_LOGIT,
    MAX_PLAYERS,
    NUM_FEATURES,
    NUM_PLANES,
    NUM_TILES,
    SCORE_SCALE,
    SCORES,
    UNSEEN,
)

MARGIN = 6  # cells around the tiles the trunk sees; placements reach at most 5


@dataclass(frozen=True)
class NetConfig:
    """Architecture; saved in every checkpoint and compared on load."""

    channels: int = 32
    """network channels"""
    blocks: int = 4
    """network residual blocks"""
    hidden: int = 128
    """network hidden width"""

    def __post_init__(self) -> None:
        """ValueError naming every field out of its range (a zero width fails deep in torch)."""
        problems = [
            f"{name} must be {rule} (got {getattr(self, name)!r})"
            for name, rule, ok in [
                ("channels", "an integer >= 1", self.channels >= 1),
                ("blocks", "an integer >= 0", self.blocks >= 0),
                ("hidden", "an integer >= 1", self.hidden >= 1),
            ]
            if not ok
        ]
        if problems:
            raise ValueError("bad network config: " + "; ".join(problems))

    def to_dict(self) -> dict:
        return asdict(self)


def feature_scale() -> torch.Tensor:
    """Per-feature divisor bringing the raw env features to roughly [0, 1]."""
    scale = torch.ones(NUM_FEATURES)
    scale[HAND : UNSEEN + NUM_TYPES] = COPIES  # hand, exchange set, unseen: counts 0..3
    scale[BAG] = NUM_TILES
    scale[SCORES : SCORES + MAX_PLAYERS] = SCORE_SCALE
    scale[HAND_SIZES : HAND_SIZES + MAX_PLAYERS] = HAND_SIZE
    return scale


class Block(nn.Module):
    """Pre-activation residual block with a FiLM of the features after the first conv."""

    def __init__(self, channels: int, hidden: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        self.film = nn.Linear(hidden, 2 * channels)
        nn.init.zeros_(self.film.weight)
        nn.init.zeros_(self.film.bias)
        nn.init.zeros_(self.conv2.weight)  # each block starts as the identity
        nn.init.zeros_(self.conv2.bias)

    def forward(self, x: torch.Tensor, emb: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        """``m`` is 1 on the sample's region, 0 outside: activations stay 0 outside it."""
        y = self.conv1(F.relu(x))
        gamma, beta = self.film(emb)[:, :, None, None].chunk(2, dim=1)
        y = (y * (1.0 + gamma) + beta) * m
        return x + self.conv2(F.relu(y)) * m


class PolicyValueNet(nn.Module):
    """Masked policy logits over the env's action space and a value, for any window."""

    FORMAT = TILE_FORMAT  # its checkpoints' format (agents.checkpoint)
    CONFIG = NetConfig

    def __init__(self, config: NetConfig | None = None) -> None:
        super().__init__()
        self.config = config or NetConfig()
        c, h = self.config.channels, self.config.hidden
        self.register_buffer("scale", feature_scale(), persistent=False)
        # +1 input: the score margin (own minus best opponent), a feature worth deriving.
        self.embed = nn.Sequential(nn.Linear(NUM_FEATURES + 1, h), nn.ReLU(), nn.Linear(h, h))
        self.stem = nn.Conv2d(NUM_PLANES, c, 3, padding=1)
        self.stem_feat = nn.Linear(h, c)
        self.blocks = nn.ModuleList(Block(c, h) for _ in range(self.config.blocks))
        self.place = nn.Conv2d(c, NUM_TYPES, 1)
        self.pooled = nn.Sequential(nn.Linear(2 * c + h, h), nn.ReLU())
        self.turn_head = nn.Linear(h, NUM_TYPES + 1)  # exchange logits, then "end"
        self.value_head = nn.Sequential(nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 1))
        for layer in (self.place, self.turn_head):
            nn.init.normal_(layer.weight, std=0.01)
            nn.init.zeros_(layer.bias)

    def normalise(self, features: torch.Tensor) -> torch.Tensor:
        f = features.float() / self.scale
        scores = f[:, SCORES : SCORES + MAX_PLAYERS]
        margin = scores[:, :1] - scores[:, 1:].max(dim=1, keepdim=True).values
        return torch.cat((f, margin), dim=1)

    def forward(
        self, planes: torch.Tensor, features: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits (B, 36*W*W + 37), value (B,)) from planes (B, 13, W, W), features.

        The trunk runs only on each sample's region (tiles' bounding box + MARGIN, which
        holds every legal cell), zero outside it: 2-4x cheaper than the whole window, and
        the output doesn't depend on W or on the other samples in the batch.
        """
        n, _, w, _ = planes.shape
        box = board_region(planes, MARGIN)
        r0, c0 = int(box[:, 0].min()), int(box[:, 2].min())
        r1, c1 = int(box[:, 1].max()) + 1, int(box[:, 3].max()) + 1
        rows = torch.arange(r0, r1, device=planes.device)
        cols = torch.arange(c0, c1, device=planes.device)
        inside_r = (rows >= box[:, :1]) & (rows <= box[:, 1:2])
        inside_c = (cols >= box[:, 2:3]) & (cols <= box[:, 3:4])
        region = (inside_r[:, :, None] & inside_c[:, None, :]).unsqueeze(1)  # (B,1,h,w)
        m = region.float()

        emb = F.relu(self.embed(self.normalise(features)))
        x = self.stem(planes[:, :, r0:r1, c0:c1].float()) + self.stem_feat(emb)[..., None, None]
        x = x * m
        for block in self.blocks:
            x = block(x, emb, m)
        x = F.relu(x)
        crop = self.place(x).masked_fill(~region, MASKED_LOGIT)
        place = crop.new_full((n, NUM_TYPES, w, w), MASKED_LOGIT)
        place[:, :, r0:r1, c0:c1] = crop
        mean = x.sum(dim=(2, 3)) / m.sum(dim=(2, 3))
        pooled = torch.cat((mean, x.amax(dim=(2, 3)), emb), dim=1)
        hidden = self.pooled(pooled)
        logits = torch.cat((place.flatten(1), self.turn_head(hidden)), dim=1)
        return logits, self.value_head(hidden).squeeze(1)


def board_region(planes: torch.Tensor, margin: int) -> torch.Tensor:
    """(B, 4) int rows top..bottom, cols left..right (inclusive): the tiles' bounding box
    grown by ``margin`` and clipped to the window; the centre cell +- margin if empty."""
    w = planes.shape[-1]
    occupied = planes[:, :6].amax(dim=1) > 0  # any colour = a tile
    out = []
    for axis in (2, 1):  # rows: any over columns; cols: any over rows
        line = occupied.any(dim=axis)
        has = line.any(dim=1)
        first = line.float().argmax(dim=1)
        last = w - 1 - line.flip(1).float().argmax(dim=1)
        centre = torch.full_like(first, w // 2)
        first = torch.where(has, first, centre)
        last = torch.where(has, last, centre)
        out += [(first - margin).clamp(min=0), (last + margin).clamp(max=w - 1)]
    return torch.stack(out, dim=1)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with illegal actions (mask == 0) pushed to a huge negative value."""
    return logits.masked_fill(mask == 0, MASKED_LOGIT)


def masked_distribution(
    logits: torch.Tensor, mask: torch.Tensor
) -> torch.distributions.Categorical:
    """The policy restricted to legal actions: illegal ones get probability exactly 0."""
    return torch.distributions.Categorical(logits=masked_logits(logits, mask))


def sample_legal(
    logits: torch.Tensor, rows: torch.Tensor, actions: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """One action per row of ``logits`` from the masked policy, and its log-probability,
    given the legal ``(rows, actions)`` pairs (e.g. ``mask.nonzero(as_tuple=True)``; every
    row needs one). The distribution of ``masked_distribution(logits, mask).sample()``,
    but softmax and Gumbel-max run over the few legal entries only, not all 36*W*W + 37
    logits: on CPU that sampling cost twice the network's forward pass; this, ~5%."""
    n = logits.shape[0]
    z = logits[rows, actions]
    top = z.new_full((n,), float("-inf")).scatter_reduce(0, rows, z, "amax")
    z = z - top[rows]
    logp = z - z.new_zeros(n).index_add_(0, rows, z.exp()).log()[rows]
    g = logp - torch.empty_like(logp).exponential_().log()  # + Gumbel noise
    best = g.new_full((n,), float("-inf")).scatter_reduce(0, rows, g, "amax")
    pick = torch.zeros(n, dtype=torch.long, device=logits.device)
    hit = torch.nonzero(g == best[rows]).squeeze(1)
    pick[rows[hit]] = hit  # each row's argmax (one of them, on an exact tie)
    return actions[pick], logp[pick]


def num_parameters(net: nn.Module) -> int:
    return sum(p.numel() for p in net.parameters())
