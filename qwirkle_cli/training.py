"""``train`` and ``ppo``: a training run that writes runs/<name>/ and ends with a table of
the trained checkpoint against scripted opponents.

``train`` (the default command) trains the move-value network by TD(lambda) self-play
(agents.move_value.td); ``ppo`` trains the tile-level policy on the env's own action space
(agents.tile_ppo.ppo). Both write checkpoints/ (latest.pt, final.pt, one per evaluation),
metrics.csv, learning_curve.png and config.json.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from agents.move_value.td import TDConfig
from agents.tile_ppo.ppo import BACKENDS, PPOConfig
from qwirkle_cli.options import SubCommands, add_fields, command, config_of

FINAL_SEED = 2


def add_parsers(sub: SubCommands) -> None:
    t = command(
        sub, "train", cmd_train, "train the move-value agent by TD self-play (the default command)"
    )
    add_run_options(t, 400, "greedy,heuristic")
    add_fields(t, TDConfig, skip=("features",))
    p = command(sub, "ppo", cmd_ppo, "train the tile-level policy with masked PPO")
    add_run_options(p, 100, "random,greedy")
    p.add_argument("--processes", type=int, default=2, help="worker processes for the final table")
    add_fields(p, PPOConfig, choices={"backend": BACKENDS})


def add_run_options(parser: argparse.ArgumentParser, final_games: int, final_opps: str) -> None:
    """Where a training run writes, and the table it ends with."""
    parser.add_argument(
        "--name",
        default=None,
        help="run name: output goes to <out>/<name> (default: the date and time)",
    )
    parser.add_argument("--out", default="runs", help="folder for runs")
    parser.add_argument(
        "--resume",
        default=None,
        help="start from this checkpoint's weights (default: from scratch)",
    )
    parser.add_argument(
        "--final-games",
        type=int,
        default=final_games,
        help="duplicate games per opponent in the final table (0: no table)",
    )
    parser.add_argument(
        "--final-opponents",
        default=final_opps,
        help="comma-separated agent specs of the final table",
    )
    parser.add_argument(
        "--final-seed",
        type=int,
        default=FINAL_SEED,
        help="deal seed of the final table (the learning curve uses seed 1)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


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

    cfg = config_of(TDConfig, args, skip=("features",))
    opponents = check_final_options(args)
    initial = None
    if args.resume:
        initial = resumed(args.resume, cfg).state_dict()
    announce_td_run(cfg, args, opponents)
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


def announce_td_run(cfg: TDConfig, args: argparse.Namespace, opponents: list[str]) -> None:
    """Says what the run will do and about how long it will take, before it starts.

    A few self-play games are played here first: on a cold numba cache they compile the
    kernels (under qwirkle_env.jit's notice) before the progress bar starts, so its first
    ETA is not inflated by the compile, and the forked workers inherit the compiled code;
    the games after the first are timed, and the estimate scales them to the run."""
    from agents.move_value.network import MoveValueNet
    from agents.move_value.td import play_game

    layers = MoveValueNet(cfg.net).numpy_layers()
    n = cfg.player_counts()[0]
    how = cfg.look_ahead()
    timed = []
    for seed in range(3):
        start = time.perf_counter()
        play_game(layers, seed, n, cfg.temperature_start, None, cfg.win_value, how)
        timed.append(time.perf_counter() - start)
    per_game = sum(timed[1:]) / len(timed[1:])
    curve = cfg.total_games // cfg.eval_every + 1
    curve_opps = len([s for s in cfg.eval_opponents.split(",") if s.strip()])
    seats = len(cfg.seat_counts())
    games = cfg.total_games + seats * (curve * curve_opps * cfg.eval_games)
    games += seats * args.final_games * len(opponents)
    minutes = games * per_game / cfg.processes / 60
    print(
        f"TD self-play: {cfg.total_games} games on {cfg.processes} processes, "
        f"{curve} learning-curve matches of {cfg.eval_games} games per opponent"
        + (f", then {args.final_games} games against each of {', '.join(opponents)}"
           if args.final_games else "")
        + f". Estimated {minutes:.1f} min at this machine's current speed (from "
        f"{len(timed) - 1} timed games; more when other work shares the cores; the bar's "
        "ETA follows the real rate).",
        flush=True,
    )  # fmt: skip


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
    """Masked PPO for the tile-level policy, then the final table."""
    from agents.checkpoint import load_checkpoint, save_checkpoint
    from agents.tile_ppo.network import PolicyValueNet
    from agents.tile_ppo.ppo import train
    from agents.tile_ppo.run import Run

    cfg = config_of(PPOConfig, args)
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
