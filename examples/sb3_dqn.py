"""Stable-Baselines3: DQN learns Qwirkle's move values through the whole-move mode.

    pip install -e ".[sb3]"
    python examples/sb3_dqn.py --smoke        # a few seconds: CI's run
    python examples/sb3_dqn.py                # the reference run (docs/integrations.md)

One seat of ``gymnasium.make("qwirkle_env/Qwirkle-v0", action_mode="moves",
look_ahead=16, opponent="greedy")``, stepped as an SB3 ``DummyVecEnv``. The Q-network is
``MovePolicyNet``: one score per row, which DQN reads as the move's value
(``agents.move_policy.recipe``). SB3's DQN knows no action masks, so two things here make it
play only legal rows: the network masks the rows that hold no move (they are all zero in the
observation), and the epsilon-greedy exploration draws a random *legal* row. At every curve
point and at the end the network is exported to the project's checkpoint format: it plays
as ``ckpt:PATH`` without SB3.
"""

from __future__ import annotations

import time

import numpy as np
import torch
from stable_baselines3 import DQN
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.policies import BasePolicy
from stable_baselines3.common.vec_env import DummyVecEnv
from stable_baselines3.dqn.policies import DQNPolicy, QNetwork

from agents.move_policy.network import MovePolicyNet
from agents.move_policy.recipe import QRecipe, q_recipe, q_recipe_parser, row_values
from agents.move_policy.training import Curve
from qwirkle_env.rows.table import split_observation


class RowsQNetwork(QNetwork):
    """SB3's Q-network made of ``MovePolicyNet``: a value per row, the empty rows masked
    (and every value 0 when no row holds a move: the position after the game's end)."""

    def __init__(self, observation_space, action_space, features_extractor, features_dim,
                 net: MovePolicyNet, **kwargs) -> None:  # fmt: skip
        BasePolicy.__init__(self, observation_space, action_space, features_extractor)
        self.features_dim, self.net_arch, self.activation_fn = features_dim, [], torch.nn.ReLU
        self.rows = net

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return row_values(self.rows, obs)


class RowsPolicy(DQNPolicy):
    """DQN's policy with ``RowsQNetwork`` for the online and the target network."""

    def __init__(self, *args, recipe: QRecipe, **kwargs) -> None:
        self.recipe = recipe
        super().__init__(*args, **kwargs)

    def make_q_net(self) -> QNetwork:
        args = self._update_features_extractor(self.net_args, features_extractor=None)
        return RowsQNetwork(**args, net=self.recipe.net()).to(self.device)


class LegalDQN(DQN):
    """DQN whose random exploration draws among the legal rows only."""

    def predict(self, observation, state=None, episode_start=None, deterministic=False):
        if deterministic or np.random.rand() >= self.exploration_rate:
            return self.policy.predict(observation, state, episode_start, deterministic)
        config = self.policy.q_net.rows.config
        obs = np.asarray(observation).reshape(-1, self.observation_space.shape[0])
        _, rows = split_observation(obs, config.max_moves, config.look_ahead)
        legal = np.abs(rows).max(axis=-1) > 0
        picks = [np.random.choice(np.flatnonzero(m)) if m.any() else 0 for m in legal]
        return np.array(picks), state


class Progress(BaseCallback):
    """Curve points every ``eval_every`` env steps; stops the run at its deadline."""

    def __init__(self, recipe: QRecipe, curve: Curve) -> None:
        super().__init__()
        self.recipe, self.curve = recipe, curve
        self.deadline = time.perf_counter() + 60 * recipe.minutes
        self.next_point = recipe.eval_every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_point:
            self.next_point += self.recipe.eval_every
            self.curve.point(self.model.q_net.rows, self.num_timesteps)
        return time.perf_counter() < self.deadline


def build(recipe: QRecipe) -> LegalDQN:
    """SB3's DQN on ``recipe.envs`` games of the one-seat view; its network is
    ``model.q_net.rows``."""
    torch.manual_seed(recipe.seed)
    np.random.seed(recipe.seed)
    envs = DummyVecEnv([recipe.make_env for _ in range(recipe.envs)])
    envs.seed(recipe.seed)
    return LegalDQN(
        RowsPolicy,
        envs,
        # SB3 passes the share of total_timesteps (--steps) still to come
        learning_rate=lambda remaining: recipe.lr * recipe.lr_factor(1.0 - remaining),
        buffer_size=recipe.buffer,
        learning_starts=recipe.learning_starts,
        batch_size=recipe.batch,
        gamma=recipe.gamma,
        n_steps=recipe.n_step,
        train_freq=max(1, recipe.train_every // recipe.envs),
        gradient_steps=max(1, recipe.envs // recipe.train_every),
        target_update_interval=recipe.target_every * recipe.train_every,
        exploration_fraction=min(1.0, recipe.eps_steps / recipe.steps),
        exploration_initial_eps=recipe.eps_start,
        exploration_final_eps=recipe.eps_end,
        policy_kwargs={"recipe": recipe},
        seed=recipe.seed,
        device="cpu",
    )


def main() -> None:
    parser = q_recipe_parser(__doc__.split("\n")[0], "runs/sb3_dqn/sb3_dqn.pt")
    args = parser.parse_args()
    recipe = q_recipe(args)  # every option checked before SB3 starts anything
    torch.set_num_threads(1)
    model = build(recipe)
    net = model.q_net.rows
    train = {"library": "stable-baselines3 DQN", **recipe.to_dict()}
    curve = recipe.curve("sb3", train)
    recipe.announce()
    start = time.perf_counter()
    curve.point(net, 0)
    model.learn(total_timesteps=recipe.steps, callback=Progress(recipe, curve), progress_bar=True)
    env_steps = model.num_timesteps
    curve.point(net, env_steps)
    recipe.finish(curve, net, "sb3", train, env_steps, time.perf_counter() - start)


if __name__ == "__main__":
    main()
