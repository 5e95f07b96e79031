"""How fast each trainer gathers self-play experience, in learner decisions (whole turns).

    python benchmarks/training_throughput.py                  # about 5 minutes
    python benchmarks/training_throughput.py --seconds 60 --ppo-iterations 2
    python benchmarks/training_throughput.py --shortlists 6 20 --no-ppo

Rows, measured one after the other in one run:

- ``td``: agents.move_value.td's self-play collection (every seat the learner, the default
  temperature), with 1 and with ``--processes`` worker processes, for each shortlist of
  ``--shortlists`` (moves looked at two moves ahead a turn: 6 in self-play by default, 20
  in the shipped agent's fine-tune); then one update on the batch, as
  agents.move_value.td.train does it. The network is untrained (it plays as greedy).
- ``ppo``: agents.tile_ppo.ppo's collection on the AEC envs (rollout_steps learner sub-steps from
  num_envs games stepped together, one batched forward per sub-step), then its update,
  from the tile-level checkpoint's weights after a warm-up of about one game per env (as
  benchmarks/rollout_backends.py does: an untrained policy and fresh games would time only the
  cheap opening positions). A turn there is every sub-step up to and including "end".

A decision is one whole turn of the learner. Collection time is split from update time so
the table shows where a training iteration goes.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.move_value.network import MoveValueNet  # noqa: E402
from agents.move_value.td import TDConfig, fit_values, one_thread, play_task  # noqa: E402


def td_row(processes: int, seconds: float, seed: int, shortlist: int) -> dict:
    """Self-play games until ``seconds`` have passed, then one update on what was played."""
    cfg = TDConfig(processes=processes, shortlist=shortlist)
    net = MoveValueNet()
    layers = net.numpy_layers()
    rng = random.Random(seed)
    tasks = ((layers, rng.randrange(2**62), 2, cfg.temperature_start, None, cfg.win_value,
              cfg.look_ahead())
             for _ in range(10**9))  # fmt: skip
    torch.set_num_threads(1)
    pool = get_context("fork").Pool(processes, initializer=one_thread) if processes > 1 else None
    results = pool.imap_unordered(play_task, tasks, chunksize=2) if pool else map(play_task, tasks)
    trajs, decisions, games = [], 0, 0
    start = time.perf_counter()
    for out, k in results:
        trajs += out
        decisions += k
        games += 1
        if time.perf_counter() - start >= seconds:
            break
    collect = time.perf_counter() - start
    if pool is not None:
        pool.terminate()
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    start = time.perf_counter()
    fit_values(net, opt, trajs, cfg, rng)
    update = time.perf_counter() - start
    return dict(decisions=decisions, games=games, collect_s=collect, update_s=update,
                substeps=None)  # fmt: skip


def ppo_row(iterations: int, num_envs: int, ckpt: str) -> dict:
    """PPO iterations as agents.tile_ppo.ppo.train runs them; turns counted by "end" actions."""
    from agents.checkpoint import load_checkpoint
    from agents.tile_ppo.network import PolicyValueNet
    from agents.tile_ppo.ppo import PPOConfig, make_rollouts, ppo_update

    cfg = PPOConfig(num_envs=num_envs, p_scripted=0.0, p_pool=0.0, scripted="")
    torch.set_num_threads(cfg.threads)
    net = load_checkpoint(ckpt, kind=PolicyValueNet)[0]
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr, eps=1e-5)
    play, buf = make_rollouts(cfg, torch.device("cpu"))
    play.set_pool([net.state_dict()], PolicyValueNet(cfg.net))
    play.collect(net, buf, 100 * num_envs)  # warm-up: a steady mix of early and late boards
    play.remap(buf.carry_pending())
    end = buf.num_actions - 1
    rng = np.random.default_rng(0)
    steps = turns = 0
    collect = update = 0.0
    for _ in range(iterations):
        before = buf.size
        t0 = time.perf_counter()
        play.collect(net, buf, cfg.rollout_steps)
        t1 = time.perf_counter()
        steps += buf.size - before
        turns += int((buf.actions[before : buf.size] == end).sum())
        ppo_update(net, opt, buf, cfg, torch.device("cpu"), rng)
        play.remap(buf.carry_pending())
        update += time.perf_counter() - t1
        collect += t1 - t0
    return dict(decisions=turns, games=None, collect_s=collect, update_s=update, substeps=steps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="TD collection per row")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--shortlists", type=int, nargs="+", default=[6, 20],
                        help="TD look-ahead shortlists, a pair of rows each")  # fmt: skip
    parser.add_argument("--no-ppo", action="store_true", help="skip the PPO row")
    parser.add_argument("--ppo-iterations", type=int, default=2)
    parser.add_argument("--ppo-ckpt", default="checkpoints/tile_ppo.pt", help="its weights")
    parser.add_argument("--ppo-envs", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rows = []
    for k in args.shortlists:
        for n in (1, args.processes):
            name = f"td (agents.move_value.td), shortlist {k}, {n} process{'es' * (n > 1)}"
            rows.append((name, td_row(n, args.seconds, args.seed, k)))
    if not args.no_ppo:
        rows.append((f"ppo (agents.tile_ppo.ppo, aec, {args.ppo_envs} envs)",
                     ppo_row(args.ppo_iterations, args.ppo_envs, args.ppo_ckpt)))  # fmt: skip
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"python {platform.python_version()}, {os.cpu_count()} CPUs, wall clock, "
          f"load average {load:.1f} at the end")  # fmt: skip
    print("| trainer | learner turns/s (collection) | sub-steps/s (collection) | collection s "
          "| update s | update share | learner turns/s (whole iteration) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for name, r in rows:
        sub = "" if r["substeps"] is None else f"{r['substeps'] / r['collect_s']:.0f}"
        share = r["update_s"] / (r["update_s"] + r["collect_s"])
        rate = r["decisions"] / r["collect_s"]
        whole = r["decisions"] / (r["collect_s"] + r["update_s"])
        print(f"| {name} | {rate:.0f} | {sub} | {r['collect_s']:.1f} | {r['update_s']:.2f} "
              f"| {share:.0%} | {whole:.0f} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
