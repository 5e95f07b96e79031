"""Stable-Baselines3: sb3-contrib's MaskablePPO learns Qwirkle through the whole-move mode.

    pip install -e ".[sb3]"
    python examples/sb3_moves.py --smoke              # a few seconds: CI's run
    python examples/sb3_moves.py --steps 3000000 --eval-every 50000 --eval-games 100
                                                      # the reference run: 55 min
                                                      # (docs/integrations.md)

One seat of ``gymnasium.make("qwirkle_env/Qwirkle-v0", opponent=..., action_mode="moves")``,
whose ``action_masks()`` feeds MaskablePPO. By default the opponent is the learner's own
network, sampling its moves (self-play: the env takes any agent with ``choose(view)`` as
the opponent); ``--opponent greedy`` (or another spec) trains against a scripted agent.
The curve is against greedy either way. The
policy is the project's ``MovePolicyNet`` (a logit per candidate row from [position ⊕ row],
a value from the position), put in SB3's policy as its latent network with identity heads.
The reward is the dense score margin, scaled. At the end the network is exported to the
project's checkpoint format, so it plays as ``ckpt:PATH`` without SB3 installed.
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv
from torch import nn
from tqdm import TqdmExperimentalWarning

from agents.move_policy.network import MovePolicyAgent, MovePolicyConfig, MovePolicyNet
from agents.move_policy.training import (
    Curve,
    announce,
    export,
    net_options,
    recipe_parser,
    start_weights,
)
from qwirkle_env.spec import ENV_ID
from qwirkle_env.vector.moves.single import VectorSingleAgent

REWARD_SCALE = 0.1  # margin points -> reward: keeps the value loss near 1
# The shipped policy's settings (docs/integrations.md): self-play, the plain position
# critic, a small entropy bonus; the shared recipe defaults suit a greedy opponent.
DEFAULTS = {"opponent": "self", "prior": 0.0, "value": "position", "ent_coef": 0.01,
            "gae_lambda": 0.95, "vf_coef": 1.0}  # fmt: skip


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


class SelfOpponent(MovePolicyAgent):
    """The learner's own network as the opponent seat: self-play through the gym view.

    It samples its moves, as the learner does while collecting; ``net`` is set once the
    model exists, and it is the very module PPO trains, so the opponent keeps up."""

    def __init__(self) -> None:
        super().__init__(MovePolicyNet(MovePolicyConfig()), greedy=False)


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


class FastMoves(VecEnv):
    """SB3's VecEnv over the batched simulator (``VectorSingleAgent``): the same games as
    the gym view, every game's table computed in compiled code and the opponent's moves
    scored for all games at once. The observation and action spaces are the gym view's."""

    render_mode = None  # SB3 asks; the batched games draw nothing

    def __init__(self, games: VectorSingleAgent, seed: int) -> None:
        view = gymnasium.make(ENV_ID, action_mode="moves", max_moves=games.max_moves)
        super().__init__(games.num_envs, view.observation_space, view.action_space)
        view.close()
        self.games, self.first_seed, self.actions = games, seed, None

    def reset(self) -> np.ndarray:
        obs, _ = self.games.reset(self.first_seed)
        self.first_seed = None  # later resets continue each slot's own games
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self.actions = np.asarray(actions, dtype=np.int64)

    def step_wait(self):
        obs, _, reward, done, info = self.games.step(self.actions)
        infos = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(done):
            seat = int(info["learner_seat"][i])
            scores = info["final_scores"][i]
            infos[i]["margin"] = float(scores[seat] - np.delete(scores, seat).max())
        return obs, (reward * REWARD_SCALE).astype(np.float32), done, infos

    def action_masks(self) -> np.ndarray:
        return self.games.masks.astype(bool)

    def env_method(self, method_name, *args, indices=None, **kwargs) -> list:
        if method_name != "action_masks":
            raise AttributeError(f"FastMoves has no per-game method {method_name!r}")
        return list(self.action_masks()[self._get_indices(indices)])

    def get_attr(self, attr_name, indices=None) -> list:
        return [getattr(self, attr_name)] * len(self._get_indices(indices))

    def set_attr(self, attr_name, value, indices=None) -> None:
        raise AttributeError(f"FastMoves's games have no attribute to set ({attr_name!r})")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list:
        return [False] * len(self._get_indices(indices))

    def close(self) -> None:
        self.games.close()


