"""Text pictures of the table for terminals: ANSI colours, or plain letters and symbols.

Text cells are 3 columns wide in colour (a symbol on a black tile) and 4 in plain text
(colour letter + symbol, e.g. ``R■``); ``[ ]`` marks highlighted cells in both.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..engine.board import Board
from ..engine.game import Game
from ..engine.moves import Placement
from ..engine.tiles import SHAPE_NAMES, Color, Shape, Tile
from .image import Cell, Window, cells_of, extent

__all__ = ["COLOR_LETTERS", "SHAPE_SYMBOLS", "board_ansi", "game_ansi", "hand_ansi", "legend"]

SHAPE_SYMBOLS: dict[Shape, str] = {
    Shape.CIRCLE: "●",
    Shape.STAR4: "✖",
    Shape.DIAMOND: "◆",
    Shape.SQUARE: "■",
    Shape.CLOVER: "♣",
    Shape.STAR8: "✷",
}
COLOR_LETTERS = "ROYGBP"
# xterm-256 codes: understood by nearly every terminal, unlike 24-bit colour.
_ANSI_FG = (196, 208, 226, 40, 33, 135)
_TILE_BG, _HIGHLIGHT_BG, _DIM = 16, 238, 244
_RESET = "\x1b[0m"


def _tile_text(tile: Tile, color: bool, highlight: bool, width: int) -> str:
    core = SHAPE_SYMBOLS[tile.shape]
    if not color:
        core = COLOR_LETTERS[tile.color] + core
    text = f"[{core}]" if highlight else core
    text = f"{text:^{width}}"
    if not color:
        return text
    bg = _HIGHLIGHT_BG if highlight else _TILE_BG
    return f"\x1b[48;5;{bg};38;5;{_ANSI_FG[tile.color]}m{text}{_RESET}"


def _empty_text(color: bool, highlight: bool, width: int) -> str:
    text = f"{'[ ]' if highlight else '·' if color else '.':^{width}}"
    return f"\x1b[38;5;{_DIM}m{text}{_RESET}" if color else text


def legend(color: bool = True, highlight: bool = False) -> str:
    """One line naming the symbols and the colours."""
    shapes = "  ".join(f"{SHAPE_SYMBOLS[s]} {SHAPE_NAMES[s]}" for s in Shape)
    if color:
        colors = " ".join(f"\x1b[38;5;{_ANSI_FG[c]}m{c.name.lower()}{_RESET}" for c in Color)
    else:
        colors = " ".join(f"{COLOR_LETTERS[c]}={c.name.lower()}" for c in Color)
    return f"{shapes}  | {colors}" + ("  | [ ] placed this turn" if highlight else "")


def board_ansi(
    board: Board | Mapping[Cell, Tile],
    highlight: Iterable[Cell] = (),
    window: Window | None = None,
    color: bool = True,
) -> str:
    """The board as text with row/column labels and a legend; ANSI colours unless color=False.

    ``window`` = (row0, col0, size) (or (row0, col0, h, w)) draws that region, as the env
    sees it; by default the tiles' box plus one empty cell around. ``highlight`` brackets
    cells, e.g. the tiles placed this turn.
    """
    cells = cells_of(board)
    hl = {tuple(c) for c in highlight}
    r0, c0, h, w = extent(cells, window)
    rows, cols = range(r0, r0 + h), range(c0, c0 + w)
    width = max(3 if color else 4, *(len(str(c)) + 1 for c in cols))
    rw = max(len(str(r)) for r in rows)
    lines = [" " * (rw + 1) + "".join(f"{c:^{width}}" for c in cols).rstrip()]
    for r in rows:
        row = []
        for c in cols:
            t = cells.get((r, c))
            if t is None:
                row.append(_empty_text(color, (r, c) in hl, width))
            else:
                row.append(_tile_text(t, color, (r, c) in hl, width))
        lines.append((f"{r:>{rw}} " + "".join(row)).rstrip())
    lines.append(legend(color, bool(hl)))
    return "\n".join(lines)


def hand_ansi(tiles: Iterable[Tile | int], color: bool = True) -> str:
    """Tiles of a hand in a row, e.g. ``R■ O●`` in plain text."""
    tiles = [t if isinstance(t, Tile) else Tile.from_id(int(t)) for t in tiles]
    if not tiles:
        return "(empty)"
    return " ".join(_tile_text(t, color, False, 3 if color else 2) for t in tiles)


def game_ansi(
    game: Game,
    window: Window | None = None,
    color: bool = True,
    board: Board | None = None,
    highlight: Iterable[Cell] | None = None,
) -> str:
    """Scores, the player to move, the bag, the board (last placement highlighted) and the
    current player's hand. Shows that hand: meant for a human or a log, not an opponent.

    ``board`` and ``highlight`` replace the table and the marked cells, e.g. to show a turn
    in progress.
    """
    last = game.history[-1] if game.history else None
    if highlight is None:
        highlight = (
            [cell for cell, _ in last[1].tiles] if last and isinstance(last[1], Placement) else []
        )
    if game.over:
        winners = game.winners()
        if len(winners) == 1:
            status = f"game over: player {winners[0]} wins"
        else:
            status = "game over: shared win for players " + ", ".join(map(str, winners))
    else:
        status = f"player {game.current} to move"
    scores = "  ".join(
        f"{'>' if seat == game.current and not game.over else ' '}P{seat} {s:>3}"
        for seat, s in enumerate(game.scores)
    )
    lines = [f"move {len(game.history) + 1}  bag {game.bag_size}  {status}", scores]
    if last:
        seat, move, points = last
        lines.append(f"last: player {seat} {move} ({points} points)")
    lines.append(board_ansi(game.board if board is None else board, highlight, window, color))
    if not game.over:
        lines.append(f"hand of player {game.current}: {hand_ansi(game.hands[game.current], color)}")
    return "\n".join(lines)
