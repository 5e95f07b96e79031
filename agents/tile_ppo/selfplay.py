"""Self-play games stepped together, and the buffer of the learner's transitions.

Multi-agent bookkeeping: every (env, seat) played by the learner is its own trajectory
("stream"). A turn's sub-steps are ordinary steps of that stream. A transition's reward is
what the AEC env accumulated for its seat between that action and the seat's next one
(``_cumulative_rewards``, which includes the opponents' moves in between), so it is only
known when the seat acts again or the game ends. Until then the transition is *pending*:
it is not trained on, and carries over to the next rollout. Points scored before a
seat's first action (the opponent's opening) belong to no action of it and are dropped.
"""

from __future__ import annotations

import random
import time

import numpy as np
import torch

from agents.registry import make_agent
from agents.tile_ppo.network import PolicyValueNet, sample_legal
from qwirkle_env import raw_env
from qwirkle_env.observation import split_observation
from qwirkle_env.spec import NUM_PLANES, win_reward

LEARNER, POOL = "learner", "pool"


def episode_over(env) -> bool:
    """The game ended, or the env truncated it (no legal move fits a small window)."""
    return env.game.over or any(env.truncations.values())


class Buffer:
    """Transitions in arrays; the 0/1 board planes and masks bit-packed (32x, 8x smaller)."""

    def __init__(self, capacity: int, window: int, num_actions: int, num_features: int):
        self.window, self.num_actions = window, num_actions
        self.plane_bits = NUM_PLANES * window * window
        self.planes = np.zeros((capacity, (self.plane_bits + 7) // 8), dtype=np.uint8)
        self.features = np.zeros((capacity, num_features), dtype=np.float32)
        self.masks = np.zeros((capacity, (num_actions + 7) // 8), dtype=np.uint8)
        self.actions = np.zeros(capacity, dtype=np.int64)
        self.logps = np.zeros(capacity, dtype=np.float32)
        self.values = np.zeros(capacity, dtype=np.float32)
        self.rewards = np.zeros(capacity, dtype=np.float32)
        self.dones = np.zeros(capacity, dtype=bool)
        self.next = np.full(capacity, -1, dtype=np.int64)  # the stream's next transition
        self.extent = np.zeros(capacity, dtype=np.int16)  # side of the tiles' bounding box
        self.size = 0

    _FIELDS = ("planes", "features", "masks", "actions", "logps", "values", "rewards", "extent")

    def add(self, obs: np.ndarray, mask: np.ndarray, action: int, logp: float, value: float):
        i = self.size
        if i == len(self.actions):
            self._grow()
        planes, features = split_observation(obs, self.window)
        self.planes[i] = np.packbits(planes.ravel() > 0)
        occupied = planes[:6].any(axis=0)
        self.extent[i] = max(occupied.any(axis=0).sum(), occupied.any(axis=1).sum())
        self.features[i] = features
        self.masks[i] = np.packbits(mask)
        self.actions[i], self.logps[i], self.values[i] = action, logp, value
        self.rewards[i], self.dones[i], self.next[i] = 0.0, False, -1
        self.size += 1
        return i

    def _grow(self) -> None:
        for name in (*self._FIELDS, "dones", "next"):
            arr = getattr(self, name)
            setattr(self, name, np.concatenate((arr, np.zeros_like(arr))))

    def complete(self) -> np.ndarray:
        """Indices whose reward is final (the stream moved on or the game ended)."""
        n = self.size
        return np.flatnonzero(self.dones[:n] | (self.next[:n] >= 0))

    def gae(self, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
        """Advantages and returns for every transition (0 for pending ones).

        A stream's next transition always has a larger index, so one backward sweep
        suffices; a pending successor bootstraps with its value (truncated GAE).
        """
        n = self.size
        adv = np.zeros(n, dtype=np.float32)
        for i in range(n - 1, -1, -1):
            if self.dones[i]:
                adv[i] = self.rewards[i] - self.values[i]
            elif self.next[i] >= 0:
                j = self.next[i]
                delta = self.rewards[i] + gamma * self.values[j] - self.values[i]
                adv[i] = delta + gamma * lam * adv[j]  # adv[j] is 0 if j is pending
        return adv, adv + self.values[:n]

    def minibatches(self, idx: np.ndarray, size: int, rng: np.random.Generator) -> list:
        """Shuffled minibatches of similar board extent: the network runs on the union of
        a batch's regions, so mixing a small board with a large one wastes most cells."""
        jitter = rng.random(len(idx)) * 4  # similar, not identical, extents mix
        order = idx[np.argsort(self.extent[idx] + jitter, kind="stable")]
        batches = [np.sort(order[k : k + size]) for k in range(0, len(order), size)]
        return [batches[k] for k in rng.permutation(len(batches))]

    def batch(self, idx: np.ndarray, device: torch.device) -> dict[str, torch.Tensor]:
        masks = np.unpackbits(self.masks[idx], axis=1, count=self.num_actions)
        w = self.window
        planes = np.unpackbits(self.planes[idx], axis=1, count=self.plane_bits)
        planes = planes.reshape(len(idx), NUM_PLANES, w, w)
        return {
            "planes": torch.from_numpy(planes).to(device),
            "features": torch.from_numpy(self.features[idx]).to(device),
            "masks": torch.from_numpy(masks).to(device),
            "actions": torch.from_numpy(self.actions[idx]).to(device),
            "logps": torch.from_numpy(self.logps[idx]).to(device),
        }

    def carry_pending(self) -> dict[int, int]:
        """Moves pending transitions to the front, drops the rest; old -> new index."""
        n = self.size
        pending = np.flatnonzero(~self.dones[:n] & (self.next[:n] < 0))
        for name in self._FIELDS:
            arr = getattr(self, name)
            arr[: len(pending)] = arr[pending]
        self.dones[: len(pending)] = False
        self.next[: len(pending)] = -1
        self.size = len(pending)
        return {int(old): new for new, old in enumerate(pending)}


class SeatBook:
    """What both rollout backends keep for the learner's seats: the margin shaping, the
    pool of past snapshots, the finished games' results, and the streams' links."""

    def __init__(self, cfg, device: torch.device) -> None:
        self.cfg, self.device = cfg, device
        self.rng = random.Random(cfg.seed)
        self.streams = np.full((cfg.num_envs, cfg.num_players), -1, dtype=np.int64)
        self.pool_net: PolicyValueNet | None = None
        self.pool_states: list[dict] = []
        self.margin_coef = cfg.margin_coef_start
        self.finished: list[dict] = []  # per learner seat and game: reward, win, margin
        self.truncated = 0  # learner seats of games the env truncated (tiny windows only)
        self.agent_steps, self.forward_s = 0, 0.0  # throughput counters

    def _shaped(self, margin_points: float) -> float:
        return self.margin_coef * self.cfg.margin_scale * margin_points

    def set_pool(self, states: list[dict], net: PolicyValueNet) -> None:
        """Past snapshots to play against; one is drawn per rollout."""
        self.pool_states = states
        if states:
            net.load_state_dict(self.rng.choice(states))
            self.pool_net = net.eval()

    def _settle(self, buf, last: int, margin_points: float, scores, seat: int, truncated: bool,
                versus: str) -> None:  # fmt: skip
        """A learner seat's game ended: its last transition gets the shaped margin points
        it was still owed plus the result (none for a truncated game), and the game is
        recorded."""
        win = 0.0 if truncated else win_reward(scores, seat)
        if last >= 0:
            buf.rewards[last] += self._shaped(margin_points) + self.cfg.win_coef * win
            buf.dones[last] = True
        if truncated:  # no result: the shaping alone, nothing recorded
            self.truncated += 1
            return
        margin = scores[seat] - max(s for k, s in enumerate(scores) if k != seat)
        share = (win * (len(scores) - 1) + 1) / len(scores)  # 1 win, 0 loss, 1/k tie
        self.finished.append({"share": share, "margin": margin, "versus": versus})

    def _act(self, net: PolicyValueNet, planes, features, legal) -> tuple:
        """The network's actions, log-probabilities and values for a batch of positions,
        given its legal ``(row, action)`` pairs; the time goes to ``forward_s``."""
        t0 = time.perf_counter()
        logits, values = net(planes, features)
        actions, logps = sample_legal(logits, *legal)
        out = actions.cpu().numpy(), logps.cpu().numpy(), values.cpu().numpy()
        self.forward_s += time.perf_counter() - t0
        return out

    def remap(self, mapping: dict[int, int]) -> None:
        """After ``Buffer.carry_pending``: point the streams at the moved transitions."""
        for i in range(self.streams.shape[0]):
            for s in range(self.streams.shape[1]):
                old = int(self.streams[i, s])
                self.streams[i, s] = mapping.get(old, -1) if old >= 0 else -1


class SelfPlay(SeatBook):
    """``num_envs`` games; each seat is the learner, a past snapshot or a scripted agent.

    Per game, with probabilities from the config: all seats learner (self-play); or one
    learner seat (random) against a pool snapshot; or against a scripted agent.
    """

    def __init__(self, cfg, device: torch.device) -> None:
        super().__init__(cfg, device)
        self.envs = [
            raw_env(cfg.num_players, cfg.window, "margin", cfg.strict_opening)
            for _ in range(cfg.num_envs)
        ]
        self.codec = self.envs[0].codec
        self.scripted_specs = [s for s in cfg.scripted.split(",") if s.strip()]
        # one scripted agent per (env, spec, seat): planning agents keep a per-game queue
        self.scripted_cache: dict[tuple[int, str], list] = {}
        self.controllers: list[list] = [[] for _ in self.envs]
        for i in range(cfg.num_envs):
            self._new_game(i, None)

    # --- games ------------------------------------------------------------------------
    def _new_game(self, i: int, buf: Buffer | None) -> None:
        env = self.envs[i]
        env.reset(seed=self.rng.randrange(2**31))
        n, cfg = self.cfg.num_players, self.cfg
        roll = self.rng.random()
        if roll < cfg.p_pool and self.pool_states:
            other = POOL
        elif roll < cfg.p_pool + cfg.p_scripted and self.scripted_specs:
            spec = self.rng.choice(self.scripted_specs).strip()
            if (i, spec) not in self.scripted_cache:
                self.scripted_cache[i, spec] = [make_agent(spec) for _ in range(n)]
            other = spec
        else:
            other = LEARNER
        me = self.rng.randrange(n)
        ctl = []
        for seat in range(n):
            if seat == me or other == LEARNER:
                ctl.append(LEARNER)
            elif other == POOL:
                ctl.append(POOL)
            else:
                agent = self.scripted_cache[i, other][seat]
                agent.reset(seat, n, self.rng.randrange(2**31))
                ctl.append(agent)
        self.controllers[i] = ctl
        self.streams[i] = -1

    def _end_game(self, i: int, buf: Buffer) -> None:
        env = self.envs[i]
        scores = list(env.game.scores)
        truncated = not env.game.over
        ctls = self.controllers[i]
        versus = (
            "self" if all(c == LEARNER for c in ctls) else ("pool" if POOL in ctls else "scripted")
        )
        for seat, ctl in enumerate(ctls):
            if ctl == LEARNER:
                cum = env._cumulative_rewards[env.possible_agents[seat]]
                self._settle(buf, self.streams[i, seat], cum, scores, seat, truncated, versus)
        self._new_game(i, buf)

    # --- stepping ---------------------------------------------------------------------
    @torch.no_grad()
    def _sample(self, net: PolicyValueNet, obs: list, masks: list):
        o = torch.from_numpy(np.stack(obs)).to(self.device)
        m = torch.from_numpy(np.stack(masks)).to(self.device)
        planes, features = split_observation(o, self.cfg.window)
        return self._act(net, planes, features, m.nonzero(as_tuple=True))

    def collect(self, net: PolicyValueNet, buf: Buffer, new_steps: int) -> None:
        """Steps all games until ``new_steps`` learner transitions were added to ``buf``."""
        target = buf.size + new_steps
        while buf.size < target:
            learn, pool, actions = [], [], {}
            for i, env in enumerate(self.envs):
                ctl = self.controllers[i][env.agent_name_mapping[env.agent_selection]]
                if ctl == LEARNER:
                    learn.append(i)
                elif ctl == POOL:
                    pool.append(i)
                else:
                    actions[i] = ctl.act(env.player_view())
            if pool:
                obs = [self.envs[i].observe(self.envs[i].agent_selection) for i in pool]
                acts, _, _ = self._sample(
                    self.pool_net, [o["observation"] for o in obs], [o["action_mask"] for o in obs]
                )
                actions.update(zip(pool, acts.tolist(), strict=True))
            if learn:
                obs = [self.envs[i].observe(self.envs[i].agent_selection) for i in learn]
                acts, logps, values = self._sample(
                    net, [o["observation"] for o in obs], [o["action_mask"] for o in obs]
                )
                for k, i in enumerate(learn):
                    env = self.envs[i]
                    agent = env.agent_selection
                    seat = env.agent_name_mapping[agent]
                    idx = buf.add(
                        obs[k]["observation"], obs[k]["action_mask"], acts[k], logps[k], values[k]
                    )
                    prev = self.streams[i, seat]
                    if prev >= 0:  # the previous transition's reward is now known
                        buf.rewards[prev] += self._shaped(env._cumulative_rewards[agent])
                        buf.next[prev] = idx
                    self.streams[i, seat] = idx
                    actions[i] = int(acts[k])
            self.agent_steps += len(actions)
            for i, action in actions.items():
                env = self.envs[i]
                env.step(action)
                if episode_over(env):
                    self._end_game(i, buf)
