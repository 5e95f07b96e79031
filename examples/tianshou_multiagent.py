"""Tianshou 2.x: a masked DQN learner against a masked random policy, multi-agent.

    pip install -e ".[tianshou]"
    python examples/tianshou_multiagent.py --smoke   # ~1 min on 2 cores, ~25 s of it numba JIT
    python examples/tianshou_multiagent.py --epochs 20

``tianshou.env.PettingZooEnv`` wraps the AEC env and reads only its "observation" and
"action_mask"; ``MultiAgentOffPolicyAlgorithm`` (Tianshou 2's successor of 0.5's
MultiAgentPolicyManager) sends each seat's transitions to its own algorithm: DQN for
player_0, ``MARLRandomDiscreteMaskedOffPolicyAlgorithm`` for player_1. Both mask.

Reward "points": Tianshou files a step's rewards under the seat that took it, so "win" (paid
to all on the last step) would mostly reach only the seat that ended the game; "points" pays
each seat on its own steps. As in Tianshou's tic-tac-toe example, the other seat is part of
the environment: a transition's next observation may be the opponent's. The learner always
sits at player_0 (moves first). Window 21 (15,913 actions): a smaller window truncates
some games, when every legal move of the player to move lies outside it
(docs/integrations.md).
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from tianshou.algorithm import (
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams

from qwirkle_env import raw_env

WINDOW = 21


def make_env(window: int = WINDOW) -> PettingZooEnv:
    """raw_env, not env(): an illegal action raises instead of ending the game quietly."""
    return PettingZooEnv(raw_env(window=window, reward="points"))


class QNet(torch.nn.Module):
    """An MLP Q-network; inputs divided by the space's bounds (scores reach hundreds)."""

    def __init__(self, high: np.ndarray, num_actions: int, hidden: int = 256) -> None:
        super().__init__()
        self.register_buffer("scale", torch.as_tensor(1.0 / high, dtype=torch.float32))
        self.mlp = torch.nn.Sequential(
            torch.nn.Linear(len(high), hidden),
            torch.nn.ReLU(),
            torch.nn.Linear(hidden, num_actions),
        )

    def forward(self, obs, state=None, info=None) -> tuple[torch.Tensor, object]:
        x = torch.as_tensor(obs, dtype=torch.float32, device=self.scale.device)
        return self.mlp(x * self.scale), state


def build(window: int = WINDOW, lr: float = 1e-4) -> MultiAgentOffPolicyAlgorithm:
    env = make_env(window)
    space = env.observation_space["observation"]
    policy = DiscreteQLearningPolicy(
        model=QNet(space.high, int(env.action_space.n)),
        action_space=env.action_space,
        eps_training=0.2,
        eps_inference=0.0,
    )
    learner = DQN(
        policy=policy,
        optim=AdamOptimizerFactory(lr=lr),
        gamma=0.99,
        n_step_return_horizon=3,
        target_update_freq=200,
    )
    rival = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    return MultiAgentOffPolicyAlgorithm(algorithms=[learner, rival], env=env)


def train(
    epochs: int, steps_per_epoch: int, envs: int = 2, test: bool = True, seed: int = 0
) -> MultiAgentOffPolicyAlgorithm:
    """Off-policy training; ``test`` plays ``envs`` greedy test episodes per epoch."""
    torch.manual_seed(seed)
    np.random.seed(seed)
    algorithm = build()
    train_envs = DummyVectorEnv([make_env for _ in range(envs)])
    test_envs = DummyVectorEnv([make_env for _ in range(envs)])
    train_envs.seed(seed)
    test_envs.seed(seed + 1)
    # ignore_obs_next: a transition holds ~45 KB (observation + 15,913-entry mask); store it once
    replay = VectorReplayBuffer(5000, envs, ignore_obs_next=True)
    collector = Collector[CollectStats](algorithm, train_envs, replay, exploration_noise=True)
    collector.reset()
    collector.collect(n_step=64 * envs)
    algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            test_collector=Collector[CollectStats](algorithm, test_envs) if test else None,
            max_epochs=epochs,
            epoch_num_steps=steps_per_epoch,
            collection_step_num_env_steps=16,
            update_step_num_gradient_steps_per_sample=0.25,
            test_step_num_episodes=envs,
            batch_size=32,
            multi_agent_return_reduction=lambda rew: rew[:, 0],  # player_0's return
            show_progress=False,
        )
    )
    return algorithm


def learner_action(algorithm: MultiAgentOffPolicyAlgorithm, obs: dict) -> int:
    """Greedy masked action of player_0's DQN for one raw-env observation."""
    batch = Batch(
        obs=Batch(obs=obs["observation"][None], mask=obs["action_mask"][None] == 1), info=Batch()
    )
    with torch.no_grad():
        return int(algorithm.get_algorithm("player_0").policy(batch).act[0])


def evaluate(algorithm: MultiAgentOffPolicyAlgorithm, games: int, seed: int = 100) -> dict:
    """Learner (player_0) vs uniform random, on the raw env, which raises on an illegal move."""
    rng = np.random.default_rng(seed)
    wins, scores = 0, []
    for g in range(games):
        env = raw_env(window=WINDOW, reward="points")
        env.reset(seed=seed + g)
        while not env.game.over:
            obs = env.observe(env.agent_selection)
            if env.agent_selection == "player_0":
                env.step(learner_action(algorithm, obs))
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        scores.append(env.game.scores)
        wins += 0 in env.game.winners()
    return {"games": games, "wins": wins, "mean_scores": np.mean(scores, axis=0).tolist()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="1 epoch of 300 steps, 4 games")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--steps-per-epoch", type=int, default=2000)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--out", default="runs/tianshou_dqn.pt")
    args = parser.parse_args()
    torch.set_num_threads(1)  # small nets on shared cores: far faster than contended threads
    if args.smoke:
        args.epochs, args.steps_per_epoch, args.games = 1, 300, 4
    algorithm = train(args.epochs, args.steps_per_epoch)
    torch.save(algorithm.get_algorithm("player_0").state_dict(), args.out)
    print(f"saved {args.out}")
    print("vs random:", evaluate(algorithm, args.games))


if __name__ == "__main__":
    main()
