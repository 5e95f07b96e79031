"""``distil`` and ``rollout-values``: the learned network learns from the search it
proposes moves for, by copying the search's choices (agents.move_value.distil) or by
fitting the values its simulations give each move (agents.move_value.rollout_values).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agents.move_value.distil import DistilConfig
from agents.move_value.rollout_values import RolloutConfig
from qwirkle_cli.options import SubCommands, add_fields, command, config_of


def add_parsers(sub: SubCommands) -> None:
    d = command(
        sub,
        "distil",
        cmd_distil,
        "one round of expert iteration: the learned network learns from its own search",
    )
    d.add_argument(
        "--start",
        default=None,
        help="the network to start from (default: the shipped 2-player TD network)",
    )
    d.add_argument("--to", default="runs/distil/distilled.pt", help="the checkpoint written")
    add_fields(d, DistilConfig, skip=("sims",))
    r = command(
        sub,
        "rollout-values",
        cmd_rollout_values,
        "fit a 1-ply network to the values the search's simulations give each move",
    )
    r.add_argument(
        "--start",
        default=None,
        help="the network that plays the games (default: the shipped 2-player TD network)",
    )
    r.add_argument("--to", default="runs/rollout_values/net.pt", help="the checkpoint written")
    r.add_argument(
        "--save-positions", default=None, metavar="PATH",
        help="also write the positions this run values (.npz), for a later round's fit"
        " (default: none written)",
    )  # fmt: skip
    r.add_argument(
        "--positions", nargs="+", default=[], metavar="PATH",
        help="earlier rounds' saved positions, fitted on before this run's own (alone with"
        " --games 0)",
    )  # fmt: skip
    r.add_argument(
        "--judge", default=None, metavar="PATH",
        help="with --leaf 1: the network that values the leaves (default: the shipped TD network)",
    )  # fmt: skip
    add_fields(r, RolloutConfig)


def start_network(args: argparse.Namespace) -> Path:
    """``--start``, or the shipped 2-player TD network."""
    return Path(args.start) if args.start else shipped_td_network()


def shipped_td_network() -> Path:
    from agents.registry import value_paths

    return value_paths()[2]


def cmd_distil(args: argparse.Namespace) -> Path:
    from agents.move_value.distil import distil

    cfg = config_of(DistilConfig, args, skip=("sims",))
    start = start_network(args)
    path = distil(start, args.to, cfg)
    print(f"wrote {path}: evaluate it with python train.py evaluate --agents ckpt:{path} greedy")
    return path


def cmd_rollout_values(args: argparse.Namespace) -> Path:
    from agents.loading import value_agent
    from agents.move_value.rollout_values import rollout_values
    from agents.move_value.valued import load_positions
    from agents.registry import recorded_name

    cfg = config_of(RolloutConfig, args)
    start = start_network(args)
    if cfg.games == 0 and not args.positions:
        raise SystemExit("--games 0 fits on saved positions alone: name them with --positions")
    for flag, given in (("--save-positions", args.save_positions), ("--start", args.start),
                        ("--judge", args.judge)):  # fmt: skip
        if cfg.games == 0 and given:
            raise SystemExit(f"{flag} with --games 0: no game is played, so it would do nothing")
    if args.judge and not cfg.leaf:
        raise SystemExit("--judge values the leaves of --leaf 1 only: add --leaf 1 or drop it")
    judge_path = Path(args.judge) if args.judge else shipped_td_network()
    try:
        player = value_agent(start).network(2)  # the games are 2-player games
        judge = value_agent(judge_path).network(2).layers if cfg.leaf else None
        earlier = [d for path in args.positions for d in load_positions(path)]
    except ValueError as err:
        raise SystemExit(str(err)) from None
    played_by = recorded_name(start) if cfg.games else None  # no games: no network played
    meta = {"rollout_values_from": played_by, "earlier_positions": list(args.positions)}
    if judge is not None:
        meta["leaves_judged_by"] = recorded_name(judge_path)
    path = rollout_values(player.layers, args.to, cfg, meta, earlier, args.save_positions,
                          judge)  # fmt: skip
    print(f"wrote {path}: evaluate it with python train.py evaluate --agents ckpt:{path} greedy")
    return path
