"""The tile mode (``action_mode="tiles"``, the default): one tile per sub-step.

| | |
|---|---|
| Action shape | ``Discrete(36*W*W + 37)``; W = ``window`` (default 39) |
| Action values | ``qwirkle_env.actions``: place type t at cell (r, c), exchange t, or end |
| Observation | ``{"observation": float32[13*W*W + 126], "action_mask": int8[36*W*W + 37]}`` |

**Turns.** A turn is several steps of the same agent: place tiles one at a time (or add
tiles to the exchange set), then take "end". The mask is exact: a placement step is legal
iff the tiles placed so far this turn plus the new one form a legal placement by
themselves, so every legal move can be built and nothing illegal can. The env never
commits a turn by itself: "end" is always an explicit step (the only legal one once a
turn can't grow). A player who can neither place nor exchange is skipped by the engine,
so the agent to move always has a legal action. The first tile of the game goes to the
window centre.

**Window.** The engine's table is unbounded; the env shows the W x W window centred on the
table's bounding box, re-centred at the start of each turn and fixed within it. Placements
reach at most 5 cells past the box. The default W = 39 held every legal move of the games
measured for it (docs/environment.md, "The window", says how many and how far).
``infos[agent]["outside_window"]`` counts the legal moves that fell outside the window in
this game; a smaller ``window`` trades them for speed, and if every legal move of the
player to move falls outside, the episode is truncated
(``truncations`` all True, the reason in ``infos[agent]["truncated"]``).

**Observation** (from the observing agent's seat), a flat float32 vector: 13 planes of the
window (colour, shape, placed this turn), then 126 features (hand, exchange set, unseen
tiles, bag, scores, hand sizes, seats, turn flags). The offsets are ``qwirkle_env.spec``'s
(``NUM_PLANES``, ``HAND`` .. ``FLAGS``), each written there once; ``split_observation``
turns it (or a batch) into planes ``(13, W, W)`` and features ``(126,)``. Agents not to move
get an all-zero mask.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from ..actions import ActionCodec, outside_window
from ..engine.lines import ids_of, mask_of
from ..observation import Observer, observation_high
from ..spec import DEFAULT_WINDOW, REACH
from .env import raw_env

__all__ = ["TileEnv"]


def _set(array: np.ndarray, index: list[int], value: int) -> None:
    """array[index] = value; element by element for a few entries, where numpy's fancy
    indexing costs more than the work."""
    if len(index) > 24:
        array[np.array(index, dtype=np.intp)] = value
    else:
        for i in index:
            array[i] = value


class _TypeOffsets(dict):
    """tile mask -> [t * W * W for each type t in it], filled on first use."""

    def __init__(self, cells: int) -> None:
        super().__init__()
        self.cells = cells

    def __missing__(self, types: int) -> list[int]:
        offsets = self[types] = [t * self.cells for t in ids_of(types)]
        return offsets


class TileEnv(raw_env, mode="tiles"):
    """``raw_env(action_mode="tiles")``: the turn built one tile at a time in a window."""

    moves_mode = False

    def _setup(self, window: int | None, max_moves: int | None) -> tuple[int, spaces.Space]:
        self.max_moves = 0  # rows of the move mode's table; none here
        self.codec = ActionCodec(self.window)
        self._mask_index: list[int] = []  # the entries mover_mask set last
        self._type_offsets = _TypeOffsets(self.codec.cells)
        self._front_inside = False  # the window holds every cell next to the table
        self._observer = Observer(self.window, self.num_players)
        observation = spaces.Box(0.0, observation_high(self.window), dtype=np.float32)
        return self.codec.num_actions, observation

    def check_action(self, action: object) -> int:
        return self.codec.check(action)

    # --- reset and step ---------------------------------------------------------------
    def _reset_counts(self) -> dict:
        self.outside_window = 0
        self._observer.reset()
        return {"outside_window": 0}

    def _play(self, action) -> None:
        agent = self.agent_selection
        a = self.codec.check(action)
        if not self.mover_mask()[a]:
            raise ValueError(
                f"illegal action {a} for {agent}: {self.codec.describe(a, self._origin)}: "
                f"{self.why_illegal(a)}"
            )
        turn = self.turn
        kind = self.codec.decode_checked(a)
        gained = 0
        if kind[0] == "place":
            _, t, r, c = kind
            turn.place((self._origin[0] + r, self._origin[1] + c), t, trusted=True)
            self._observer.place(r, c, t)
            self._observer.took(turn, t, exchanged=False)
            if self.reward_mode != "win":
                points = turn.points_so_far()
                gained, self._turn_points = points - self._turn_points, points
        elif kind[0] == "exchange":
            turn.add_exchange(kind[1])
            self._observer.took(turn, kind[1], exchanged=True)
        else:
            gained = turn.commit() - self._turn_points
        self._after_move(self.agent_name_mapping[agent], gained, kind[0] == "end")

    def _final_info(self) -> dict:
        return {"outside_window": self.outside_window}

    def _start_turn(self) -> None:
        w = self.window
        box = self.game.board.bounds()
        if box is None:
            centre = (0, 0)
        else:
            centre = ((box[0] + box[1]) // 2, (box[2] + box[3]) // 2)
        self._origin = (centre[0] - w // 2, centre[1] - w // 2)
        self._observer.new_turn(self.game, self._origin, box)
        self._front_inside = False
        if box is not None:
            r0, c0 = self._origin
            self._front_inside = (
                box[0] > r0 and box[2] > c0 and box[1] + 1 < r0 + w and box[3] + 1 < c0 + w
            )
            if (
                box[0] - REACH < r0
                or box[2] - REACH < c0
                or box[1] + REACH >= r0 + w
                or box[3] + REACH >= c0 + w
            ):
                self._count_outside()

    def _count_outside(self) -> None:
        w = self.window
        missed = outside_window(self.game.placements_with_points(), self._origin, w)
        if missed:
            self.outside_window += missed
            for a in self.agents:
                self.infos[a]["outside_window"] = self.outside_window
            if not self.mover_mask().any():
                self._truncate(
                    f"window {w} is too small: every legal move of {self.agent_selection} lies "
                    f"outside it; use a larger window (docs/environment.md, 'The window', says "
                    f"how the default {DEFAULT_WINDOW} was measured)"
                )

    # --- observation and mask ---------------------------------------------------------
    def _observation(self, seat: int, to_move: bool) -> np.ndarray:
        return self._observer.observation(self.game, self.turn, seat, to_move)

    @property
    def origin(self) -> tuple[int, int]:
        """The table cell shown at window cell (0, 0) this turn (fixed within a turn)."""
        return self._origin

    def _fill_mask(self) -> np.ndarray:
        """One array is kept and only the entries set last time are cleared, so a sub-step
        costs in proportion to its legal actions, not to the whole action space (36·W² + 37).
        """
        codec = self.codec
        w = self.window
        mask = self._mask_array
        _set(mask, self._mask_index, 0)
        index: list[int] = []
        game = self.game
        if not game.over and not any(self.truncations.values()):
            r0, c0 = self._origin
            offsets = self._type_offsets
            turn = self.turn
            if (
                self._front_inside
                and not turn.placed
                and not turn.exchange
                and game.opening_size is None
            ):
                # A turn's first tile after the opening: Turn.placement_options' scan of the
                # frontier, written out for speed (every frontier cell is in the window).
                hand = mask_of(turn.hand_left)
                shift = r0 * w + c0
                index = [
                    at + offset
                    for (r, c), fit in game.board.fit_masks.items()
                    if (types := fit & hand)
                    for at in (r * w + c - shift,)
                    for offset in offsets[types]
                ]
            else:
                for (r, c), types in turn.placement_options():
                    r -= r0
                    c -= c0
                    if 0 <= r < w and 0 <= c < w:
                        index.extend(map((r * w + c).__add__, offsets[types]))
            types = self.turn.exchange_options()
            if types:
                index.extend(map(codec.exchange_base.__add__, ids_of(types)))
            if self.turn.can_end():
                index.append(codec.end)
        self._mask_index = index
        _set(mask, index, 1)
        return mask

    def why_illegal(self, action: int) -> str:
        """The rule ``action`` breaks now, in words (for error messages and the human UI)."""
        kind = self.codec.decode(action)
        if kind[0] == "place":
            _, t, r, c = kind
            reason = self.turn.place_fault((self._origin[0] + r, self._origin[1] + c), t)
        elif kind[0] == "exchange":
            reason = self.turn.exchange_fault(kind[1])
        else:
            reason = self.turn.end_fault()
        return reason or "not legal at this point of the turn"

    def _view_fields(self) -> dict:
        return {"origin": self._origin, "window": self.window}
