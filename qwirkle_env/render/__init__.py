"""Pictures of the table: one import point for every view.

    board_ansi / game_ansi / hand_ansi   coloured or plain text (text.py)
    board_image / hand_image             uint8 RGB arrays (image.py)
    board_svg / hand_svg                 standalone SVG, e.g. for Jupyter (image.py)
    save_animation                       a whole game as GIF or HTML (animation.py)
    table_image                          the human window's picture (window.py; pygame)

Renderers read the engine only; the env and the simulator call them.
"""

from .animation import save_animation
from .image import COLOR_RGB, SHAPE_GEOMETRY, board_image, board_svg, hand_image, hand_svg
from .text import COLOR_LETTERS, SHAPE_SYMBOLS, board_ansi, game_ansi, hand_ansi, legend

__all__ = [
    "COLOR_LETTERS",
    "COLOR_RGB",
    "SHAPE_GEOMETRY",
    "SHAPE_SYMBOLS",
    "board_ansi",
    "board_image",
    "board_svg",
    "game_ansi",
    "hand_ansi",
    "hand_image",
    "hand_svg",
    "legend",
    "save_animation",
]
