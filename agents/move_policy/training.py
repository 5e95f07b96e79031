"""What the RL-library recipes of the whole-move mode share: a quick match against a
scripted agent during training, the learning curve, and the export to a checkpoint.

Each recipe (``examples/sb3_moves.py``, ``examples/tianshou_moves.py``,
``examples/rllib_moves.py``) trains ``agents.move_policy.network.MovePolicyNet`` with its own
library, calls ``Curve.point`` now and then, and ends with ``export``, so that its policy
plays as ``ckpt:PATH`` without the library installed.
"""

from __future__ import annotations

import argparse
import copy
import csv
import random
import time
from collections import deque
from pathlib import Path

import numpy as np
import torch

from agents.checkpoint import load_checkpoint, save_checkpoint
from agents.move_policy.network import MovePolicyNet, layout
from agents.registry import make_agent
from qwirkle_env import raw_env

# The SB3 and Tianshou recipes' defaults: PPO made to learn as the TD learner does
# (docs/integrations.md has the runs that chose them). The rows' logits are afterstate
# values that start at a third of a logit per point (a softmax at three points, the TD
# learner's starting temperature); the value loss, which teaches them, outweighs the
# policy loss; lambda 0.7 leans on them rather than on the rest of the game.
PRIOR = 0.33
ENT_COEF = 0.0
GAE_LAMBDA = 0.7
VF_COEF = 5.0
VALUE = "afterstate"


def net_options(args: argparse.Namespace, reward_scale: float) -> dict:
    """MovePolicyConfig's fields from a recipe's options. With ``--value afterstate`` a
    logit is worth ``reward_scale / prior`` reward units, so that the prior's points are
    the reward they bring."""
    options = {"hidden": args.hidden, "points_prior": args.prior, "value_per_logit": 0.0}
    if args.value == "afterstate":
        if not args.prior:
            raise SystemExit("--value afterstate needs --prior > 0: logits must be in points")
        options["value_per_logit"] = reward_scale / args.prior
    return options


def positive_int(text: str) -> int:
    """An argparse type: an int >= 1, else an error that says so."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an int") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def checked_float(text: str, ok, allowed: str) -> float:
    """``text`` as a finite float for which ``ok`` holds, else an argparse error that says
    what is ``allowed``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (np.isfinite(value) and ok(value)):
        raise argparse.ArgumentTypeError(f"must be {allowed}, got {text}")
    return value


def positive_float(text: str) -> float:
    """An argparse type: a finite number > 0."""
    return checked_float(text, lambda v: v > 0, "a finite number > 0")


def non_negative_float(text: str) -> float:
    """An argparse type: a finite number >= 0."""
    return checked_float(text, lambda v: v >= 0, "a finite number >= 0")


def unit_float(text: str) -> float:
    """An argparse type: a number in [0, 1]."""
    value = non_negative_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text}")
    return value


