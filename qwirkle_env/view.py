"""What one seat may know: the table, its own hand, the public counts. Nothing else.

Agents get a PlayerView, never the Game: it physically holds no opponent hand and no bag
order, so an agent cannot cheat by accident. ``sample_game`` deals the unseen tiles at
random into a full Game consistent with the view, for search agents (determinisation).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from .engine.board import Board
from .engine.game import Game
from .engine.hand import distinct_exchanges
from .engine.lines import mask_of
from .engine.moves import Exchange, Move, Placement
from .engine.placements import top_rows
from .engine.tiles import COPIES, NUM_TYPES, Tile
from .spec import MAX_LINE


@dataclass
class PlayerView:
    seat: int
    num_players: int
    board: Board  # a copy: changing it changes nothing in the game
    hand: list[int]  # own tile ids, including any placed or set aside this turn
    scores: list[int]  # by seat
    hand_sizes: list[int]  # by seat
    bag_size: int
    opening_size: int | None  # tiles the opening must place while the table is empty
    strict_opening: bool
    turn_placed: list = field(default_factory=list)  # ((r, c), tile_id) placed this turn
    turn_exchange: list[int] = field(default_factory=list)  # set aside this turn
    origin: tuple[int, int] = (0, 0)  # table cell of window cell (0, 0) this turn
    window: int = 0
    observation: np.ndarray | None = None
    action_mask: np.ndarray | None = None
    history: list = field(default_factory=list)  # (seat, Move, points) of all moves so far

    @classmethod
    def of(cls, game: Game, seat: int, **turn) -> PlayerView:
        return cls(
            seat=seat,
            num_players=game.num_players,
            board=game.board.copy(),
            hand=list(game.hands[seat]),
            scores=list(game.scores),
            hand_sizes=[len(h) for h in game.hands],
            bag_size=len(game.bag),
            opening_size=game.opening_size,
            strict_opening=game.strict_opening,
            history=list(game.history),
            **turn,
        )

    def unseen(self) -> list[int]:
        """Counts per tile type of the tiles this seat has not seen (opponents' hands + bag)."""
        counts = [COPIES] * NUM_TYPES
        for _, tile in self.board:
            counts[tile.id] -= 1
        for t in self.hand:
            counts[t] -= 1
        return counts

    def placements(self) -> list:
        """Legal placements as (((cell, tile_id), ...), points), the opening rule applied.

        With a window (a view from the env), only placements the window can show: those
        are the moves the env will take. The opening always fits (it starts at the centre).
        """
        found = self.board.placements_with_points(mask_of(self.hand))
        if self.strict_opening and self.opening_size is not None:
            found = [p for p in found if len(p[0]) == self.opening_size]
        if self.window and len(self.board):
            r0, c0 = self.origin
            w = self.window
            found = [
                p for p in found if all(0 <= r - r0 < w and 0 <= c - c0 < w for (r, c), _ in p[0])
            ]
        return found

    def placement_rows(self) -> np.ndarray:
        """``placements`` as ``Board.placement_rows``' int64 array, same filters, same order."""
        rows = self.board.placement_rows(mask_of(self.hand))
        if self.strict_opening and self.opening_size is not None:
            rows = rows[rows[:, 0] == self.opening_size]
        if self.window and len(self.board) and len(rows):
            r0, c0 = self.origin
            w = self.window
            used = np.arange(MAX_LINE) < rows[:, :1]  # which of the six tile slots are set
            inside = (
                (rows[:, 2::3] - r0 >= 0)
                & (rows[:, 2::3] - r0 < w)
                & (rows[:, 3::3] - c0 >= 0)
                & (rows[:, 3::3] - c0 < w)
            )
            rows = rows[(inside | ~used).all(axis=1)]
        return rows

    def top_placement_rows(self) -> np.ndarray:
        """The rows of ``placement_rows`` that score the most, in its order (what a greedy
        player chooses among). Without a window or an opening to filter by, the generator
        writes only those rows."""
        if (self.window and len(self.board)) or (
            self.strict_opening and self.opening_size is not None
        ):
            return top_rows(self.placement_rows())  # the best may lie outside the window
        return self.board.top_placement_rows(mask_of(self.hand))

    def legal_moves(self) -> list[Move]:
        """Every full move: placements, then distinct exchanges (as Game.legal_moves)."""
        moves: list[Move] = [
            Placement((cell, Tile.from_id(t)) for cell, t in items)
            for items, _ in self.placements()
        ]
        if self.opening_size is None and self.bag_size:
            found = distinct_exchanges(self.hand, self.bag_size)
            moves += [Exchange(Tile.from_id(t) for t in combo) for combo in found]
        return moves

    def sample_game(self, rng: random.Random) -> Game:
        """A full game consistent with this view: unseen tiles dealt at random.

        The sampled game's own RNG is seeded from ``rng``, so future draws differ per
        sample too. Only valid at the start of a turn (nothing placed yet).
        """
        pool = [t for t, n in enumerate(self.unseen()) for _ in range(n)]
        rng.shuffle(pool)
        hands = []
        for seat in range(self.num_players):
            if seat == self.seat:
                hands.append(list(self.hand))
            else:
                k = self.hand_sizes[seat]
                hands.append(sorted(pool[:k]))
                del pool[:k]
        seed = rng.randrange(2**63)
        return Game.from_parts(
            num_players=self.num_players, seed=seed, strict_opening=self.strict_opening,
            rng=random.Random(seed), board=self.board.copy(), bag=pool,
            hands=[sorted(h) for h in hands], scores=list(self.scores),
            history=list(self.history), skips=[], bonus_seat=None, over=False,
            current=self.seat, opening_size=self.opening_size,
        )  # fmt: skip
