"""The AEC env in the dict-per-step form of RLlib's ``MultiAgentEnv``, without Ray.

RLlib (and similar dict-based multi-agent loops) step every agent that got an observation
and expect ``terminateds`` and ``truncateds`` dicts with an ``"__all__"`` key. Here only
the agent to move observes; when the episode ends, by the end of the game or by a
truncation (the window shows none of the mover's legal moves), every agent observes once
more and is marked done in the dict that says which. The logic lives here, free of Ray, so
that CI tests it; ``examples/rllib_selfplay.py`` mixes it into ``MultiAgentEnv``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from .aec import raw_env


class MultiAgentDictEnv:
    """One game at a time; keyword arguments go to ``raw_env`` (which raises on an illegal
    action). Observations are renamed to RLlib's masking keys: "observations" and a float32
    "action_mask" (RLlib's masking module adds log(mask) to the logits)."""

    def __init__(self, **env_kwargs: Any) -> None:
        self.env = raw_env(**env_kwargs)
        self.possible_agents = list(self.env.possible_agents)
        self.agents = list(self.possible_agents)
        inner = self.env.observation_space("player_0")["observation"]
        n = self.env.action_space("player_0").n
        space = spaces.Dict(
            {"observations": inner, "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32)}
        )
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: self.env.action_space(a) for a in self.possible_agents}

    @property
    def terminated(self) -> bool:
        """The game ended by its rules."""
        return self.env.game is not None and self.env.game.over

    @property
    def truncated(self) -> bool:
        """The episode was cut short: the window showed none of the mover's legal moves."""
        return any(self.env.truncations.values()) if self.env.game is not None else False

    def _obs(self, agent: str) -> dict[str, np.ndarray]:
        o = self.env.observe(agent)
        return {
            "observations": o["observation"],
            "action_mask": o["action_mask"].astype(np.float32),
        }

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        self.env.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        mover = self.env.agent_selection
        return {mover: self._obs(mover)}, {}

    def step(self, action_dict: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        if self.env.game is None:
            raise RuntimeError("call reset() before step()")
        if self.terminated or self.truncated:
            raise RuntimeError(
                "the episode is over (terminated or truncated, as the last step reported); "
                "call reset()"
            )
        mover = self.env.agent_selection
        if mover not in action_dict:
            raise ValueError(
                f"{mover} is to move, so action_dict needs its action; got keys "
                f"{sorted(action_dict)}"
            )
        self.env.step(int(action_dict[mover]))
        terminated, truncated = self.terminated, self.truncated
        over = terminated or truncated
        observers = list(self.agents) if over else [self.env.agent_selection]
        obs = {a: self._obs(a) for a in observers}
        # RLlib wants a reward for every agent that observes; others' rewards carry over.
        rewards = {a: float(r) for a, r in self.env.rewards.items() if r or a in obs}
        infos = {a: dict(self.env.infos[a]) for a in observers} if over else {}
        terminateds = {a: True for a in observers} if terminated else {}
        truncateds = {a: True for a in observers} if truncated and not terminated else {}
        terminateds["__all__"] = terminated
        truncateds["__all__"] = truncated and not terminated
        if over:
            self.agents = []
        return obs, rewards, terminateds, truncateds, infos
