"""``qwirkle bench``: rate any agent on the benchmark's fixed ladder (agents.benchmark).

    qwirkle bench --agent learned                 # a registry spec
    qwirkle bench --agent my_bot.py:policy        # your own code: a function or an Agent
    qwirkle bench --agent mypkg.bots:MyAgent --players 3
    qwirkle bench --compare runs/bench/a/bench.json runs/bench/b/bench.json
    qwirkle bench --ladder                        # re-rate the references (hours with search)
    qwirkle bench --leaderboard runs/bench/*/bench.json   # writes docs/leaderboard.md

A plugin that cannot be imported, or that forfeits every game, stops the command with exit
status 2 and a message naming it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from qwirkle_cli.options import SubCommands, command

EXIT_BAD_AGENT = 2


def add_parsers(sub: SubCommands) -> None:
    """The ``bench`` sub-command's options."""
    b = command(
        sub, "bench", cmd_bench,
        "rate an agent (a spec, or your code as file.py:NAME / module:NAME) on the "
        "benchmark's ladder",
    )  # fmt: skip
    what = b.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--agent",
        help="the agent to rate: a registry spec or a plugin (default: none; one of --agent, "
        "--ladder, --leaderboard, --compare is required)",
    )
    what.add_argument("--ladder", action="store_true", help="play and rate the references")
    what.add_argument(
        "--leaderboard", nargs="*", metavar="BENCH_JSON",
        help="write the leaderboard from the ratings file and these bench results (default: none)",
    )  # fmt: skip
    what.add_argument(
        "--compare", nargs=2, metavar="BENCH_JSON", help="paired test of two (default: none)"
    )
    b.add_argument(
        "--players", type=int, default=None,
        help="seats per game: 2, 3 or 4 (default: 2; --ladder: all three)",
    )  # fmt: skip
    b.add_argument("--processes", type=int, default=2, help="worker processes (default 2)")
    b.add_argument(
        "--out",
        default=None,
        help="folder for bench.json, bench.md, ladder.png (default: none, nothing written)",
    )
    b.add_argument(
        "--deals", type=int, default=None,
        help="deals spread after the probe (default: the protocol's, the only comparable one)",
    )  # fmt: skip
    b.add_argument("--to", default="docs/leaderboard.md", help="--leaderboard: the page written")
    b.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    b.add_argument(
        "--ray", default=None, metavar="ADDRESS",
        help="play the games as tasks of this Ray cluster ('auto': the one `ray start` made;\n"
        "[rllib] extra; docs/rllib_cluster.md) instead of --processes local workers\n"
        "(default: none)",
    )  # fmt: skip


def cmd_bench(args: argparse.Namespace) -> None:
    import torch

    from agents.benchmark import protocol
    from agents.benchmark.bench import BenchError, bench, rating_text
    from agents.benchmark.report import file_stem, save_bench

    torch.set_num_threads(args.threads)
    if args.processes < 1:
        raise SystemExit(f"--processes must be at least 1, got {args.processes}")
    if args.ray is not None:
        _join_ray(args.ray)
    if args.ladder:
        return _ladder(args)
    if args.leaderboard is not None:
        return _leaderboard(args)
    if args.compare:
        return _compare(args)
    players = 2 if args.players is None else args.players
    try:
        result = bench(
            args.agent, players, processes=args.processes, extra_deals=args.deals,
            on_ray=args.ray is not None,
        )  # fmt: skip
    except BenchError as err:
        print(f"bench: {err}", file=sys.stderr)
        raise SystemExit(EXIT_BAD_AGENT) from None
    except (protocol.ProtocolError, ValueError) as err:
        raise SystemExit(f"bench: {err}") from None
    out = Path(args.out or f"runs/bench/{file_stem(args.agent)}-{players}p")
    paths = save_bench(result, out)
    print(rating_text(result))
    print(f"\nwrote {paths['json']}, {paths['table']} and {paths['plot']}")


def _join_ray(address: str) -> None:
    try:
        import ray
    except ImportError:
        raise SystemExit("--ray needs Ray: pip install -e '.[rllib]'") from None
    ray.init(address=address, include_dashboard=False)


def _ladder(args: argparse.Namespace) -> None:
    from agents.benchmark import protocol
    from agents.benchmark.ladder import play_ladder, write_ladder

    seats = protocol.PLAYERS if args.players is None else (args.players,)
    try:
        for n in seats:
            protocol.check_players(n)
    except ValueError as err:
        raise SystemExit(f"bench --ladder: {err}") from None
    command = "qwirkle bench --ladder" + (f" --players {args.players}" if args.players else "")
    for n in seats:
        out = Path(args.out or "runs/ladder") / f"{n}p"
        entry = play_ladder(n, processes=args.processes, out_dir=out, on_ray=args.ray is not None)
        path = write_ladder({n: entry}, command=command + f" --processes {args.processes}")
        print(f"{n} players: {entry['games']} games, {entry['wall_s']:.0f} s wall; wrote {path}")
        for ref in sorted(entry["references"], key=lambda r: -r["rating"]):
            print(f"  {ref['rating']:7.0f}  {ref['spec']}")


def _leaderboard(args: argparse.Namespace) -> None:
    from agents.benchmark.leaderboard import leaderboard

    try:
        page = leaderboard([Path(p) for p in args.leaderboard])
    except (OSError, ValueError, KeyError) as err:
        raise SystemExit(f"bench --leaderboard: {err}") from None
    Path(args.to).write_text(page)
    print(f"wrote {args.to}")


def _compare(args: argparse.Namespace) -> None:
    from agents.benchmark.paired import paired

    try:
        a, b = (json.loads(Path(p).read_text()) for p in args.compare)
        out = paired(a, b)
    except (OSError, ValueError, KeyError) as err:
        raise SystemExit(f"bench --compare: {err}") from None
    print(
        f"{out['a']} minus {out['b']} on {out['games']} shared games: margin "
        f"{out['margin_difference']:+.2f} (95% interval {out['ci_low']:+.2f} to "
        f"{out['ci_high']:+.2f}); won where the other lost: {out['only_a_won']} and "
        f"{out['only_b_won']}"
    )
