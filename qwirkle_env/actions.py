"""The env's action encoding: one tile per sub-step, in a W x W window of the table.

| index                  | meaning                                              |
|------------------------|------------------------------------------------------|
| ``t*W*W + r*W + c``    | place a tile of type t (0..35) at window cell (r, c) |
| ``36*W*W + t``         | add a tile of type t to this turn's exchange set     |
| ``36*W*W + 36``        | end the turn: commit the placement or the exchange   |

Tile *types*, not hand slots, so a convolutional policy has one channel per type and
legality is a local pattern. Window cell (r, c) is table cell (r0 + r, c0 + c), where
the origin (r0, c0) is fixed for the whole turn.
"""

from __future__ import annotations

from .engine.board import Board, Cell
from .engine.moves import Exchange, Move, Placement
from .engine.tiles import NUM_TYPES, Tile


class ActionCodec:
    """Encodes and decodes sub-step actions for a window of side ``window``."""

    __slots__ = ("window", "cells", "exchange_base", "end", "num_actions")

    def __init__(self, window: int) -> None:
        if not isinstance(window, int) or isinstance(window, bool) or window < 1:
            raise ValueError(f"window must be a positive int, got {window!r}")
        self.window = window
        self.cells = window * window
        self.exchange_base = NUM_TYPES * self.cells
        self.end = self.exchange_base + NUM_TYPES
        self.num_actions = self.end + 1

    def place(self, tile_id: int, row: int, col: int) -> int:
        w = self.window
        if not (0 <= tile_id < NUM_TYPES and 0 <= row < w and 0 <= col < w):
            raise ValueError(
                f"place({tile_id}, {row}, {col}) is outside the encoding: tile types are "
                f"0..{NUM_TYPES - 1} and window cells 0..{w - 1}"
            )
        return tile_id * self.cells + row * w + col

    def exchange(self, tile_id: int) -> int:
        if not 0 <= tile_id < NUM_TYPES:
            raise ValueError(f"exchange({tile_id}): tile types are 0..{NUM_TYPES - 1}")
        return self.exchange_base + tile_id

    def check(self, action: object) -> int:
        """The action as an int, or a ValueError saying what the action space is."""
        try:
            as_int = int(action)  # type: ignore[call-overload]
        except (TypeError, ValueError):
            as_int = None
        if as_int is None or as_int != action or isinstance(action, bool | float):
            raise ValueError(
                f"action {action!r} is not an integer; actions are ints in 0..{self.end}"
            )
        if not 0 <= as_int <= self.end:
            raise ValueError(
                f"action {as_int} is out of range: actions are 0..{self.end} "
                f"for window {self.window}"
            )
        return as_int

    def decode(self, action: int) -> tuple:
        """("place", tile_id, row, col), ("exchange", tile_id) or ("end",)."""
        return self.decode_checked(self.check(action))

    def decode_checked(self, action: int) -> tuple:
        """``decode`` of an action already checked to be an int in range."""
        if action == self.end:
            return ("end",)
        if action >= self.exchange_base:
            return ("exchange", action - self.exchange_base)
        t, cell = divmod(action, self.cells)
        r, c = divmod(cell, self.window)
        return ("place", t, r, c)

    def describe(self, action: int, origin: Cell | None = None) -> str:
        """Human words for an action, e.g. "place red square at window (3, 4)"."""
        kind = self.decode(action)
        if kind[0] == "end":
            return "end the turn"
        if kind[0] == "exchange":
            return f"add a {Tile.from_id(kind[1])} to the exchange"
        _, t, r, c = kind
        where = f"window ({r}, {c})"
        if origin is not None:
            where += f" = table ({origin[0] + r}, {origin[1] + c})"
        return f"place {Tile.from_id(t)} at {where}"

    def move_to_actions(self, move: Move, board: Board, origin: Cell) -> list[int]:
        """The sub-steps that play a full engine move, ending with "end".

        A placement is emitted from a tile touching the table outwards (first forwards,
        then backwards along its line), so every prefix is itself a legal placement. On
        the empty table the first tile must go to the window centre, so the line is
        translated there.
        """
        if isinstance(move, Exchange):
            return [*(self.exchange(t.id) for t in move.tiles), self.end]
        if not isinstance(move, Placement):
            raise TypeError(f"a move is a Placement or an Exchange, got {move!r}")
        cells = [cell for cell, _ in move.tiles]
        tiles = [t.id for _, t in move.tiles]
        if len(board) == 0:
            centre = self.window // 2
            dr, dc = origin[0] + centre - cells[0][0], origin[1] + centre - cells[0][1]
            cells = [(r + dr, c + dc) for r, c in cells]
            start = 0
        else:
            start = next(
                (
                    i
                    for i, (r, c) in enumerate(cells)
                    if any(n in board for n in ((r, c - 1), (r, c + 1), (r - 1, c), (r + 1, c)))
                ),
                None,
            )
            if start is None:
                raise ValueError(f"{move} does not touch the table")
        order = list(range(start, len(cells))) + list(range(start - 1, -1, -1))
        actions = []
        for i in order:
            r, c = cells[i][0] - origin[0], cells[i][1] - origin[1]
            if not (0 <= r < self.window and 0 <= c < self.window):
                raise ValueError(
                    f"{move} reaches table cell {cells[i]}, outside the window at {origin} "
                    f"of side {self.window}"
                )
            actions.append(self.place(tiles[i], r, c))
        actions.append(self.end)
        return actions


def outside_window(placements, origin: tuple[int, int], window: int) -> int:
    """How many of these placements (as ``Board.placements_with_points`` lists them) put a tile
    outside the window whose top-left table cell is ``origin``."""
    r0, c0 = origin
    return sum(
        1
        for items, _ in placements
        if any(not (0 <= r - r0 < window and 0 <= c - c0 < window) for (r, c), _ in items)
    )
