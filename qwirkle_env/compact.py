"""The batched simulator's compact observation and mask, and their dense forms.

A dense mask is 36*W*W + 37 bytes per step (55k at W = 39) and a dense observation 80 kB;
at hundreds of thousands of steps a second that traffic alone would saturate memory. So
the simulator keeps per window cell one code (the observation) and one 36-bit field of
legal tile types (the mask), and these functions expand them, in numpy or in torch on the
device where the policy runs, to exactly the AEC env's layout.

- board code: 0 empty, 1 + t a tile of type t, 37 + t a tile of type t placed this turn;
- mask: ``(..., W*W + 1)`` int64; entry r*W + c has bit t set iff "place type t at (r, c)"
  is legal; the last entry has bit t for "exchange type t" and bit 36 for "end".
"""

from __future__ import annotations

import numpy as np

from .observation import NUM_PLANES

END_BIT = 36


def _plane_table() -> np.ndarray:
    table = np.zeros((73, NUM_PLANES), dtype=np.float32)
    for t in range(36):
        for code in (1 + t, 37 + t):
            table[code, t // 6] = 1.0
            table[code, 6 + t % 6] = 1.0
        table[37 + t, 12] = 1.0
    return table


PLANE_TABLE = _plane_table()


def dense_planes(board: np.ndarray) -> np.ndarray:
    """Board codes ``(..., W, W)`` as the env's planes ``(..., 13, W, W)``, float32."""
    return np.moveaxis(PLANE_TABLE[board], -1, -3)


def dense_observation(board: np.ndarray, features: np.ndarray) -> np.ndarray:
    """The AEC env's flat float32 observation, from board codes and features."""
    planes = dense_planes(board)
    flat = planes.reshape(*planes.shape[:-3], -1)
    return np.concatenate((flat, features.astype(np.float32)), axis=-1)


def dense_mask(mask: np.ndarray) -> np.ndarray:
    """The AEC env's int8 action mask ``(..., 36*W*W + 37)`` from the compact one."""
    mask = np.asarray(mask, dtype=np.int64)
    cells = mask[..., :-1]
    types = np.arange(36, dtype=np.int64)
    place = (cells[..., None, :] >> types[:, None]) & 1  # (..., 36, W*W)
    last = (mask[..., -1:] >> np.arange(37, dtype=np.int64)) & 1
    flat = place.reshape(*place.shape[:-2], -1)
    return np.concatenate((flat, last), axis=-1).astype(np.int8)


def legal_count(mask: np.ndarray) -> np.ndarray:
    """Number of legal actions in each compact mask."""
    mask = np.ascontiguousarray(mask, dtype=np.int64)
    bits = np.unpackbits(mask.view(np.uint8).reshape(*mask.shape, 8), axis=-1)
    return bits.sum(axis=(-1, -2))


# --- torch, for policies -----------------------------------------------------------------
def torch_dense_mask(mask):
    """Compact masks (a torch int64 tensor ``(..., W*W + 1)``) as a bool tensor
    ``(..., 36*W*W + 37)`` on the same device, the layout of the policy's logits."""
    import torch

    types = torch.arange(37, device=mask.device, dtype=torch.int64)
    place = (mask[..., :-1].unsqueeze(-2) >> types[:36, None]) & 1
    last = (mask[..., -1:] >> types) & 1
    return torch.cat((place.flatten(-2), last), dim=-1).bool()


def masked_logits(logits, mask):
    """``logits`` with every action the compact ``mask`` forbids set to -inf."""

    allowed = torch_dense_mask(mask)
    return logits.masked_fill(~allowed, float("-inf"))


def torch_planes(board):
    """Board codes (a torch uint8 tensor ``(..., W, W)``) as float planes ``(..., 13, W, W)``."""
    import torch

    table = torch.as_tensor(PLANE_TABLE, device=board.device)
    return table[board.long()].movedim(-1, -3)


__all__ = [
    "PLANE_TABLE",
    "dense_mask",
    "dense_observation",
    "dense_planes",
    "legal_count",
    "masked_logits",
    "torch_dense_mask",
    "torch_planes",
]
