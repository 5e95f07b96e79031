"""Train, evaluate and play Qwirkle agents from the command line: ``qwirkle ...`` once
installed, ``python train.py ...`` in a checkout (the same ``main``).

    python train.py                       # the default run: TD self-play, then a table
    python train.py train --name long --total-games 30000 ...
    python train.py ppo --total-steps 6000 ...   # the tile-level masked-PPO learner
    python train.py evaluate --agents learned greedy --games 400
    python train.py distil --games 600   # the network learns from its own search
    python train.py rollout-values --games 800   # ... from its search's simulated values
    python train.py play --opponent learned

``train`` (the default) trains the move-value network by TD(lambda) self-play
(agents.move_value.td); ``ppo`` trains the tile-level policy on the env's own action space
(agents.tile_ppo.ppo); ``distil`` fine-tunes the move-value network on the choices of
the search it proposes for (agents.move_value.distil); ``rollout-values`` fits a network
to the values the search's simulations give the moves of self-play positions
(agents.move_value.rollout_values). ``train`` and ``ppo`` write
runs/<name>/: checkpoints/ (latest.pt, final.pt, and one per evaluation), metrics.csv,
learning_curve.png and config.json. Every hyper-parameter of
agents.move_value.td.TDConfig and agents.tile_ppo.ppo.PPOConfig is an option of its command.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import sys
import textwrap
import time
from pathlib import Path

from agents.move_value.distil import DistilConfig
from agents.move_value.network import ValueNetConfig
from agents.move_value.rollout_values import RolloutConfig
from agents.move_value.td import TDConfig
from agents.tile_ppo.network import NetConfig
from agents.tile_ppo.ppo import BACKENDS, PPOConfig
from qwirkle_cli import analyse


def field_docs(config_cls: type) -> dict[str, str]:
    """Each field's docstring (the string right below it, as CleanRL's configs write
    them): the --help text, written once, beside the field it describes."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(config_cls)))
    body = tree.body[0].body
    docs = {}
    for field_node, doc in zip(body, body[1:], strict=False):
        if (
            isinstance(field_node, ast.AnnAssign)
            and isinstance(field_node.target, ast.Name)
            and isinstance(doc, ast.Expr)
            and isinstance(doc.value, ast.Constant)
            and isinstance(doc.value.value, str)
        ):
            docs[field_node.target.id] = inspect.cleandoc(doc.value.value)
    return docs


