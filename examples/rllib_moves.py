"""Ray RLlib (new API stack): PPO self-play through the whole-move mode, with a custom RLModule.

    pip install -e ".[rllib]"
    python examples/rllib_moves.py --smoke            # about a minute: CI's run
    python examples/rllib_moves.py --max-minutes 45   # the reference run (docs/integrations.md)

Every seat of a 2-player game plays the one trained module "shared" (self-play), sampled
by an env runner; the learner trains in the driver. The env is ``MultiAgentDictEnv`` with
``action_mode="moves"`` (one step is one whole turn, a row of the candidate table), and the
module is the project's ``MovePolicyNet`` inside a ``TorchRLModule`` with the
``ValueFunctionAPI``: a logit per candidate row from [position ⊕ row], masked, and a value
from the position. The reward is the score margin, scaled like the SB3 and Tianshou recipes:
side by side for 100k env steps, margin and win (``--reward win``) learned equally fast
against greedy (quick matches on deal seed 1), and margin keeps the three recipes comparable.
At the end the network is exported to the project's checkpoint format, so it plays as
``ckpt:PATH`` without Ray.

Ray starts only on loopback: the program re-executes itself in a private network namespace
first (examples/ray_loopback.py) and starts its own local instance with at most 2 CPUs.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from collections.abc import Sequence

import torch
from tqdm import tqdm

from agents.move_policy.network import MovePolicyConfig, MovePolicyNet
from agents.move_policy.training import Curve, announce, export, net_options
from qwirkle_env.multi_agent import MultiAgentDictEnv
from qwirkle_env.rows.table import DEFAULT_MAX_MOVES

MAX_MOVES = DEFAULT_MAX_MOVES  # K, the rows of the table
REWARD_SCALE = {"margin": 0.1, "win": 1.0}  # margin points -> reward: value loss near 1
SMOKE = {"steps": 256, "batch": 128, "minibatch": 64, "eval_every": 128, "eval_games": 2}


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The options, checked before Ray starts."""
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument("--smoke", action="store_true", help="a tiny run: 256 steps, 2 games")
    p.add_argument("--steps", type=int, default=300_000, help="env steps (turns, all seats)")
    p.add_argument(
        "--reward", choices=sorted(REWARD_SCALE), default="margin", help="the reward each step"
    )
    p.add_argument("--batch", type=int, default=4000, help="env steps per PPO iteration")
    p.add_argument("--minibatch", type=int, default=500, help="SGD minibatch, in env steps")
    p.add_argument("--epochs", type=int, default=4, help="passes over each batch")
    p.add_argument("--lr", type=float, default=3e-4, help="Adam learning rate")
    p.add_argument("--hidden", type=int, default=128, help="width of MovePolicyNet")
    p.add_argument(
        "--prior", type=float, default=0.0,
        help="the untrained policy's logits per point scored (0: none; MovePolicyConfig)",
    )  # fmt: skip
    p.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus")
    p.add_argument(
        "--value", choices=("position", "afterstate"), default="position",
        help="the critic: a head on the position, or the rows' logits read as afterstate "
        "values (needs --prior > 0; MovePolicyConfig.value_per_logit)",
    )  # fmt: skip
    p.add_argument("--envs", type=int, default=4, help="games per env runner, stepped together")
    p.add_argument("--seed", type=int, default=0, help="random seed")
    p.add_argument("--eval-every", type=int, default=25_000, help="env steps between points")
    p.add_argument("--eval-games", type=int, default=40, help="quick-match games per point")
    p.add_argument(
        "--max-minutes",
        type=float,
        default=None,
        help="stop training after this many minutes of wall time (before --steps) and export "
        "what was learned",
    )
    p.add_argument(
        "--out",
        default="runs/rllib_moves/rllib_moves.pt",
        help="the checkpoint; its curve beside it",
    )
    args = p.parse_args(argv)
    if args.smoke:
        for name, value in SMOKE.items():
            setattr(args, name, value)
    problems = [
        f"--{name.replace('_', '-')} must be >= {low}, got {getattr(args, name)}"
        for name, low in (
            ("steps", 1),
            ("batch", 1),
            ("minibatch", 1),
            ("epochs", 1),
            ("envs", 1),
            ("hidden", 1),
            ("eval_every", 1),
            ("eval_games", 2),
        )
        if getattr(args, name) < low
    ]
    if args.minibatch > args.batch:
        problems.append(f"--minibatch {args.minibatch} is larger than --batch {args.batch}")
    if args.eval_games % 2:
        problems.append(
            f"--eval-games must be even (deals are played twice), got {args.eval_games}"
        )
    if args.max_minutes is not None and not args.max_minutes > 0:
        problems.append(f"--max-minutes must be > 0, got {args.max_minutes}")
    if not args.lr > 0:
        problems.append(f"--lr must be > 0, got {args.lr}")
    for name in ("prior", "ent_coef"):
        if not (math.isfinite(getattr(args, name)) and getattr(args, name) >= 0):
            problems.append(f"--{name.replace('_', '-')} must be >= 0, got {getattr(args, name)}")
    if not args.out.endswith(".pt"):
        problems.append(f"--out must end in .pt (a checkpoint file), got {args.out!r}")
    try:  # the network's options, as the run will build them
        net_options(args, REWARD_SCALE[args.reward])
    except SystemExit as err:
        problems.append(str(err))
    if problems:
        p.error("; ".join(problems))
    return args


