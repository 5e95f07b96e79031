"""One learning seat in each of N move-mode games, the other seats played by a batched
opponent: the gym view (``qwirkle_env.wrappers``) at the batched simulator's speed.

A single-agent library (SB3, or a plain PPO loop) wants every game to be at its learner's
turn at every step. ``VectorSingleAgent`` steps ``VectorMoves`` and, after the learner's
moves, lets the opponent move in the games where it is to move, as often as needed, while
the others wait. The opponent is a function of the batch (observations, masks) → rows, so
a policy network scores all the games' tables at once; ``"greedy"`` plays each table's
first row, which is the move that scores most (the rows come highest points first).

Rewards follow the gym view: the learner's reward for its move plus what the opponents'
moves until its next turn give it; what they give before its first move of a game is
dropped. A game that ends is dealt its slot's next game in the same step (its learner seat
drawn anew), so the returned observation is already the next game's first learner turn;
``infos["final_scores"]`` and ``infos["learner_seat"]`` describe the game that ended.
Seeded, it is reproducible: same seed, same games, same seats, same opponent rows.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .simulator import VectorMoves

Opponent = Callable[[np.ndarray, np.ndarray], np.ndarray]


def greedy_rows(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The opponent that plays each table's first row: the placement that scores most
    (an exchange when there is none)."""
    return np.zeros(len(masks), dtype=np.int64)


class VectorSingleAgent:
    """``num_envs`` games, each with one learning seat, stepped one learner turn at a time."""

    def __init__(
        self,
        num_envs: int,
        opponent: str | Opponent = "greedy",
        num_players: int = 2,
        reward: str = "margin",
        max_moves: int | None = None,
        threads: int | None = None,
    ) -> None:
        if isinstance(opponent, str):
            if opponent != "greedy":
                raise ValueError(f"opponent must be 'greedy' or a function, got {opponent!r}")
            opponent = greedy_rows
        elif not callable(opponent):
            raise TypeError(
                "opponent must be 'greedy' or a function (observations, masks) -> rows, got "
                f"{type(opponent).__name__}"
            )
        self.opponent = opponent
        self.games = VectorMoves(
            num_envs, num_players, reward, max_moves=max_moves, autoreset=True, threads=threads
        )
        self.num_envs = num_envs
        self.num_players = num_players
        self.max_moves = self.games.max_moves
        self.observation_size = self.games.observation_size
        self.learner = np.zeros(num_envs, dtype=np.int64)
        self._rng = np.random.default_rng()
        self._obs = self._mask = None

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """New games in every slot (slot i with ``seed + i``) and learner seats drawn from
        ``seed``; returns the learners' (observations, masks)."""
        self._rng = np.random.default_rng(seed)
        self._obs, self._mask = self.games.reset(seed)
        self.learner = self._rng.integers(self.num_players, size=self.num_envs)
        n, p = self.num_envs, self.num_players
        # what the opponents' opening moves give the learners is dropped, as the gym view does
        ended, seats = np.ones(n, dtype=bool), self.learner.copy()
        self._play_opponents(np.zeros(n), ended, np.zeros((n, p)), seats)
        return self._obs.copy(), self._mask.copy()

    def step(self, rows) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """The learners play ``rows``; returns (observations, masks, rewards, dones,
        infos), every game at its learner's next turn."""
        if self._obs is None:
            raise RuntimeError("call reset() before step(): there are no games yet")
        n = self.num_envs
        reward = np.zeros(n)
        ended = np.zeros(n, dtype=bool)
        final = np.zeros((n, self.num_players))
        seats = self.learner.copy()
        self._advance(rows, None, reward, ended, final, seats)
        self._play_opponents(reward, ended, final, seats)
        infos = {"final_scores": final, "learner_seat": seats}
        return self._obs.copy(), self._mask.copy(), reward, ended, infos

    @property
    def masks(self) -> np.ndarray:
        """The learners' masks at their current turn (what ``action_masks()`` reads)."""
        if self._mask is None:
            raise RuntimeError("call reset() first: there are no games yet")
        return self._mask.copy()

    def close(self) -> None:
        self.games.close()

    def _advance(self, rows, wait, reward, ended, final, seats) -> None:
        """One step of the games. Rewards go to the learners of the games whose episode
        has not ended in this learner step; a game that ends is recorded (the first time)
        and gets its next learner seat."""
        self._obs, self._mask, rewards, dones, infos = self.games.step(rows, wait)
        live = ~ended
        reward[live] += rewards[live, self.learner[live]]
        first = np.flatnonzero(dones & live)
        final[first] = infos["final_scores"][first]
        seats[first] = self.learner[first]
        ended[first] = True
        done = np.flatnonzero(dones)
        self.learner[done] = self._rng.integers(self.num_players, size=len(done))

    def _play_opponents(self, reward, ended, final, seats) -> None:
        """Opponents move wherever they are to move, until every game is at its learner's
        turn; the rest of the games wait."""
        while True:
            turn = self.games.seats != self.learner
            if not turn.any():
                return
            rows = np.full(self.num_envs, -1, dtype=np.int64)
            which = np.flatnonzero(turn)
            rows[which] = self.opponent(self._obs[which], self._mask[which])
            self._advance(rows, ~turn, reward, ended, final, seats)
