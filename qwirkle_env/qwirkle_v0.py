"""Qwirkle under its versioned name, laid out as PettingZoo's classic games are.

``from qwirkle_env import qwirkle_v0; qwirkle_v0.env()``, like ``connect_four_v3.env()``. A
change that alters observations, actions or rewards gets a new module (``qwirkle_v1``), so
code written against v0 keeps meaning what it meant.
"""

from __future__ import annotations

from .aec import env, raw_env

__all__ = ["env", "raw_env"]
