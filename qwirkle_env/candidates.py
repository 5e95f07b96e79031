"""Each legal move as a row of numbers: what it scores and what it leaves behind.

The whole-move mode of the env (``qwirkle_env.move_mode``) shows these rows to a policy,
and the move-value agent reads the same rows, adding look-ahead columns of its own. Every
row describes the move's *afterstate* from the mover's seat: the points it scores, the
lines it leaves (a line of five is a Qwirkle for whoever holds its sixth tile), the tiles
kept in hand (the "leave"), the bag and the scores. They are invariant to the colour/shape
naming and cheap: read off the table as it is, without copying the board. ``move_rows``
computes them in compiled code (``rowgen.py``, on the move generator's arrays);
``reference_move_rows`` is the same in plain Python, bit for bit, and the tests hold the
two together.

| column | feature | meaning |
|---|---|---|
| 0 | ``bag_share`` | tiles in the bag / 108 (the same for every row of a turn, as are 1-7) |
| 1 | ``bag_empty`` | 1 once the bag is empty |
| 2 | ``bag_low`` | min(bag, 6) / 6 |
| 3 | ``lead_mean`` | (own score - the opponents' mean) / 50 |
| 4 | ``lead_max`` | (own score - the best opponent's) / 50 |
| 5 | ``opp_tiles`` | tiles the opponents hold / (6 per opponent) |
| 6, 7 | ``three_players``, ``four_players`` | the seat count |
| 8 | ``points`` | points the move scores now, end bonus included, / 10 |
| 9 | ``exchange`` | 1 for an exchange |
| 10 | ``placed`` | tiles placed / 6 |
| 11 | ``goes_out`` | 1 if the move empties the hand with the bag empty (the game ends) |
| 12 | ``qwirkles`` | lines of six made |
| 13-15 | ``lines_2`` .. ``lines_4`` | lines of 2, 3 and 4 through the placed tiles |
| 16 | ``open_fives`` | lines of five left open whose sixth tile is unseen or kept |
| 17 | ``five_risk`` | summed chance that the opponents hold such a sixth tile |
| 18 | ``own_fives`` | such lines whose sixth tile we keep |
| 19 | ``own_safe`` | summed chance that they don't hold it, for those |
| 20 | ``kept`` | tiles kept in hand / 6 |
| 21, 22 | ``kept_distinct``, ``kept_duplicates`` | distinct types kept, extra copies kept, / 6 |
| 23, 24 | ``kept_colour_group``, ``kept_shape_group`` | largest colour / shape group kept / 6 |
| 25 | ``kept_synergy`` | kept tiles sharing a colour or shape with another, / 10 |
| 26 | ``kept_playable`` | kept tiles that fit somewhere on the table now / 6 |
| 27 | ``kept_live`` | unseen copies of the kept types / 18 |
"""

from __future__ import annotations

from itertools import chain

import numpy as np

from .engine.board import Board
from .engine.frontier import C_D, C_L, C_R, C_U, LEN_H, LEN_V, N_D, N_L, N_R, N_U
from .engine.hand import HAND_SIZE, distinct_exchanges, remove_tiles
from .engine.lines import ALL, COMPAT, ids_of
from .engine.placements import WIDTH, rows_of, rows_to_placements
from .engine.tiles import COPIES, NUM_COLORS, NUM_SHAPES, NUM_TILES
from .position import Position, chance_opponent_holds, rows_pay
from .rowgen import (
    NUM_CONTEXT,
    NUM_ROW_FEATURES,
    POINT_SCALE,
    ROW_FEATURES,
    empty_grid,
    list_exchanges,
    row_features,
)
from .spec import END_BONUS, MAX_LINE

GOES_OUT = ROW_FEATURES.index("goes_out")

__all__ = [
    "GOES_OUT", "NUM_ROW_FEATURES", "POINT_SCALE", "ROW_FEATURES", "MoveRows", "move_rows",
    "reference_move_rows",
]  # fmt: skip


