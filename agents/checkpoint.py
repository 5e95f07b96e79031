"""Checkpoints: weights plus everything needed to rebuild and check them.

A checkpoint is a plain dict of tensors, numbers and strings, so ``torch.load(...,
weights_only=True)`` reads it without unpickling code. A SHA-256 over the weights and the
configuration is stored beside them: a file edited after saving, truncated, or from
another architecture or env fails with a ValueError that says which.

Three kinds of network are saved this way, each under its own format name: the tile-level
policy of masked PPO (``qwirkle-ppo``, the name files have carried since the first version),
the move-value network (``qwirkle-move-value``, from TD self-play or fitted to rollout
values) and the whole-move policy that the RL-library recipes train
(``qwirkle-move-policy``). Each network class names its format and configuration class
(``FORMAT``, ``CONFIG``), so this module sits below the learners and imports none of them;
a loader names the classes it accepts and refuses the other kinds by name.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import torch
from torch import nn

TILE_FORMAT = "qwirkle-ppo"  # the tile-level PPO policy
VALUE_FORMAT = "qwirkle-move-value"  # the move-value network
MOVES_FORMAT = "qwirkle-move-policy"  # the whole-move policy of the library recipes
VERSION = 1
KINDS = {
    TILE_FORMAT: "a tile-level masked-PPO policy",
    VALUE_FORMAT: "a move-value network (TD self-play or fitted to rollout values)",
    MOVES_FORMAT: "a whole-move policy over candidate rows",
}


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
    net: nn.Module,
    env_options: dict,
    train_config: dict | None = None,
    step: int = 0,
) -> Path:
    """Writes the checkpoint atomically (a temporary file, then a rename); ``net`` is one of
    the learners' networks (a class with ``FORMAT`` and a ``config``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
    meta = {
        "format": type(net).FORMAT,
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
    *,
    kind: type[nn.Module] | tuple[type[nn.Module], ...],
) -> tuple[nn.Module, dict]:
    """(network in eval mode, metadata). ``kind`` is the network class, or a tuple of the
    classes, that the caller accepts. ValueError if the file is unreadable, tampered with,
    of another kind, or its env/architecture differs from ``expect_env`` / ``expect_net``."""
    accepted = {cls.FORMAT: cls for cls in (kind if isinstance(kind, tuple) else (kind,))}
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"checkpoint {path} does not exist")
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # corrupt zip, foreign pickle, truncated file...
        raise ValueError(f"checkpoint {path} is corrupt or not a checkpoint: {err}") from None
    found = blob.get("format") if isinstance(blob, dict) else None
    if found not in KINDS:
        known = " or ".join(KINDS)
        raise ValueError(f"{path} is not a qwirkle-env checkpoint (format {found!r}, need {known})")
    if found not in accepted:
        asked = " or ".join(f"{KINDS[f]} (format {f!r})" for f in accepted)
        raise ValueError(
            f"checkpoint {path} holds {KINDS[found]} (format {found!r}), but {asked} was asked for"
        )
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
    net_cls = accepted[found]
    try:
        net = net_cls(net_cls.CONFIG(**meta["net"]))
    except (TypeError, ValueError) as err:
        raise ValueError(f"checkpoint {path}: unknown or unusable architecture ({err})") from None
    try:
        net.load_state_dict(state)
    except RuntimeError as err:
        raise ValueError(f"checkpoint {path}: weights don't fit the architecture ({err})") from None
    net.eval()
    return net, meta