def _bool(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true/false, got {text!r}")


def add_fields(parser, config_cls, skip: tuple = (), choices: dict | None = None) -> None:
    """One --option per field of a config dataclass: its docstring and default are the
    option's --help."""
    helps = field_docs(config_cls)
    config = config_cls()
    for f in dataclasses.fields(config_cls):
        if f.name in skip:
            continue
        default = getattr(config, f.name)
        kind = _bool if isinstance(default, bool) else type(default)
        parser.add_argument(
            "--" + f.name.replace("_", "-"), type=kind, default=default,
            help=f"{helps.get(f.name, '')} (default: {default})",
            choices=(choices or {}).get(f.name),
        )  # fmt: skip


def add_config_options(parser: argparse.ArgumentParser) -> None:
    """PPOConfig's and NetConfig's fields as options."""
    add_fields(parser, PPOConfig, skip=("net",), choices={"backend": BACKENDS})
    add_fields(parser, NetConfig)


def add_td_options(parser: argparse.ArgumentParser) -> None:
    """TDConfig's and ValueNetConfig's fields as options."""
    add_fields(parser, TDConfig, skip=("net",))
    add_fields(parser, ValueNetConfig, skip=("features",))


def add_run_options(parser: argparse.ArgumentParser, final_games: int, final_opps: str) -> None:
    """Where a training run writes, and the table it ends with."""
    parser.add_argument("--name", default=None, help="run name: output goes to <out>/<name>")
    parser.add_argument("--out", default="runs", help="folder for runs (default: runs)")
    parser.add_argument("--resume", default=None, help="start from this checkpoint's weights")
    parser.add_argument("--final-games", type=int, default=final_games,
                        help=f"games per opponent in the final table (0: skip; default "
                        f"{final_games})")  # fmt: skip
    parser.add_argument("--final-opponents", default=final_opps,
                        help=f"opponents of the final table (default: {final_opps})")  # fmt: skip
    parser.add_argument("--final-seed", type=int, default=FINAL_SEED,
                        help=f"deal seed of the final table (default: {FINAL_SEED}; the "
                        "learning curve uses seed 1)")  # fmt: skip
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


FINAL_SEED = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="qwirkle" if Path(sys.argv[0]).name == "qwirkle" else "train.py",
        description=__doc__,
        formatter_class=argparse.RawTextHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command")
    t = sub.add_parser(
        "train", help="train the move-value agent by TD self-play (the default command)"
    )
    add_run_options(t, 400, "greedy,heuristic")
    add_td_options(t)
    t = sub.add_parser("ppo", help="train the tile-level policy with masked PPO")
    add_run_options(t, 100, "random,greedy")
    t.add_argument("--processes", type=int, default=2, help="processes for the final table")
    add_config_options(t)
    e = sub.add_parser("evaluate", help="duplicate-deal tournament (agents.evaluation.harness)")
    e.add_argument("--agents", nargs="+", required=True, help="specs: ckpt:PATH greedy random")
    e.add_argument("--games", type=int, default=400, help="games per lineup (default 400)")
    e.add_argument("--players", type=int, default=2, help="seats per game (default 2)")
    e.add_argument("--seed", type=int, default=0, help="deal seed (default 0)")
    e.add_argument("--processes", type=int, default=2, help="worker processes (default 2)")
    e.add_argument("--out", default=None, help="folder for CSV/JSON/plot")
    e.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    e.add_argument(
        "--fast", action="store_true",
        help="first agent a ckpt: play all its games at once with one batched forward per\n"
        "step (same duplicate deals, 2 players; much faster than batch-1 workers)",
    )  # fmt: skip
    d = sub.add_parser(
        "distil",
        help="one round of expert iteration: the learned network learns from its own search",
    )
    d.add_argument(
        "--start", default=None, help="the network to start from (the shipped TD network)"
    )
    d.add_argument("--to", default="runs/distil/distilled.pt", help="the checkpoint written")
    add_fields(d, DistilConfig, skip=("sims",))
    r = sub.add_parser(
        "rollout-values",
        help="fit a 1-ply network to the values the search's simulations give each move",
    )
    r.add_argument(
        "--start", default=None, help="the network that plays the games (the shipped TD network)"
    )
    r.add_argument("--to", default="runs/rollout_values/net.pt", help="the checkpoint written")
    r.add_argument(
        "--save-positions", default=None, metavar="PATH",
        help="also write the positions this run values (.npz), for a later round's fit",
    )  # fmt: skip
    r.add_argument(
        "--positions", nargs="+", default=[], metavar="PATH",
        help="earlier rounds' saved positions, fitted on before this run's own (alone with"
        " --games 0)",
    )  # fmt: skip
    r.add_argument(
        "--judge", default=None, metavar="PATH",
        help="with --leaf 1: the network that values the leaves (the shipped TD network)",
    )  # fmt: skip
    add_fields(r, RolloutConfig)
    p = sub.add_parser("play", help="play against an agent in the terminal")
    p.add_argument("--opponent", default="greedy", help="agent spec, e.g. ckpt:PATH (greedy)")
    p.add_argument("--seat", type=int, default=0, choices=(0, 1), help="your seat (default 0)")
    p.add_argument("--seed", type=int, default=None, help="deal seed (default: random)")
    p.add_argument("--no-color", action="store_true", help="plain text board")
    s = sub.add_parser("serve", help="play, watch and replay in the browser ([web] extra)")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    s.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    s.add_argument("--ckpt", action="append", default=[], help="checkpoint to offer (repeatable)")
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
    analyse.add_parser(sub)
    return parser


def config_from_args(args: argparse.Namespace) -> PPOConfig:
    net = NetConfig(**{f.name: getattr(args, f.name) for f in dataclasses.fields(NetConfig)})
    values = {
        f.name: getattr(args, f.name) for f in dataclasses.fields(PPOConfig) if f.name != "net"
    }
    cfg = PPOConfig(**values, net=net)
    default = PPOConfig()
    if cfg.backend == "vector" and cfg.p_scripted > 0:
        if (cfg.p_scripted, cfg.scripted) != (default.p_scripted, default.scripted):
            raise SystemExit(
                "--backend vector has no scripted opponents (they need the AEC env's per-game "
                "objects): drop --p-scripted/--scripted, or use --backend aec"
            )
    if cfg.device.startswith("cuda"):
        import torch

        if not torch.cuda.is_available():
            raise SystemExit("--device cuda: CUDA is not available here; use --device cpu")
    return cfg


def td_config_from_args(args: argparse.Namespace) -> TDConfig:
    try:
        net = ValueNetConfig(hidden=args.hidden, layers=args.layers, encoder=args.encoder)
    except ValueError as err:
        raise SystemExit(str(err)) from None
    fields = [f.name for f in dataclasses.fields(TDConfig) if f.name != "net"]
    values = {name: getattr(args, name) for name in fields}
    try:
        return TDConfig(**values, net=net)
    except ValueError as err:
        raise SystemExit(str(err)) from None


def check_final_options(args: argparse.Namespace) -> list[str]:
    """The final table's opponents, checked before any training starts."""
    from agents.registry import make_agent

    opponents = [s.strip() for s in args.final_opponents.split(",") if s.strip()]
    if args.final_games < 0:
        raise SystemExit(f"--final-games must be >= 0, got {args.final_games}")
    if args.final_games and not opponents:
        raise SystemExit("--final-opponents names no agent (or use --final-games 0)")
    for spec in opponents:
        if spec.lower().startswith("ckpt:"):
            if not Path(spec[5:]).is_file():
                raise SystemExit(f"--final-opponents: checkpoint {spec[5:]} does not exist")
            continue
        try:
            make_agent(spec)
        except ValueError as err:
            raise SystemExit(f"--final-opponents: {err}") from None
    return opponents


def final_table(
    ckpt: Path, opponents: list[str], args, seat_counts: list[int], processes: int
) -> None:
    """The trained checkpoint against each opponent, in every seat count it was trained for
    (the opponent in all the other seats)."""
    from agents.evaluation.harness import run_tournament

    for opp in opponents:
        for n in seat_counts:
            res = run_tournament(
                [f"ckpt:{ckpt}"] + [opp] * (n - 1), args.final_games, n, seed=args.final_seed,
                processes=processes, progress=not args.no_progress,
            )  # fmt: skip
            print(res.table(), flush=True)


def cmd_train(args: argparse.Namespace) -> Path:
    """TD self-play for the move-value network, then the final table."""
    from agents.checkpoint import save_checkpoint
    from agents.move_value.run import TDRun, env_options
    from agents.move_value.td import train

    cfg = td_config_from_args(args)
    opponents = check_final_options(args)
    initial = None
    if args.resume:
        initial = resumed(args.resume, cfg).state_dict()
    name = args.name or time.strftime("td-%Y%m%d-%H%M%S")
    run = TDRun(cfg, Path(args.out) / name, bar=not args.no_progress)
    start = time.time()
    net = train(cfg, run, initial)
    run.close()
    env = env_options(cfg.play_look_ahead(), net.config.features)
    final = save_checkpoint(run.dir / "checkpoints" / "final.pt", net, env,
                            cfg.to_dict(), cfg.total_games)  # fmt: skip
    print(f"trained in {(time.time() - start) / 60:.1f} min; checkpoint {final}; "
          f"curve {run.dir / 'learning_curve.png'}", flush=True)  # fmt: skip
    if args.final_games > 0:
        final_table(final, opponents, args, cfg.seat_counts(), cfg.processes)
    print(f"total wall time {(time.time() - start) / 60:.1f} min")
    return final


def resumed(path: str, cfg: TDConfig):
    """The network a run resumes from: the checkpoint's, of the run's width and depth, on
    this version's features; one without a type encoder gets the run's (``widened``: it
    plays as before until training teaches it to read the new block)."""
    from agents.checkpoint import load_checkpoint
    from agents.move_value.agent import check_features
    from agents.move_value.network import MoveValueNet, widened

    shape = {"hidden": cfg.net.hidden, "layers": cfg.net.layers}
    try:
        net, meta = load_checkpoint(path, None, shape, kind=MoveValueNet)
        check_features(net, meta, path)
        if cfg.net.encoder and not net.config.encoder:
            net = widened(net, cfg.net.encoder, cfg.seed)
        if net.config.encoder != cfg.net.encoder:
            raise ValueError(
                f"checkpoint {path} has a type encoder of width {net.config.encoder}, the run "
                f"asks for {cfg.net.encoder}"
            )
    except ValueError as err:
        raise SystemExit(f"--resume: {err}") from None
    return net


def cmd_ppo(args: argparse.Namespace) -> Path:
    from agents.checkpoint import load_checkpoint, save_checkpoint
    from agents.tile_ppo.network import PolicyValueNet
    from agents.tile_ppo.ppo import train
    from agents.tile_ppo.run import Run

    cfg = config_from_args(args)
    opponents = check_final_options(args)
    name = args.name or time.strftime("ppo-%Y%m%d-%H%M%S")
    initial = None
    if args.resume:
        net, _ = load_checkpoint(
            args.resume, cfg.env_options(), cfg.net.to_dict(), kind=PolicyValueNet
        )
        initial = net.state_dict()
    run = Run(cfg, Path(args.out) / name, initial, bar=not args.no_progress)
    start = time.time()
    net = train(cfg, run)
    run.close()
    final = save_checkpoint(
        run.dir / "checkpoints" / "final.pt", net, cfg.env_options(), cfg.to_dict(), cfg.total_steps
    )
    wall = time.time() - start
    curve = run.dir / "learning_curve.png"
    print(f"trained in {wall / 60:.1f} min; checkpoint {final}; curve {curve}")
    if args.final_games > 0:
        final_table(final, opponents, args, [cfg.num_players], args.processes)
    print(f"total wall time {(time.time() - start) / 60:.1f} min")
    return final


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


def config_of(cls, args: argparse.Namespace, skip: tuple = ()):
    """The config dataclass ``cls`` from its options (``add_fields``); a bad value exits
    with the config's message."""
    fields = {f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if f.name not in skip}
    try:
        return cls(**fields)
    except ValueError as err:
        raise SystemExit(str(err)) from None


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


def cmd_serve(args: argparse.Namespace) -> None:
    try:
        from showdown.app import serve
    except ModuleNotFoundError as err:
        raise SystemExit(f"serve needs the web extra: pip install -e '.[web]' ({err})") from None
    serve(args.host, args.port, args.ckpt, public=args.public, allow_hosts=args.allow_host)


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        argv = ["train", *argv]
    args = build_parser().parse_args(argv)
    commands = {
        "train": cmd_train, "ppo": cmd_ppo, "evaluate": cmd_evaluate, "play": cmd_play,
        "serve": cmd_serve, "distil": cmd_distil, "rollout-values": cmd_rollout_values,
        "analyse": analyse.cmd_analyse,
    }  # fmt: skip
    commands[args.command](args)


if __name__ == "__main__":
    main()
