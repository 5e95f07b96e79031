"""What the mover knows at the start of a turn, read once and shared by every move's row.

A plain record of a PlayerView's facts. The env and self-play build it straight from the
game, without the view's copies: the move rows (``qwirkle_env.rows``) only read the
board.
"""

from __future__ import annotations

import numpy as np

from ..engine.board import Board
from ..engine.game import Game
from ..engine.placements import rows_of, rows_to_placements
from ..engine.tiles import COPIES, NUM_TYPES
from ..jit import COMPILED
from ..view import PlayerView


class Position:
    """A PlayerView's facts, without its copies.

    The legal placements (opening rule and window applied) come as tuples,
    ``(((cell, tile_id), ...), points)``, or as ``Board.placement_rows``' int64 array in the
    same order (``rows=``, with ``placements`` None): each form is made from the other when
    first read, so the compiled move rows need no tuple and an agent no array."""

    def __init__(
        self,
        board: Board,  # read only
        hand: list[int],
        seat: int,
        scores: list[int],
        hand_sizes: list[int],
        bag_size: int,
        placements: list | None,
        can_exchange: bool,
        *,
        rows: np.ndarray | None = None,
    ) -> None:
        if (placements is None) == (rows is None):
            raise ValueError(
                "give the legal placements either as tuples (placements) or as rows (rows=): "
                "exactly one of the two"
            )
        self.board, self.hand, self.seat, self.scores = board, hand, seat, scores
        self.hand_sizes, self.bag_size, self.can_exchange = hand_sizes, bag_size, can_exchange
        self._placements, self._rows = placements, rows

    def __repr__(self) -> str:
        return (
            f"Position(seat={self.seat}, hand={self.hand}, scores={self.scores}, "
            f"bag_size={self.bag_size}, {len(self.board)} tiles on the table)"
        )

    @property
    def placements(self) -> list:
        """The legal placements as ``(((cell, tile_id), ...), points)`` tuples."""
        if self._placements is None:
            self._placements = rows_to_placements(self._rows.tolist())
        return self._placements

    @property
    def placement_rows(self) -> np.ndarray:
        """The legal placements as ``Board.placement_rows``' int64 array, same order."""
        if self._rows is None:
            self._rows = rows_of(self._placements)
        return self._rows

    @classmethod
    def of_view(cls, view: PlayerView) -> Position:
        can_exchange = view.opening_size is None and view.bag_size > 0
        facts = (view.board, list(view.hand), view.seat, list(view.scores),
                 list(view.hand_sizes), view.bag_size)  # fmt: skip
        if not rows_pay(view.board):
            return cls(*facts, view.placements(), can_exchange)
        return cls(*facts, None, can_exchange, rows=view.placement_rows())

    @classmethod
    def of_game(cls, game: Game, seat: int | None = None) -> Position:
        """The position of ``seat`` (default: the mover) straight from a game, without a
        view or a board copy; a seat not to move has no legal moves."""
        to_move = seat is None or seat == game.current
        seat = game.current if seat is None else seat
        facts = (game.board, list(game.hands[seat]), seat, list(game.scores),
                 [len(h) for h in game.hands], len(game.bag))  # fmt: skip
        can_exchange = to_move and game.opening_size is None and len(game.bag) > 0
        if not to_move:
            return cls(*facts, [], can_exchange)
        if not rows_pay(game.board):
            return cls(*facts, game.placements_with_points(), can_exchange)
        return cls(*facts, None, can_exchange, rows=game.placement_rows())

    def unseen(self) -> list[int]:
        """Copies of each tile type in the opponents' hands or the bag."""
        counts = self.board.type_counts
        out = [COPIES - counts[t] for t in range(NUM_TYPES)]
        for t in self.hand:
            out[t] -= 1
        return out


def rows_pay(board: Board) -> bool:
    """Whether the board's placements are best read as rows: the compiled generator writes
    them (numba, and a table with a grid or empty), so no tuple need be built."""
    return COMPILED and (not len(board) or board.code_grid is not None)


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
