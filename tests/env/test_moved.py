"""The old import paths of the modules the restructure moved: each still imports for one
release, warns with the new path, and hands out the very objects of the new home."""

from __future__ import annotations

import importlib
import sys

import pytest

import qwirkle_env.rows
from qwirkle_env.rows import columns, kernels, position, reference, table
from qwirkle_env.rows import moverows as move_rows_module

MOVED = {
    "qwirkle_env.candidates": {
        "MoveRows": move_rows_module.MoveRows,
        "move_rows": kernels.move_rows,
        "reference_move_rows": reference.reference_move_rows,
        "ROW_FEATURES": columns.ROW_FEATURES,
        "POINT_SCALE": columns.POINT_SCALE,
    },
    "qwirkle_env.rowgen": {
        "row_features": kernels.row_features,
        "NUM_ROW_FEATURES": columns.NUM_ROW_FEATURES,
    },
    "qwirkle_env.move_mode": {
        "MoveTable": table.MoveTable,
        "DEFAULT_MAX_MOVES": table.DEFAULT_MAX_MOVES,
        "split_observation": table.split_observation,
    },
    "qwirkle_env.position": {"Position": position.Position},
}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_warns_and_forwards_to_the_new_home(old):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=r"has moved to qwirkle_env\.rows"):
        module = importlib.import_module(old)
    for name, obj in MOVED[old].items():
        assert getattr(module, name) is obj
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018


def test_the_env_package_keeps_its_names():
    from qwirkle_env import aec, qwirkle_v0, raw_env

    assert qwirkle_v0.raw_env is raw_env is aec.raw_env
    assert isinstance(raw_env(action_mode="moves"), aec.MoveEnv)
    assert isinstance(raw_env(), aec.TileEnv)
    assert qwirkle_env.rows.MoveRows is move_rows_module.MoveRows