class MoveRows:
    """The legal moves of a turn and their rows, in the engine's order: every placement
    (as ``Game.placements_with_points`` lists them), then every distinct exchange.

    ``placements`` (``((cell, tile_id), ...)`` each) and ``exchanges`` (tile ids each) are
    lists of tuples. The compiled rows hand them over as arrays instead
    (``placement_rows``: ``Board.placement_rows``' form; ``exchange_rows``:
    ``[size, ids...]``), and the tuples are made when first read: a turn plays one move."""

    def __init__(
        self,
        placements: list | None,
        exchanges: list | None,
        points: np.ndarray,  # float32, points scored now (end bonus included)
        features: np.ndarray,  # float32 (moves, NUM_ROW_FEATURES + extra columns)
        hand: list[int],  # the mover's tiles
        *,
        placement_rows: np.ndarray | None = None,
        exchange_rows: np.ndarray | None = None,
    ) -> None:
        if placements is None and placement_rows is None:
            raise ValueError("MoveRows needs the placements, as tuples or as rows")
        if exchanges is None and exchange_rows is None:
            raise ValueError("MoveRows needs the exchanges, as tuples or as rows")
        self._placements, self._placement_rows = placements, placement_rows
        self._exchanges, self._exchange_rows = exchanges, exchange_rows
        self.points, self.features, self.hand = points, features, hand

    def parts(self) -> dict:
        """The constructor's arguments, lazy forms kept: a subclass (the agents' rows with
        look-ahead columns) is made from them without building any tuple."""
        return {
            "placements": self._placements, "exchanges": self._exchanges,
            "points": self.points, "features": self.features, "hand": self.hand,
            "placement_rows": self._placement_rows, "exchange_rows": self._exchange_rows,
        }  # fmt: skip

    @property
    def placements(self) -> list:
        """``((cell, tile_id), ...)`` per placement: the first rows."""
        if self._placements is None:
            self._placements = [
                items for items, _ in rows_to_placements(self._placement_rows.tolist())
            ]
        return self._placements

    @property
    def exchanges(self) -> list:
        """The tile ids of each exchange: the rows after the placements."""
        if self._exchanges is None:
            self._exchanges = [tuple(row[1 : 1 + row[0]]) for row in self._exchange_rows.tolist()]
        return self._exchanges

    @property
    def num_placements(self) -> int:
        """How many of the rows are placements (the first ones)."""
        if self._placements is None:
            return len(self._placement_rows)
        return len(self._placements)

    def __len__(self) -> int:
        return len(self.points)

    def __repr__(self) -> str:
        n = self.num_placements
        return f"MoveRows({n} placements, {len(self) - n} exchanges)"

    def move(self, i: int) -> tuple[str, tuple]:
        """("place", items) or ("exchange", tile_ids) for row ``i``, made alone if the
        lists are not made yet."""
        n = self.num_placements
        if i < n:
            if self._placements is None:
                return "place", rows_to_placements([self._placement_rows[i].tolist()])[0][0]
            return "place", self._placements[i]
        if self._exchanges is None:
            row = self._exchange_rows[i - n].tolist()
            return "exchange", tuple(row[1 : 1 + row[0]])
        return "exchange", self._exchanges[i - n]

    def move_arrays(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Moves ``idx`` in bulk, for kernels: their tiles as placement rows
        (``Board.placement_rows``' form, the points column 0; an exchange's row places
        nothing) and the tile ids each takes from the hand (``HAND_SIZE`` columns, -1 past
        the last)."""
        n = self.num_placements
        placed, swapped = np.nonzero(idx < n)[0], np.nonzero(idx >= n)[0]
        rows = np.zeros((len(idx), WIDTH), np.int64)
        taken = np.full((len(idx), HAND_SIZE), -1, np.int64)
        slots = np.arange(HAND_SIZE)
        if len(placed):
            if self._placements is None:
                found = self._placement_rows[idx[placed]]
            else:
                found = rows_of([(self._placements[i], 0) for i in idx[placed].tolist()])
            rows[placed] = found
            rows[placed, 1] = 0
            ids = found[:, 4 : 4 + 3 * HAND_SIZE : 3]
            taken[placed] = np.where(slots < found[:, :1], ids, -1)
        if len(swapped):
            if self._exchanges is None:
                found = self._exchange_rows[idx[swapped] - n]
            else:
                found = np.full((len(swapped), HAND_SIZE + 1), -1, np.int64)
                for j, i in enumerate(idx[swapped].tolist()):
                    ids = self._exchanges[i - n]
                    found[j, 0] = len(ids)
                    found[j, 1 : 1 + len(ids)] = ids
            width = found.shape[1] - 1
            taken[swapped, :width] = np.where(slots[:width] < found[:, :1], found[:, 1:], -1)
        return rows, taken

    def kept(self, i: int) -> list[int]:
        """The tiles the mover keeps after move ``i``."""
        kind, what = self.move(i)
        used = what if kind == "exchange" else [t for _, t in what]
        return remove_tiles(self.hand, used)


def move_rows(pos: Position, extra: int = 0) -> MoveRows:
    """Every legal move of the position with its row; ``extra`` zero columns are appended
    for a reader's own features.

    Computed by the compiled kernel (``rowgen.py``) from the generator's rows; where the
    placements come only as tuples (numba missing, or a crafted table without a grid) by
    ``reference_move_rows``. The rows are the same, bit for bit."""
    if not rows_pay(pos.board):
        return reference_move_rows(pos, extra)
    board = pos.board
    grid, side, r0, c0 = board.code_grid if len(board) else _EMPTY
    placements = pos.placement_rows
    hand = np.array(sorted(pos.hand), np.int64)
    exchanges = np.zeros((2 ** len(hand), len(hand) + 1), np.int64)
    most = min(len(hand), pos.bag_size)
    n_exchanges = list_exchanges(hand, most, exchanges) if pos.can_exchange else 0
    unseen = pos.unseen()
    opp_held = _opponents_hold(pos)
    n = len(placements) + n_exchanges
    features = np.zeros((n, NUM_ROW_FEATURES + extra), np.float32)
    points = np.zeros(n, np.float32)
    row_features(
        grid, side, r0, c0, placements, hand, pos.bag_size, np.array(unseen, np.int64),
        opp_held, _playable_types(board), _context(pos, NUM_ROW_FEATURES + extra, opp_held),
        exchanges, n_exchanges, features, points,
    )  # fmt: skip
    return MoveRows(
        None, None, points, features, list(pos.hand),
        placement_rows=placements, exchange_rows=exchanges[:n_exchanges],
    )  # fmt: skip


_EMPTY = empty_grid()


def _opponents_hold(pos: Position) -> int:
    return sum(k for s, k in enumerate(pos.hand_sizes) if s != pos.seat)


def _context(pos: Position, width: int, opp_held: int) -> np.ndarray:
    """The position's columns (the same for every row), float64, the rest zero."""
    n_players = len(pos.scores)
    mine = pos.scores[pos.seat]
    others = [s for i, s in enumerate(pos.scores) if i != pos.seat]
    context = np.zeros(width, np.float64)
    context[:NUM_CONTEXT] = (
        pos.bag_size / NUM_TILES,
        float(pos.bag_size == 0),
        min(pos.bag_size, HAND_SIZE) / HAND_SIZE,
        (mine - sum(others) / len(others)) / 50.0,
        (mine - max(others)) / 50.0,
        opp_held / (HAND_SIZE * (n_players - 1)),
        float(n_players == 3),
        float(n_players == 4),
    )
    return context


def reference_move_rows(pos: Position, extra: int = 0) -> MoveRows:
    """``move_rows`` in plain Python, from the placement tuples and the board's frontier
    records: the reference the compiled rows are tested against (tests/env/test_rowgen.py),
    and the path for tables the kernel does not take."""
    n_players = len(pos.scores)
    unseen = pos.unseen()
    opp_held = sum(k for s, k in enumerate(pos.hand_sizes) if s != pos.seat)
    mine = pos.scores[pos.seat]
    others = [s for i, s in enumerate(pos.scores) if i != pos.seat]
    width = NUM_ROW_FEATURES + extra
    context = [0.0] * width
    context[0] = pos.bag_size / NUM_TILES
    context[1] = float(pos.bag_size == 0)
    context[2] = min(pos.bag_size, HAND_SIZE) / HAND_SIZE
    context[3] = (mine - sum(others) / len(others)) / 50.0
    context[4] = (mine - max(others)) / 50.0
    context[5] = opp_held / (HAND_SIZE * (n_players - 1))
    context[6] = float(n_players == 3)
    context[7] = float(n_players == 4)
    leave = _Leaves(unseen, _playable_types(pos.board), pos.hand)
    risk = _Risk(unseen, sum(unseen), opp_held)
    rows = []
    points = []
    items_list = [items for items, _ in pos.placements]
    for items, pts in pos.placements:
        used = (items[0][1],) if len(items) == 1 else tuple(sorted(t for _, t in items))
        kept_ids, kept_set, values = leave.after(used)
        row = list(context)
        out = not kept_ids and pos.bag_size == 0
        pts = pts + (END_BONUS if out else 0)
        row[8] = pts / POINT_SCALE
        row[10] = len(items) / HAND_SIZE
        row[11] = float(out)
        _line_features(row, pos.board, items, kept_set, risk)
        row[20:28] = values
        rows.append(row)
        points.append(pts)
    exchanges = distinct_exchanges(pos.hand, pos.bag_size) if pos.can_exchange else []
    for ids in exchanges:
        row = list(context)
        row[9] = 1.0
        row[20:28] = leave.after(ids)[2]
        rows.append(row)
        points.append(0)
    flat = chain.from_iterable(rows)
    features = np.fromiter(flat, np.float32, len(rows) * width).reshape(len(rows), width)
    points_ = np.array(points, dtype=np.float32)
    return MoveRows(items_list, exchanges, points_, features, list(pos.hand))


def _playable_types(board: Board) -> int:
    """Mask of the tile types that fit some cell of the table now (all of them on an empty
    table)."""
    if not len(board):
        return ALL
    mask = 0
    for fit in board.fit_masks.values():
        mask |= fit
    return mask


def _line_features(row: list, board: Board, items, kept: frozenset, risk: _Risk) -> None:
    """Lines through the placed tiles once placed: (length, compatible mask) each."""
    cells = board.tile_ids
    front = board.frontier
    lines = []
    if len(items) == 1:
        (p, t), = items  # fmt: skip
        info = front.get(p)
        if info is None:  # the first tile of the game
            return
        lines.append((info[LEN_H], info[C_L] & info[C_R] & COMPAT[t]))
        lines.append((info[LEN_V], info[C_U] & info[C_D] & COMPAT[t]))
    else:
        placed = dict(items)
        (r, c), _ = items[0]
        along_row = items[1][0][0] == r
        if along_row:
            lo, hi = min(q[1] for q in placed), max(q[1] for q in placed)
            span = [(r, k) for k in range(lo, hi + 1)]
            ends = (front.get((r, lo)), N_L, C_L), (front.get((r, hi)), N_R, C_R)
        else:
            lo, hi = min(q[0] for q in placed), max(q[0] for q in placed)
            span = [(k, c) for k in range(lo, hi + 1)]
            ends = (front.get((lo, c)), N_U, C_U), (front.get((hi, c)), N_D, C_D)
        length = len(span)
        compat = ALL
        for q in span:
            t = placed.get(q)
            compat &= COMPAT[t if t is not None else cells[q]]
        for info, n_at, c_at in ends:
            if info is not None:
                length += info[n_at]
                compat &= info[c_at]
        lines.append((length, compat))
        for q, t in items:
            info = front.get(q)
            if info is None:  # the opening: nothing across
                continue
            if along_row:
                lines.append((info[LEN_V], info[C_U] & info[C_D] & COMPAT[t]))
            else:
                lines.append((info[LEN_H], info[C_L] & info[C_R] & COMPAT[t]))
    for length, compat in lines:
        if length == MAX_LINE:
            row[12] += 1.0
        elif 2 <= length <= 4:
            row[11 + length] += 1.0  # lines_2 .. lines_4
        elif length == 5:
            for x in ids_of(compat):  # the one tile type that completes it
                p = risk.chance(x)
                own = x in kept
                if p > 0 or own:
                    row[16] += 1.0
                    row[17] += p
                if own:
                    row[18] += 1.0
                    row[19] += 1.0 - p


class _Risk:
    """P(the opponents hold a tile of this type), cached per type for one turn."""

    def __init__(self, unseen: list[int], unseen_total: int, opp_held: int) -> None:
        self.unseen, self.total, self.held = unseen, unseen_total, opp_held
        self.cache: dict[int, float] = {}

    def chance(self, t: int) -> float:
        p = self.cache.get(t)
        if p is None:
            p = self.cache[t] = chance_opponent_holds(self.unseen[t], self.total, self.held)
        return p


class _Leaves:
    """What the hand keeps after using some tiles, and its leave features, cached per used
    multiset: many moves use the same tiles."""

    def __init__(self, unseen: list[int], playable: int, hand: list[int]) -> None:
        self.unseen, self.playable, self.hand = unseen, playable, sorted(hand)
        self.cache: dict[tuple, tuple] = {}

    def after(self, used: tuple) -> tuple[tuple, frozenset, tuple]:
        """(kept tile ids sorted, kept types, the 8 leave features) once ``used`` (sorted)
        leaves the hand."""
        found = self.cache.get(used)
        if found is None:
            kept = list(self.hand)
            for t in used:
                kept.remove(t)
            found = self.cache[used] = (tuple(kept), frozenset(kept), self._describe(kept))
        return found

    def _describe(self, kept: list) -> tuple:
        if not kept:
            return (0.0,) * 8
        distinct = set(kept)
        colours = [0] * NUM_COLORS
        shapes = [0] * NUM_SHAPES
        for t in distinct:
            colours[t // NUM_SHAPES] += 1
            shapes[t % NUM_SHAPES] += 1
        # sum over groups of (size - 1), over the non-empty groups only
        synergy = 2 * len(distinct) - sum(1 for g in colours if g) - sum(1 for g in shapes if g)
        playable, unseen = self.playable, self.unseen
        return (
            len(kept) / HAND_SIZE,
            len(distinct) / HAND_SIZE,
            (len(kept) - len(distinct)) / HAND_SIZE,
            max(colours) / HAND_SIZE,
            max(shapes) / HAND_SIZE,
            synergy / 10.0,
            sum(playable >> t & 1 for t in kept) / HAND_SIZE,
            sum(unseen[t] for t in kept) / (COPIES * HAND_SIZE),
        )
