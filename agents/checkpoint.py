"""Checkpoints: weights plus everything needed to rebuild and check them.

A checkpoint is a plain dict of tensors, numbers and strings, so ``torch.load(...,
weights_only=True)`` reads it without unpickling code. A SHA-256 over the weights and the
configuration is stored beside them: a file edited after saving, truncated, or from
another architecture or env fails with a ValueError that says which.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import torch

from .network import NetConfig, PolicyValueNet

FORMAT = "qwirkle-ppo"
VERSION = 1


def _digest(state_dict: dict, meta: dict) -> str:
    h = hashlib.sha256(json.dumps(meta, sort_keys=True).encode())
    for key in sorted(state_dict):
        tensor = state_dict[key].detach().cpu().contiguous()
        h.update(key.encode())
        h.update(str(tuple(tensor.shape)).encode())
        h.update(tensor.numpy().tobytes())
    return h.hexdigest()


def save_checkpoint(
    path: str | Path,
    net: PolicyValueNet,
    env_options: dict,
    train_config: dict | None = None,
    step: int = 0,
) -> Path:
    """Writes the checkpoint atomically (a temporary file, then a rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "net": net.config.to_dict(),
        "env": dict(env_options),
        "train": dict(train_config or {}),
        "step": int(step),
    }
    blob = {**meta, "state_dict": state, "sha256": _digest(state, meta)}
    tmp = path.with_name(path.name + ".tmp")
    torch.save(blob, tmp)
    os.replace(tmp, path)
    return path


def load_checkpoint(
    path: str | Path,
    expect_env: dict | None = None,
    expect_net: dict | None = None,
) -> tuple[PolicyValueNet, dict]:
    """(network in eval mode, metadata). ValueError if the file is unreadable, tampered
    with, or its env/architecture differs from ``expect_env`` / ``expect_net``."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"checkpoint {path} does not exist")
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # corrupt zip, foreign pickle, truncated file...
        raise ValueError(f"checkpoint {path} is corrupt or not a checkpoint: {err}") from None
    if not isinstance(blob, dict) or blob.get("format") != FORMAT:
        raise ValueError(f"{path} is not a {FORMAT} checkpoint")
    if blob.get("version") != VERSION:
        raise ValueError(f"checkpoint {path} has version {blob.get('version')}, need {VERSION}")
    meta = {k: blob.get(k) for k in ("format", "version", "net", "env", "train", "step")}
    state = blob.get("state_dict")
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ValueError(f"checkpoint {path} has no valid state_dict")
    if blob.get("sha256") != _digest(state, meta):
        raise ValueError(
            f"checkpoint {path} failed its SHA-256 check: weights or config were modified"
        )
    for what, expected in (("env", expect_env), ("net", expect_net)):
        if expected is None:
            continue
        diff = {k: (meta[what].get(k), v) for k, v in expected.items() if meta[what].get(k) != v}
        if diff:
            parts = ", ".join(
                f"{k}: checkpoint {a!r} vs requested {b!r}" for k, (a, b) in diff.items()
            )
            raise ValueError(f"checkpoint {path} has an incompatible {what} config ({parts})")
    try:
        config = NetConfig(**meta["net"])
    except TypeError as err:
        raise ValueError(f"checkpoint {path}: unknown architecture fields ({err})") from None
    net = PolicyValueNet(config)
    try:
        net.load_state_dict(state)
    except RuntimeError as err:
        raise ValueError(f"checkpoint {path}: weights don't fit the architecture ({err})") from None
    net.eval()
    return net, meta
