"""The rules of Qwirkle and nothing else (docs/RULES.md): tiles, lines, board (with its
frontier and the placements grown from it), bag, hand, moves, game (and its saved form) and
turn. Imports ``qwirkle_env.spec``, and ``qwirkle_env.jit`` for the compiled twin of the
move generator (``movegen.py``): no gymnasium, PettingZoo or torch."""

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
