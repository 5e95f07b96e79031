"""Thousands of Qwirkle games stepped one whole turn at a time: the move mode, batched.

``VectorMoves(n)`` is to ``raw_env(action_mode="moves")`` what ``VectorQwirkle`` is to the
tile mode: ``n`` games in preallocated arrays that compiled kernels update in place
(``turns.py`` plays the rows, ``table.py`` shows the tables), every seat of every
game stepped by the caller (self-play). Slot ``i`` reset with seed ``s`` plays exactly
the game ``raw_env(action_mode="moves").reset(seed=s)`` plays, and shows the same
observation and mask at every turn, bit for bit; its later games are those of the env's
``reset()`` without a seed (``tests/vector/test_moves.py``).

| returned | shape, dtype | content |
|---|---|---|
| observations | ``(N, 86 + K*28)`` float32 | ``rows.table``'s observation, from the seat to move |
| masks | ``(N, K)`` int8 | 1 for the rows that hold a legal move |
| rewards | ``(N, players)`` float64 | each seat's reward in this step (``raw_env.rewards``) |
| dones | ``(N,)`` bool | the game ended in this step |

``seats`` (also ``infos["seat"]``) is the seat to move in each game, the AEC env's
``agent_selection``. **Automatic reset** (the default): a game that ends is dealt its
slot's next game in the same step, so its observation is already the new game's first
turn; the ended game's scores are in ``infos["final_scores"]``. With ``autoreset=False``
a finished game shows the position of its last mover with no rows, takes -1 as its
action, and waits for ``reset_done()``. ``infos["moves_cut"]`` counts the legal moves
left out of each table (beyond K), as the env's ``infos``.
"""

from __future__ import annotations

import numpy as np

from ...engine.compiled import cell_hashes
from ...engine.game import Game
from ...engine.moves import Exchange, Move, Placement
from ...jit import COMPILED, warn_if_slow
from ...rows.table import DEFAULT_MAX_MOVES, check_moves_options, observation_size
from ...spec import REWARD_MODES, check_num_players
from ..batch import GameThreads, per_game_ints, reset_seeds
from ..mt19937 import seed_key, seed_state
from . import table, turns
from .load import load_game
from .state import BASE, GRID, allocate

__all__ = ["COMPILED", "VectorMoves"]


