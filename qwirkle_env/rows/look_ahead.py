"""The look two moves ahead that the learned agent makes for its shortlist of moves.

For each shortlisted move: the most the next opponent can score in reply, and the most our
kept tiles can score next. The opponent's hand is known once the bag is empty in a 2-player
game; before that it is unknown, and the look ahead describes it two ways. Dealt: the mean
best reply over hands dealt at random from the unseen tiles (the same deals for every move
of the turn). Expected: the expected best single tile (``expected_best_tile``), computed
from the chance that they hold each type, with no sampling noise, which is what the choice
between moves needs. Our next move is described likewise: from the kept tiles alone, from
the kept tiles topped up by a random draw, and as an expectation over the draw.

A look costs a few move generations per move, so ``MoveRowsAhead`` makes it only for the
moves its cheap features rank best (``LookAhead.shortlist``). They run compiled on the
board's own grid (``afterstate.values_after``); ``reference_values`` is the same look on a
board copy in Python, which serves where the compiled one cannot and which tests hold it to.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from ..engine.board import LEN_H, LEN_V, Board
from ..engine.hand import HAND_SIZE, remove_tiles
from ..engine.lines import ids_of, line_points, mask_of
from ..engine.moves import Placement
from ..engine.placements import row_items, rows_of
from ..spec import COPIES, END_BONUS, MAX_LINE, NUM_COLORS, NUM_SHAPES, NUM_TYPES
from .afterstate import LOOK_WIDTH, NUM_VALUES, SPOT_WIDTH, values_after
from .columns import COL_GOES_OUT, LOOK_AHEAD_COLUMNS, POINT_SCALE
from .moverows import MoveRows
from .position import Position, chance_opponent_holds

# The values a look returns, in this order (points, or 0/1 for reply_goes_out): the look's
# columns of a row (columns.py) but its flag.
LOOK_AHEAD_FEATURES = LOOK_AHEAD_COLUMNS[:NUM_VALUES]
assert len(LOOK_AHEAD_FEATURES) == NUM_VALUES
# What the look says of each tile type after the move (``TurnLookAhead.type_block``): the
# network reads these per type with one shared encoder, so that what it learns of one type
# holds for every type (colours and shapes are interchangeable).
TYPE_FEATURES = (
    "kept", "unseen", "their_chance", "our_chance",  # who may hold it
    "best_tile", "spots", "makes_qwirkle",  # what one tile of it does on the table
    "kept_same_colour", "kept_same_shape",  # what it would play with
)  # fmt: skip


@dataclass(frozen=True)
class LookAhead:
    """How far the agent looks at its shortlist; a checkpoint stores the settings its agent
    plays with (those of self-play, or a longer shortlist: ``TDConfig.play_shortlist``).
    These defaults are the only ones: ``TDConfig``'s look-ahead fields default to them."""

    shortlist: int = 6  # moves looked at two moves ahead
    reply_samples: int = 2  # opponent hands dealt while unknown; the reply is their mean
    refill: bool = True  # our next move from the kept tiles topped up by a random draw
    refill_samples: int = 1  # draws for that top-up; our next move is their mean

    def __post_init__(self) -> None:
        if self.shortlist < 1 or self.reply_samples < 1 or self.refill_samples < 1:
            raise ValueError(
                f"shortlist, reply_samples and refill_samples must be >= 1, got "
                f"{self.shortlist}, {self.reply_samples} and {self.refill_samples}"
            )


DEFAULT_LOOK_AHEAD = LookAhead()
# what the look's values are divided by in a row: points by POINT_SCALE, the 0/1 flag by 1
AHEAD_SCALE = np.array([1.0 if name.endswith("goes_out") else POINT_SCALE
                        for name in LOOK_AHEAD_FEATURES])  # fmt: skip


