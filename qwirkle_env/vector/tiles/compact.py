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

from ...spec import MASKED_LOGIT, NUM_PLANES


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


def torch_legal_actions(mask):
    """The legal ``(row, action)`` pairs of compact masks (a torch int64 tensor
    ``(B, W*W + 1)``), read from the nonzero cells only: what sampling needs, and 10-20x
    faster than expanding every cell's 36 bits."""
    import torch

    cells = mask.shape[1] - 1
    bits = torch.arange(37, device=mask.device)
    row, cell = mask[:, :-1].nonzero(as_tuple=True)
    k, t = ((mask[row, cell, None] >> bits[:36]) & 1).nonzero(as_tuple=True)
    last_row, last_bit = ((mask[:, -1:] >> bits) & 1).nonzero(as_tuple=True)
    rows = torch.cat((row[k], last_row))
    return rows, torch.cat((t * cells + cell[k], 36 * cells + last_bit))


def torch_dense_mask(mask):
    """Compact masks (a torch int64 tensor ``(..., W*W + 1)``) as a bool tensor
    ``(..., 36*W*W + 37)`` on the same device, the layout of the policy's logits."""
    import torch

    flat = mask.reshape(-1, mask.shape[-1])
    cells = flat.shape[1] - 1
    dense = torch.zeros(flat.shape[0], 36 * cells + 37, dtype=torch.bool, device=mask.device)
    dense[torch_legal_actions(flat)] = True
    return dense.reshape(*mask.shape[:-1], -1)


def torch_masked_logits(logits, mask):
    """``logits`` with every action the compact ``mask`` forbids set to ``MASKED_LOGIT``."""
    return logits.masked_fill(~torch_dense_mask(mask), MASKED_LOGIT)


def torch_planes(board):
    """Board codes (a torch uint8 tensor ``(..., W, W)``) as float planes ``(..., 13, W, W)``."""
    import torch

    table = torch.as_tensor(PLANE_TABLE, device=board.device)
    return table[board.long()].movedim(-1, -3)


__all__ = [
    "MASKED_LOGIT",
    "PLANE_TABLE",
    "dense_mask",
    "dense_observation",
    "dense_planes",
    "legal_count",
    "torch_masked_logits",
    "torch_dense_mask",
    "torch_legal_actions",
    "torch_planes",
]
