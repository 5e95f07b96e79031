"""The move rows in plain Python, from the placement tuples and the board's frontier
records: the reference the compiled rows (``kernels.py``) are tested against, bit for bit
(tests/env/test_rowgen.py), and the path for tables the kernel does not take.
"""

from __future__ import annotations

from itertools import chain

import numpy as np

from ..engine.board import Board
from ..engine.frontier import C_D, C_L, C_R, C_U, LEN_H, LEN_V, N_D, N_L, N_R, N_U
from ..engine.hand import HAND_SIZE, distinct_exchanges
from ..engine.lines import ALL, COMPAT, ids_of
from ..engine.tiles import COPIES, NUM_COLORS, NUM_SHAPES, NUM_TILES
from ..spec import END_BONUS, MAX_LINE
from .columns import (
    COL_EXCHANGE,
    COL_FIVE_RISK,
    COL_GOES_OUT,
    COL_KEPT,
    COL_LINES_2,
    COL_OPEN_FIVES,
    COL_OWN_FIVES,
    COL_OWN_SAFE,
    COL_PLACED,
    COL_POINTS,
    COL_QWIRKLES,
    NUM_CONTEXT,
    NUM_ROW_FEATURES,
    POINT_SCALE,
)
from .moverows import MoveRows
from .position import Position, chance_opponent_holds

__all__ = ["context_columns", "opponents_hold", "playable_types", "reference_move_rows"]


def opponents_hold(pos: Position) -> int:
    """Tiles in the opponents' hands."""
    return sum(k for s, k in enumerate(pos.hand_sizes) if s != pos.seat)


def context_columns(pos: Position, width: int, opp_held: int) -> np.ndarray:
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
    unseen = pos.unseen()
    opp_held = opponents_hold(pos)
    width = NUM_ROW_FEATURES + extra
    context = context_columns(pos, width, opp_held).tolist()
    leave = _Leaves(unseen, playable_types(pos.board), pos.hand)
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
        row[COL_POINTS] = pts / POINT_SCALE
        row[COL_PLACED] = len(items) / HAND_SIZE
        row[COL_GOES_OUT] = float(out)
        _line_features(row, pos.board, items, kept_set, risk)
        row[COL_KEPT:NUM_ROW_FEATURES] = values
        rows.append(row)
        points.append(pts)
    exchanges = distinct_exchanges(pos.hand, pos.bag_size) if pos.can_exchange else []
    for ids in exchanges:
        row = list(context)
        row[COL_EXCHANGE] = 1.0
        row[COL_KEPT:NUM_ROW_FEATURES] = leave.after(ids)[2]
        rows.append(row)
        points.append(0)
    flat = chain.from_iterable(rows)
    features = np.fromiter(flat, np.float32, len(rows) * width).reshape(len(rows), width)
    points_ = np.array(points, dtype=np.float32)
    return MoveRows(items_list, exchanges, points_, features, list(pos.hand))


def playable_types(board: Board) -> int:
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
            row[COL_QWIRKLES] += 1.0
        elif 2 <= length <= 4:
            row[COL_LINES_2 - 2 + length] += 1.0  # lines_2 .. lines_4
        elif length == 5:
            for x in ids_of(compat):  # the one tile type that completes it
                p = risk.chance(x)
                own = x in kept
                if p > 0 or own:
                    row[COL_OPEN_FIVES] += 1.0
                    row[COL_FIVE_RISK] += p
                if own:
                    row[COL_OWN_FIVES] += 1.0
                    row[COL_OWN_SAFE] += 1.0 - p


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
