"""Ray RLlib (new API stack): PPO self-play, one shared masked policy for every seat.

    pip install -e ".[rllib]"
    python examples/rllib_selfplay.py --smoke             # 2 env runners, 2 iterations
    python examples/rllib_selfplay.py --iters 200 --env-runners 8 --address auto  # a cluster

Without ``--address`` the run starts its own Ray instance and keeps it on loopback
(examples/ray_loopback.py: a private network namespace where one can be made).

``QwirkleMultiAgentEnv`` adapts the AEC env to RLlib's ``MultiAgentEnv``: only the agent to
move gets an observation; everyone gets one (and their reward) when the episode ends, marked
terminated when the game ended and truncated when the window showed none of the mover's
legal moves (``qwirkle_env.multi_agent``). The observation dict is renamed to what RLlib's
``ActionMaskingTorchRLModule`` reads: "observations" and a float32 "action_mask" (the module
adds log(mask) to the logits). Reward "win" (zero-sum, paid at the end) suits self-play.
Window 21 (15,913 actions): smaller windows truncate more games (docs/integrations.md).
Options and their checks: examples/rllib_cli.py (``--help``). Cluster: docs/rllib_cluster.md.
"""

from __future__ import annotations

import json
import os
import time

import numpy as np
import ray
import torch
from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from qwirkle_env.multi_agent import MultiAgentDictEnv

WINDOW = 21


class QwirkleMultiAgentEnv(MultiAgentDictEnv, MultiAgentEnv):
    """qwirkle_v0 as an RLlib MultiAgentEnv; ``config`` goes to ``raw_env`` (window, ...).

    The stepping logic (who observes, terminated vs truncated) is
    ``qwirkle_env.multi_agent.MultiAgentDictEnv``, tested without Ray.
    """

    def __init__(self, config: dict | None = None) -> None:
        MultiAgentEnv.__init__(self)
        MultiAgentDictEnv.__init__(self, **{"window": WINDOW, "reward": "win", **(config or {})})


def config(
    env_runners: int = 2,
    batch: int = 1000,
    window: int = WINDOW,
    envs_per_runner: int = 1,
    num_learners: int = 0,
    gpus_per_learner: float = 0.0,
    minibatch: int = 250,
    epochs: int = 2,
) -> PPOConfig:
    """Self-play: every agent maps to the one trained module "shared". ``batch`` is the env
    steps of one iteration, split evenly over the learners (rllib_cli checks that)."""
    module = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={"fcnet_hiddens": [128], "head_fcnet_hiddens": [128]},
    )
    return (
        PPOConfig()
        # RLlib's env check steps an unmasked random action, which the env rightly refuses.
        .environment(QwirkleMultiAgentEnv, env_config={"window": window}, disable_env_checking=True)
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=envs_per_runner)
        # 0: the learner runs in the driver; >0 spawns learner actors (DDP between them)
        .learners(num_learners=num_learners, num_gpus_per_learner=gpus_per_learner)
        .multi_agent(
            policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared"
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
        .training(
            train_batch_size_per_learner=batch // max(1, num_learners),
            minibatch_size=minibatch,
            num_epochs=epochs,
            lr=3e-4,
        )
    )


def greedy_action(module: RLModule, obs: dict) -> int:
    """The module's masked argmax for one observation of QwirkleMultiAgentEnv."""
    batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in obs.items()}}
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    return int(logits[0].argmax())


def evaluate(module: RLModule, games: int, seed: int = 100, window: int = WINDOW) -> dict:
    """The trained module as player_0 against uniform random; an illegal move would raise.
    A truncated game (the window lost every legal move) counts in "truncated", not in the
    scores."""
    rng = np.random.default_rng(seed)
    wins, truncated, scores = 0, 0, []
    for g in range(games):
        env = QwirkleMultiAgentEnv({"window": window})
        obs, _ = env.reset(seed=seed + g)
        while True:
            ((agent, o),) = obs.items()
            if agent == "player_0":
                action = greedy_action(module, o)
            else:
                action = int(rng.choice(np.flatnonzero(o["action_mask"])))
            obs, _, terminateds, truncateds, _ = env.step({agent: action})
            if terminateds["__all__"] or truncateds["__all__"]:
                break
        if truncateds["__all__"]:
            truncated += 1
            continue
        scores.append(env.env.game.scores)
        wins += 0 in env.env.game.winners()
    mean = np.mean(scores, axis=0).tolist() if scores else []
    return {"games": games, "wins": wins, "truncated": truncated, "mean_scores": mean}


def env_runner_nodes(algo: Algorithm) -> list[str]:
    """The Ray node id of every remote env runner (which machine sampled)."""
    return algo.env_runner_group.foreach_env_runner(
        lambda runner: ray.get_runtime_context().get_node_id(), local_env_runner=False
    )


def train(iters: int, env_runners: int = 2, batch: int = 2000, **options) -> Algorithm:
    """Builds PPO on the running Ray instance and trains ``iters`` iterations; ``options``
    go to :func:`config`."""
    algo = config(env_runners, batch, **options).build_algo()
    for i in range(iters):
        start = time.perf_counter()
        result = algo.train()
        runners, learner = result["env_runners"], result["learners"]["shared"]
        print(
            f"iter {i + 1}: {runners['num_env_steps_sampled_lifetime']:.0f} env steps from "
            f"{algo.env_runner_group.num_healthy_remote_env_runners()} env runners, "
            f"{runners.get('num_episodes_lifetime', 0):.0f} games, "
            f"entropy {learner['entropy']:.3f}, {time.perf_counter() - start:.1f} s",
            flush=True,
        )
    return algo


def start_ray(args) -> None:
    """Joins ``--address``, or starts a fresh local instance that stays on loopback: the
    program re-executes itself first (examples/ray_loopback.py), never joins a running
    instance (``address="local"``, its own temp dir) and fails before training when the
    cluster has fewer CPUs or GPUs than the options ask for."""
    from rllib_cli import resource_problems

    if args.address is None:
        from ray_loopback import reexec_on_loopback

        run = reexec_on_loopback()  # exec: the lines below run in the re-executed program
        ray.init(
            address="local",
            include_dashboard=False,
            runtime_env=args.runtime_env,
            _temp_dir=str(run.ray_temp_dir),
        )
    else:
        ray.init(address=args.address, include_dashboard=False, runtime_env=args.runtime_env)
    resources = ray.cluster_resources()
    problems = resource_problems(args, resources.get("CPU", 0), resources.get("GPU", 0))
    if problems:
        ray.shutdown()
        raise SystemExit("error: " + "; ".join(problems))


def main() -> None:
    from rllib_cli import parse_args  # beside this file; Ray-free, so CI tests it

    args = parse_args()  # fails on impossible combinations before Ray starts
    start_ray(args)
    algo = train(
        args.iters,
        args.env_runners,
        args.batch,
        window=args.window,
        envs_per_runner=args.envs_per_runner,
        num_learners=args.num_learners,
        gpus_per_learner=args.gpus_per_learner,
        minibatch=args.minibatch,
        epochs=args.epochs,
    )
    alive = [n for n in ray.nodes() if n["Alive"]]
    print("cluster nodes:", json.dumps(sorted(n["NodeID"] for n in alive)))
    print("node addresses:", json.dumps(sorted(n["NodeManagerAddress"] for n in alive)))
    print("env runner nodes:", json.dumps(env_runner_nodes(algo)), flush=True)
    print("saved", algo.save_to_path(os.path.abspath(args.out)))  # wants an absolute path
    print("vs random:", evaluate(algo.get_module("shared"), args.games, window=args.window))
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
