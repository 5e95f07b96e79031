"""Qwirkle for reinforcement learning: an exact rules engine and a PettingZoo environment."""

import gymnasium

from . import qwirkle_v0
from .aec import env, raw_env
from .engine.board import Board, IllegalMove
from .engine.game import Game
from .engine.moves import Exchange, Move, Placement
from .engine.tiles import Color, Shape, Tile
from .wrappers import ENV_ID

# gymnasium.make(ENV_ID, opponent="greedy"): the single-agent view, for tools built on ids.
if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="qwirkle_env.wrappers:make")

__all__ = [
    "ENV_ID",
    "Board",
    "Color",
    "Exchange",
    "Game",
    "IllegalMove",
    "Move",
    "Placement",
    "Shape",
    "Tile",
    "env",
    "qwirkle_v0",
    "raw_env",
]
