"""Single-agent gymnasium view of the game: one learning seat against fixed opponents.

For libraries that train one policy on a gymnasium ``Env`` (Stable-Baselines3 and
sb3-contrib's MaskablePPO, which reads ``action_masks()``). Opponents act inside
``step`` until the learner is to move again, so every step is a decision of the learner.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np

from . import opponents as opponents_module
from .aec import raw_env
from .opponents import RandomActionOpponent, make_opponent
from .spec import ENV_ID
from .view import PlayerView

__all__ = ["ENV_ID", "RandomActionOpponent", "SingleAgentEnv", "make"]

# A spec string ("greedy"), a callable(view) -> action, or an agent with act(view).
Opponent = str | Callable[[PlayerView], int] | Any


class SingleAgentEnv(gymnasium.Env):
    """The learner plays one seat of a qwirkle_v0 game; ``opponents`` play the others.

    Observation: the env's flat float32 vector (layout in ``qwirkle_env.aec``). Reward: the
    learner's reward from the underlying env (``reward=`` "win", "points" or "margin"),
    summed over the opponents' moves in between. ``opponents``: one for every other seat,
    or one that plays them all; spec strings ("random-action", "greedy", see
    ``qwirkle_env.opponents``) build a fresh agent per seat. With ``action_mode="moves"``
    an opponent that plans whole moves (``choose(view) -> Move``, as the scripted agents
    do) plays them with ``step_move``; any other returns a row index. An illegal action ends the
    episode with reward -1 and ``info["illegal_action"]`` (``illegal="raise"`` raises instead).
    """

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        opponents: Opponent | Sequence[Opponent] | None = None,
        num_players: int = 2,
        seat: int | None = 0,
        illegal: str = "lose",
        render_mode: str | None = None,
        **env_kwargs: Any,
    ) -> None:
        if illegal not in ("lose", "raise"):
            raise ValueError(f"illegal must be 'lose' or 'raise', got {illegal!r}")
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < num_players):
            raise ValueError(f"seat must be None (random each game) or 0..{num_players - 1}")
        self.env = raw_env(num_players=num_players, render_mode=render_mode, **env_kwargs)
        if opponents is None:
            opponents = "random-action"
        if isinstance(opponents, str) or not isinstance(opponents, Sequence):
            opponents = [opponents] * (num_players - 1)  # a spec builds one agent per seat
        if len(opponents) != num_players - 1:
            raise ValueError(
                f"{num_players} players need {num_players - 1} opponents, got {len(opponents)}"
            )
        self.opponents = [make_opponent(o) for o in opponents]
        self.fixed_seat = seat
        self.illegal = illegal
        self.render_mode = render_mode
        space = self.env.observation_space("player_0")
        self.observation_space = space["observation"]
        self.action_space = self.env.action_space("player_0")
        self._seat_rng = random.Random()
        self.seat = 0 if seat is None else seat

    @property
    def learner(self) -> str:
        return self.env.possible_agents[self.seat]

    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        if seed is not None:
            self._seat_rng.seed(seed)
        if self.fixed_seat is None:
            self.seat = self._seat_rng.randrange(self.env.num_players)
        else:
            self.seat = self.fixed_seat
        self.env.reset(seed=None if seed is None else self._seat_rng.randrange(2**63))
        others = [s for s in range(self.env.num_players) if s != self.seat]
        self._by_seat = dict(zip(others, self.opponents, strict=True))
        for s, opp in self._by_seat.items():
            if hasattr(opp, "reset"):
                opp.reset(s, self.env.num_players, self._seat_rng.randrange(2**63))
        reward = self._play_opponents()
        obs, info = self._observe()
        info["reward_before_first_move"] = reward
        return obs, info

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        env = self.env
        if env.game is None:
            raise RuntimeError("call reset() before step(): there is no game yet")
        if self._done():
            raise RuntimeError("the episode is over: call reset()")
        mask = env.mover_mask()
        a = env.check_action(action)
        if not mask[a]:
            if self.illegal == "raise":
                env.step(a)  # raises a ValueError that says why
            obs, info = self._observe()
            info["illegal_action"] = True
            return obs, -1.0, True, False, info
        env.step(a)
        reward = env._cumulative_rewards[self.learner]
        env._cumulative_rewards[self.learner] = 0.0
        reward += self._play_opponents()
        obs, info = self._observe()
        terminated = bool(env.terminations.get(self.learner, False))
        truncated = bool(env.truncations.get(self.learner, False))
        return obs, float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of legal actions, as sb3-contrib's MaskablePPO expects."""
        if self.env.game is None:
            raise RuntimeError("call reset() before action_masks(): there is no game yet")
        if self._done():
            return np.zeros(self.action_space.n, dtype=bool)
        return self.env.mover_mask().astype(bool)

    def _play_opponents(self) -> float:
        """Lets the opponents move until the learner is to move or the game is over."""
        env = self.env
        gained = 0.0
        while not self._done() and env.agent_selection != self.learner:
            seat = env.agent_name_mapping[env.agent_selection]
            opp = self._by_seat[seat]
            if env.moves_mode and hasattr(opp, "choose"):  # a scripted agent's whole move
                env.step_move(opp.choose(env.player_view(observe=False)))
            else:
                view = env.player_view()
                env.step(opp.act(view) if hasattr(opp, "act") else opp(view))
            gained += env._cumulative_rewards[self.learner]
            env._cumulative_rewards[self.learner] = 0.0
        return gained

    def _done(self) -> bool:
        env = self.env
        return bool(
            env.terminations.get(self.learner, True) or env.truncations.get(self.learner, True)
        )

    def _observe(self) -> tuple[np.ndarray, dict]:
        obs = self.env.observe(self.learner)
        info = dict(self.env.infos.get(self.learner, {}))
        info["seat"] = self.seat
        info["action_mask"] = obs["action_mask"]
        return obs["observation"], info

    def render(self):
        if self.render_mode is None:
            return None
        return self.env.render()

    def close(self) -> None:
        self.env.close()


def make(
    opponent: Opponent | Sequence[Opponent] = "random-action", **kwargs: Any
) -> SingleAgentEnv:
    """The entry point of the registered id: ``gymnasium.make(ENV_ID, opponent="greedy")``
    reads better than ``opponents=`` for the usual single opponent."""
    if "opponents" in kwargs:
        raise TypeError("pass opponent=..., not opponents=, to gymnasium.make")
    return SingleAgentEnv(opponents=opponent, **kwargs)


def __getattr__(name: str) -> Any:
    if name == "RandomOpponent":  # the old name, with its DeprecationWarning
        return getattr(opponents_module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
