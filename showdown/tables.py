"""One game at the showdown table: people and agents through the same AEC env as the harness.

A :class:`Table` owns a ``raw_env`` and one agent per non-human seat. People act through
:meth:`Table.act` with the env's own action encoding; the env's mask decides legality and
its ValueError says why an action is refused. Agent turns run in a worker thread so that a
slow agent (a search with a large budget) never blocks the web server: the page polls
:meth:`Table.state` and shows who is thinking and for how long. :meth:`Table.close` cancels
the agents, so a dropped game's thread ends at the agent's next check. A game stops at
``MAX_MOVES`` moves or ``MAX_EXCHANGE_RUN`` exchanges in a row (a blocked table would
otherwise let exchanges go on for ever), so a game's size is bounded.
"""

from __future__ import annotations

import copy
import functools
import json
import random
import threading
import time
from typing import Any

import numpy as np

from agents.analysis import ANALYSERS, move_words, tile_words
from agents.base import Agent, Cancelled
from agents.registry import make_agent
from qwirkle_env import raw_env
from qwirkle_env.engine.moves import Exchange
from qwirkle_env.engine.tiles import NUM_TYPES
from qwirkle_env.render import board_svg, hand_svg
from qwirkle_env.spec import MAX_TURNS

HUMAN = "human"
CELL_PX = 36
MAX_MOVES = MAX_TURNS  # the harness's safety net too
MAX_EXCHANGE_RUN = 100  # exchanges in a row
REPLAY_SECONDS = 60  # a harness game played again for a replay must end within this
HINT_AGENT = ANALYSERS[0]  # whose best move a hint shows


class Refused(Exception):
    """A request the table turns down; ``status`` is the HTTP code the page gets."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def tile_info(t: int) -> dict[str, Any]:
    """A tile as the page shows it (a fresh dict: callers add to it)."""
    return dict(_tile_info(int(t)))


@functools.cache
def _tile_info(t: int) -> dict[str, Any]:
    return {"id": t, "name": tile_words(t), "svg": hand_svg([t], cell_px=CELL_PX)}


def move_text(move: Any) -> str:
    """A move as the log says it, the shapes named as the rules name them."""
    return move_words(move)


def _short_name(spec: str) -> str:
    """A seat's label: a checkpoint by its file name, not its whole path."""
    if spec == HUMAN:
        return "you"
    if spec.lower().startswith("ckpt:"):
        return "ckpt:" + spec[5:].replace("\\", "/").rsplit("/", 1)[-1]
    return spec


