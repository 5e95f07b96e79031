"""The "vector" rollout backend: self-play on the batched simulator (qwirkle_env.vector).

Same games, seats and reward bookkeeping as ``agents.tile_ppo.selfplay`` (read its docstring
first), on one ``VectorQwirkle`` of ``num_envs`` games instead of ``num_envs`` AEC envs:

- a seat is the learner or a pool snapshot, drawn per game as in ``SelfPlay`` (all seats
  learner, or one learner seat against the pool). Scripted opponents need the engine's
  per-game objects (``player_view``), which the simulator doesn't build, so there are
  none here: the ``p_scripted`` share of games is self-play;
- ``pending[i, seat]`` is the AEC env's ``_cumulative_rewards``: the margin points the
  seat received since its own last action (its step, then the opponents'). It becomes the
  reward of the seat's previous transition when the seat acts again, or at the game's end
  (plus the game result; a truncated game has none). Points before a seat's first
  action are dropped, as in the AEC backend;
- the network reads the compact observation directly (``torch_planes`` of the board
  codes, the features; the legal actions straight from the compact mask,
  ``compact.torch_legal_actions``), and the buffer keeps it compact (``CompactBuffer``):
  no dense observation or mask is built per step, and the dense bool mask of the update
  only per minibatch.
"""

from __future__ import annotations

import numpy as np
import torch

from agents.tile_ppo.network import PolicyValueNet
from agents.tile_ppo.selfplay import Buffer, SeatBook
from qwirkle_env.vector import VectorQwirkle
from qwirkle_env.vector.tiles.compact import torch_legal_actions, torch_planes

LEARNER, POOL = 0, 1  # controller codes per (game, seat)


class CompactBuffer(Buffer):
    """``Buffer`` holding the simulator's compact observation: board codes (W*W bytes)
    and the compact mask (W*W + 1 int64), expanded to planes and a dense mask in torch per
    minibatch. Same stream links, GAE, minibatches and carry-over as ``Buffer``."""

    _FIELDS = ("boards", "features", "masks", "actions", "logps", "values", "rewards", "extent")

    def __init__(self, capacity: int, window: int, num_actions: int, num_features: int):
        self.window, self.num_actions = window, num_actions
        self.boards = np.zeros((capacity, window, window), dtype=np.uint8)
        self.features = np.zeros((capacity, num_features), dtype=np.float32)
        self.masks = np.zeros((capacity, window * window + 1), dtype=np.int64)
        self.actions = np.zeros(capacity, dtype=np.int64)
        self.logps = np.zeros(capacity, dtype=np.float32)
        self.values = np.zeros(capacity, dtype=np.float32)
        self.rewards = np.zeros(capacity, dtype=np.float32)
        self.dones = np.zeros(capacity, dtype=bool)
        self.next = np.full(capacity, -1, dtype=np.int64)
        self.extent = np.zeros(capacity, dtype=np.int16)
        self.size = 0

    def add(self, *args, **kwargs):
        raise NotImplementedError("CompactBuffer stores compact observations: use add_batch")

    def add_batch(self, obs: dict, actions, logps, values) -> np.ndarray:
        """Appends one transition per row of the compact ``obs``; returns their indices."""
        k = len(actions)
        while self.size + k > len(self.actions):
            self._grow()
        idx = np.arange(self.size, self.size + k)
        occupied = obs["board"] > 0
        self.boards[idx] = obs["board"]
        self.features[idx] = obs["features"]
        self.masks[idx] = obs["action_mask"]
        self.extent[idx] = np.maximum(occupied.any(axis=2).sum(1), occupied.any(axis=1).sum(1))
        self.actions[idx], self.logps[idx], self.values[idx] = actions, logps, values
        self.rewards[idx], self.dones[idx], self.next[idx] = 0.0, False, -1
        self.size += k
        return idx

    def batch(self, idx: np.ndarray, device: torch.device) -> dict[str, torch.Tensor]:
        boards = torch.from_numpy(self.boards[idx]).to(device)
        masks = torch.zeros((len(idx), self.num_actions), dtype=torch.bool, device=device)
        masks[torch_legal_actions(torch.from_numpy(self.masks[idx]).to(device))] = True
        return {
            "planes": torch_planes(boards),
            "features": torch.from_numpy(self.features[idx]).to(device),
            "masks": masks,
            "actions": torch.from_numpy(self.actions[idx]).to(device),
            "logps": torch.from_numpy(self.logps[idx]).to(device),
        }


