"""Tianshou 2: DQN learns Qwirkle's move values through the whole-move mode.

    pip install -e ".[tianshou]"
    python examples/tianshou_dqn.py --smoke        # a few seconds: CI's run
    python examples/tianshou_dqn.py                # the reference run (docs/integrations.md)

One seat of ``gymnasium.make("qwirkle_env/Qwirkle-v0", action_mode="moves",
look_ahead=16, opponent="greedy")``. Its observation becomes ``{"obs", "mask"}``, the form
Tianshou's DQN masks actions with (its epsilon-greedy exploration picks only legal rows). The
Q-network is ``MovePolicyNet``: one score per row, which DQN reads as the move's value
(``agents.move_policy.recipe``). At every curve point and at the end the network is
exported to the project's checkpoint format: it plays as ``ckpt:PATH`` without Tianshou.
"""

from __future__ import annotations

import time

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory, LRSchedulerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OffPolicyTrainerParams
from torch import nn
from torch.optim.lr_scheduler import LambdaLR

from agents.move_policy.network import MovePolicyNet
from agents.move_policy.recipe import QRecipe, q_recipe, q_recipe_parser


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


class QRows(nn.Module):
    """The rows' values, as Tianshou's Q-network: ``(obs, state, info) -> (Q, state)``."""

    def __init__(self, net: MovePolicyNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, obs, state=None, info=None):
        q, _ = self.net(torch.as_tensor(obs, dtype=torch.float32))
        return q, state


class Replay(VectorReplayBuffer):
    """Tianshou's replay, checked for NaN where it was just written: its trainer checks the
    whole buffer after every collect, a copy of all of it, which here (rows of floats for
    each of K moves) took most of a training step."""

    def hasnull(self) -> bool:
        return bool(self[self.last_index].hasnull())


class LinearLR(LRSchedulerFactory):
    """The recipe's learning rate, falling linearly over its gradient steps (Tianshou steps
    the scheduler at every update)."""

    def __init__(self, recipe: QRecipe) -> None:
        self.recipe = recipe
        self.updates = max(1, recipe.steps // recipe.train_every)

    def create_scheduler(self, optim: torch.optim.Optimizer) -> LambdaLR:
        return LambdaLR(optim, lambda k: self.recipe.lr_factor(k / self.updates))


class TimeUp(Exception):
    """Raised between collect steps once the run's --minutes are spent."""


def main() -> None:
    parser = q_recipe_parser(__doc__.split("\n")[0], "runs/tianshou_dqn/tianshou_dqn.pt")
    args = parser.parse_args()
    recipe = q_recipe(args)  # every option checked before Tianshou starts anything
    torch.set_num_threads(1)
    torch.manual_seed(recipe.seed)
    np.random.seed(recipe.seed)
    envs = DummyVectorEnv([lambda: WithMask(recipe.make_env()) for _ in range(recipe.envs)])
    envs.seed(recipe.seed)
    net = recipe.net()
    train = {"library": "tianshou DQN", **recipe.to_dict()}
    curve = recipe.curve("tianshou", train)
    action_space = spaces.Discrete(recipe.max_moves)
    policy = DiscreteQLearningPolicy(
        model=QRows(net), action_space=action_space, eps_training=recipe.eps_start
    )
    algorithm = DQN(
        policy=policy,
        optim=AdamOptimizerFactory(lr=recipe.lr).with_lr_scheduler_factory(LinearLR(recipe)),
        gamma=recipe.gamma,
        n_step_return_horizon=recipe.n_step,
        target_update_freq=recipe.target_every,
        is_double=True,
        huber_loss_delta=1.0,
    )
    buffer = Replay(recipe.buffer, len(envs), ignore_obs_next=True)
    collector = Collector[CollectStats](algorithm, envs, buffer, exploration_noise=True)
    collector.reset()
    collector.collect(n_step=recipe.learning_starts, random=False)
    next_point = [recipe.eval_every]

    def training_fn(epoch: int, env_step: int) -> None:
        policy.set_eps_training(recipe.epsilon(env_step))
        if env_step >= next_point[0]:
            next_point[0] += recipe.eval_every
            curve.point(net, env_step)
        if time.perf_counter() > deadline:
            raise TimeUp  # Tianshou's own stop criterion needs a test collector

    recipe.announce()
    start = time.perf_counter()
    deadline = start + 60 * recipe.minutes
    curve.point(net, 0)
    per_epoch = min(recipe.steps, 10_000)
    params = OffPolicyTrainerParams(
        training_collector=collector,
        max_epochs=max(1, recipe.steps // per_epoch),
        epoch_num_steps=per_epoch,
        collection_step_num_env_steps=recipe.train_every * recipe.envs,
        update_step_num_gradient_steps_per_sample=1 / recipe.train_every,
        batch_size=recipe.batch,
        training_fn=training_fn,
        test_in_training=False,
        show_progress=True,
    )
    try:
        algorithm.run_training(params)
    except TimeUp:
        print(f"stopped after --minutes {recipe.minutes:g}")
    env_steps = collector.collect_step
    curve.point(net, env_steps)
    recipe.finish(curve, net, "tianshou", train, env_steps, time.perf_counter() - start)


if __name__ == "__main__":
    main()
