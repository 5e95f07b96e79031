"""One game of Qwirkle: seats, hands, the bag, turns, scores and the end.

Everything random comes from one ``random.Random`` seeded at creation, so a seed and the
list of moves replay to the identical state. ``to_dict`` is plain JSON; ``from_dict``
checks that what it reads is a game that could exist (108 tiles, three of each, valid
lines, scores that add up) and says what is wrong when it is not.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..spec import END_BONUS, check_num_players
from .bag import Bag
from .board import Board, Cell, IllegalMove
from .hand import HAND_SIZE, distinct_exchanges, largest_group, remove_tiles
from .lines import mask_of
from .moves import Exchange, Move, Placement, move_from_json
from .placements import WIDTH, top_rows
from .save import game_data, game_parts, record_data, record_parts
from .tiles import Tile


class Game:
    """The full state of one game, with the rules for moving it on."""

    def __init__(
        self, num_players: int = 2, seed: int | None = None, strict_opening: bool = True
    ) -> None:
        check_num_players(num_players)
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"seed must be an int or None, got {seed!r}")
        rng = random.Random(seed)
        bag = Bag(rng)
        hands = [sorted(bag.draw(HAND_SIZE)) for _ in range(num_players)]
        groups = [largest_group(h) for h in hands]
        best = max(groups)
        tied = [seat for seat, g in enumerate(groups) if g == best]
        current = tied[0] if len(tied) == 1 else rng.choice(tied)
        self._set_parts(
            num_players=num_players, seed=seed, strict_opening=strict_opening, rng=rng,
            board=Board(), bag=bag.tiles, hands=hands, scores=[0] * num_players, history=[],
            skips=[], bonus_seat=None, over=False, current=current, opening_size=best,
        )  # fmt: skip

    @classmethod
    def from_parts(
        cls,
        *,
        num_players: int,
        seed: int,
        strict_opening: bool,
        rng: random.Random,
        board: Board,
        bag: list[int],
        hands: list[list[int]],
        scores: list[int],
        history: list[tuple[int, Move, int]],
        skips: list[tuple[int, int]],
        bonus_seat: int | None,
        over: bool,
        current: int,
        opening_size: int | None,
    ) -> Game:
        """A game assembled from its parts, owned from then on (not copied, not checked).

        Every Game is built here, ``__init__``, ``clone``, ``from_dict`` and
        ``PlayerView.sample_game`` alike, so a new field cannot be forgotten by one of them.
        ``rng`` draws the bag's future shuffles; ``bag`` is tile ids in draw order (the
        next tile last); ``skips`` is (move number, seat) of each skipped turn;
        ``opening_size`` is the forced opening's size, None once it has been played.
        """
        game = cls.__new__(cls)
        game._set_parts(
            num_players=num_players, seed=seed, strict_opening=strict_opening, rng=rng,
            board=board, bag=bag, hands=hands, scores=scores, history=history, skips=skips,
            bonus_seat=bonus_seat, over=over, current=current, opening_size=opening_size,
        )  # fmt: skip
        return game

    def _set_parts(
        self, *, num_players, seed, strict_opening, rng, board, bag, hands, scores, history,
        skips, bonus_seat, over, current, opening_size,
    ) -> None:  # fmt: skip
        self.num_players: int = num_players
        self.seed: int = seed
        self.strict_opening = bool(strict_opening)
        self._rng: random.Random = rng
        self.board: Board = board
        self.bag = Bag(rng, bag)
        self.hands: list[list[int]] = hands
        self.scores: list[int] = scores
        self.history: list[tuple[int, Move, int]] = history
        self.skips: list[tuple[int, int]] = skips
        self.bonus_seat: int | None = bonus_seat
        self.over: bool = over
        self.current: int = current
        self.opening_size: int | None = opening_size

    # --- what a player sees ----------------------------------------------------------
    def hand(self, seat: int | None = None) -> list[Tile]:
        seat = self.current if seat is None else seat
        return [Tile.from_id(t) for t in self.hands[seat]]

    @property
    def bag_size(self) -> int:
        return len(self.bag)

    @property
    def is_opening(self) -> bool:
        return self.opening_size is not None

    def winners(self) -> list[int]:
        """Seats with the highest total (several on a shared win)."""
        best = max(self.scores)
        return [seat for seat, s in enumerate(self.scores) if s == best]

    # --- moves -----------------------------------------------------------------------
    def legal_placements(self) -> list[Placement]:
        """Sorted, so equal games (a clone, a loaded save) list their moves in one order."""
        found = sorted(tuple(sorted(items)) for items, _ in self.placements_with_points())
        return [Placement(_tiles(items)) for items in found]

    def legal_exchanges(self) -> list[Exchange]:
        if self.over or self.is_opening or not self.bag.tiles:
            return []
        found = distinct_exchanges(self.hands[self.current], len(self.bag))
        return [Exchange(Tile.from_id(t) for t in combo) for combo in found]

    def legal_moves(self) -> list[Move]:
        """Every full move of the player to move: placements, then distinct exchanges."""
        if self.over:
            return []
        return [*self.legal_placements(), *self.legal_exchanges()]

    def placements_with_points(self) -> list[tuple[tuple[tuple[Cell, int], ...], int]]:
        """The current player's legal placements as ``(((cell, tile_id), ...), points)``,
        the opening rule applied: ``Board.placements_with_points`` for this hand, which
        agents and the env read because it carries the points and costs no Tile objects."""
        if self.over:
            return []
        found = self.board.placements_with_points(mask_of(self.hands[self.current]))
        if self.strict_opening and self.opening_size is not None:
            found = [p for p in found if len(p[0]) == self.opening_size]
        return found

    def placement_rows(self) -> np.ndarray:
        """``placements_with_points`` as ``Board.placement_rows``' int64 array, same order:
        for agents that pick by points in bulk (``placements.row_items`` turns the chosen
        row back into ``apply_placement``'s items)."""
        if self.over:
            return np.zeros((0, WIDTH), np.int64)
        rows = self.board.placement_rows(mask_of(self.hands[self.current]))
        if self.strict_opening and self.opening_size is not None:
            rows = rows[rows[:, 0] == self.opening_size]
        return rows

    def top_placement_rows(self) -> np.ndarray:
        """The rows of ``placement_rows`` that score the most, in its order: the greedy
        player's choices, listed without writing every other placement."""
        if self.over:
            return np.zeros((0, WIDTH), np.int64)
        if self.strict_opening and self.opening_size is not None:
            return top_rows(self.placement_rows())
        return self.board.top_placement_rows(mask_of(self.hands[self.current]))

    def apply(self, move: Move, *, trusted: bool = False) -> int:
        """Plays the current player's move and returns its points (end bonus included).
        ``trusted=True``: the move comes from this position's move list (``MoveRows.move``),
        so its lines need no check (``apply_placement`` says what still is)."""
        if self.over:
            raise IllegalMove("game over: no more moves can be played")
        if isinstance(move, Placement):
            if trusted:
                return self.apply_placement(list(move.items), trusted=True, move=move)
            return self.apply_placement([(cell, t.id) for cell, t in move.tiles], move=move)
        if isinstance(move, Exchange):
            return self.apply_exchange([t.id for t in move.tiles], move=move)
        raise TypeError(f"a move is a Placement or an Exchange, got {move!r}")

    def apply_placement(
        self, items: list[tuple[Cell, int]], *, trusted: bool = False, move: Move | None = None
    ) -> int:
        """``apply`` for a placement given as ``[(cell, tile_id), ...]``, the form
        ``placements_with_points`` lists. ``trusted=True`` trusts that the placement is
        legal on this board (a Turn or the move list built it), so its points are read off
        the frontier instead of checking every line; hand and opening are still checked.
        ``move`` is the Placement to record in the history (built from ``items`` if None)."""
        seat = self.current
        rest = remove_tiles(self.hands[seat], [t for _, t in items])
        if rest is None:
            names = ", ".join(str(Tile.from_id(t)) for _, t in items)
            raise IllegalMove(f"not in hand: player {seat} does not hold all of {names}")
        if (
            self.opening_size is not None
            and self.strict_opening
            and len(items) != self.opening_size
        ):
            raise IllegalMove(
                f"opening: the first move must place exactly {self.opening_size} tiles, "
                f"the largest colour or shape group of the opener's hand (got {len(items)})"
            )
        if trusted:
            points = self.board.play_legal(items)
        else:
            points = self.board.score_ids(items)
            self.board.place_legal(items)
        self.opening_size = None
        rest.extend(self.bag.draw(HAND_SIZE - len(rest)))
        rest.sort()
        self.hands[seat] = rest
        if not rest:
            points += END_BONUS
            self.bonus_seat = seat
            self.over = True
        self.scores[seat] += points
        if move is None:
            move = Placement.of_ids(items)
        self.history.append((seat, move, points))
        if not self.over:
            self._advance(placed=True)
        return points

    def apply_exchange(self, ids: list[int], *, move: Move | None = None) -> int:
        """``apply`` for an exchange given as tile ids."""
        seat = self.current
        if self.opening_size is not None:
            raise IllegalMove("opening: the first player must place, not exchange")
        if not ids:
            raise IllegalMove("empty exchange: exchange at least one tile")
        if not self.bag.tiles:
            raise IllegalMove("exchange: the bag is empty, so no tile can be exchanged")
        if len(ids) > len(self.bag):
            raise IllegalMove(
                f"exchange: {len(ids)} tiles asked but the bag holds only {len(self.bag)}"
            )
        rest = remove_tiles(self.hands[seat], ids)
        if rest is None:
            names = ", ".join(str(Tile.from_id(t)) for t in ids)
            raise IllegalMove(f"not in hand: player {seat} does not hold all of {names}")
        rest.extend(self.bag.exchange(ids))
        rest.sort()
        self.hands[seat] = rest
        if move is None:
            move = Exchange(Tile.from_id(t) for t in ids)
        self.history.append((seat, move, 0))
        self._advance()
        return 0

    def can_move(self, seat: int) -> bool:
        """A player can move if the bag can take an exchange or a tile fits somewhere."""
        if self.bag.tiles:
            return True
        return self.board.can_place(mask_of(self.hands[seat]))

    def table_is_dead(self) -> bool:
        """No tile still off the table fits anywhere, so no placement can ever come again.

        The rule book ends a game only once the bag is empty; on a dead table with tiles in
        the bag the players could only exchange forever. (choice) Such a game ends at once,
        with no bonus, like a blocked game (docs/RULES.md, "Decided by this project").
        """
        board = self.board
        return not board.fitting_types & ~board.complete_types  # the types not all on the table

    def _advance(self, placed: bool = False) -> None:
        """Passes the turn on, skipping players who can do nothing; ends a dead game (only
        a placement can kill the table)."""
        if self.bag.tiles:
            if placed and self.table_is_dead():
                self.over = True
            else:  # every player can exchange
                self.current = (self.current + 1) % self.num_players
            return
        n = self.num_players
        for step in range(1, n + 1):
            seat = (self.current + step) % n
            if self.can_move(seat):
                self.current = seat
                return
            self.skips.append((len(self.history), seat))
        self.over = True  # bag empty and nobody can place: no bonus

    # --- copies and saving ------------------------------------------------------------
    def clone(self) -> Game:
        rng = random.Random()
        rng.setstate(self._rng.getstate())
        return Game.from_parts(
            num_players=self.num_players, seed=self.seed, strict_opening=self.strict_opening,
            rng=rng, board=self.board.copy(), bag=list(self.bag.tiles),
            hands=[list(h) for h in self.hands], scores=list(self.scores),
            history=list(self.history), skips=list(self.skips), bonus_seat=self.bonus_seat,
            over=self.over, current=self.current, opening_size=self.opening_size,
        )  # fmt: skip

    def record(self) -> dict[str, Any]:
        """The seed, the options and the moves: enough to replay the game exactly."""
        moves = [move for _, move, _ in self.history]
        return record_data(self.num_players, self.seed, self.strict_opening, moves)

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Game:
        num_players, seed, strict_opening, moves = record_parts(record)
        game = cls(num_players, seed, strict_opening)
        for i, data in enumerate(moves):
            try:
                game.apply(move_from_json(data))
            except ValueError as err:
                raise ValueError(f"game record: move {i} cannot be replayed: {err}") from None
        return game

    def to_dict(self) -> dict[str, Any]:
        return game_data(
            num_players=self.num_players, seed=self.seed, strict_opening=self.strict_opening,
            board=self.board, bag=self.bag.tiles, hands=self.hands, scores=self.scores,
            current=self.current, opening_size=self.opening_size, over=self.over,
            bonus_seat=self.bonus_seat, history=self.history, skips=self.skips, rng=self._rng,
        )  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        """Rebuilds a saved game; raises ValueError naming the fault if it is corrupt."""
        parts = game_parts(data)
        try:
            return cls.from_parts(**parts)
        except (KeyError, TypeError, IndexError, AttributeError) as err:
            raise ValueError(f"corrupt game: missing or malformed field ({err!r})") from None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        state = "over" if self.over else f"player {self.current} to move"
        return (
            f"<Game {self.num_players} players, seed {self.seed}, {len(self.board)} tiles on "
            f"the table, bag {len(self.bag)}, scores {self.scores}, {state}>"
        )


def _tiles(items) -> list:
    return [(cell, Tile.from_id(t)) for cell, t in items]
