"""Train, evaluate and play Qwirkle policies from the command line.

    python train.py                       # default run (<= 15 min on 2 CPU cores; 5.6 measured)
    python train.py train --name long --total-steps 200000 ...
    python train.py evaluate --agents ckpt:checkpoints/qwirkle_ppo.pt greedy --games 400
    python train.py play --opponent ckpt:checkpoints/qwirkle_ppo.pt

``train`` writes runs/<name>/: checkpoints/ (latest.pt, final.pt, step_*.pt),
metrics.csv, learning_curve.png, config.json and TensorBoard events if tensorboard is
installed. Every hyper-parameter of agents.ppo.PPOConfig is an option of ``train``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

from agents.network import NetConfig
from agents.ppo import BACKENDS, PPOConfig

HELP = {
    "num_players": "seats per game (2-4)",
    "window": "env window side W (the network works for any W)",
    "strict_opening": "force the largest-group opening (rules default)",
    "backend": "rollouts from AEC envs (aec) or the batched simulator (vector; no scripted\n"
    "opponents there: the default --p-scripted share is self-play, a different\n"
    "--p-scripted or --scripted is an error)",
    "total_steps": "learner sub-steps collected by PPO",
    "num_envs": "games stepped together, one batched forward per step",
    "rollout_steps": "transitions per PPO update",
    "epochs": "passes over each rollout",
    "minibatch": "transitions per gradient step",
    "lr": "Adam learning rate (PPO)",
    "anneal_lr": "decay the PPO learning rate linearly to 0",
    "gamma": "discount per sub-step",
    "gae_lambda": "GAE lambda",
    "clip": "PPO clip range",
    "ent_coef": "entropy bonus weight",
    "vf_coef": "value loss weight",
    "max_grad_norm": "gradient clipping norm",
    "margin_scale": "reward per point of score margin",
    "margin_coef_start": "weight of the margin reward at the start",
    "margin_coef_end": "weight of the margin reward at the end (annealed linearly)",
    "win_coef": "reward for winning (minus for losing) at the end of a game",
    "p_pool": "share of games against a past snapshot",
    "p_scripted": "share of games against a scripted agent (the rest: self-play)",
    "scripted": "comma-separated scripted opponents, e.g. greedy,heuristic",
    "pool_size": "snapshots kept in the opponent pool",
    "bc_games": "teacher games for the behaviour-cloning warm start (0: none)",
    "bc_epochs": "passes over the teacher data",
    "bc_teacher": "agent spec cloned in the warm start",
    "bc_lr": "learning rate of the warm start",
    "eval_every": "PPO steps between evaluations, checkpoints and pool snapshots",
    "eval_games": "games per opponent in each in-training evaluation",
    "eval_opponents": "comma-separated opponents for the learning curve",
    "seed": "random seed",
    "device": "cpu or cuda (if available)",
    "threads": "torch CPU threads",
}


def _bool(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true/false, got {text!r}")


def add_config_options(parser: argparse.ArgumentParser) -> None:
    """One --option per PPOConfig / NetConfig field, defaults shown in --help."""
    for f in dataclasses.fields(PPOConfig):
        if f.name == "net":
            continue
        default = getattr(PPOConfig(), f.name)
        kind = _bool if isinstance(default, bool) else type(default)
        parser.add_argument(
            "--" + f.name.replace("_", "-"), type=kind, default=default,
            help=f"{HELP.get(f.name, '')} (default: {default})",
            choices=BACKENDS if f.name == "backend" else None,
        )  # fmt: skip
    for f in dataclasses.fields(NetConfig):
        default = getattr(NetConfig(), f.name)
        parser.add_argument(
            f"--{f.name}", type=int, default=default, help=f"network {f.name} (default: {default})"
        )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="train.py", description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    sub = parser.add_subparsers(dest="command")
    t = sub.add_parser("train", help="train a policy with masked PPO (the default command)")
    t.add_argument("--name", default=None, help="run name: output goes to <out>/<name>")
    t.add_argument("--out", default="runs", help="folder for runs (default: runs)")
    t.add_argument("--resume", default=None, help="start from this checkpoint's weights")
    t.add_argument("--final-games", type=int, default=100,
                   help="games per opponent in the final table (0: skip; default 100)")  # fmt: skip
    t.add_argument("--final-opponents", default="random,greedy",
                   help="opponents of the final table (default: random,greedy)")  # fmt: skip
    t.add_argument("--processes", type=int, default=2, help="processes for the final table")
    t.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_config_options(t)
    e = sub.add_parser("evaluate", help="duplicate-deal tournament (agents.evaluate)")
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
    p = sub.add_parser("play", help="play against an agent in the terminal")
    p.add_argument("--opponent", default="greedy", help="agent spec, e.g. ckpt:PATH (greedy)")
    p.add_argument("--seat", type=int, default=0, choices=(0, 1), help="your seat (default 0)")
    p.add_argument("--seed", type=int, default=None, help="deal seed (default: random)")
    p.add_argument("--no-color", action="store_true", help="plain text board")
    s = sub.add_parser("serve", help="play, watch and replay in the browser ([web] extra)")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    s.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    s.add_argument("--ckpt", action="append", default=[], help="checkpoint to offer (repeatable)")
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


def cmd_train(args: argparse.Namespace) -> Path:
    from agents.checkpoint import load_checkpoint, save_checkpoint
    from agents.ppo import train
    from agents.runlog import Run

    cfg = config_from_args(args)
    name = args.name or time.strftime("ppo-%Y%m%d-%H%M%S")
    initial = None
    if args.resume:
        net, _ = load_checkpoint(args.resume, cfg.env_options(), cfg.net.to_dict())
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
        from agents.evaluate import run_tournament

        for opp in [s.strip() for s in args.final_opponents.split(",") if s.strip()]:
            res = run_tournament(
                [f"ckpt:{final}", opp], args.final_games, cfg.num_players,
                seed=1, processes=args.processes, progress=not args.no_progress,
            )  # fmt: skip
            print(res.table())
    print(f"total wall time {(time.time() - start) / 60:.1f} min")
    return final


def cmd_evaluate(args: argparse.Namespace) -> None:
    import torch

    from agents.evaluate import run_tournament

    torch.set_num_threads(args.threads)  # 1: much faster when the cores are shared
    if args.fast:
        return fast_evaluate(args)
    res = run_tournament(args.agents, args.games, args.players, seed=args.seed,
                         processes=args.processes, out_dir=args.out)  # fmt: skip
    print(res.table())


def fast_evaluate(args: argparse.Namespace) -> None:
    """The checkpoint against each other agent, all games batched (agents.quickeval)."""
    from agents.base import make_agent
    from agents.checkpoint import load_checkpoint
    from agents.quickeval import win_rate
    from agents.stats import wilson
    from qwirkle_env.env import DEFAULT_WINDOW

    first = args.agents[0]
    if not first.lower().startswith("ckpt:") or args.players != 2:
        raise SystemExit("--fast needs a ckpt:PATH first agent and 2 players")
    net, _ = load_checkpoint(first[5:])
    print("| agent | opponent | games | win share | 95% CI | mean margin | wall s |")
    print("|---|---|---|---|---|---|---|")
    for opp in args.agents[1:]:
        start = time.time()
        r = win_rate(net, opp, args.games, make_agent, DEFAULT_WINDOW, seed=args.seed)
        lo, hi = wilson(r["win_rate"] * r["games"], r["games"])
        print(f"| {first} | {opp} | {r['games']} | {r['win_rate']:.1%} | {lo:.1%}-{hi:.1%} "
              f"| {r['margin']:+.1f} | {time.time() - start:.0f} |", flush=True)  # fmt: skip


def cmd_play(args: argparse.Namespace) -> None:
    from agents.base import make_agent
    from agents.human import play_human

    try:
        play_human(args.opponent, make_agent, args.seat, args.seed, color=not args.no_color)
    except (EOFError, KeyboardInterrupt):
        print("\nbye")


def cmd_serve(args: argparse.Namespace) -> None:
    try:
        from showdown.app import serve
    except ModuleNotFoundError as err:
        raise SystemExit(f"serve needs the web extra: pip install -e '.[web]' ({err})") from None
    serve(args.host, args.port, args.ckpt)


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        argv = ["train", *argv]
    args = build_parser().parse_args(argv)
    commands = {"train": cmd_train, "evaluate": cmd_evaluate, "play": cmd_play, "serve": cmd_serve}
    commands[args.command](args)


if __name__ == "__main__":
    main()