def recipe_parser(description: str, out: str, self_play: bool = False) -> argparse.ArgumentParser:
    """The options the SB3 and Tianshou recipes share, checked as they are parsed."""
    p = argparse.ArgumentParser(
        description=description, formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument("--smoke", action="store_true", help="a tiny run: 256 steps, 2 games")
    p.add_argument("--steps", type=positive_int, default=300_000, help="env steps (turns)")
    p.add_argument(
        "--minutes", type=positive_float, default=55.0,
        help="stop training after this many minutes of wall time, whatever --steps says",
    )  # fmt: skip
    p.add_argument(
        "--opponent", default="greedy",
        help="the scripted opponent's spec"
        + (", or 'self': the learner's own network (the curve is then against greedy)"
           if self_play else ""),
    )  # fmt: skip
    p.add_argument("--envs", type=positive_int, default=4, help="games stepped together")
    p.add_argument("--seed", type=int, default=0, help="random seed")
    p.add_argument("--hidden", type=positive_int, default=128, help="width of MovePolicyNet")
    p.add_argument("--lr", type=positive_float, default=3e-4, help="Adam learning rate")
    p.add_argument(
        "--prior", type=non_negative_float, default=PRIOR,
        help="the untrained policy's logits per point scored (0: none; MovePolicyConfig)",
    )  # fmt: skip
    p.add_argument("--ent-coef", type=non_negative_float, default=ENT_COEF, help="entropy bonus")
    p.add_argument(
        "--value", choices=("position", "afterstate"), default=VALUE,
        help="the critic: a head on the position, or the rows' logits read as afterstate "
        "values (needs --prior > 0; MovePolicyConfig.value_per_logit)",
    )  # fmt: skip
    p.add_argument(
        "--vf-coef", type=non_negative_float, default=VF_COEF, help="the value loss's weight"
    )
    p.add_argument(
        "--gae-lambda", type=unit_float, default=GAE_LAMBDA,
        help="GAE's lambda: lower leans on the value head, less on the noisy rest of the game",
    )  # fmt: skip
    p.add_argument("--init", help="start from this move-policy checkpoint's weights")
    p.add_argument(
        "--eval-every", type=positive_int, default=25_000, help="env steps between curve points"
    )
    p.add_argument(
        "--eval-games", type=positive_int, default=40, help="quick-match games per curve point"
    )
    p.add_argument("--out", default=out, help="the checkpoint; its curve goes beside it")
    return p


def announce(args: argparse.Namespace, limit_minutes: float | None) -> None:
    """Says before a run starts how long it may take: the step budget and the wall-time
    limit, whichever comes first."""
    if args.smoke:
        print("a smoke run: 256 env steps and 2-game curve points, about a minute", flush=True)
        return
    limit = (
        f"or after {limit_minutes:g} minutes of wall time, whichever comes first"
        if limit_minutes is not None
        else "with no time limit (--max-minutes sets one)"
    )
    print(
        f"training for {args.steps} env steps {limit}, with a {args.eval_games}-game curve "
        f"point every {args.eval_every} steps; the defaults take most of an hour on 2 CPU "
        "cores (--smoke: a one-minute check)",
        flush=True,
    )


@torch.no_grad()
def quick_match(
    net: MovePolicyNet, opponent: str = "greedy", games: int = 40, seed: int = 1, players: int = 2
) -> dict:
    """The policy's argmax against ``opponent`` in every other seat, through the move-mode
    env, each deal played ``players`` times with the policy in each seat in turn: its win
    share (a shared win counts its share) and mean margin over the best other seat. A
    learning-curve point, not a strength figure: those come from the duplicate-deal
    harness (``agents.evaluation.harness``)."""
    was_training = net.training
    net.eval()
    rng = random.Random(seed)
    config = net.config
    wins, margins = [], []
    for g in range(games):
        if g % players == 0:
            deal = rng.randrange(2**31)
        me = g % players
        env = raw_env(num_players=players, action_mode="moves", max_moves=config.max_moves,
                      look_ahead=config.look_ahead)  # fmt: skip
        env.reset(seed=deal)
        others = {s: make_agent(opponent) for s in range(players) if s != me}
        for s, other in others.items():
            other.reset(s, players, rng.randrange(2**31))
        while not env.game.over:
            if env.game.current == me:
                obs = env.observe(env.agent_selection)
                logits, _ = net(
                    torch.from_numpy(obs["observation"])[None],
                    torch.from_numpy(obs["action_mask"])[None],
                )
                env.step(int(logits.argmax(dim=1)))
            else:
                other = others[env.game.current]
                env.step_move(other.choose(env.player_view(observe=False)))
        scores = env.game.scores
        top = max(scores)
        winners = [s for s in range(players) if scores[s] == top]
        wins.append(1 / len(winners) if me in winners else 0.0)
        margins.append(scores[me] - max(scores[s] for s in others))
    net.train(was_training)
    return {"win_rate": float(np.mean(wins)), "margin": float(np.mean(margins)), "games": games}


class Curve:
    """The learning curve of one run: (env steps, wall seconds, win rate, margin) rows in
    a CSV. With ``save`` (library, train info), each point also exports the network to
    ``checkpoint``: a run stopped early still leaves its latest policy. It keeps the
    network's weights at its last ``keep`` points after the start (above 1), for
    ``averaged``."""

    def __init__(
        self,
        path: str | Path,
        opponent: str = "greedy",
        games: int = 40,
        checkpoint: str | Path | None = None,
        save: tuple[str, dict] | None = None,
        seed: int = 1,
        players: int = 2,
        keep: int = 1,
    ) -> None:
        self.checkpoint, self.save, self.seed, self.players = checkpoint, save, seed, players
        self.kept: deque[tuple[int, dict[str, torch.Tensor]]] = deque(maxlen=keep)
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.opponent, self.games = opponent, games
        self.start = time.perf_counter()
        self.rows: list[tuple[int, float, float, float]] = []
        with self.path.open("w", newline="") as f:
            csv.writer(f).writerow(["env_steps", "wall_s", "win_rate", "margin"])

    def point(self, net: MovePolicyNet, env_steps: int) -> dict:
        """A quick match of ``net``; at the step count of the previous point (the last
        update happens after the last steps are collected), it replaces that point."""
        found = quick_match(net, self.opponent, self.games, self.seed, self.players)
        row = (env_steps, time.perf_counter() - self.start, found["win_rate"], found["margin"])
        if self.rows and self.rows[-1][0] == env_steps:
            self.rows[-1] = row
        else:
            self.rows.append(row)
        if env_steps > 0 and self.kept.maxlen > 1:  # with one, the caller has the last
            if self.kept and self.kept[-1][0] == env_steps:
                self.kept.pop()
            self.kept.append(
                (env_steps, {k: v.detach().clone() for k, v in net.state_dict().items()})
            )
        with self.path.open("w", newline="") as f:
            out = csv.writer(f)
            out.writerow(["env_steps", "wall_s", "win_rate", "margin"])
            for r in self.rows:
                out.writerow([r[0], f"{r[1]:.1f}", f"{r[2]:.4f}", f"{r[3]:.2f}"])
        if self.checkpoint is not None and self.save is not None:
            library, train = self.save
            info = {**train, "env_steps": env_steps, "wall_s": round(row[1])}
            export(net, self.checkpoint, library, info, env_steps)
        print(
            f"[curve] {env_steps} env steps, {row[1]:.0f} s: {found['win_rate']:.1%} of "
            f"{self.games} {self.players}-player games against {self.opponent}, "
            f"margin {found['margin']:+.1f}",
            flush=True,
        )
        return found

    def averaged(self, net: MovePolicyNet) -> tuple[MovePolicyNet, list[int]]:
        """A copy of ``net`` whose weights are the mean of those kept at the last points
        (the untrained start never among them), and those points' env steps. Late in a
        Q-learning run the argmax policy swings from point to point while its weights stay
        near one another; their mean smooths the swings (stochastic weight averaging)."""
        if not self.kept:
            raise RuntimeError("no weights kept after the start (keep above 1 keeps them)")
        mean = {
            k: torch.stack([w[k].double() for _, w in self.kept]).mean(dim=0).to(v.dtype)
            for k, v in self.kept[-1][1].items()
        }
        out = copy.deepcopy(net)
        out.load_state_dict(mean)
        return out, [s for s, _ in self.kept]


def plot_curves(
    csv_paths: dict[str, str | Path],
    out: str | Path,
    opponent: str = "greedy",
    players: tuple[int, ...] = (2,),
):
    """One figure of several runs' curves (label -> CSV written by ``Curve``): win share
    against env steps on the left, against wall time on the right, since a user judges an
    env by both. The dashed lines are the even shares, 1/n for each seat count n."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (by_steps, by_time) = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for label, path in csv_paths.items():
        with Path(path).open() as f:
            rows = list(csv.DictReader(f))
        win = [100 * float(r["win_rate"]) for r in rows]
        by_steps.plot([int(r["env_steps"]) for r in rows], win, marker="o", label=label)
        by_time.plot([float(r["wall_s"]) / 60 for r in rows], win, marker="o", label=label)
    by_steps.xaxis.set_major_formatter(lambda x, _: f"{x / 1000:g}k" if x else "0")
    by_steps.set_xlabel("env steps (learner turns)")
    by_time.set_xlabel("wall time (minutes)")
    by_steps.set_ylabel(f"win % against {opponent} (quick match)")
    for ax in (by_steps, by_time):
        for n in set(players):
            ax.axhline(100 / n, color="grey", lw=0.8, ls="--")
        ax.grid(alpha=0.3)
    by_steps.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def export(net: MovePolicyNet, path: str | Path, library: str, train: dict, steps: int) -> Path:
    """The trained network as a project checkpoint (format ``qwirkle-move-policy``)."""
    config = net.config
    options = {**layout(config.look_ahead), "max_moves": config.max_moves, "library": library}
    return save_checkpoint(path, net, options, train, step=steps)


def start_weights(path: str | Path, options: dict) -> dict:
    """The weights of a move-policy checkpoint, to continue training from (``--init``);
    ValueError if its width or critic differs from ``options`` (``net_options``), or one of
    the two has a points prior and the other not (the learned prior is kept)."""
    expect = {k: options[k] for k in ("hidden", "value_per_logit")}
    net, _ = load_checkpoint(path, expect_net=expect, kind=MovePolicyNet)
    if bool(net.config.points_prior) != bool(options["points_prior"]):
        raise ValueError(
            f"{path} has points_prior {net.config.points_prior}, this run "
            f"{options['points_prior']}: both must be 0 or both above 0"
        )
    return net.state_dict()