class TurnLookAhead:
    """The look ahead of one turn: the deals are made once, for every move it looks at."""

    def __init__(self, pos: Position, rng: random.Random, how: LookAhead) -> None:
        n_players = len(pos.scores)
        self.board = pos.board
        self.held = pos.hand_sizes[(pos.seat + 1) % n_players]
        unseen = pos.unseen()
        self.unseen, self.unseen_total = unseen, sum(unseen)
        pool = [t for t, k in enumerate(unseen) for _ in range(k)]
        # exact: with the bag empty, the one opponent holds every unseen tile
        self.exact = pos.bag_size == 0 and n_players == 2
        if self.exact:
            self.opp = [mask_of(pool)] if pool else []
            self.their_chance = [float(k > 0) for k in unseen]
        else:
            k = min(self.held, len(pool))
            self.opp = [mask_of(rng.sample(pool, k)) for _ in range(how.reply_samples) if k]
            total = self.unseen_total
            self.their_chance = [chance_opponent_holds(c, total, self.held) for c in unseen]
        self.draws: list[list[int]] = []  # our top-ups, the same for every move of the turn
        if how.refill and pos.bag_size:
            k = min(HAND_SIZE, pos.bag_size, len(pool))
            self.draws = [rng.sample(pool, k) for _ in range(how.refill_samples)]
        self.bag_size = pos.bag_size
        self.our_chance: dict[int, list[float]] = {}  # per number of tiles we would draw
        self.opp_masks = np.array(self.opp, np.int64)  # the compiled look's forms of them
        self.their = np.array(self.their_chance, np.float64)
        self.hand = list(pos.hand)
        self.hand_counts = np.bincount(np.array(self.hand, np.int64), minlength=NUM_TYPES)
        self.unseen_counts = np.array(unseen, np.int64)
        # each top-up's mask by how many tiles we would draw (no refill: one empty top-up)
        self.draw_masks = np.array(
            [[mask_of(draw[:k]) for k in range(HAND_SIZE + 1)] for draw in self.draws or [[]]],
            np.int64,
        )

    def values(self, items, kept: list[int]) -> tuple[float, ...]:
        """LOOK_AHEAD_FEATURES after placing ``items`` (none: an exchange), keeping ``kept``."""
        return tuple(self.values_of([(items, kept)])[0].tolist())

    def values_of(self, moves: list[tuple[tuple, list[int]]]) -> np.ndarray:
        """``values`` of each (items, kept) move, one row each, in one compiled call (in
        Python on a table without a grid, which may lie beyond int64 rows)."""
        if self.board.code_grid is None:
            found = [self.reference_values(items, kept) for items, kept in moves]
            return np.array(found, np.float64).reshape(len(moves), LOOK_WIDTH)
        taken = np.full((len(moves), HAND_SIZE), -1, np.int64)
        for j, (_, keep) in enumerate(moves):
            used = remove_tiles(self.hand, keep)
            if used is None:
                raise ValueError(f"kept tiles {list(keep)} are not all in the hand {self.hand}")
            taken[j, : len(used)] = used
        return self.values_of_rows(rows_of([(items, 0) for items, _ in moves]), taken)

    def values_of_rows(self, rows: np.ndarray, taken: np.ndarray) -> np.ndarray:
        """``values_of`` for moves as ``MoveRows.move_arrays`` gives them: placement rows
        (an exchange places nothing) and the tile ids each takes from the hand (-1: none)."""
        found = values_after(self.board, rows, taken, self)
        if found is None:
            pairs = zip(rows, taken, strict=True)
            found = np.array([self._reference_row(row, ids) for row, ids in pairs])
        return found.reshape(len(rows), LOOK_WIDTH)

    def type_block(self, kept_counts: np.ndarray, spots: np.ndarray) -> np.ndarray:
        """TYPE_FEATURES of each move, (moves, NUM_TYPES, len(TYPE_FEATURES)), from the
        tiles each keeps by type and the spots its look found (the columns after
        NUM_VALUES)."""
        m = len(kept_counts)
        kept = np.asarray(kept_counts, np.float64).reshape(m, NUM_TYPES)
        spots = np.asarray(spots, np.float64).reshape(m, NUM_TYPES, SPOT_WIDTH)
        out = np.empty((m, NUM_TYPES, len(TYPE_FEATURES)), np.float64)
        out[:, :, 0] = kept
        out[:, :, 1] = self.unseen_counts / COPIES
        out[:, :, 2] = self.their
        drawn = np.minimum(HAND_SIZE - kept.sum(1).astype(np.int64), self.bag_size)
        ours = np.array([self._drawn_chance(int(d)) for d in drawn], np.float64)
        out[:, :, 3] = np.where(kept > 0, 1.0, ours.reshape(m, NUM_TYPES))
        out[:, :, 4] = spots[:, :, 0] / POINT_SCALE
        out[:, :, 5] = spots[:, :, 1] / POINT_SCALE
        out[:, :, 6] = spots[:, :, 2]
        have = (kept > 0).reshape(m, NUM_COLORS, NUM_SHAPES)  # a type's id: colour * 6 + shape
        colour = have.sum(2, keepdims=True) - have  # the other shapes kept in its colour
        shape = have.sum(1, keepdims=True) - have
        out[:, :, 7] = colour.reshape(m, NUM_TYPES) / (NUM_SHAPES - 1)
        out[:, :, 8] = shape.reshape(m, NUM_TYPES) / (NUM_COLORS - 1)
        return out

    def _reference_row(self, row: np.ndarray, taken: np.ndarray) -> tuple[float, ...]:
        kept = remove_tiles(self.hand, (t for t in taken.tolist() if t >= 0))
        return self.reference_values(tuple(row_items(row)), kept)

    def reference_values(self, items, kept: list[int]) -> tuple[float, ...]:
        """``values`` on a copy of the board, in Python."""
        board = self.board
        if items:
            board = board.copy()
            board.place_legal(list(items))
        total, out = 0.0, 0.0
        for hand in self.opp:
            best = 0
            for placed, pts in board.placements_with_points(hand):
                if self.exact and len(placed) == self.held:
                    pts += END_BONUS
                    out = 1.0
                best = max(best, pts)
            total += best
        topped = 0
        for draw in self.draws or [[]]:
            topped += _best(board, kept + draw[: HAND_SIZE - len(kept)])
        topped /= max(len(self.draws), 1)
        own = _best(board, kept) if self.draws else topped
        return (
            total / max(len(self.opp), 1),
            out,
            topped,
            expected_best_tile(board, self.their_chance),
            own,
            expected_best_tile(board, self._our_chance(kept)),
            *type_spots(board),
        )

    def _our_chance(self, kept: list[int]) -> list[float]:
        """P(we hold each type at our next turn): the kept tiles, and the draw's chances."""
        chance = self._drawn_chance(min(HAND_SIZE - len(kept), self.bag_size))
        if kept:
            chance = list(chance)
            for t in kept:
                chance[t] = 1.0
        return chance

    def _drawn_chance(self, drawn: int) -> list[float]:
        """P(a draw of ``drawn`` tiles from the unseen ones holds each type)."""
        chance = self.our_chance.get(drawn)
        if chance is None:
            total = self.unseen_total
            chance = [chance_opponent_holds(c, total, drawn) for c in self.unseen]
            self.our_chance[drawn] = chance
        return chance


