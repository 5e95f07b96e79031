"""``evaluate``, ``play`` and ``serve``: games between agents, against you in the terminal,
or in the browser."""

from __future__ import annotations

import argparse
import time

from qwirkle_cli.options import SubCommands, command


def add_parsers(sub: SubCommands) -> None:
    e = command(
        sub, "evaluate", cmd_evaluate, "duplicate-deal tournament (agents.evaluation.harness)"
    )
    e.add_argument(
        "--agents",
        nargs="+",
        required=True,
        help="agent specs, the first against each other: ckpt:PATH greedy random",
    )
    e.add_argument("--games", type=int, default=400, help="duplicate games per lineup")
    e.add_argument("--players", type=int, default=2, help="seats per game")
    e.add_argument("--seed", type=int, default=0, help="deal seed")
    e.add_argument("--processes", type=int, default=2, help="worker processes")
    e.add_argument("--out", default=None, help="folder for CSV/JSON/plot (default: none written)")
    e.add_argument("--threads", type=int, default=1, help="torch CPU threads per process")
    e.add_argument(
        "--fast", action="store_true",
        help="first agent a ckpt: play all its games at once with one batched forward per\n"
        "step (same duplicate deals, 2 players; much faster than batch-1 workers)",
    )  # fmt: skip
    p = command(sub, "play", cmd_play, "play against an agent in the terminal")
    p.add_argument("--opponent", default="greedy", help="agent spec, e.g. ckpt:PATH")
    p.add_argument("--seat", type=int, default=0, choices=(0, 1), help="your seat")
    p.add_argument("--seed", type=int, default=None, help="deal seed (default: random)")
    p.add_argument("--no-color", action="store_true", help="plain text board")
    s = command(sub, "serve", cmd_serve, "play, watch and replay in the browser ([web] extra)")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on")
    s.add_argument("--port", type=int, default=8000, help="TCP port")
    s.add_argument(
        "--ckpt",
        action="append",
        default=[],
        help="a checkpoint to offer besides the registered agents (repeatable)",
    )
    s.add_argument(
        "--public",
        action="store_true",
        help="allow a non-loopback --host: anyone who can reach it may play (no login)",
    )
    s.add_argument(
        "--allow-host",
        action="append",
        default=[],
        help="a name people use to reach the server (Host header), besides --host (repeatable)",
    )


def cmd_evaluate(args: argparse.Namespace) -> None:
    import torch

    from agents.evaluation.harness import run_tournament

    torch.set_num_threads(args.threads)  # 1: much faster when the cores are shared
    if args.fast:
        return fast_evaluate(args)
    res = run_tournament(args.agents, args.games, args.players, seed=args.seed,
                         processes=args.processes, out_dir=args.out)  # fmt: skip
    print(res.table())


def fast_evaluate(args: argparse.Namespace) -> None:
    """The checkpoint against each other agent, all games batched (agents.tile_ppo.quickeval)."""
    from agents.checkpoint import load_checkpoint
    from agents.evaluation.stats import wilson
    from agents.registry import checkpoint_path
    from agents.tile_ppo.network import PolicyValueNet
    from agents.tile_ppo.quickeval import win_rate
    from qwirkle_env.spec import DEFAULT_WINDOW

    first = args.agents[0]
    path = checkpoint_path(first)
    if path is None or args.players != 2:
        raise SystemExit("--fast needs a checkpoint first (ckpt:PATH, tile-ppo) and 2 players")
    try:
        net, _ = load_checkpoint(path, kind=PolicyValueNet)
    except ValueError as err:
        raise SystemExit(f"--fast batches tile-level PPO policies only: {err}") from None
    print("| agent | opponent | games | win share | 95% CI | mean margin | wall s |")
    print("|---|---|---|---|---|---|---|")
    for opp in args.agents[1:]:
        start = time.time()
        r = win_rate(net, opp, args.games, DEFAULT_WINDOW, seed=args.seed)
        lo, hi = wilson(r["win_rate"] * r["games"], r["games"])
        print(f"| {first} | {opp} | {r['games']} | {r['win_rate']:.1%} | {lo:.1%}-{hi:.1%} "
              f"| {r['margin']:+.1f} | {time.time() - start:.0f} |", flush=True)  # fmt: skip


def cmd_play(args: argparse.Namespace) -> None:
    from agents.human import play_human

    try:
        play_human(args.opponent, args.seat, args.seed, color=not args.no_color)
    except (EOFError, KeyboardInterrupt):
        print("\nbye")


def cmd_serve(args: argparse.Namespace) -> None:
    try:
        from showdown.app import serve
    except ModuleNotFoundError as err:
        raise SystemExit(f"serve needs the web extra: pip install -e '.[web]' ({err})") from None
    serve(args.host, args.port, args.ckpt, public=args.public, allow_hosts=args.allow_host)