class VectorSelfPlay(SeatBook):
    """``num_envs`` simulator games; each seat is the learner or a past snapshot."""

    def __init__(self, cfg, device: torch.device) -> None:
        super().__init__(cfg, device)
        n, p = cfg.num_envs, cfg.num_players
        self.vec = VectorQwirkle(
            n, p, cfg.window, "margin", cfg.strict_opening, autoreset=True, copy=False
        )
        self.codec = self.vec.codec
        self.rows = np.arange(n)
        self.controllers = np.full((n, p), LEARNER, dtype=np.int8)
        self.pending = np.zeros((n, p))  # margin points since the seat's own last action
        # copy=False: these are views of the simulator's state, read before each step
        self.obs, _ = self.vec.reset(seed=[self.rng.randrange(2**31) for _ in range(n)])
        for i in range(n):
            self._new_game(i)

    # --- games ------------------------------------------------------------------------
    def _new_game(self, i: int) -> None:
        """Seats for the game now in slot i (the simulator already dealt it)."""
        p = self.cfg.num_players
        pool = self.rng.random() < self.cfg.p_pool and bool(self.pool_states)
        me = self.rng.randrange(p)
        self.controllers[i] = POOL if pool else LEARNER
        self.controllers[i, me] = LEARNER
        self.streams[i] = -1
        self.pending[i] = 0.0

    def _end_game(self, i: int, buf: Buffer, scores: np.ndarray, truncated: bool) -> None:
        scores = [int(x) for x in scores]
        versus = "pool" if (self.controllers[i] == POOL).any() else "self"
        for seat in np.flatnonzero(self.controllers[i] == LEARNER):
            last = self.streams[i, seat]
            self._settle(buf, last, self.pending[i, seat], scores, int(seat), truncated, versus)
        self._new_game(i)

    # --- stepping ---------------------------------------------------------------------
    @torch.no_grad()
    def _sample(self, net: PolicyValueNet, obs: dict):
        board = torch.from_numpy(obs["board"]).to(self.device)
        features = torch.from_numpy(obs["features"]).to(self.device)
        mask = torch.from_numpy(obs["action_mask"]).to(self.device)
        return self._act(net, torch_planes(board), features, torch_legal_actions(mask))

    def collect(self, net: PolicyValueNet, buf: CompactBuffer, new_steps: int) -> None:
        """Steps all games until ``new_steps`` learner transitions were added to ``buf``."""
        target = buf.size + new_steps
        while buf.size < target:
            seats = self.vec.seats
            ctl = self.controllers[self.rows, seats]
            actions = np.empty(len(seats), dtype=np.int64)
            pool = np.flatnonzero(ctl == POOL)
            if len(pool):
                obs = {k: v[pool] for k, v in self.obs.items()}
                actions[pool] = self._sample(self.pool_net, obs)[0]
            learn = np.flatnonzero(ctl == LEARNER)
            if len(learn):
                obs = {k: v[learn] for k, v in self.obs.items()}
                acts, logps, values = self._sample(net, obs)
                actions[learn] = acts
                idx = buf.add_batch(obs, acts, logps, values)
                seat = seats[learn]
                prev = self.streams[learn, seat]
                known = prev >= 0  # the previous transition's reward is now known
                buf.rewards[prev[known]] += self._shaped(self.pending[learn, seat][known])
                buf.next[prev[known]] = idx[known]
                self.streams[learn, seat] = idx
            self.pending[self.rows, seats] = 0.0  # the mover's account restarts, as in AEC
            self.obs, rewards, terminated, truncated, info = self.vec.step(actions)
            self.pending += rewards
            self.agent_steps += len(actions)
            for i in np.flatnonzero(terminated | truncated):
                self._end_game(int(i), buf, info["final_scores"][i], bool(truncated[i]))
