"""Thousands of Qwirkle games stepped at once: the batched simulator.

``VectorQwirkle(n)`` holds ``n`` games and steps them together with one call, in the
style of a gymnasium ``VectorEnv`` (``reset`` / ``step`` on numpy arrays, automatic reset)
rather than Pgx's functional ``step(state, action)``: the state lives in preallocated
arrays that compiled kernels update in place, because copying a state per step (a
functional API without JAX) would cost more than the step. Rules, action encoding and
observation are the AEC env's: slot ``i`` reset with seed ``s`` plays exactly the game
``raw_env().reset(seed=s)`` plays, and its later games are those of ``reset()`` without a
seed (checked step by step in ``tests/vector/test_simulator.py``).

Observations and masks are compact (``qwirkle_env.vector.tiles.compact``):

| key | shape, dtype | content |
|---|---|---|
| ``board`` | ``(N, W, W)`` uint8 | cell codes: 0 empty, 1 + t tile t, 37 + t placed this turn |
| ``features`` | ``(N, 126)`` float32 | the env's 126 features, from the seat to move |
| ``action_mask`` | ``(N, W*W + 1)`` int64 | legal tile types per cell; last: exchange + end |

``compact.dense_observation`` / ``dense_mask`` (numpy) and ``torch_planes`` /
``torch_masked_logits`` (torch) give the env's exact dense layout; ``dense=True`` returns that
layout from ``reset`` and ``step`` directly (``observation`` float32 and ``action_mask``
int8, as the AEC env's ``observe``), at a large cost in memory traffic. Rewards are
``(N, players)``: what each seat received in this step, as ``raw_env.rewards`` after a
``step``.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from ...actions import ActionCodec, outside_window
from ...engine.board import Board
from ...engine.game import Game
from ...engine.lines import mask_of
from ...engine.tiles import Tile
from ...jit import COMPILED, warn_if_slow
from ...observation import observation_high
from ...spec import (
    DEFAULT_WINDOW,
    NUM_FEATURES,
    check_table_options,
)
from ..batch import GameThreads, per_game_ints, reset_seeds
from ..mt19937 import seed_key
from . import core
from .compact import dense_mask, dense_observation
from .load import load_game
from .state import GRID, TABLE, allocate

__all__ = ["COMPILED", "VectorQwirkle"]

_PROBLEMS = {
    core.NOT_FINISHED_NONE: "-1 (no action) is only for finished games, and this game is on",
    core.OUT_OF_RANGE: "out of range",
    core.ILLEGAL: "not legal now (its bit in the action mask is 0)",
    core.NEEDS_NONE: "this game is over and autoreset is off: its action must be -1",
}


class VectorQwirkle:
    """``num_envs`` games of ``num_players`` players stepped together."""

    def __init__(
        self,
        num_envs: int,
        num_players: int = 2,
        window: int = DEFAULT_WINDOW,
        reward: str = "win",
        strict_opening: bool = True,
        autoreset: bool = True,
        copy: bool = True,
        dense: bool = False,
        grid: int = GRID,
        threads: int | None = None,
    ) -> None:
        if not isinstance(num_envs, int) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        check_table_options(num_players, window, reward)
        if not isinstance(grid, int) or grid < 32:
            raise ValueError(f"grid must be an int >= 32, got {grid!r}")
        # Kernels release the GIL; each thread steps its own range of games. Measured: a
        # thread per 512 games; below that, handing work to threads costs more than it
        # saves (docs/vector.md).
        self._threads = GameThreads(num_envs, threads, games_per_thread=512)
        warn_if_slow()
        self.num_envs = num_envs
        self.num_players = num_players
        self.window = window
        self.reward_mode = reward
        self.strict_opening = bool(strict_opening)
        self.autoreset = bool(autoreset)
        self.copy = bool(copy)
        self.dense = bool(dense)
        self.codec = ActionCodec(window)
        self.num_actions = self.codec.num_actions
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.single_observation_space = self._observation_space(window)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.state = allocate(num_envs, num_players, window, reward, strict_opening, grid)
        self._seeded = False

    # --- the API -------------------------------------------------------------------------
    def reset(self, seed: int | list[int] | None = None) -> tuple[dict, dict]:
        """New games in every slot. An int seeds slot i with ``seed + i`` (as gymnasium's
        vector envs do); a list gives each slot's seed; None continues each slot's own
        sequence (fresh random seeds the first time)."""
        n = self.num_envs
        self._reset_slots(np.arange(n), reset_seeds(seed, n, self._seeded))
        self._seeded = True
        return self._observation(), self._info()

    def step(self, actions) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        """One sub-step in every game: ``actions[i]`` for game i's player to move (-1 for a
        finished game when autoreset is off). Returns (observations, rewards (N, players),
        terminations, truncations, infos). A finished game's final scores are in
        ``infos["final_scores"]``; with autoreset its observation is already the next game's.
        """
        self._require_reset("step")
        actions = self._check(actions)
        s = self.state
        self._threads.run(core.step_games, s, actions, self.autoreset)
        self._raise_errors()
        waiting = np.flatnonzero(s.check_window)
        if len(waiting):
            for i in waiting:
                self._count_outside(int(i))
            core.finish_games(s, self.autoreset, waiting)
        terminated = s.done & ~s.final_truncated
        truncated = s.done & s.final_truncated
        rewards = s.rewards[:, : self.num_players]
        return (
            self._observation(),
            rewards.copy() if self.copy else rewards,
            terminated,
            truncated,
            self._info(),
        )

    def load(self, i: int, game: Game) -> dict:
        """Slot ``i`` continues the engine ``game`` from the start of its turn (the game's
        bag order and RNG included), so crafted positions play on here exactly as in
        ``raw_env().reset(options={"game": game})``; returns the observations. On autoreset
        the slot's next game is its own seeded one."""
        self._require_reset("load")
        if not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
            raise ValueError(f"slot must be an int in 0..{self.num_envs - 1}, got {i!r}")
        load_game(self.state, int(i), game)
        if self.state.truncated[i]:
            raise ValueError(
                f"every legal move of player {game.current} lies outside the window "
                f"{self.window}: use a larger window"
            )
        if self.state.check_window[i]:
            self._count_outside(int(i))
        return self._observation()

    def sample_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniformly random legal action for every game (-1 for a finished one)."""
        self._require_reset("sample_actions")
        rng = np.random.default_rng() if rng is None else rng
        out = np.empty(self.num_envs, dtype=np.int64)
        self._threads.run(core.sample_actions, self.state, rng.random(self.num_envs), out)
        return out

    @property
    def seats(self) -> np.ndarray:
        """The seat to move in each game (the last mover's in a finished one)."""
        self._require_reset("seats")
        return self.state.current.copy()

    def observations(self) -> dict:
        self._require_reset("observations")
        return self._observation()

    def table(self, i: int) -> Board:
        """Game i's table as an engine ``Board`` (the table's own coordinates)."""
        self._require_reset("table")
        s = self.state
        g = int(s.cfg[0])
        codes = s.grid[i]
        tiles = {}
        for p in np.flatnonzero(codes):
            code = int(codes[p])
            cell = (int(p // g - s.base[i, 0]), int(p % g - s.base[i, 1]))
            tiles[cell] = Tile.from_id((code - TABLE) % 36)
        return Board(tiles)

    def render_svg(self, i: int) -> str:
        from ... import render

        return render.board_svg(self.table(i))

    def close(self) -> None:
        self._threads.close()

    # --- internals -----------------------------------------------------------------------
    def _require_reset(self, what: str) -> None:
        if not self._seeded:
            raise RuntimeError(f"call reset() before {what}(): there are no games yet")

    def _reset_slots(self, slots: np.ndarray, seeds: list) -> None:
        keys, lo, hi = [], [], []
        start = 0
        for x in seeds:
            key = [] if x is None else list(seed_key(x))
            keys += key
            lo.append(start)
            start += len(key)
            hi.append(start)
        core.reset_games(
            self.state,
            np.array(keys, dtype=np.int64),
            np.array(lo, dtype=np.int64),
            np.array(hi, dtype=np.int64),
            slots.astype(np.int64),
        )

    def _check(self, actions) -> np.ndarray:
        arr = per_game_ints(actions, self.num_envs, "actions")
        game, problem = core.check_actions(self.state, arr)
        if problem != core.OK:
            a = int(arr[game])
            seat = int(self.state.current[game])
            what = ""
            if 0 <= a < self.num_actions:
                what = f" ({self.codec.describe(a, (0, 0))} in window coordinates)"
            raise ValueError(
                f"action {a}{what} for game {game} (player_{seat}): {_PROBLEMS[problem]}; "
                f"actions are 0..{self.num_actions - 1}; see the mask in "
                "observations['action_mask']"
            )
        return arr

    def _raise_errors(self) -> None:
        bad = np.flatnonzero(self.state.error)
        if len(bad):
            code = int(self.state.error[bad[0]])
            raise RuntimeError(f"game {int(bad[0])}: {core.ERRORS[code]} (grid option too small)")

    def _count_outside(self, i: int) -> None:
        """Legal placements beyond the window at the start of game i's turn (rare: the
        table nears the window's edge), counted by the engine as the AEC env counts them."""
        s = self.state
        s.check_window[i] = False
        board = self.table(i)
        seat = int(s.current[i])
        hand = mask_of(int(t) for t in s.hands[i, seat, : s.hand_n[i, seat]])
        origin = (int(s.origin[i, 0] - s.base[i, 0]), int(s.origin[i, 1] - s.base[i, 1]))
        s.outside[i] += outside_window(board.placements_with_points(hand), origin, self.window)

    def _observation_space(self, w: int) -> spaces.Dict:
        if self.dense:
            return spaces.Dict(
                {
                    "observation": spaces.Box(0.0, observation_high(w), dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (self.num_actions,), dtype=np.int8),
                }
            )
        high = observation_high(w)[-NUM_FEATURES:]
        return spaces.Dict(
            {
                "board": spaces.Box(0, 72, (w, w), dtype=np.uint8),
                "features": spaces.Box(0.0, high, dtype=np.float32),
                "action_mask": spaces.Box(0, 2**37 - 1, (w * w + 1,), dtype=np.int64),
            }
        )

    def _observation(self) -> dict:
        s = self.state
        if self.dense:
            return {
                "observation": dense_observation(s.board, s.features),
                "action_mask": dense_mask(s.mask),
            }
        out = {"board": s.board, "features": s.features, "action_mask": s.mask}
        if self.copy:
            out = {k: v.copy() for k, v in out.items()}
        return out

    def _info(self) -> dict:
        s = self.state
        p = self.num_players
        return {
            "seat": s.current.copy(),
            "final_scores": s.final_scores[:, :p].copy(),
            "outside_window": s.outside.copy(),
            "final_outside_window": s.final_outside.copy(),
        }
