"""The observation: board planes of the turn's window, and the public counts of one seat.

The planes change little between steps, so they are kept: a placed tile sets three
entries, and a new turn only shifts the window (the table is redrawn when the window
stops holding all of it). The mover's 126 features are kept through its turn and
updated per sub-step; anyone else's are rebuilt per call.
Layout: the table in ``qwirkle_env.aec``'s docstring and docs/environment.md.
"""

from __future__ import annotations

import numpy as np

from .engine.game import Game
from .engine.turn import Turn
from .spec import (
    BAG,
    COPIES,
    EXCHANGE,
    EXCHANGING,
    HAND_SIZE,
    HAND_SIZES,
    MAX_PLAYERS,
    MAY_END,
    NUM_FEATURES,
    NUM_PLANES,
    NUM_SHAPES,
    NUM_TILES,
    NUM_TYPES,
    OPENING,
    PLACED_PLANE,
    PLACING,
    SCORES,
    SEATS,
    SHAPE_PLANES,
    TO_MOVE,
    UNSEEN,
)

__all__ = [
    "NUM_FEATURES",
    "NUM_PLANES",
    "Observer",
    "observation_high",
    "observation_size",
    "split_observation",
]

MAX_SCORE = 1000.0  # the Box's bound for scores; no game comes near it


def observation_size(window: int) -> int:
    return NUM_PLANES * window * window + NUM_FEATURES


def split_observation(obs, window: int):
    """(planes, features): planes shaped (..., 13, W, W), features (..., 126)."""
    cut = NUM_PLANES * window * window
    planes = obs[..., :cut].reshape(*obs.shape[:-1], NUM_PLANES, window, window)
    return planes, obs[..., cut:]


def observation_high(window: int) -> np.ndarray:
    """Upper bounds of each entry, for the observation Box."""
    high = np.ones(observation_size(window), dtype=np.float32)
    base = NUM_PLANES * window * window
    high[base : base + BAG] = COPIES
    high[base + BAG] = NUM_TILES
    high[base + SCORES : base + SCORES + MAX_PLAYERS] = MAX_SCORE
    high[base + HAND_SIZES : base + HAND_SIZES + MAX_PLAYERS] = HAND_SIZE
    return high