class Table:
    """A game in progress; ``seats`` holds ``"human"`` or an agent spec per seat.

    Every public method takes the table's lock, so the web server's threads and the agent
    worker never see a half-applied step.
    """

    SIZE = 2 * 2**20  # bytes a table counts for in the server's store (measured: well under)

    def __init__(
        self,
        seats: list[str],
        seed: int | None = None,
        agents: dict[int, Agent] | None = None,
        agent_seeds: list[int] | None = None,
    ) -> None:
        n = len(seats)
        if not 2 <= n <= 4:
            raise Refused(f"a game has 2 to 4 seats, got {n}")
        self.seats = list(seats)
        self.seed = random.SystemRandom().randrange(2**31) if seed is None else seed
        self.env = raw_env(num_players=n)
        self.env.reset(seed=self.seed)
        built = dict(agents or {})
        seeds = agent_seeds or [
            random.Random(f"{self.seed}:{s}").randrange(2**31) for s in range(n)
        ]
        for seat, spec in enumerate(seats):
            if spec == HUMAN or seat in built:
                continue
            try:
                built[seat] = make_agent(spec)
            except ValueError as err:
                raise Refused(str(err)) from None
        for seat, agent in built.items():
            agent.reset(seat, n, seeds[seat])
        self.agents = built
        self.lock = threading.RLock()
        self._worker: threading.Thread | None = None
        self._thinking: dict[str, Any] | None = None
        self.error: str | None = None  # why an agent failed: the game waits for a retry
        self.closed = False
        self._turn_start: raw_env | None = None  # snapshot for undo, taken at a person's turn
        self._turn_actions: list[int] = []
        self.version = 0  # bumped on every change, so the page redraws only when needed
        self.hints: list[int] = []  # the moves (by number) at which a person asked for a hint
        self._hint: dict[str, Any] | None = None  # this turn's hint
        self._hinter: Agent | None = None
        self.analyses: dict[str, str] = {}  # analyser -> the store's key of its analysis

    # --- what the page may ask ----------------------------------------------------------
    @property
    def over(self) -> bool:
        return (
            self.env.game.over or any(self.env.truncations.values()) or self.stopped() is not None
        )

    def stopped(self) -> str | None:
        """Why the table stopped a game the rules would let go on (None: it did not)."""
        history = self.env.game.history
        if len(history) >= MAX_MOVES:
            return f"the table's limit of {MAX_MOVES} moves is reached"
        tail = history[-MAX_EXCHANGE_RUN:]
        if len(tail) == MAX_EXCHANGE_RUN and all(isinstance(m, Exchange) for _, m, _ in tail):
            return f"{MAX_EXCHANGE_RUN} exchanges in a row: the table is blocked"
        return None

    @property
    def to_move(self) -> int:
        return self.env.agent_name_mapping[self.env.agent_selection]

    def human_to_move(self) -> bool:
        return not self.over and self.seats[self.to_move] == HUMAN

    def legal_cells(self, tile: int) -> list[tuple[int, int]]:
        """Table cells where the env's mask lets the player to move put a tile of type ``tile``."""
        if not 0 <= tile < NUM_TYPES:
            raise Refused(f"tile type {tile} is not one of 0..{NUM_TYPES - 1}")
        if not self.human_to_move():
            return []
        env = self.env
        cells = env.codec.cells
        mask = env.observe(env.agent_selection)["action_mask"]
        r0, c0 = env.origin
        return [(r0 + int(i) // env.window, c0 + int(i) % env.window)
                for i in np.flatnonzero(mask[tile * cells : (tile + 1) * cells])]  # fmt: skip

    def state(self, tile: int | None = None, all_hands: bool = False) -> dict[str, Any]:
        """Everything the page shows; ``tile`` marks where that tile type may go."""
        with self.lock:
            env, game = self.env, self.env.game
            board, placed = env.board_now()
            targets = self.legal_cells(tile) if tile is not None else []
            # The tiles' box and one ring: every legal cell lies inside, so choosing a tile
            # marks cells without moving the grid.
            cells = [cell for cell, _ in board] or [(0, 0)]
            r0, c0 = min(r for r, _ in cells) - 1, min(c for _, c in cells) - 1
            rows = max(r for r, _ in cells) + 2 - r0
            cols = max(c for _, c in cells) + 2 - c0
            window = (r0, c0, rows, cols)
            last = []
            if not placed and game.history and not isinstance(game.history[-1][1], Exchange):
                last = [cell for cell, _ in game.history[-1][1].tiles]
            human = self.human_to_move()
            if human and self._hint is not None and not placed:
                last = [tuple(cell) for cell in self._hint["cells"]]  # ring the hint's cells
            out: dict[str, Any] = {
                "version": self.version,
                "seed": self.seed,
                "seats": [
                    {"name": _short_name(s), "spec": s, "human": s == HUMAN} for s in self.seats
                ],
                "scores": list(game.scores),
                "hand_sizes": [len(h) for h in game.hands],
                "bag": game.bag_size,
                "to_move": None if self.over else self.to_move,
                "over": self.over,
                "winners": game.winners() if self.over else [],
                "truncated": next(iter(env.infos.values()), {}).get("truncated") or self.stopped(),
                "thinking": self._thinking_now(),
                "error": self.error,
                "board": board_svg(
                    board, CELL_PX, highlight=placed or last, window=window, targets=targets
                ),
                "tiles_on_table": len(board),
                "log": [
                    {"seat": seat, "text": move_text(move), "points": points}
                    for seat, move, points in game.history
                ],
                "human_turn": human,
                "hints": list(self.hints),
            }
            if human:
                out["turn"] = self._turn_state()
                out["hint"] = self._hint
            if all_hands or self.over:
                out["hands"] = [[tile_info(t) for t in h] for h in game.hands]
            else:
                seat = self.seats.index(HUMAN) if HUMAN in self.seats else None
                out["hands"] = [
                    [tile_info(t) for t in game.hands[s]] if s == seat else None
                    for s in range(game.num_players)
                ]
            if self.over:
                # As text: a seed is a 63-bit int, more than a JavaScript number holds.
                names = [_short_name(s) for s in self.seats]
                out["record"] = json.dumps({**game.record(), "names": names, "hints": self.hints})
            return out

    def _turn_state(self) -> dict[str, Any]:
        env = self.env
        turn = env.turn
        mask = env.observe(env.agent_selection)["action_mask"]
        cells = env.codec.cells
        left = list(turn.hand_left)
        return {
            "hand": [
                {
                    **tile_info(t),
                    "placeable": bool(mask[t * cells : (t + 1) * cells].any()),
                    "exchangeable": bool(mask[env.codec.exchange(t)]),
                }
                for t in left
            ],
            "placed": len(turn.placed),
            "exchange": [tile_info(t) for t in turn.exchange],
            "can_end": bool(mask[env.codec.end]),
            "can_undo": bool(self._turn_actions),
            "opening_size": env.game.opening_size,
        }

    def _thinking_now(self) -> dict[str, Any] | None:
        if self._thinking is None:
            return None
        thinking = dict(self._thinking)
        clock, since = thinking.pop("clock", None), thinking.pop("cpu_since", 0.0)
        try:
            cpu = time.clock_gettime(clock) - since if clock is not None else 0.0
        except OSError:  # the worker has just ended
            cpu = 0.0
        return {
            **thinking,
            "elapsed": round(time.monotonic() - thinking["since"], 1),
            "cpu": round(cpu, 1),
        }

    # --- a person's actions -------------------------------------------------------------
    def act(self, kind: str, tile: int | None = None, cell: Any = None) -> None:
        """place / exchange / end / undo for the person to move; Refused says why not."""
        with self.lock:
            if self.over:
                raise Refused("the game is over", 409)
            if self._thinking is not None:
                raise Refused(f"wait: {self.seats[self.to_move]} is still moving", 409)
            if self.closed:
                raise Refused("this game was closed", 409)
            if not self.human_to_move():
                raise Refused(
                    f"not your turn: player {self.to_move} ({self.seats[self.to_move]}) moves",
                    409,
                )
            if kind == "undo":
                self._undo()
                return
            action = self._encode(kind, tile, cell)
            if self._turn_start is None:
                self._turn_start = copy.deepcopy(self.env)
            try:
                self.env.step(action)
            except ValueError as err:
                raise Refused(str(err)) from None
            self._turn_actions.append(action)
            self.version += 1
            if kind == "end":
                self._turn_start, self._turn_actions, self._hint = None, [], None
                self.run_agents()

    def hint(self) -> dict[str, Any]:
        """The analysing agent's best move for the person to move, from the start of their
        turn (``HINT_AGENT``); the game notes the move number in ``hints`` (and its record)."""
        with self.lock:
            if self.closed or self.over or not self.human_to_move() or self._thinking:
                raise Refused("a hint is for your own turn in a game in progress", 409)
            if all(s == HUMAN for s in self.seats):
                raise Refused("hints are for a game against an agent", 409)
            env = self._turn_start or self.env
            view, game = env.player_view(), env.game
            if self._hinter is None:
                self._hinter = make_agent(HINT_AGENT)
            self._hinter.reset(view.seat, game.num_players, self.seed + len(game.history))
            move = self._hinter.choose(view)
            points = game.clone().apply(move)
            if len(game.history) not in self.hints:
                self.hints.append(len(game.history))
            cells = [] if isinstance(move, Exchange) else [list(c) for c, _ in move.tiles]
            self._hint = {"by": HINT_AGENT, "text": move_words(move), "points": points,
                          "cells": cells, **move.to_json()}  # fmt: skip
            self.version += 1
            return self._hint

    def _encode(self, kind: str, tile: Any, cell: Any) -> int:
        codec = self.env.codec
        if kind == "end":
            return codec.end
        if not isinstance(tile, int) or isinstance(tile, bool) or not 0 <= tile < NUM_TYPES:
            raise Refused(f"'tile' must be a tile type 0..{NUM_TYPES - 1}, got {tile!r}")
        if kind == "exchange":
            return codec.exchange(tile)
        if kind != "place":
            raise Refused(f"unknown action {kind!r}: use place, exchange, end or undo")
        if (
            not isinstance(cell, list)
            or len(cell) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in cell)
        ):
            raise Refused(f"'cell' must be a table cell [row, col], got {cell!r}")
        r0, c0 = self.env.origin
        r, c = cell[0] - r0, cell[1] - c0
        if not (0 <= r < codec.window and 0 <= c < codec.window):
            raise Refused(f"table cell {tuple(cell)} is outside the playable window")
        return codec.place(tile, r, c)

    def _undo(self) -> None:
        if not self._turn_actions:
            raise Refused("nothing to undo: no tile placed or set aside this turn")
        keep = self._turn_actions[:-1]
        self.env = copy.deepcopy(self._turn_start)
        for action in keep:
            self.env.step(action)
        self._turn_actions = keep
        self.version += 1

    # --- agents -------------------------------------------------------------------------
    def close(self) -> None:
        """Cancels every agent for good: the worker stops at the agent's next check."""
        self.closed = True
        for agent in self.agents.values():
            cancel = getattr(agent, "cancel", None)
            if cancel is not None:
                cancel()

    def retry(self, turns: int | None = None) -> bool:
        """Clears an agent's error and starts the worker again (``run_agents``)."""
        with self.lock:
            self.error = None
            self.version += 1
            return self.run_agents(turns)

    def run_agents(self, turns: int | None = None) -> bool:
        """Starts the worker on the agents' turns (at most ``turns`` of them; None: until a
        person is to move or the game ends). False if it was already running or no agent
        is to move."""
        with self.lock:
            if self._worker is not None and self._worker.is_alive():
                return False
            if self.closed or self.error or self.over or self.seats[self.to_move] == HUMAN:
                return False
            self._worker = threading.Thread(target=self._agent_turns, args=(turns,), daemon=True)
            self._thinking = self._think(self.to_move)
            self._worker.start()
            return True

    def _think(self, seat: int, worker: bool = False) -> dict[str, Any]:
        """Who thinks since when, and for how long a searcher may (its CPU seconds a move:
        the budget, or the cap with a fixed ``sims``; None for agents without one). Called
        in the worker (``worker``), it also notes the worker thread's CPU clock, so the
        page can show the CPU time spent against that budget."""
        agent = self.agents.get(seat)
        limit = getattr(agent, "cpu_limit", None)
        out = {"seat": seat, "since": time.monotonic(), "budget": limit() if limit else None}
        if worker and hasattr(time, "pthread_getcpuclockid"):
            clock = time.pthread_getcpuclockid(threading.get_ident())
            out.update(clock=clock, cpu_since=time.clock_gettime(clock))
        return out

    def busy(self) -> bool:
        return self._worker is not None and self._worker.is_alive()

    def wait(self, timeout: float | None = None) -> None:
        """Blocks until the worker has finished (for tests and scripts)."""
        if self._worker is not None:
            self._worker.join(timeout)

    def _agent_turns(self, turns: int | None) -> None:
        done = 0
        error = None
        try:
            while turns is None or done < turns:
                with self.lock:
                    if self.closed or self.over or self.seats[self.to_move] == HUMAN:
                        break
                    seat = self.to_move
                    self._thinking = self._think(seat, worker=True)
                    view = self.env.player_view()
                # The agent thinks without the lock: the page can poll meanwhile.
                agent = self.agents[seat]
                actions = [agent.act(view)]
                with self.lock:
                    self.env.step(actions[0])
                    while actions[-1] != self.env.codec.end:
                        actions.append(agent.act(self.env.player_view()))
                        self.env.step(actions[-1])
                    # Nobody thinks once the move is in: a state read before the next
                    # round of this loop must not say "thinking" on a person's turn (the
                    # page stops polling on a person's turn and would wait for good).
                    self._thinking = None
                    self.version += 1
                done += 1
        except Cancelled:
            error = "the game was closed"
        except Exception as err:  # shown on the page, with a retry; the game waits
            error = f"agent error: {type(err).__name__}: {err}"[:500]
        finally:
            # The error and the end of thinking change together, under the lock: a state
            # read between them said both "thinking" and the error, and the page, which
            # stops polling at an error, went on showing "thinking".
            with self.lock:
                if error is not None:
                    self.error = error
                self._thinking = None
                self.version += 1