def sampled_rows(net: MovePolicyNet, seed: int):
    """The opponent of self-play in FastMoves: the learner's network, sampling its rows."""
    gen = torch.Generator().manual_seed(seed)

    @torch.no_grad()
    def rows(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        logits, _ = net(torch.from_numpy(observations), torch.from_numpy(masks))
        return torch.multinomial(torch.softmax(logits, dim=1), 1, generator=gen)[:, 0].numpy()

    return rows


def make_env(opponent, seed: int):
    def build():
        env = gymnasium.make(
            ENV_ID, opponent=opponent, action_mode="moves", seat=None, reward="margin"
        )
        env = gymnasium.wrappers.TransformReward(env, lambda r: r * REWARD_SCALE)
        env.reset(seed=seed)
        return env

    return build


def parser() -> argparse.ArgumentParser:
    """The recipe's options: the shared ones with this recipe's defaults, and ``--fast``."""
    p = recipe_parser(__doc__.split("\n")[0], "runs/sb3_moves/sb3_moves.pt", self_play=True)
    p.set_defaults(**DEFAULTS)
    p.add_argument(
        "--fast",
        action="store_true",
        help="step the games in the batched simulator (VectorSingleAgent), not the gym view",
    )
    return p


def build(args: argparse.Namespace, n_steps: int | None = None) -> MaskablePPO:
    """MaskablePPO with MovePolicy on the env the options ask for: the gym view's games
    (``--envs`` of them, the opponent in each) or FastMoves; self-play's opponent is the
    model's own network. ``n_steps``: env steps per game between updates (the recipe's
    own unless given)."""
    selfplay = args.opponent.strip().lower() == "self"
    options = net_options(args, REWARD_SCALE)
    if args.fast:
        if not (selfplay or args.opponent.strip().lower() == "greedy"):
            raise SystemExit(f"--fast plays against 'greedy' or 'self', not {args.opponent!r}")
        # self-play's opponent is the model's network, set once the model exists
        env = FastMoves(VectorSingleAgent(args.envs, "greedy", reward="margin"), args.seed)
        n_steps = n_steps or max(8, (256 if args.smoke else 4096) // args.envs)
    else:
        opponents = [SelfOpponent() if selfplay else args.opponent for _ in range(args.envs)]
        env = DummyVecEnv([make_env(o, args.seed + i) for i, o in enumerate(opponents)])
        n_steps = n_steps or (64 if args.smoke else 512)
    model = MaskablePPO(
        MovePolicy,
        env,
        n_steps=n_steps,
        batch_size=min(512 if args.fast else 256, n_steps * args.envs),
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
    net = model.policy.mlp_extractor.net
    if args.init:
        net.load_state_dict(start_weights(args.init, options))
    if selfplay and args.fast:
        env.games.opponent = sampled_rows(net, args.seed)
    elif selfplay:
        for opponent in opponents:
            opponent.net = net
    return model


def main() -> None:
    args = parser().parse_args()
    torch.set_num_threads(1)
    steps, every, games = (
        (256, 128, 2) if args.smoke else (args.steps, args.eval_every, args.eval_games)
    )
    train = {"library": "stable-baselines3 MaskablePPO", "opponent": args.opponent,
             "seed": args.seed, "hidden": args.hidden, "lr": args.lr,
             "init": args.init,
             "prior": args.prior, "ent_coef": args.ent_coef,
             "gae_lambda": args.gae_lambda, "value": args.value,
             "vf_coef": args.vf_coef, "fast": args.fast}  # fmt: skip
    curve_path = args.out.removesuffix(".pt") + "_curve.csv"
    against = "greedy" if args.opponent.strip().lower() == "self" else args.opponent
    curve = Curve(curve_path, against, games, args.out, ("sb3", train))
    announce(args, args.minutes)
    model = build(args)
    net = model.policy.mlp_extractor.net
    start = time.perf_counter()
    curve.point(net, 0)
    callback = CurveCallback(curve, every, start + 60 * args.minutes)
    with warnings.catch_warnings():
        # SB3 draws its progress bar with tqdm.rich, which warns that it is experimental
        # each time: the bar is SB3's, and the warning says nothing about this run.
        warnings.simplefilter("ignore", TqdmExperimentalWarning)
        model.learn(total_timesteps=steps, callback=callback, progress_bar=True)
    curve.point(net, model.num_timesteps)
    wall = time.perf_counter() - start
    train.update(env_steps=model.num_timesteps, wall_s=round(wall))
    path = export(net, args.out, "sb3", train, model.num_timesteps)
    print(f"saved {path} after {model.num_timesteps} env steps in {wall / 60:.1f} min")


if __name__ == "__main__":
    main()
