"""The move mode (``action_mode="moves"``): one step is one whole turn, a row of a table.

| | |
|---|---|
| Action shape | ``Discrete(K)``, K = ``max_moves`` (default 256) |
| Action values | a row of this turn's table (``qwirkle_env.rows.table``: its order and cut) |
| Observation | ``{"observation": float32[86 + K*C], "action_mask": int8[K]}`` |
| Row columns | C = 28, or 35 with ``look_ahead`` (``qwirkle_env.rows.columns``) |

The table lists the legal moves with a feature row each (``qwirkle_env.rows``): the
formulation RL libraries learn strong play on. ``candidate_moves(agent)`` gives the engine
moves behind the rows, and ``step_move(move)`` plays any legal engine move (a scripted
opponent's, or one left out of the K rows). ``infos[agent]["moves_cut"]`` counts the legal
moves this turn's table left out, ``"moves_cut_total"`` those of the whole game.

**Observation**: the position (offsets ``qwirkle_env.spec.POS_*``), then the K rows
(columns ``qwirkle_env.rows.columns``), padding and the rows of an agent not to move zero.

**Look ahead** (``look_ahead=N``, default 0): the first N rows, the highest-scoring
placements, are looked at two moves ahead (the opponent's best reply, our best next move)
and each row gets the look's seven columns (``qwirkle_env.rows.columns``): what the
learned agents read beside the 28, for any library. It costs a few move generations per
row looked at; the deals of hidden tiles come from the env's seed.
"""

from __future__ import annotations

import random

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.env import AgentID

from ..engine.moves import Exchange, Move, Placement
from ..rows.position import Position
from ..rows.table import (
    DEFAULT_MAX_MOVES,
    HIGH,
    LOW,
    MoveTable,
    move_table,
    observation,
    observation_size,
)
from .env import raw_env

__all__ = ["MoveEnv"]


class MoveEnv(raw_env, mode="moves"):
    """``raw_env(action_mode="moves")``: each step plays a whole move, a row of the table."""

    moves_mode = True

    def _check_window(self, window: int | None) -> None:
        if window is not None:
            raise ValueError('window applies to action_mode="tiles" only: the move mode has none')

    def _setup(self, window: int | None, max_moves: int | None) -> tuple[int, spaces.Space]:
        self.max_moves = DEFAULT_MAX_MOVES if max_moves is None else int(max_moves)
        self._table: MoveTable | None = None  # this turn's rows, built on first use
        size = observation_size(self.max_moves, self.look_ahead)
        box = spaces.Box(LOW, HIGH, (size,), dtype=np.float32)
        return self.max_moves, box

    def check_action(self, action: object) -> int:
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise ValueError(f"an action is a row index, an int in 0..{self.max_moves - 1}")
        if not 0 <= action < self.max_moves:
            held = ""
            if self.game is not None and self.mover_mask().any():
                held = f", and {self.agent_selection} has moves in rows 0..{len(self._table) - 1}"
            raise ValueError(
                f"action {action} is out of range: rows are 0..{self.max_moves - 1}{held}"
            )
        return int(action)

    # --- reset and step ---------------------------------------------------------------
    def _reset_counts(self) -> dict:
        self.moves_cut = 0
        # the look ahead's deals of hidden tiles, from the env's seed
        self._look_rng = random.Random(self._seeder.randrange(2**63)) if self.look_ahead else None
        return {"moves_cut": 0, "moves_cut_total": 0}

    def _play(self, action) -> None:
        agent = self.agent_selection
        action = self.check_action(action)
        table = self._table_now()
        n = len(table)
        if action >= n:
            raise ValueError(
                f"row {action} is masked: {agent} has {n} legal moves this turn, in rows 0..{n - 1}"
            )
        seat = self.game.current
        gained = self.game.apply(table.move(action), trusted=True)
        self._after_move(seat, gained)

    def candidate_moves(self, agent: AgentID | None = None) -> list[Move]:
        """The engine moves behind the rows of ``agent``'s table (default: the agent to
        move), in row order; empty for an agent not to move."""
        self._require_reset("candidate_moves")
        agent = self.agent_selection if agent is None else agent
        if agent not in self.agent_name_mapping:
            raise ValueError(f"unknown agent {agent!r}; agents: {self.possible_agents}")
        if agent != self.agent_selection or not self.mover_mask().any():
            return []
        return self._table_now().moves

    def step_move(self, move: Move) -> None:
        """Plays a whole engine move (``Placement`` or ``Exchange``) for the agent to move,
        whether or not it is among the K rows; IllegalMove if the rules forbid it. Scripted
        opponents play this way."""
        self._require_reset("step_move")
        if not self.agents or self.game.over or any(self.truncations.values()):
            raise RuntimeError("the game is over: call reset() for a new game")
        if not isinstance(move, Placement | Exchange):
            raise TypeError(f"a move is a Placement or an Exchange, got {move!r}")
        seat = self.game.current
        gained = self.game.apply(move)
        self._after_move(seat, gained)

    def move_table(self) -> MoveTable:
        """The rows of this turn (the moves, their rows and points, the count cut)."""
        self._require_reset("move_table")
        return self._table_now()

    def _table_now(self) -> MoveTable:
        """This turn's rows, built on first use; counts the legal moves they leave out."""
        if self._table is None:
            pos = Position.of_game(self.game)
            self._table = move_table(pos, self.max_moves, self.look_ahead, self._look_rng)
            self.moves_cut += self._table.cut
            self.infos[self.agent_selection]["moves_cut"] = self._table.cut
            for a in self.agents:
                self.infos[a]["moves_cut_total"] = self.moves_cut
        return self._table

    def _final_info(self) -> dict:
        return {"moves_cut": 0, "moves_cut_total": self.moves_cut}

    def _start_turn(self) -> None:
        self._table = None  # built when first asked for: step_move needs none
        for a in self.agents:
            self.infos[a]["moves_cut"] = 0

    # --- observation and mask ---------------------------------------------------------
    def _observation(self, seat: int, to_move: bool) -> np.ndarray:
        if to_move:
            table = self._table_now()
            return observation(table.position, table, self.max_moves, self.look_ahead)
        pos = Position.of_game(self.game, seat)
        return observation(pos, None, self.max_moves, self.look_ahead)

    def _fill_mask(self) -> np.ndarray:
        mask = self._mask_array
        mask[:] = 0
        if not self.game.over and not any(self.truncations.values()):
            mask[: len(self._table_now())] = 1
        return mask

    def _view_fields(self) -> dict:
        return {}
