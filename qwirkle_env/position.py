"""What the mover knows at the start of a turn, read once and shared by every move's row.

A plain record of a PlayerView's facts. The env and self-play build it straight from the
game, without the view's copies: the move rows (``qwirkle_env.candidates``) only read the
board.
"""

from __future__ import annotations

from dataclasses import dataclass

from .engine.board import Board
from .engine.game import Game
from .engine.tiles import COPIES, NUM_TYPES
from .view import PlayerView


@dataclass
class Position:
    """A PlayerView's facts, without its copies."""

    board: Board  # read only
    hand: list[int]
    seat: int
    scores: list[int]
    hand_sizes: list[int]
    bag_size: int
    placements: list  # legal (((cell, tile_id), ...), points), opening rule and window applied
    can_exchange: bool

    @classmethod
    def of_view(cls, view: PlayerView) -> Position:
        return cls(
            view.board, list(view.hand), view.seat, list(view.scores), list(view.hand_sizes),
            view.bag_size, view.placements(), view.opening_size is None and view.bag_size > 0,
        )  # fmt: skip

    @classmethod
    def of_game(cls, game: Game, seat: int | None = None) -> Position:
        """The position of ``seat`` (default: the mover) straight from a game, without a
        view or a board copy; a seat not to move has no legal moves."""
        to_move = seat is None or seat == game.current
        seat = game.current if seat is None else seat
        return cls(
            game.board, list(game.hands[seat]), seat, list(game.scores),
            [len(h) for h in game.hands], len(game.bag),
            game.placements_with_points() if to_move else [],
            to_move and game.opening_size is None and len(game.bag) > 0,
        )  # fmt: skip

    def unseen(self) -> list[int]:
        """Copies of each tile type in the opponents' hands or the bag."""
        counts = self.board.type_counts
        out = [COPIES - counts[t] for t in range(NUM_TYPES)]
        for t in self.hand:
            out[t] -= 1
        return out


def chance_opponent_holds(copies: int, unseen: int, held: int) -> float:
    """P(at least one of ``copies`` tiles is among ``held`` drawn from ``unseen``): the odds
    that an opponent holds the tile a line is waiting for."""
    if copies <= 0 or held <= 0:
        return 0.0
    if held >= unseen or copies >= unseen:
        return 1.0
    miss = 1.0
    for i in range(held):
        miss *= (unseen - copies - i) / (unseen - i)
        if miss <= 0.0:
            return 1.0
    return 1.0 - miss
