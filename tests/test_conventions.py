"""The conventions users bring from PettingZoo and gymnasium: a versioned module, a
registered gymnasium id, opponents named by spec strings."""

from __future__ import annotations

import importlib

from pettingzoo.utils.env import AECEnv

import qwirkle_env
from qwirkle_env import env, qwirkle_v0, raw_env


def test_qwirkle_v0_is_laid_out_like_pettingzoo_classic():
    assert qwirkle_v0.env is env and qwirkle_v0.raw_env is raw_env
    assert importlib.import_module("qwirkle_env.qwirkle_v0") is qwirkle_v0
    assert "qwirkle_v0" in qwirkle_env.__all__
    e = qwirkle_v0.env()
    assert isinstance(e, AECEnv) and e.metadata["name"] == "qwirkle_v0"
    raw = qwirkle_v0.raw_env(num_players=3)
    raw.reset(seed=0)
    assert raw.agents == ["player_0", "player_1", "player_2"]
