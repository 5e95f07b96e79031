"""Train, evaluate and play Qwirkle agents from the command line: ``qwirkle ...`` once
installed, ``python train.py ...`` in a checkout (the same ``main``).

    python train.py                       # the default run: TD self-play, then a table
    python train.py train --name long --total-games 30000 ...
    python train.py ppo --total-steps 6000 ...   # the tile-level masked-PPO learner
    python train.py evaluate --agents learned greedy --games 400
    python train.py distil --games 600   # the network learns from its own search
    python train.py rollout-values --games 800   # ... from its search's simulated values
    python train.py play --opponent learned
    python train.py serve                 # the showdown page ([web] extra)

Every hyper-parameter of a training config (agents.move_value.td.TDConfig,
agents.tile_ppo.ppo.PPOConfig, ...) is an option of its command; `COMMAND --help` lists
them with their defaults.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from qwirkle_cli import analyse, bench, from_search, matches, training


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="qwirkle" if Path(sys.argv[0]).name == "qwirkle" else "train.py",
        description=__doc__,
        formatter_class=argparse.RawTextHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command")
    training.add_parsers(sub)
    matches.add_parsers(sub)
    from_search.add_parsers(sub)
    bench.add_parsers(sub)
    analyse.add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        argv = ["train", *argv]
    args = build_parser().parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    main()