def env_config(reward: str) -> dict:
    return {"num_players": 2, "action_mode": "moves", "reward": reward, "max_moves": MAX_MOVES}


def build(args: argparse.Namespace):
    """PPO on the running Ray instance: one env runner, the learner in the driver."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    class QwirkleMovesEnv(MultiAgentDictEnv, MultiAgentEnv):
        """The move-mode env as an RLlib MultiAgentEnv, its rewards scaled."""

        def __init__(self, config: dict | None = None) -> None:
            config = dict(config or {})
            self.scale = config.pop("reward_scale")
            MultiAgentEnv.__init__(self)
            MultiAgentDictEnv.__init__(self, **config)

        def step(self, action_dict):
            obs, rewards, *done = super().step(action_dict)
            return (obs, {a: r * self.scale for a, r in rewards.items()}, *done)

    class MoveRLModule(TorchRLModule, ValueFunctionAPI):
        """MovePolicyNet as an RLlib module: masked logits over the rows, and its value."""

        def setup(self) -> None:
            # RLlib merges its default model options (vf_share_layers, ...) in: keep ours.
            given = self.model_config or {}
            keep = ("hidden", "layers", "points_prior", "value_per_logit")
            size = {k: given[k] for k in keep if k in given}
            self.net = MovePolicyNet(MovePolicyConfig(max_moves=int(self.action_space.n), **size))

        def _run(self, batch: dict) -> tuple[torch.Tensor, torch.Tensor]:
            obs = batch[Columns.OBS]
            return self.net(obs["observations"], obs["action_mask"] > 0)

        def _forward(self, batch: dict, **kwargs) -> dict:
            return {Columns.ACTION_DIST_INPUTS: self._run(batch)[0]}

        def _forward_train(self, batch: dict, **kwargs) -> dict:
            logits, value = self._run(batch)
            return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: value}

        def compute_values(self, batch: dict, embeddings=None) -> torch.Tensor:
            return embeddings if embeddings is not None else self._run(batch)[1]

    config = (
        PPOConfig()
        # RLlib's env check steps an unmasked random action, which the env rightly refuses.
        .environment(
            QwirkleMovesEnv,
            env_config={**env_config(args.reward), "reward_scale": REWARD_SCALE[args.reward]},
            disable_env_checking=True,
        )
        # No sampling timeout: by default RLlib gives up on a runner after 60 s and trains on
        # an empty batch (NaN), which a loaded 2-core machine reaches at 4,000 env steps.
        .env_runners(num_env_runners=1, num_envs_per_env_runner=args.envs, sample_timeout_s=None)
        .learners(num_learners=0)
        .multi_agent(
            policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared"
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    "shared": RLModuleSpec(
                        module_class=MoveRLModule,
                        model_config=net_options(args, REWARD_SCALE[args.reward]),
                    )
                }
            )
        )
        .training(
            train_batch_size_per_learner=args.batch,
            minibatch_size=args.minibatch,
            num_epochs=args.epochs,
            lr=args.lr,
            gamma=0.99,
            lambda_=0.95,
            clip_param=0.2,
            entropy_coeff=args.ent_coef,
            vf_loss_coeff=0.5,
            vf_clip_param=100.0,  # the returns are already scaled
            grad_clip=0.5,
        )
        .debugging(seed=args.seed)
    )
    return config.build_algo()


def learner_net(algo, options: dict) -> MovePolicyNet:
    """A copy of the learner's network (the one the driver trains)."""
    (state,) = algo.learner_group.get_weights(module_ids=["shared"]).values()
    config = MovePolicyConfig(max_moves=algo.config.env_config["max_moves"], **options)
    net = MovePolicyNet(config)
    net.load_state_dict({key.removeprefix("net."): torch.as_tensor(v) for key, v in state.items()})
    return net