def _best(board: Board, tiles: list[int]) -> int:
    if not tiles:
        return 0
    return max((pts for _, pts in board.placements_with_points(mask_of(tiles))), default=0)


def _spot_points(info) -> int:
    """What one tile scores at a frontier cell (its record ``info``): both lines through
    it, or 1 alone."""
    return (line_points(info[LEN_H]) + line_points(info[LEN_V])) or 1


def type_spots(board: Board) -> list[float]:
    """For each tile type, SPOT_WIDTH numbers: the most one tile of it scores on ``board``,
    the cells where it fits, and 1 if one of them completes a line of six."""
    out = [0.0] * (NUM_TYPES * SPOT_WIDTH)
    front = board.frontier
    for cell, fit in board.fit_masks.items():
        info = front[cell]
        points = _spot_points(info)
        six = 1.0 if MAX_LINE in (info[LEN_H], info[LEN_V]) else 0.0
        for t in ids_of(fit):
            k = SPOT_WIDTH * t
            out[k] = max(out[k], points)
            out[k + 1] += 1.0
            out[k + 2] = max(out[k + 2], six)
    return out


def expected_best_tile(board: Board, chance: list[float]) -> float:
    """The expected most one tile scores on ``board``, for a hand that holds type t with
    probability ``chance[t]``, the spots taken as independent: a smooth stand-in for the
    best reply that a few dealt hands estimate only roughly."""
    front = board.frontier
    hit: dict[int, float] = {}
    spots = []
    for cell, fit in board.fit_masks.items():
        p = hit.get(fit)
        if p is None:
            miss = 1.0
            for t in ids_of(fit):
                miss *= 1.0 - chance[t]
            p = hit[fit] = 1.0 - miss
        if p > 0.0:
            info = front[cell]
            spots.append((_spot_points(info), p))
    spots.sort(reverse=True)
    expected, none_yet = 0.0, 1.0
    for points, p in spots:
        expected += points * p * none_yet
        none_yet *= 1.0 - p
        if none_yet < 1e-6:
            break
    return expected


def look_at(
    ahead: TurnLookAhead, found: MoveRows, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Looks at these rows of ``found`` (``ahead``'s turn): (the rows looked at, their look
    (``LOOK_WIDTH`` values each: LOOK_AHEAD_FEATURES in points, then the spots), the tiles
    each keeps by type). A move that goes out ends the game: nothing to look at, so it is
    left out."""
    rows = np.asarray(rows, np.int64)
    over = (rows < found.num_placements) & (found.features[rows, COL_GOES_OUT] != 0)
    looked = rows[~over]
    kept = np.zeros((len(looked), NUM_TYPES), np.int64)
    if not len(looked):
        return looked, np.zeros((0, LOOK_WIDTH)), kept
    if ahead.board.code_grid is None:  # a table beyond any grid: the Python look
        moves = []
        for i in looked.tolist():
            move = found.move(i)
            moves.append((move.items if isinstance(move, Placement) else (), found.kept(i)))
        values = ahead.values_of(moves)
        for j, (_, keep) in enumerate(moves):
            np.add.at(kept[j], np.array(keep, np.int64), 1)
    else:
        arrays, taken = found.move_arrays(looked)
        values = ahead.values_of_rows(arrays, taken)
        kept[:] = ahead.hand_counts
        for j, i in np.argwhere(taken >= 0).tolist():
            kept[j, taken[j, i]] -= 1
    return looked, values, kept
