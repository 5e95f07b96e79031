"""What each legal move leaves behind, as a row of numbers a small network can value.

The learned agent (``agents.value_agent``) judges whole moves, not sub-steps: the engine
lists the legal placements and exchanges (about 65 a turn), and each is described by its
*afterstate* from the mover's seat: the points it scores, the lines it leaves (a line of
five is a Qwirkle for whoever holds its sixth tile), the tiles kept in hand (the "leave"),
the bag and the scores. Those are invariant to the colour/shape naming and cheap: they are
read off the board's frontier records without copying the board.

The last columns, the look two moves ahead (``agents.look_ahead``), cost a board copy per
move, so they are filled only for the few moves the agent shortlists
(``Candidates.look_ahead``).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

import numpy as np

from qwirkle_env.engine.board import C_D, C_L, C_R, C_U, LEN_H, LEN_V, N_D, N_L, N_R, N_U, Board
from qwirkle_env.engine.game import END_BONUS
from qwirkle_env.engine.hand import HAND_SIZE, distinct_exchanges, remove_tiles
from qwirkle_env.engine.lines import ALL, COMPAT, MAX_LINE, ids_of
from qwirkle_env.engine.tiles import COPIES, NUM_SHAPES, NUM_TILES

from .heuristic import chance_opponent_holds
from .look_ahead import DEFAULT_LOOK_AHEAD, LOOK_AHEAD_FEATURES, LookAhead, TurnLookAhead
from .position import Position

# Points are divided by this before they reach the network, and its values are in the same
# unit: the agent maximises points/POINT_SCALE + value.
POINT_SCALE = 10.0

FEATURES = (
    # the position, the same for every move of a turn
    "bag_share", "bag_empty", "bag_low", "lead_mean", "lead_max", "opp_tiles",
    "three_players", "four_players",
    # the move
    "points", "exchange", "placed", "goes_out", "qwirkles",
    # the lines through the placed tiles, after the move
    "lines_2", "lines_3", "lines_4", "open_fives", "five_risk", "own_fives", "own_safe",
    # the leave: the tiles kept in hand
    "kept", "kept_distinct", "kept_duplicates", "kept_colour_group", "kept_shape_group",
    "kept_synergy", "kept_playable", "kept_live",
    # the look ahead, for a shortlist only (agents.look_ahead)
    *LOOK_AHEAD_FEATURES,
)  # fmt: skip
NUM_MOVE_FEATURES = len(FEATURES)
_GOES_OUT = FEATURES.index("goes_out")
_AHEAD = slice(FEATURES.index(LOOK_AHEAD_FEATURES[0]), NUM_MOVE_FEATURES)
# what the look's values are divided by: points by POINT_SCALE, the 0/1 flag by 1
_AHEAD_SCALE = np.array([1.0 if name.endswith("goes_out") else POINT_SCALE
                         for name in LOOK_AHEAD_FEATURES])  # fmt: skip


@dataclass
class Candidates:
    """The legal moves of a turn and their features, row i describing move i."""

    placements: list  # ((cell, tile_id), ...) per placement, first rows
    exchanges: list  # tile ids per exchange, the rows after the placements
    points: np.ndarray  # float32, points scored now (end bonus included)
    features: np.ndarray  # float32 (moves, NUM_MOVE_FEATURES)
    position: Position | None = None  # for the look ahead; None on an empty table

    def __len__(self) -> int:
        return len(self.points)

    def look_ahead(self, rows, rng: random.Random, how: LookAhead = DEFAULT_LOOK_AHEAD) -> None:
        """Fills the look-ahead features of these rows (a board copy each, so only for a
        shortlist); ``rng`` deals the hidden tiles."""
        if self.position is None:
            return
        ahead = TurnLookAhead(self.position, rng, how)
        n = len(self.placements)
        for i in rows:
            if i < n and self.features[i, _GOES_OUT]:
                continue  # the game is over
            items = self.placements[i] if i < n else ()
            self.features[i, _AHEAD] = np.divide(ahead.values(items, self.kept(i)), _AHEAD_SCALE)

    def kept(self, i: int) -> list[int]:
        """The tiles the mover keeps after move ``i``."""
        kind, what = self.move(i)
        used = what if kind == "exchange" else [t for _, t in what]
        return remove_tiles(self.position.hand if self.position else [], used)

    def move(self, i: int) -> tuple[str, tuple]:
        """("place", items) or ("exchange", tile_ids) for row ``i``."""
        n = len(self.placements)
        return ("place", self.placements[i]) if i < n else ("exchange", self.exchanges[i - n])


def candidates(pos: Position) -> Candidates:
    """Every legal move of the position with its feature row."""
    n_players = len(pos.scores)
    unseen = pos.unseen()
    unseen_total = sum(unseen)
    opp_held = sum(k for s, k in enumerate(pos.hand_sizes) if s != pos.seat)
    mine = pos.scores[pos.seat]
    others = [s for i, s in enumerate(pos.scores) if i != pos.seat]
    context = [0.0] * NUM_MOVE_FEATURES
    context[0] = pos.bag_size / NUM_TILES
    context[1] = float(pos.bag_size == 0)
    context[2] = min(pos.bag_size, HAND_SIZE) / HAND_SIZE
    context[3] = (mine - sum(others) / len(others)) / 50.0
    context[4] = (mine - max(others)) / 50.0
    context[5] = opp_held / (HAND_SIZE * (n_players - 1))
    context[6] = float(n_players == 3)
    context[7] = float(n_players == 4)
    playable = _playable_types(pos.board)
    leave = _Leaves(unseen, playable)
    risk = _Risk(unseen, unseen_total, opp_held)
    hand_count = Counter(pos.hand)
    rows = []
    points = []
    items_list = [items for items, _ in pos.placements]
    for items, pts in pos.placements:
        kept = hand_count.copy()
        for _, t in items:
            kept[t] -= 1
        kept_ids = tuple(sorted(kept.elements()))
        row = list(context)
        out = not kept_ids and pos.bag_size == 0
        pts = pts + (END_BONUS if out else 0)
        row[8] = pts / POINT_SCALE
        row[10] = len(items) / HAND_SIZE
        row[11] = float(out)
        _line_features(row, pos.board, items, kept, risk)
        leave.fill(row, kept_ids)
        rows.append(row)
        points.append(pts)
    exchanges = distinct_exchanges(pos.hand, pos.bag_size) if pos.can_exchange else []
    for ids in exchanges:
        kept = hand_count.copy()
        for t in ids:
            kept[t] -= 1
        row = list(context)
        row[9] = 1.0
        leave.fill(row, tuple(sorted(kept.elements())))
        rows.append(row)
        points.append(0)
    features = np.array(rows, dtype=np.float32).reshape(len(rows), NUM_MOVE_FEATURES)
    points_ = np.array(points, dtype=np.float32)
    return Candidates(items_list, exchanges, points_, features, pos if len(pos.board) else None)


def _playable_types(board: Board) -> int:
    """Mask of the tile types that fit some cell of the table now (all of them on an empty
    table)."""
    if not len(board):
        return ALL
    mask = 0
    for fit in board.fit_masks.values():
        mask |= fit
    return mask


def _line_features(row: list, board: Board, items, kept: Counter, risk: _Risk) -> None:
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
                own = kept[x] > 0
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
    """Leave features per kept multiset, cached: many moves keep the same tiles."""

    def __init__(self, unseen: list[int], playable: int) -> None:
        self.unseen, self.playable = unseen, playable
        self.cache: dict[tuple, tuple] = {}

    def fill(self, row: list, kept: tuple) -> None:
        values = self.cache.get(kept)
        if values is None:
            values = self.cache[kept] = self._describe(kept)
        row[20:28] = values

    def _describe(self, kept: tuple) -> tuple:
        if not kept:
            return (0.0,) * 8
        distinct = set(kept)
        colours = Counter(t // NUM_SHAPES for t in distinct)
        shapes = Counter(t % NUM_SHAPES for t in distinct)
        synergy = sum(g - 1 for g in colours.values()) + sum(g - 1 for g in shapes.values())
        return (
            len(kept) / HAND_SIZE,
            len(distinct) / HAND_SIZE,
            (len(kept) - len(distinct)) / HAND_SIZE,
            max(colours.values()) / HAND_SIZE,
            max(shapes.values()) / HAND_SIZE,
            synergy / 10.0,
            sum(1 for t in kept if self.playable >> t & 1) / HAND_SIZE,
            sum(self.unseen[t] for t in kept) / (COPIES * HAND_SIZE),
        )