def main() -> None:
    args = parse_args()
    from ray_loopback import reexec_on_loopback  # beside this file; stdlib only

    run = reexec_on_loopback(need_namespace=True)  # exec: what follows runs in the namespace
    announce(args, args.max_minutes)
    import ray

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    # Ray starts its workers at niceness 15, so the env runner, which does all the
    # sampling, starves beside any other busy process; this run's workers are its own.
    os.environ.setdefault("RAY_worker_niceness", "0")
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        _temp_dir=str(run.ray_temp_dir),
        runtime_env={"env_vars": {"OMP_NUM_THREADS": "1"}},
    )
    try:
        algo = build(args)
        options = net_options(args, REWARD_SCALE[args.reward])
        train = {"library": "ray rllib PPO (self-play)", "reward": args.reward,
                 "seed": args.seed, "batch": args.batch, "epochs": args.epochs,
                 "lr": args.lr, "prior": args.prior, "ent_coef": args.ent_coef,
                 "value": args.value}  # fmt: skip
        curve_path = args.out.removesuffix(".pt") + "_curve.csv"
        curve = Curve(curve_path, "greedy", args.eval_games, args.out, ("rllib", train))
        start = time.perf_counter()
        curve.point(learner_net(algo, options), 0)
        steps, games, next_point = 0, 0, args.eval_every
        with tqdm(total=args.steps, unit="step", desc="rllib_moves") as bar:
            try:
                while steps < args.steps:
                    result = algo.train()
                    runners = result["env_runners"]
                    now = int(runners["num_env_steps_sampled_lifetime"])
                    if now <= steps:
                        raise RuntimeError(f"the env runner sampled nothing after {steps} steps")
                    games = int(runners.get("num_episodes_lifetime", games))
                    entropy = result["learners"]["shared"]["entropy"]
                    bar.update(now - steps)
                    steps = now
                    bar.set_postfix(games=games, entropy=f"{entropy:.2f}")
                    if next_point <= steps < args.steps:
                        next_point += args.eval_every
                        curve.point(learner_net(algo, options), steps)
                    if args.max_minutes and time.perf_counter() - start > 60 * args.max_minutes:
                        print(f"--max-minutes {args.max_minutes} reached after {steps} env steps")
                        break
            except KeyboardInterrupt:  # Ctrl-C: stop early, keep what was learned
                print(f"interrupted after {steps} env steps: exporting the policy so far")
        net = learner_net(algo, options)
        if curve.rows[-1][0] != steps:  # the last point may already be at these steps
            curve.point(net, steps)
        wall = time.perf_counter() - start
        algo.stop()
    finally:
        ray.shutdown()
    train.update(env_steps=steps, games=games, wall_s=round(wall))
    path = export(net, args.out, "rllib", train, steps)
    print(f"saved {os.path.abspath(path)} after {steps} env steps ({games} games) in "
          f"{wall / 60:.1f} min")  # fmt: skip


if __name__ == "__main__":
    main()
