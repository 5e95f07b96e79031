"""A valued position, what ``rollout-values`` learns from, and the file that keeps them.

A round's positions cost an hour or more of simulations; saved, a later round fits on them
beside its own. The file is an ``.npz`` of plain arrays, loaded without pickle, and refused
with what to do when it is of another kind, damaged, or describes moves with other
features than this version's.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.move_value.features import FEATURES

__all__ = ["Valued", "load_positions", "save_positions"]


@dataclass
class Valued:
    """One position: the moves looked at (the network's best first) and their values."""

    rows: np.ndarray  # float32 (k, NUM_MOVE_FEATURES): the rows the look ahead filled
    points: np.ndarray  # float32 (k,): points now
    values: np.ndarray  # float32 (k, 2): mean final margin, over each half of the sims
    bag: int  # tiles in the bag
    judged: np.ndarray | None = None  # float32 (k, 2): leaf values of the top moves, else NaN


_POSITIONS = "qwirkle-rollout-positions"  # a positions file's format name
_PARTS = ("format", "features", "counts", "bags", "rows", "points", "values")


def save_positions(path: str | Path, data: list[Valued]) -> Path:
    """``data`` as one .npz file of plain arrays (no pickles), its moves end to end; the
    leaf values of moves judged closely, where there are any, NaN for the others."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    counts = np.array([len(d.points) for d in data], np.int64)
    extra = {}
    if any(d.judged is not None for d in data):
        judged = [np.full((len(d.points), 2), np.nan, np.float32) if d.judged is None
                  else d.judged for d in data]  # fmt: skip
        extra["judged"] = np.concatenate(judged)
    with open(path, "wb") as f:  # as named: savez would add .npz to a name without it
        np.savez(f, format=np.array(_POSITIONS), features=np.array(FEATURES), counts=counts,
                 bags=np.array([d.bag for d in data], np.int64),
                 rows=np.concatenate([d.rows for d in data]),
                 points=np.concatenate([d.points for d in data]),
                 values=np.concatenate([d.values for d in data]), **extra)  # fmt: skip
    return path


def load_positions(path: str | Path) -> list[Valued]:
    """The positions ``save_positions`` wrote; ValueError if the file is not such a file,
    is damaged, or was written by a version that describes moves otherwise."""
    what = f"{path} is not a positions file of rollout-values"
    try:
        archive = np.load(path, allow_pickle=False)
        if not isinstance(archive, np.lib.npyio.NpzFile):  # one bare array (.npy)
            raise ValueError("one array, not an archive of them")
        with archive as f:
            parts = {name: f[name] for name in _PARTS}
            judged = f["judged"] if "judged" in f.files else None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
        raise ValueError(f"{what} ({err})") from None
    if str(parts["format"]) != _POSITIONS:
        raise ValueError(what)
    if parts["features"].tolist() != list(FEATURES):
        raise ValueError(
            f"{path} describes moves with {len(parts['features'])} other features than this "
            f"version's {len(FEATURES)}: collect its positions again with this version"
        )
    counts, n = parts["counts"], int(parts["counts"].sum())
    shapes_ok = (
        parts["rows"].shape == (n, len(FEATURES)) and parts["points"].shape == (n,)
        and parts["values"].shape == (n, 2) and parts["bags"].shape == counts.shape
        and (counts >= 1).all()
        and all(np.isfinite(parts[name]).all() for name in ("rows", "points", "values"))
        and (judged is None or (judged.shape == (n, 2) and not np.isinf(judged).any()))
    )  # fmt: skip
    if not shapes_ok:
        raise ValueError(
            f"{path}: its arrays do not fit together or hold numbers that are not finite "
            "(a damaged file?)"
        )
    ends = np.cumsum(counts).tolist()
    starts = [0, *ends[:-1]]
    rows, points, values = parts["rows"], parts["points"], parts["values"]
    return [Valued(rows[a:b], points[a:b], values[a:b], bag,
                   None if judged is None else judged[a:b])
            for a, b, bag in zip(starts, ends, parts["bags"].tolist(), strict=True)]  # fmt: skip
