"""Stable-Baselines3: sb3-contrib's MaskablePPO learns Qwirkle through the whole-move mode.

    pip install -e ".[sb3]"
    python examples/sb3_moves.py --smoke              # a few seconds: CI's run
    python examples/sb3_moves.py                      # the reference run (docs/integrations.md)

One seat of ``gymnasium.make("qwirkle_env/Qwirkle-v0", opponent="greedy",
action_mode="moves")`` against greedy, whose ``action_masks()`` feeds MaskablePPO. The
policy is the project's ``MovePolicyNet`` (a logit per candidate row from [position ⊕ row],
a value from the position), put in SB3's policy as its latent network with identity heads.
The reward is the dense score margin, scaled. At the end the network is exported to the
project's checkpoint format, so it plays as ``ckpt:PATH`` without SB3 installed.
"""

from __future__ import annotations

import math
import time

import gymnasium
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv
from torch import nn

from agents.move_policy import MovePolicyConfig, MovePolicyNet
from agents.move_training import Curve, export, net_options, recipe_parser, start_weights
from qwirkle_env.spec import ENV_ID

REWARD_SCALE = 0.1  # margin points -> reward: keeps the value loss near 1


class MoveLatent(nn.Module):
    """SB3's "mlp_extractor" slot: the whole MovePolicyNet, giving logits and a value."""

    def __init__(self, net: MovePolicyNet) -> None:
        super().__init__()
        self.net = net
        self.latent_dim_pi = net.config.max_moves
        self.latent_dim_vf = 1

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, value = self.net(features)
        return logits, value[:, None]

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.net(features)[0]

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.net(features)[1][:, None]


class MovePolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy with MovePolicyNet inside: identity action and value heads."""

    def __init__(self, *args, net_config: dict | None = None, **kwargs) -> None:
        self.net_config = dict(net_config or {})
        kwargs["ortho_init"] = False  # MovePolicyNet initialises itself
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        config = MovePolicyConfig(max_moves=int(self.action_space.n), **self.net_config)
        self.mlp_extractor = MoveLatent(MovePolicyNet(config))

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()
        self.value_net = nn.Identity()
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "net_config": self.net_config}


class CurveCallback(BaseCallback):
    """A quick match against the opponent every ``every`` env steps; stops the training
    once ``deadline`` (a ``time.perf_counter()`` value) has passed."""

    def __init__(self, curve: Curve, every: int, deadline: float = math.inf) -> None:
        super().__init__()
        self.curve, self.every, self.next, self.deadline = curve, every, every, deadline

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next:
            self.next += self.every
            self.curve.point(self.model.policy.mlp_extractor.net, self.num_timesteps)
        return time.perf_counter() < self.deadline


def make_env(opponent: str, seed: int):
    def build():
        env = gymnasium.make(
            ENV_ID, opponent=opponent, action_mode="moves", seat=None, reward="margin"
        )
        env = gymnasium.wrappers.TransformReward(env, lambda r: r * REWARD_SCALE)
        env.reset(seed=seed)
        return env

    return build


def main() -> None:
    parser = recipe_parser(__doc__.split("\n")[0], "runs/sb3_moves/sb3_moves.pt")
    args = parser.parse_args()
    torch.set_num_threads(1)
    steps, every, games = (
        (256, 128, 2) if args.smoke else (args.steps, args.eval_every, args.eval_games)
    )
    train = {"library": "stable-baselines3 MaskablePPO", "opponent": args.opponent,
             "seed": args.seed, "hidden": args.hidden, "lr": args.lr,
             "init": args.init,
             "prior": args.prior, "ent_coef": args.ent_coef,
             "gae_lambda": args.gae_lambda, "value": args.value,
             "vf_coef": args.vf_coef}  # fmt: skip
    curve_path = args.out.removesuffix(".pt") + "_curve.csv"
    curve = Curve(curve_path, args.opponent, games, args.out, ("sb3", train))
    options = net_options(args, REWARD_SCALE)
    env = DummyVecEnv([make_env(args.opponent, args.seed + i) for i in range(args.envs)])
    n_steps = 64 if args.smoke else 512
    model = MaskablePPO(
        MovePolicy,
        env,
        n_steps=n_steps,
        batch_size=min(256, n_steps * args.envs),
        n_epochs=4,
        learning_rate=args.lr,
        policy_kwargs={"net_config": options},
        gamma=0.99,
        gae_lambda=args.gae_lambda,
        ent_coef=args.ent_coef,
        vf_coef=args.vf_coef,
        seed=args.seed,
        device="cpu",
    )
    if args.init:
        model.policy.mlp_extractor.net.load_state_dict(start_weights(args.init, options))
    start = time.perf_counter()
    curve.point(model.policy.mlp_extractor.net, 0)
    callback = CurveCallback(curve, every, start + 60 * args.minutes)
    model.learn(total_timesteps=steps, callback=callback, progress_bar=True)
    net = model.policy.mlp_extractor.net
    curve.point(net, model.num_timesteps)
    wall = time.perf_counter() - start
    train.update(env_steps=model.num_timesteps, wall_s=round(wall))
    path = export(net, args.out, "sb3", train, model.num_timesteps)
    print(f"saved {path} after {model.num_timesteps} env steps in {wall / 60:.1f} min")


if __name__ == "__main__":
    main()