class VectorMoves:
    """``num_envs`` games of ``num_players`` players, one whole turn per step."""

    def __init__(
        self,
        num_envs: int,
        num_players: int = 2,
        reward: str = "win",
        strict_opening: bool = True,
        max_moves: int | None = None,
        autoreset: bool = True,
        copy: bool = True,
        threads: int | None = None,
    ) -> None:
        if not isinstance(num_envs, int) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        check_num_players(num_players)
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        check_moves_options("moves", max_moves)
        # a thread per 256 games, up to the cores (benchmarks/batch_throughput.py)
        self._threads = GameThreads(num_envs, threads, games_per_thread=256)
        warn_if_slow()
        self.num_envs = num_envs
        self.num_players = num_players
        self.reward_mode = reward
        self.strict_opening = bool(strict_opening)
        self.max_moves = DEFAULT_MAX_MOVES if max_moves is None else int(max_moves)
        self.observation_size = observation_size(self.max_moves)
        self.autoreset = bool(autoreset)
        self.copy = bool(copy)
        self.state = allocate(num_envs, num_players, reward, strict_opening, self.max_moves)
        self._hashes = cell_hashes()
        self._seeded = False

    # --- the API -------------------------------------------------------------------------
    def reset(self, seed: int | list[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """New games in every slot; returns (observations, masks). An int seeds slot i
        with ``seed + i``; a list gives each slot's seed; None continues each slot's own
        sequence (fresh random seeds the first time)."""
        n = self.num_envs
        self._reset_slots(np.arange(n), reset_seeds(seed, n, self._seeded))
        self._seeded = True
        return self._out(self.state.obs), self._out(self.state.mask)

    def step(self, rows, wait=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Every game's seat to move plays row ``rows[i]`` of its table (-1 for a finished
        game when autoreset is off). ``wait``, a bool per game, holds the games marked
        True where they are (their row must be -1): a caller that moves some seats itself
        (an opponent inside a learner's env) steps only the games where they are to move.
        Returns (observations, masks, rewards (N, players), dones, infos)."""
        self._require_reset("step")
        rows = self._check(rows, wait)
        s = self.state
        self._threads.run(turns.step_games, s, rows, self.autoreset, self._hashes)
        rewards = s.rewards[:, : self.num_players]
        return (
            self._out(s.obs),
            self._out(s.mask),
            rewards.copy() if self.copy else rewards,
            s.done.copy(),
            self._info(),
        )

    def reset_done(self) -> tuple[np.ndarray, np.ndarray]:
        """Deals the slots whose game is over their next game (for ``autoreset=False``);
        returns (observations, masks)."""
        self._require_reset("reset_done")
        which = np.flatnonzero(self.state.over)
        self._reset_slots(which, [None] * len(which))
        return self._out(self.state.obs), self._out(self.state.mask)

    def sample_rows(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniformly random legal row for every game (-1 for a finished one)."""
        self._require_reset("sample_rows")
        rng = np.random.default_rng() if rng is None else rng
        out = np.empty(self.num_envs, dtype=np.int64)
        turns.sample_rows(self.state.n_rows, rng.random(self.num_envs), out, 0, self.num_envs)
        return out

    def load(self, i: int, game: Game) -> tuple[np.ndarray, np.ndarray]:
        """Slot ``i`` continues the engine ``game`` from the start of its turn (bag order
        and RNG included), as ``raw_env(action_mode="moves").reset(options={"game":
        game})`` does; returns (observations, masks). On autoreset the slot's next game is
        its own seeded one."""
        self._require_reset("load")
        if not isinstance(i, int | np.integer) or not 0 <= i < self.num_envs:
            raise ValueError(f"slot must be an int in 0..{self.num_envs - 1}, got {i!r}")
        load_game(self.state, int(i), game)
        table.show_games(self.state, np.array([i], np.int64))
        return self._out(self.state.obs), self._out(self.state.mask)

    def move(self, i: int, row: int) -> Move:
        """The engine move behind row ``row`` of game i's table, as ``MoveTable.move``
        gives it: a ``Placement`` in table coordinates or an ``Exchange``."""
        self._require_reset("move")
        if not isinstance(i, int | np.integer) or not 0 <= i < self.num_envs:
            raise ValueError(f"game must be an int in 0..{self.num_envs - 1}, got {i!r}")
        shown = int(self.state.n_rows[i])
        if not isinstance(row, int | np.integer) or not 0 <= row < shown:
            raise ValueError(f"game {i} has rows 0..{shown - 1}, got {row!r}")
        m = self.state.moves[i, row].tolist()
        if m[0] < 0:
            return Exchange.of_ids(m[3 : 3 - 2 * m[0] : 2])
        cells = [divmod(p, GRID) for p in m[2 : 2 + 2 * m[0] : 2]]
        tiles = m[3 : 3 + 2 * m[0] : 2]
        return Placement.of_ids(
            ((r - BASE, c - BASE), t) for (r, c), t in zip(cells, tiles, strict=True)
        )

    @property
    def seats(self) -> np.ndarray:
        """The seat to move in each game (the last mover's in a finished one)."""
        self._require_reset("seats")
        return self.state.current.copy()

    def close(self) -> None:
        self._threads.close()

    # --- internals -----------------------------------------------------------------------
    def _out(self, array: np.ndarray) -> np.ndarray:
        return array.copy() if self.copy else array

    def _info(self) -> dict:
        s = self.state
        p = self.num_players
        return {
            "seat": s.current.copy(),
            "final_scores": s.final_scores[:, :p].copy(),
            "moves_cut": s.cut.copy(),
        }

    def _require_reset(self, what: str) -> None:
        if not self._seeded:
            raise RuntimeError(f"call reset() before {what}(): there are no games yet")

    def _reset_slots(self, slots: np.ndarray, seeds: list) -> None:
        s = self.state
        for i, x in zip(slots, seeds, strict=True):
            if x is not None:
                seed_state(s.seeder, s.seeder_pos, int(i), seed_key(x))
        turns.reset_games(s, slots.astype(np.int64))

    def _check(self, rows, wait=None) -> np.ndarray:
        arr = per_game_ints(rows, self.num_envs, "rows")
        s = self.state
        live = ~s.over
        if wait is not None:
            wait = np.asarray(wait)
            if wait.shape != (self.num_envs,) or wait.dtype != bool:
                raise ValueError(
                    f"wait must be a bool array of shape ({self.num_envs},), got "
                    f"{wait.dtype} {wait.shape}"
                )
            held = np.flatnonzero(wait & (arr != -1))
            if len(held):
                i = int(held[0])
                raise ValueError(f"game {i} waits this step, so its row must be -1, got {arr[i]}")
            live = live & ~wait
        shown = s.n_rows
        bad = np.flatnonzero(live & ((arr < 0) | (arr >= shown)) | (~live & (arr != -1)))
        if len(bad):
            i = int(bad[0])
            a = int(arr[i])
            if not live[i]:
                raise ValueError(
                    f"row {a} for game {i}: this game is over and autoreset is off, so its "
                    "row must be -1 (reset_done() deals the next game)"
                )
            if not 0 <= a < self.max_moves:
                why = f"out of range: rows are 0..{self.max_moves - 1}"
            else:
                why = "masked"
            raise ValueError(
                f"row {a} for game {i} (player_{int(s.current[i])}) is {why}; this game has "
                f"{int(shown[i])} legal moves, in rows 0..{int(shown[i]) - 1}"
            )
        return arr
