"""How fast ``rollout-values`` fits its network, in positions a second.

    python benchmarks/fit_speed.py                  # about a minute
    python benchmarks/fit_speed.py --positions 20000 --repeats 3

Each gradient step of ``agents.move_value.fit.fit`` runs the network twice: on
the rows as the look ahead filled them, and on the same rows before the look, whose type
block is zero. Rows:

- ``encoder on every row``: the second pass runs the per-type encoder on those zero
  blocks, as the fit did before the shortcut;
- ``zero blocks once``: the second pass gives the network ``looked=False``, and the encoder
  runs on one zero block (what ``fit`` does).

The positions are random rows of the fitted network's width (the time does not depend on
the numbers); torch on 2 threads, as the command runs by default on this machine. The two
rows alternate ``--repeats`` times in one run, so a busy machine slows both alike.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from agents.move_value.features import NUM_MOVE_FEATURES
from agents.move_value.fit import before_look
from agents.move_value.network import MoveValueNet, ValueNetConfig
from agents.move_value.rollout_values import RolloutConfig


def seconds_per_pass(rows: torch.Tensor, shortcut: bool, batch: int) -> tuple[float, float]:
    """(wall, CPU) seconds for one epoch of the fit's forward and backward passes."""
    cfg = RolloutConfig()
    torch.manual_seed(0)
    net = MoveValueNet(ValueNetConfig(hidden=cfg.hidden, encoder=cfg.encoder))
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    wall, cpu = time.perf_counter(), time.process_time()
    for b in range(0, len(rows), batch):
        looked = rows[b : b + batch]
        plain = before_look(looked)
        second = net(plain, looked=False) if shortcut else net(plain)
        loss = net(looked).square().mean() + second.square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20_000)
    parser.add_argument("--moves", type=int, default=20, help="moves a position (shortlist)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    gen = np.random.default_rng(0)
    rows = torch.from_numpy(
        gen.random((args.positions, args.moves, NUM_MOVE_FEATURES), dtype=np.float32)
    )
    batch = RolloutConfig().batch
    found: dict[str, list[tuple[float, float]]] = {}
    for _ in range(args.repeats):
        for name, shortcut in (("encoder on every row", False), ("zero blocks once", True)):
            found.setdefault(name, []).append(seconds_per_pass(rows, shortcut, batch))
    print(f"{args.positions} positions of {args.moves} moves, batch {batch}, "
          f"{args.threads} torch threads, best of {args.repeats}\n")  # fmt: skip
    print("| fit's second pass | positions / s (wall) | CPU s per 10,000 positions |")
    print("|---|---|---|")
    for name, times in found.items():
        wall, cpu = min(times)
        print(f"| {name} | {args.positions / wall:,.0f} | {cpu * 10_000 / args.positions:.1f} |")


if __name__ == "__main__":
    main()