class Observer:
    """Builds observations of one game for a window of side ``window``.

    The planes live in the front of one flat buffer laid out as the observation; an
    observation writes the features behind them and copies the buffer once.
    """

    def __init__(self, window: int, num_players: int) -> None:
        self.window = window
        self.num_players = num_players
        self._cut = NUM_PLANES * window * window
        self._flat = np.zeros(self._cut + NUM_FEATURES, dtype=np.float32)
        self._drawn = False  # the planes show the last turn's window
        self.origin: tuple[int, int] | None = None
        self.table_counts = [0] * NUM_TYPES  # copies of each type on the table
        self._unseen = np.full(NUM_TYPES, COPIES, dtype=np.float32)  # COPIES - table_counts
        self._tiles = 0  # tiles drawn on the planes
        self._covers = False  # the window holds the whole table
        self._acting: tuple | None = None  # (turn, seat, features) of the mover this turn

    @property
    def planes(self) -> np.ndarray | None:
        """The (13, W, W) planes of the current window (a view), None before a turn."""
        if not self._drawn:
            return None
        w = self.window
        return self._flat[: self._cut].reshape(NUM_PLANES, w, w)

    def reset(self) -> None:
        self._drawn = False

    def new_turn(self, game: Game, origin: tuple[int, int], box: tuple | None) -> None:
        """Planes for the new turn's window; shifts the last ones when it can."""
        w = self.window
        r0, c0 = origin
        cells = game.board.tile_ids
        planes = self._flat[: self._cut].reshape(NUM_PLANES, w, w)
        if self._drawn and self._covers and len(cells) == self._tiles:
            # The last turn's tiles are already drawn: only the window moved.
            dr, dc = r0 - self.origin[0], c0 - self.origin[1]
            planes[PLACED_PLANE] = 0.0
            if dr or dc:
                src_r = slice(max(dr, 0), w + min(dr, 0))
                dst_r = slice(max(-dr, 0), w - max(dr, 0))
                src_c = slice(max(dc, 0), w + min(dc, 0))
                dst_c = slice(max(-dc, 0), w - max(dc, 0))
                kept = planes[:PLACED_PLANE, src_r, src_c].copy()
                planes[:PLACED_PLANE] = 0.0
                planes[:PLACED_PLANE, dst_r, dst_c] = kept
        else:
            planes[...] = 0.0
            counts = [0] * NUM_TYPES
            if cells:
                ids = np.fromiter(cells.values(), dtype=np.int64, count=len(cells))
                rc = np.array(list(cells.keys()), dtype=np.int64)
                rows, cols = rc[:, 0] - r0, rc[:, 1] - c0
                inside = (rows >= 0) & (rows < w) & (cols >= 0) & (cols < w)
                rows, cols, kept = rows[inside], cols[inside], ids[inside]
                planes[kept // NUM_SHAPES, rows, cols] = 1.0
                planes[SHAPE_PLANES + kept % NUM_SHAPES, rows, cols] = 1.0
                for t in cells.values():
                    counts[t] += 1
            self.table_counts = counts
            self._unseen[:] = [COPIES - n for n in counts]
        self._drawn = True
        self.origin = origin
        self._tiles = len(cells)
        # Shifting is exact only while the window holds the whole table.
        self._covers = box is None or (
            box[0] >= r0 and box[2] >= c0 and box[1] < r0 + w and box[3] < c0 + w
        )

    def place(self, r: int, c: int, t: int) -> None:
        """A tile placed this turn at window cell (r, c)."""
        self.table_counts[t] += 1
        self._unseen[t] -= 1.0
        self._tiles += 1
        ww = self.window * self.window
        at = r * self.window + c
        flat = self._flat
        flat[t // NUM_SHAPES * ww + at] = 1.0
        flat[(SHAPE_PLANES + t % NUM_SHAPES) * ww + at] = 1.0
        flat[PLACED_PLANE * ww + at] = 1.0

    def observation(self, game: Game, turn: Turn, seat: int, to_move: bool) -> np.ndarray:
        flat = self._flat
        flat[self._cut :] = self._features_of(game, turn, seat, to_move)
        return flat.copy()

    def features(self, game: Game, turn: Turn, seat: int, to_move: bool) -> np.ndarray:
        """The 126 features; the mover's are kept through the turn and updated by ``took``."""
        return self._features_of(game, turn, seat, to_move).copy()

    def _features_of(self, game: Game, turn: Turn, seat: int, to_move: bool) -> np.ndarray:
        """``features`` without the copy: the mover's kept array itself."""
        cached = self._acting
        if to_move and cached is not None and cached[0] is turn and cached[1] == seat:
            f = cached[2]
            f[MAY_END] = turn.can_end()
            return f
        f = self._features(game, turn, seat, to_move)
        if to_move:
            self._acting = (turn, seat, f)
        return f

    def took(self, turn: Turn, tile: int, exchanged: bool) -> None:
        """The mover placed (or set aside) ``tile``: its unseen counts stay, the hand shrinks."""
        cached = self._acting
        if cached is None or cached[0] is not turn:
            return
        f = cached[2]
        f[tile] -= 1.0
        f[HAND_SIZES] -= 1.0  # the mover's own seat comes first
        if exchanged:
            f[EXCHANGE + tile] += 1.0
            f[EXCHANGING] = 1.0
        else:
            f[PLACING] = 1.0

    def _features(self, game: Game, turn: Turn, seat: int, to_move: bool) -> np.ndarray:
        """The features computed afresh (entries written one by one: cheaper here than
        building a list and converting it)."""
        acting = seat == game.current and not game.over
        hand = turn.hand_left if acting else game.hands[seat]
        f = np.zeros(NUM_FEATURES, dtype=np.float32)
        f[UNSEEN : UNSEEN + NUM_TYPES] = self._unseen
        for t in hand:
            f[t] += 1.0
            f[UNSEEN + t] -= 1.0
        if acting:
            for t in turn.exchange:
                f[EXCHANGE + t] += 1.0
                f[UNSEEN + t] -= 1.0
        f[BAG] = len(game.bag)
        n = self.num_players
        busy = len(turn.placed) + len(turn.exchange)
        current = game.current
        hands = game.hands
        scores = game.scores
        for k in range(n):
            other = (seat + k) % n
            f[SCORES + k] = scores[other]
            f[HAND_SIZES + k] = len(hands[other]) - (busy if other == current else 0)
            f[SEATS + k] = 1.0
        f[TO_MOVE] = to_move
        f[OPENING] = game.opening_size is not None
        if acting:
            f[PLACING] = bool(turn.placed)
            f[EXCHANGING] = bool(turn.exchange)
            f[MAY_END] = to_move and turn.can_end()
        return f
