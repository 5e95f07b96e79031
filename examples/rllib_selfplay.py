"""Ray RLlib (new API stack): PPO self-play, one shared masked policy for every seat.

    pip install -e ".[rllib]"
    python examples/rllib_selfplay.py --smoke             # 2 env runners, 2 iterations
    python examples/rllib_selfplay.py --iters 200 --env-runners 8 --address auto  # a cluster

``QwirkleMultiAgentEnv`` adapts the AEC env to RLlib's ``MultiAgentEnv``: only the agent to
move gets an observation; everyone gets one (and their reward) when the game ends. The
observation dict is renamed to what RLlib's ``ActionMaskingTorchRLModule`` reads:
"observations" and a float32 "action_mask" (the module adds log(mask) to the logits).
Reward "win" (zero-sum, paid at the end) suits self-play. Window 21 (15,913 actions): at
15 the env raised "window too small" in 11 of 100 random games. Cluster: docs/rllib_cluster.md.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import ray
import torch
from gymnasium import spaces
from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from qwirkle_env import raw_env

WINDOW = 21


class QwirkleMultiAgentEnv(MultiAgentEnv):
    """qwirkle_v0 as an RLlib MultiAgentEnv; ``config`` goes to ``raw_env`` (window, ...)."""

    def __init__(self, config: dict | None = None) -> None:
        super().__init__()
        config = {"window": WINDOW, "reward": "win", **(config or {})}
        self.env = raw_env(**config)  # raises on an illegal action: nothing is masked silently
        self.possible_agents = list(self.env.possible_agents)
        self.agents = list(self.possible_agents)
        inner = self.env.observation_space("player_0")["observation"]
        n = self.env.action_space("player_0").n
        space = spaces.Dict(
            {"observations": inner, "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32)}
        )
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: self.env.action_space(a) for a in self.possible_agents}

    def _obs(self, agent: str) -> dict:
        o = self.env.observe(agent)
        return {
            "observations": o["observation"],
            "action_mask": o["action_mask"].astype(np.float32),
        }

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.env.reset(seed=seed)
        self.agents = list(self.possible_agents)
        return {self.env.agent_selection: self._obs(self.env.agent_selection)}, {}

    def step(self, action_dict: dict):
        self.env.step(int(action_dict[self.env.agent_selection]))
        over = self.env.game.over
        movers = self.agents if over else [self.env.agent_selection]
        obs = {a: self._obs(a) for a in movers}
        # RLlib wants a reward for every agent that observes; others' rewards carry over.
        rewards = {a: float(r) for a, r in self.env.rewards.items() if r or a in obs}
        done = {a: True for a in movers} if over else {}
        return obs, rewards, done | {"__all__": over}, {"__all__": False}, {}


def config(env_runners: int = 2, batch: int = 1000, window: int = WINDOW) -> PPOConfig:
    """Self-play: every agent maps to the one trained module "shared"."""
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={"fcnet_hiddens": [128], "head_fcnet_hiddens": [128]},
    )
    return (
        PPOConfig()
        # RLlib's env check steps an unmasked random action, which the env rightly refuses.
        .environment(QwirkleMultiAgentEnv, env_config={"window": window}, disable_env_checking=True)
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=1)
        .learners(num_learners=0)  # the learner runs in the driver; >0 spawns learner actors
        .multi_agent(
            policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared"
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
        .training(train_batch_size_per_learner=batch, minibatch_size=250, num_epochs=2, lr=3e-4)
    )


def greedy_action(module: RLModule, obs: dict) -> int:
    """The module's masked argmax for one observation of QwirkleMultiAgentEnv."""
    batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in obs.items()}}
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    return int(logits[0].argmax())


def evaluate(module: RLModule, games: int, seed: int = 100) -> dict:
    """The trained module as player_0 against uniform random; an illegal move would raise."""
    rng = np.random.default_rng(seed)
    wins, scores = 0, []
    for g in range(games):
        env = QwirkleMultiAgentEnv()
        obs, _ = env.reset(seed=seed + g)
        while not env.env.game.over:
            ((agent, o),) = obs.items()
            if agent == "player_0":
                action = greedy_action(module, o)
            else:
                action = int(rng.choice(np.flatnonzero(o["action_mask"])))
            obs, *_ = env.step({agent: action})
        scores.append(env.env.game.scores)
        wins += 0 in env.env.game.winners()
    return {"games": games, "wins": wins, "mean_scores": np.mean(scores, axis=0).tolist()}


def train(iters: int, env_runners: int = 2, batch: int = 2000) -> Algorithm:
    """Builds PPO on the running Ray instance and trains ``iters`` iterations."""
    algo = config(env_runners, batch).build_algo()
    for i in range(iters):
        start = time.perf_counter()
        result = algo.train()
        runners, learner = result["env_runners"], result["learners"]["shared"]
        print(
            f"iter {i + 1}: {runners['num_env_steps_sampled_lifetime']:.0f} env steps from "
            f"{algo.env_runner_group.num_healthy_remote_env_runners()} env runners, "
            f"{runners.get('num_episodes_lifetime', 0):.0f} games, "
            f"entropy {learner['entropy']:.3f}, {time.perf_counter() - start:.1f} s"
        )
    return algo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="2 iterations of 500 steps")
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--env-runners", type=int, default=2)
    parser.add_argument("--batch", type=int, default=2000, help="env steps per iteration")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--address", default=None, help="'auto' joins a running Ray cluster")
    parser.add_argument("--out", default="runs/rllib_selfplay")
    args = parser.parse_args()
    if args.smoke:
        args.iters, args.batch, args.games = 2, 500, 4
    ray.init(address=args.address, include_dashboard=False)
    algo = train(args.iters, args.env_runners, args.batch)
    print("saved", algo.save_to_path(os.path.abspath(args.out)))  # wants an absolute path
    print("vs random:", evaluate(algo.get_module("shared"), args.games))
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
