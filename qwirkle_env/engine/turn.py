"""A turn in progress: the tiles placed or set aside so far, and what may come next.

The env builds a move one tile at a time. A sub-step is legal iff the tiles placed so far
plus the new one form a legal placement by themselves, so the next tile can only go at an
end of the run the placed tiles make (either axis while only one is down), and must be
compatible with that run, with the tiles beyond the end, and with its perpendicular line.
All of it is read from the board's frontier records; nothing is placed until the end.
"""

from __future__ import annotations

from .board import (
    C_D,
    C_L,
    C_R,
    C_U,
    FIT_H,
    FIT_V,
    T_D,
    T_L,
    T_R,
    T_U,
    Board,
    Cell,
    IllegalMove,
)  # fmt: skip
from .game import Game
from .hand import group_members
from .lines import ALL, COMPAT, mask_of
from .tiles import Tile

# For each axis: (step, fields of the run beyond the low end, beyond the high end, perp fit)
_AXES = (
    ((0, 1), (T_L, C_L), (T_R, C_R), FIT_V),
    ((1, 0), (T_U, C_U), (T_D, C_D), FIT_H),
)


class Turn:
    """The current player's turn, built sub-step by sub-step and committed at the end."""

    __slots__ = ("game", "centre", "placed", "exchange", "hand_left", "_groups", "_moves")

    def __init__(self, game: Game, centre: Cell = (0, 0)) -> None:
        self.game = game
        self._moves = len(game.history)  # the game hasn't moved on while this stays equal
        self.centre = centre  # where the first tile of the game must go
        self.placed: list[tuple[Cell, int]] = []
        self.exchange: list[int] = []
        self.hand_left = list(game.hands[game.current])
        self._groups = None
        if game.opening_size is not None and game.strict_opening:
            self._groups = group_members(self.hand_left, game.opening_size)

    # --- what may come next ------------------------------------------------------------
    def placement_options(self) -> list[tuple[Cell, int]]:
        """(cell, mask of tile types) for every cell the next tile may go to."""
        if self.exchange:
            return []
        hand = mask_of(self.hand_left)
        if self._groups is not None:
            placed = {t for _, t in self.placed}
            hand &= mask_of(t for g in self._groups if placed <= g for t in g)
            if len(self.placed) >= self.game.opening_size:
                return []
        if not hand:
            return []
        board = self.game.board
        if not self.placed:
            if not len(board):
                return [(self.centre, hand)]
            return [
                (cell, m)
                for cell, info in board.frontier.items()
                if (m := info[FIT_H] & info[FIT_V] & hand)
            ]
        options = []
        for axis in (0, 1) if len(self.placed) == 1 else (self._axis(),):
            options += self._ends(board, axis, hand)
        return options

    def exchange_options(self) -> int:
        """Mask of the tile types that may be added to the exchange set."""
        game = self.game
        if self.placed or game.opening_size is not None:
            return 0
        if len(self.exchange) >= len(game.bag):
            return 0
        return mask_of(self.hand_left)

    def can_end(self) -> bool:
        if self.exchange:
            return True
        if not self.placed:
            return False
        game = self.game
        if game.opening_size is not None and game.strict_opening:
            return len(self.placed) == game.opening_size
        return True

    # --- taking sub-steps --------------------------------------------------------------
    def place(self, cell: Cell, tile_id: int, trusted: bool = False) -> None:
        """Adds a tile; raises IllegalMove naming the rule if that is not legal now.

        ``trusted=True`` skips the check for callers that already read it off the mask;
        ``commit`` then trusts the tile too.
        """
        if not trusted:
            reason = self.place_fault(cell, tile_id)
            if reason:
                raise IllegalMove(reason)
        self.placed.append((cell, tile_id))
        self.hand_left.remove(tile_id)

    def add_exchange(self, tile_id: int) -> None:
        reason = self.exchange_fault(tile_id)
        if reason:
            raise IllegalMove(reason)
        self.exchange.append(tile_id)
        self.hand_left.remove(tile_id)

    def commit(self) -> int:
        """Plays the built move in the game; returns its points."""
        reason = self.end_fault()
        if reason:
            raise IllegalMove(reason)
        if self.exchange:
            return self.game.apply_exchange(list(self.exchange))
        # Every tile was checked on placing (or read off the exact mask); while the game
        # hasn't moved on, the placement is legal and only its points are needed.
        fresh = self._moves == len(self.game.history) and not self.game.over
        return self.game.apply_placement(list(self.placed), trusted=fresh)

    def exchange_fault(self, tile_id: int) -> str | None:
        """Why this tile can't join the exchange set now, or None."""
        if self.placed:
            return "exchange: this turn already places tiles; a turn can't do both"
        if self.game.opening_size is not None:
            return "opening: the first player must place, not exchange"
        if tile_id not in self.hand_left:
            return f"not in hand: no {Tile.from_id(tile_id)} left to exchange"
        if len(self.exchange) >= len(self.game.bag):
            return (
                f"exchange: the bag holds {len(self.game.bag)} tiles, so at most that many "
                "can be exchanged"
            )
        return None

    def end_fault(self) -> str | None:
        """Why the turn can't end now, or None."""
        if self.can_end():
            return None
        if self.placed:
            return (
                f"opening: the first move must place exactly {self.game.opening_size} "
                f"tiles, {len(self.placed)} placed so far"
            )
        return "end: nothing placed or set aside for exchange yet"

    def points_so_far(self) -> int:
        """What the tiles placed so far would score (0 before the first)."""
        if not self.placed:
            return 0
        board = self.game.board
        if self._moves == len(self.game.history):
            return board.score_legal(self.placed)
        return board.score_ids(self.placed)

    # --- internals ---------------------------------------------------------------------
    def _axis(self) -> int:
        return 0 if self.placed[0][0][0] == self.placed[1][0][0] else 1

    def _ends(self, board: Board, axis: int, hand: int) -> list[tuple[Cell, int]]:
        (dr, dc), low_side, high_side, perp_field = _AXES[axis]
        cells = board.tile_ids
        placed = dict(self.placed)
        compat = ALL
        for t in placed.values():
            compat &= COMPAT[t]
        out = []
        first = self.placed[0][0]
        for sign, (types_f, compat_f) in ((-1, low_side), (1, high_side)):
            r, c = first
            while True:
                r, c = r + sign * dr, c + sign * dc
                t = placed.get((r, c))
                if t is None:
                    t = cells.get((r, c))
                    if t is None:
                        break
                    compat &= COMPAT[t]
            out.append(((r, c), types_f, compat_f))
        options = []
        front = board.frontier
        for q, types_f, compat_f in out:
            info = front.get(q)
            if info is None:
                m = compat & hand
            elif info[types_f] & ~compat:
                m = 0
            else:
                m = compat & hand & info[compat_f] & info[perp_field]
            if m:
                options.append((q, m))
        return options

    def place_fault(self, cell: Cell, tile_id: int) -> str | None:
        """Why this tile can't go on this cell now, or None."""
        tile = Tile.from_id(tile_id)
        if self.exchange:
            return "this turn already exchanges tiles; a turn can't place too"
        if tile_id not in self.hand_left:
            return f"not in hand: no {tile} left in the hand"
        for q, m in self.placement_options():
            if q == cell:
                if m >> tile_id & 1:
                    return None
                break
        if cell in self.game.board or cell in dict(self.placed):
            return f"occupied cell: {cell} already holds a tile"
        if self._groups is not None and len(self.placed) >= self.game.opening_size:
            return f"opening: the opening line holds exactly {self.game.opening_size} tiles"
        if self._groups is not None and not any(
            {t for _, t in self.placed} | {tile_id} <= g for g in self._groups
        ):
            return (
                f"opening: {tile} would leave no group of {self.game.opening_size} tiles "
                "(the hand's largest) to open with"
            )
        if not len(self.game.board) and not self.placed:
            return f"opening: the first tile of the game goes to the window centre {self.centre}"
        try:
            self.game.board.score_ids([*self.placed, (cell, tile_id)])
        except IllegalMove as err:
            return str(err)
        return "the tiles placed this turn plus this one are not a legal placement"
