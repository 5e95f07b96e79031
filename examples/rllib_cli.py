"""Command line of examples/rllib_selfplay.py, kept free of Ray so that CI checks it.

Every knob that changes how the run is spread over a cluster is an option, and impossible
combinations fail here, before Ray starts anything.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Ray RLlib: PPO self-play, one shared masked policy for every seat."
    )
    p.add_argument("--smoke", action="store_true", help="2 iterations of 500 steps, 4 games")
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--env-runners", type=int, default=2, help="sampling actors (1 CPU each)")
    p.add_argument(
        "--envs-per-runner",
        type=int,
        default=1,
        help="games per env runner (num_envs_per_env_runner)",
    )
    p.add_argument(
        "--num-learners",
        type=int,
        default=0,
        help="learner actors; 0 trains in the driver, where every sample then arrives",
    )
    p.add_argument("--gpus-per-learner", type=float, default=0.0)
    p.add_argument("--batch", type=int, default=2000, help="env steps per iteration, in all")
    p.add_argument("--minibatch", type=int, default=250, help="SGD minibatch, in env steps")
    p.add_argument("--epochs", type=int, default=2, help="passes over each batch")
    p.add_argument("--window", type=int, default=21)
    p.add_argument("--games", type=int, default=10, help="evaluation games against random")
    p.add_argument(
        "--address",
        default=None,
        help="'auto' or HOST:PORT joins a running cluster; without it the run starts its own "
        "local Ray instance on loopback (examples/ray_loopback.py)",
    )
    p.add_argument(
        "--runtime-env",
        default=None,
        help='a JSON object for ray.init(runtime_env=...), e.g. \'{"working_dir": "examples"}\'',
    )
    p.add_argument(
        "--out",
        default=None,
        help="checkpoint folder; default runs/rllib_selfplay_{smoke,local,cluster} by run type",
    )
    return p


def default_out(args: argparse.Namespace) -> str:
    """One default folder per run type, so a smoke run never overwrites a real one."""
    kind = "smoke" if args.smoke else "cluster" if args.address else "local"
    return f"runs/rllib_selfplay_{kind}"


def resource_problems(args: argparse.Namespace, cpus: float, gpus: float) -> list[str]:
    """What the options ask of the cluster beyond what it has (``ray.cluster_resources()``):
    RLlib would otherwise wait for the missing CPUs without a word. Each env runner takes
    one CPU, each learner one CPU without a GPU (RLlib's "auto"), the driver none here."""
    learner_cpus = args.num_learners if args.gpus_per_learner == 0 else 0
    need_cpus = args.env_runners + learner_cpus
    problems = []
    if need_cpus > cpus:
        problems.append(
            f"the run needs {need_cpus} CPUs ({args.env_runners} env runners"
            + (f" + {learner_cpus} learners" if learner_cpus else "")
            + f", 1 CPU each) but the cluster has {cpus:g}; lower --env-runners"
            + (" or --num-learners" if learner_cpus else "")
            + " or add CPUs (ray start --num-cpus, more nodes)"
        )
    need_gpus = args.num_learners * args.gpus_per_learner
    if need_gpus > gpus:
        problems.append(
            f"--num-learners {args.num_learners} x --gpus-per-learner {args.gpus_per_learner:g} "
            f"needs {need_gpus:g} GPUs but the cluster has {gpus:g}"
        )
    return problems


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The options, checked; ``args.runtime_env`` comes back parsed (a dict or None)."""
    p = parser()
    args = p.parse_args(argv)
    if args.smoke:
        args.iters, args.batch, args.games = 2, 500, 4
        args.minibatch = min(args.minibatch, args.batch)
    problems = []
    for name, low in (
        ("iters", 1),
        ("env_runners", 0),
        ("envs_per_runner", 1),
        ("num_learners", 0),
        ("batch", 1),
        ("minibatch", 1),
        ("epochs", 1),
        ("games", 0),
    ):
        if getattr(args, name) < low:
            problems.append(
                f"--{name.replace('_', '-')} must be >= {low}, got {getattr(args, name)}"
            )
    if args.window < 11:
        problems.append(f"--window must be >= 11 (the env's minimum), got {args.window}")
    if args.gpus_per_learner < 0:
        problems.append(f"--gpus-per-learner must be >= 0, got {args.gpus_per_learner}")
    if args.gpus_per_learner > 0 and args.num_learners == 0:
        problems.append(
            "--gpus-per-learner needs --num-learners >= 1 (with 0 the learner is the driver, "
            "which this example keeps on CPU)"
        )
    learners = max(1, args.num_learners)
    if args.num_learners > 1 and args.batch % args.num_learners:
        problems.append(
            f"--batch {args.batch} must split evenly over --num-learners {args.num_learners} "
            "(each learner trains on batch / num_learners env steps)"
        )
    elif args.batch // learners < args.minibatch:
        problems.append(
            f"--minibatch {args.minibatch} is larger than each learner's batch "
            f"({args.batch} env steps / {learners} learner(s) = {args.batch // learners}); "
            "lower --minibatch or raise --batch"
        )
    if args.runtime_env is not None:
        try:
            runtime_env = json.loads(args.runtime_env)
        except json.JSONDecodeError as err:
            problems.append(f"--runtime-env is not valid JSON ({err}): {args.runtime_env!r}")
        else:
            if not isinstance(runtime_env, dict):
                problems.append(
                    "--runtime-env must be a JSON object such as "
                    f'\'{{"working_dir": "examples"}}\', got {args.runtime_env!r}'
                )
            args.runtime_env = runtime_env
    if problems:
        p.error("; ".join(problems))
    if args.out is None:
        args.out = default_out(args)
    return args
