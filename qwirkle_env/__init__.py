"""Qwirkle for reinforcement learning: an exact rules engine and a PettingZoo environment."""

from . import qwirkle_v0
from .board import Board, IllegalMove
from .env import env, raw_env
from .game import Game
from .moves import Exchange, Move, Placement
from .tiles import Color, Shape, Tile

__all__ = [
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
