"""The rules of Qwirkle and nothing else (docs/RULES.md): tiles, lines, board, bag, hand,
moves, game and turn. Imports no gymnasium, PettingZoo or torch, and nothing above it."""

from .board import Board, IllegalMove
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
]
