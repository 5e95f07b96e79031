"""``render_mode="human"``: a pygame window showing the table, every hand and the scores.

The picture is composed with Pillow (:func:`table_image`, so it needs no display and can be
tested anywhere) and only blitted by pygame. pygame is the optional ``[human]`` extra,
imported when a human-mode env is made, so every other mode works without it.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from ..engine.board import Board
from ..engine.game import Game
from .image import LABEL_RGB, TABLE_RGB, board_image, font, hand_image

Cell = tuple[int, int]

SIZE = (960, 680)  # the window, in pixels: a board area on the left, the players on the right
_BOARD_PX = 640
_PANEL_X = _BOARD_PX + 24
_HAND_PX = 40
_TEXT_PX = 18
INSTALL = 'pip install "qwirkle-env[human]"'


def import_pygame() -> Any:
    """pygame, or an error that names the extra that installs it."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # its import banner
    try:
        import pygame
    except ImportError:
        from gymnasium.error import DependencyNotInstalled

        raise DependencyNotInstalled(
            f'render_mode="human" opens a pygame window, and pygame is not installed: {INSTALL}'
        ) from None
    return pygame


def _status(game: Game) -> str:
    if not game.over:
        return f"move {len(game.history) + 1}   bag {game.bag_size}   player {game.current} to move"
    winners = game.winners()
    if len(winners) == 1:
        return f"game over: player {winners[0]} wins"
    return "game over: shared win for players " + ", ".join(map(str, winners))


def table_image(
    game: Game,
    board: Board | None = None,
    highlight: list[Cell] = (),
    hand_now: list[int] | None = None,
    exchange_now: list[int] = (),
    note: str = "",
) -> np.ndarray:
    """uint8 RGB (SIZE[1], SIZE[0], 3): the table (this turn's tiles ringed) on the left;
    status, scores and hands on the right. ``hand_now`` and ``exchange_now`` replace the
    mover's hand by what is left of it in a turn in progress and the tiles set aside."""
    im = Image.new("RGB", SIZE, TABLE_RGB)
    d = ImageDraw.Draw(im)
    board = game.board if board is None else board
    cells = dict(board)
    span = 1 + max(
        [max(r for r, _ in cells) - min(r for r, _ in cells) + 2 if cells else 2]
        + [max(c for _, c in cells) - min(c for _, c in cells) + 2 if cells else 2]
    )
    cell_px = max(8, min(40, (_BOARD_PX - 40) // span))
    pic = Image.fromarray(board_image(board, cell_px=cell_px, highlight=highlight))
    if pic.width > _BOARD_PX or pic.height > SIZE[1]:  # a sprawling table: shrink to fit
        pic.thumbnail((_BOARD_PX, SIZE[1]))
    im.paste(pic, ((_BOARD_PX - pic.width) // 2, (SIZE[1] - pic.height) // 2))
    f, small = font(_TEXT_PX), font(_TEXT_PX - 4)
    y = 16
    d.text((_PANEL_X, y), _status(game), fill=LABEL_RGB, font=f)
    y += 36
    for seat, score in enumerate(game.scores):
        mover = seat == game.current and not game.over
        d.text(
            (_PANEL_X, y),
            f"{'>' if mover else ' '} player {seat}: {score} points",
            fill=(0, 0, 0) if mover else LABEL_RGB,
            font=f,
        )
        y += 26
        tiles = hand_now if mover and hand_now is not None else game.hands[seat]
        im.paste(Image.fromarray(hand_image(tiles, cell_px=_HAND_PX)), (_PANEL_X, y))
        y += _HAND_PX + 6
        if mover and exchange_now:
            d.text((_PANEL_X, y), "to exchange:", fill=LABEL_RGB, font=small)
            im.paste(
                Image.fromarray(hand_image(exchange_now, cell_px=_HAND_PX // 2)),
                (_PANEL_X + 110, y),
            )
            y += _HAND_PX // 2 + 6
        y += 14
    if game.history:
        seat, move, points = game.history[-1]
        d.text((_PANEL_X, y), f"last: player {seat}, {points} points", fill=LABEL_RGB, font=small)
        y += 22
    if note:
        d.text((_PANEL_X, y), note, fill=LABEL_RGB, font=small)
    return np.asarray(im)


class Window:
    """One pygame window, opened on the first frame and paced at ``fps`` frames a second."""

    def __init__(self, fps: float, title: str = "Qwirkle") -> None:
        self.pygame = import_pygame()
        self.fps = fps
        self.title = title
        self.screen = None
        self.clock = None

    def show(self, frame: np.ndarray) -> None:
        pg = self.pygame
        if self.screen is None:
            pg.display.init()
            pg.display.set_caption(self.title)
            self.screen = pg.display.set_mode(SIZE)
            self.clock = pg.time.Clock()
        pg.event.pump()  # keeps the window responsive to the window manager
        surface = pg.surfarray.make_surface(np.ascontiguousarray(frame.transpose(1, 0, 2)))
        self.screen.blit(surface, (0, 0))
        pg.display.flip()
        self.clock.tick(self.fps)

    def save(self, path: str) -> None:
        """The window's current picture as an image file (PNG by the name's suffix)."""
        if self.screen is None:
            raise RuntimeError("nothing shown yet: the window opens on the first render()")
        self.pygame.image.save(self.screen, path)

    @property
    def is_open(self) -> bool:
        return self.screen is not None

    def close(self) -> None:
        if self.screen is not None:
            self.pygame.display.quit()
            self.screen = None
