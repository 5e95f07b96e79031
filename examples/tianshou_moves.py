"""Tianshou 2: PPO learns Qwirkle through the whole-move mode, with a custom actor and critic.

    pip install -e ".[tianshou]"
    python examples/tianshou_moves.py --smoke         # a few seconds: CI's run
    python examples/tianshou_moves.py                 # the reference run (docs/integrations.md)

One seat of ``gymnasium.make("qwirkle_env/Qwirkle-v0", opponent="greedy",
action_mode="moves")`` against greedy. Its observation becomes ``{"obs", "mask"}``, the
form Tianshou's own PettingZoo wrapper produces, so the actor gets the mask beside the
observation. Actor and critic share one ``MovePolicyNet``: the actor returns its masked
logits over the candidate rows, the critic its value. The reward is the dense score margin,
scaled. At the end the network is exported to the project's checkpoint format, so it plays
as ``ckpt:PATH`` without Tianshou installed.
"""

from __future__ import annotations

import time

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from tianshou.algorithm import PPO
from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OnPolicyTrainerParams
from torch import nn

from agents.move_policy.network import MovePolicyConfig, MovePolicyNet
from agents.move_policy.training import (
    Curve,
    announce,
    export,
    net_options,
    recipe_parser,
    start_weights,
)
from qwirkle_env.spec import ENV_ID

REWARD_SCALE = 0.1  # margin points -> reward: keeps the value loss near 1


class WithMask(gymnasium.ObservationWrapper):
    """The single-agent view's observation as ``{"obs": ..., "mask": ...}``."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        n = int(env.action_space.n)
        self.observation_space = spaces.Dict(
            {"obs": env.observation_space, "mask": spaces.MultiBinary(n)}
        )

    def observation(self, observation: np.ndarray) -> dict:
        return {"obs": observation, "mask": self.env.unwrapped.action_masks()}


class Actor(nn.Module):
    """Masked logits over the rows."""

    def __init__(self, net: MovePolicyNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, obs, state=None, info=None):
        x = torch.as_tensor(obs.obs, dtype=torch.float32)
        logits, _ = self.net(x, torch.as_tensor(obs.mask, dtype=torch.bool))
        return logits, state


class Critic(nn.Module):
    """The value of the position, from the same network."""

    def __init__(self, net: MovePolicyNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, obs, **kwargs) -> torch.Tensor:
        x = torch.as_tensor(obs.obs, dtype=torch.float32)
        return self.net(x, torch.as_tensor(obs.mask, dtype=torch.bool))[1][:, None]


class TimeUp(Exception):
    """Raised between collect steps once the run's --minutes are spent."""


def make_env(opponent: str) -> gymnasium.Env:
    env = gymnasium.make(ENV_ID, opponent=opponent, action_mode="moves", seat=None, reward="margin")
    return WithMask(gymnasium.wrappers.TransformReward(env, lambda r: r * REWARD_SCALE))


def main() -> None:
    parser = recipe_parser(__doc__.split("\n")[0], "runs/tianshou_moves/tianshou_moves.pt")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    smoke = args.smoke
    steps, every, games = (256, 128, 2) if smoke else (args.steps, args.eval_every, args.eval_games)
    collect = 64 if smoke else 2048
    train = {"library": "tianshou PPO", "opponent": args.opponent, "seed": args.seed,
             "hidden": args.hidden, "lr": args.lr, "init": args.init,
             "prior": args.prior, "ent_coef": args.ent_coef,
             "gae_lambda": args.gae_lambda, "value": args.value,
             "vf_coef": args.vf_coef}  # fmt: skip
    curve_path = args.out.removesuffix(".pt") + "_curve.csv"
    curve = Curve(curve_path, args.opponent, games, args.out, ("tianshou", train))
    envs = DummyVectorEnv([lambda: make_env(args.opponent) for _ in range(args.envs)])
    envs.seed(args.seed)
    probe = make_env(args.opponent)
    options = net_options(args, REWARD_SCALE)
    net = MovePolicyNet(MovePolicyConfig(max_moves=int(probe.action_space.n), **options))
    if args.init:
        net.load_state_dict(start_weights(args.init, options))
    policy = DiscreteActorPolicy(
        actor=Actor(net), action_space=probe.action_space, deterministic_eval=True
    )
    algorithm = PPO(
        policy=policy,
        critic=Critic(net),
        optim=AdamOptimizerFactory(lr=args.lr),
        eps_clip=0.2,
        vf_coef=args.vf_coef,
        ent_coef=args.ent_coef,
        max_grad_norm=0.5,
        gae_lambda=args.gae_lambda,
        gamma=0.99,
    )
    collector = Collector[CollectStats](
        algorithm, envs, VectorReplayBuffer(collect, len(envs)), exploration_noise=False
    )
    collector.reset()
    next_point = [every]

    def training_fn(epoch: int, env_step: int) -> None:
        if env_step >= next_point[0]:
            next_point[0] += every
            curve.point(net, env_step)
        if time.perf_counter() > deadline:
            raise TimeUp  # Tianshou's own stop criterion needs a test collector

    announce(args, args.minutes)
    start = time.perf_counter()
    deadline = start + 60 * args.minutes
    curve.point(net, 0)
    per_epoch = min(steps, 10 * collect)
    params = OnPolicyTrainerParams(
        training_collector=collector,
        max_epochs=max(1, steps // per_epoch),
        epoch_num_steps=per_epoch,
        collection_step_num_env_steps=collect,
        batch_size=min(256, collect),
        update_step_num_repetitions=4,
        training_fn=training_fn,
        test_in_training=False,
        show_progress=True,
    )
    try:
        algorithm.run_training(params)
    except TimeUp:
        print(f"stopped after --minutes {args.minutes}")
    env_steps = collector.collect_step
    curve.point(net, env_steps)
    wall = time.perf_counter() - start
    train.update(env_steps=env_steps, wall_s=round(wall))
    path = export(net, args.out, "tianshou", train, env_steps)
    print(f"saved {path} after {env_steps} env steps in {wall / 60:.1f} min")


if __name__ == "__main__":
    main()
