"""Trainer throughput per rollout backend: PPO iterations exactly as ``agents.tile_ppo.ppo.train``
runs them (collect ``rollout_steps`` learner transitions, update, carry pending ones over).

    python benchmarks/rollout_backends.py --backends aec vector --num-envs 16 64

Prints a markdown table: learner transitions per second of collection, agent-steps
(every seat's sub-steps) per second of collection, the share of collection spent in the
networks' forward passes, the update's time, and whole-iteration learner steps/s.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.tile_ppo.network import PolicyValueNet  # noqa: E402
from agents.tile_ppo.ppo import PPOConfig, make_rollouts, ppo_update  # noqa: E402


def measure(cfg: PPOConfig, iterations: int, initial: dict | None) -> dict:
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    device = torch.device(cfg.device)
    net = PolicyValueNet(cfg.net).to(device).eval()
    if initial is not None:
        net.load_state_dict(initial)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr, eps=1e-5)
    play, buf = make_rollouts(cfg, device)
    play.set_pool([net.state_dict()], PolicyValueNet(cfg.net).to(device))
    rng = np.random.default_rng(cfg.seed)
    # warm-up, about one game per slot: a steady mix of early and late positions (a late
    # board costs the network more), numba's cache and torch's first calls
    play.collect(net, buf, 100 * cfg.num_envs)
    play.remap(buf.carry_pending())
    totals = dict(steps=0, agent_steps=0, collect_s=0.0, forward_s=0.0, update_s=0.0)
    for _ in range(iterations):
        before, agent_steps, forward_s = buf.size, play.agent_steps, play.forward_s
        t0 = time.perf_counter()
        play.collect(net, buf, cfg.rollout_steps)
        t1 = time.perf_counter()
        totals["steps"] += buf.size - before
        ppo_update(net, opt, buf, cfg, device, rng)
        play.remap(buf.carry_pending())
        totals["update_s"] += time.perf_counter() - t1
        totals["collect_s"] += t1 - t0
        totals["agent_steps"] += play.agent_steps - agent_steps
        totals["forward_s"] += play.forward_s - forward_s
    return totals


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backends", nargs="+", default=["aec", "vector"])
    p.add_argument("--num-envs", type=int, nargs="+", default=[16, 64])
    p.add_argument("--iterations", type=int, default=2, help="PPO iterations per row")
    p.add_argument("--rollout-steps", type=int, default=PPOConfig.rollout_steps)
    p.add_argument("--p-scripted", type=float, default=0.0, help="aec only (default 0)")
    p.add_argument("--ckpt", default=None, help="start from this checkpoint's weights")
    p.add_argument("--threads", type=int, default=PPOConfig.threads)
    args = p.parse_args(argv)
    initial = None
    if args.ckpt:
        from agents.checkpoint import load_checkpoint

        initial = load_checkpoint(args.ckpt, kind=PolicyValueNet)[0].state_dict()
    print("| backend | num_envs | learner steps/s (collect) | agent-steps/s (collect) "
          "| forward share of collect | update s per 1k steps | iteration steps/s |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for num_envs in args.num_envs:
        for backend in args.backends:
            cfg = PPOConfig(
                backend=backend, num_envs=num_envs, rollout_steps=args.rollout_steps,
                p_scripted=args.p_scripted if backend == "aec" else 0.0, threads=args.threads,
                scripted=PPOConfig.scripted if backend == "aec" and args.p_scripted else "",
            )  # fmt: skip
            t = measure(cfg, args.iterations, initial)
            steps = t["steps"]
            print(
                f"| {backend} | {num_envs} | {steps / t['collect_s']:.0f} "
                f"| {t['agent_steps'] / t['collect_s']:.0f} "
                f"| {t['forward_s'] / t['collect_s']:.0%} "
                f"| {1000 * t['update_s'] / steps:.1f} "
                f"| {steps / (t['collect_s'] + t['update_s']):.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
