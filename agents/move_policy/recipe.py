"""What the three Q-learning recipes over the move rows share: their options, checked in
one place before any library starts, their defaults, and the network they train.

The recipes (``examples/sb3_dqn.py``, ``examples/tianshou_dqn.py``, ``examples/rllib_dqn.py``)
learn as DRRN and DouZero do: one network scores each (position, row) pair, and the score is
the move's value, learned by Q-learning from the env's "margin" reward (and, with
``--win-bonus``, a bonus for a win at the end: the recipes are judged by wins). It starts as greedy
(a points prior: a move's value is first the points it scores) and reads the env's look
ahead (``look_ahead=N``, the columns the learned agents read). docs/integrations.md has the
runs that chose the defaults.

Every option is refused here, with what is allowed, before training starts: a recipe parses
its command line with ``q_recipe_parser`` and gets a ``QRecipe`` back from ``q_recipe``,
whatever library trains it. Seat counts and feature options are checked by the env's own
checks, so a recipe accepts exactly what the env has.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import gymnasium
import torch

from agents.move_policy.network import MovePolicyConfig, MovePolicyNet
from agents.move_policy.training import Curve, export, quick_match
from agents.registry import make_agent
from qwirkle_env.multi_agent import MultiAgentDictEnv
from qwirkle_env.rows.table import check_moves_options, split_observation
from qwirkle_env.spec import ENV_ID, MAX_TURNS, check_table_options, win_reward

# The env's "margin" reward is in points; a tenth of it keeps values near 1.
REWARD_SCALE = 0.1
SELF = "self"  # --opponent self: every seat plays the learner (examples/rllib_dqn.py)
CURVE_SEED = 101  # the curves' deals: seeds 101-110 are the ones choices are made on


@dataclass(frozen=True)
class QRecipe:
    """One Q-learning run over the move rows. Each field's comment is its --help text."""

    steps: int = 1_000_000  # env steps (learner turns) at most
    minutes: float = 55.0  # stop after this many minutes of wall time, whatever --steps says
    players: int = 2  # seats per game; every other seat is --opponent
    opponent: str = "greedy"  # the other seats' agent spec, or "self" (RLlib's self-play)
    look_ahead: int = 16  # rows the env looks at two moves ahead (0: the 28 columns only)
    max_moves: int = 256  # K, the rows of the table
    hidden: int = 64  # width of the row network
    row_only: bool = False  # each row's value reads the row alone, not the position beside it
    lr: float = 5e-4  # Adam learning rate
    lr_end: float | None = None  # the learning rate at --steps, reached linearly (None: --lr)
    gamma: float = 1.0  # discount; the game is short and ends
    win_bonus: float = 0.0  # at the game's end, this times the env's "win" reward (+1/-1)
    n_step: int = 3  # the returns' horizon, in learner turns
    batch: int = 64  # transitions per gradient step
    buffer: int = 50_000  # transitions the replay keeps
    learning_starts: int = 2_000  # env steps collected before the first update
    train_every: int = 8  # env steps between gradient steps
    target_every: int = 500  # gradient steps between copies to the target network
    eps_start: float = 0.1  # epsilon-greedy exploration (a random legal row), at first
    eps_end: float = 0.01  # ... after --eps-steps
    eps_steps: int = 200_000  # env steps over which epsilon falls
    envs: int = 4  # games stepped together
    seed: int = 0  # random seed
    eval_every: int = 50_000  # env steps between learning-curve points
    eval_games: int = 100  # games per curve point (deal seeds 101-110: choices only)
    average: int = 1  # the saved policy: the mean of the weights at the last N curve points
    out: str = ""  # the checkpoint; its curve goes beside it

    def __post_init__(self) -> None:
        problems = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type in ("int", "float") and (
                isinstance(value, bool) or not isinstance(value, int | float)
            ):
                problems.append(f"{f.name} must be a number, got {value!r}")
        if not isinstance(self.row_only, bool):
            problems.append(f"row_only must be True or False, got {self.row_only!r}")
        if problems:
            raise ValueError("; ".join(problems))
        at_least_one = ("steps", "max_moves", "hidden", "n_step", "batch", "buffer",
                        "train_every", "target_every", "eps_steps", "envs", "eval_every",
                        "eval_games", "average")  # fmt: skip
        for name in at_least_one:
            if getattr(self, name) < 1:
                problems.append(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.learning_starts < 0:
            problems.append(f"learning_starts must be >= 0, got {self.learning_starts}")
        if self.lr_end is not None and (
            isinstance(self.lr_end, bool) or not isinstance(self.lr_end, int | float)
        ):
            problems.append(f"lr_end must be a number, got {self.lr_end!r}")
        for name in ("minutes", "lr") + (() if self.lr_end is None else ("lr_end",)):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                problems.append(f"{name} must be a finite number > 0, got {value}")
        if not (math.isfinite(self.win_bonus) and 0 <= self.win_bonus <= 100):
            problems.append(f"win_bonus must be in [0, 100], got {self.win_bonus}")
        for name in ("gamma", "eps_start", "eps_end"):
            value = getattr(self, name)
            if not (math.isfinite(value) and 0 <= value <= 1):
                problems.append(f"{name} must be in [0, 1], got {value}")
        if self.buffer < self.batch:
            problems.append(f"buffer ({self.buffer}) must hold at least a batch ({self.batch})")
        if self.hidden > 4096:
            problems.append(f"hidden must be at most 4096, got {self.hidden}")
        if self.n_step > MAX_TURNS:
            problems.append(
                f"n_step must be at most {MAX_TURNS} (a game's turns), got {self.n_step}"
            )
        if self.average > 100:
            problems.append(f"average must be at most 100 curve points, got {self.average}")
        for check in (
            lambda: check_table_options(self.players, 21, "margin"),
            lambda: check_moves_options("moves", self.max_moves, self.look_ahead),
        ):
            try:
                check()
            except ValueError as e:
                problems.append(str(e))
        if self.opponent != SELF:
            try:
                make_agent(self.opponent)
            except (ValueError, OSError) as e:
                problems.append(f"opponent: {e}")
        if problems:
            raise ValueError("; ".join(problems))

    @property
    def self_play(self) -> bool:
        return self.opponent == SELF

    def to_dict(self) -> dict:
        return asdict(self)

    def net(self) -> MovePolicyNet:
        """The network, untrained: it plays greedy (each row's value is first its points,
        in reward units), and reads the env's look ahead."""
        config = MovePolicyConfig(
            max_moves=self.max_moves,
            hidden=self.hidden,
            row_only=self.row_only,
            points_prior=REWARD_SCALE,
            look_ahead=self.look_ahead,
        )
        return MovePolicyNet(config)

    def announce(self) -> None:
        """Says before a run starts how long it may take."""
        print(f"training for {self.steps} env steps or {self.minutes:g} minutes, whichever "
              f"comes first; a {self.eval_games}-game curve point every {self.eval_every} "
              "steps", flush=True)  # fmt: skip

    def curve(self, library: str, train: dict) -> Curve:
        """The run's learning curve, beside its checkpoint; each point exports the network."""
        path = self.out.removesuffix(".pt") + "_curve.csv"
        return Curve(path, "greedy", self.eval_games, self.out, (library, train),
                     seed=CURVE_SEED, players=self.players, keep=self.average)  # fmt: skip

    def finish(
        self, curve: Curve, net: MovePolicyNet, library: str, train: dict, steps: int, wall: float
    ) -> Path:
        """Exports the run's policy to ``out``: the last network, or with ``average`` above
        1 the mean of its weights at the last curve points (the last network then goes
        beside it, as ``*_last.pt``, with its quick match and the mean's in the log)."""
        train.update(env_steps=steps, wall_s=round(wall))
        if self.average > 1:
            last = export(net, self.out.removesuffix(".pt") + "_last.pt", library, train, steps)
            print(f"saved the last network as {last}", flush=True)
            net, points = curve.averaged(net)
            train["averaged_points"] = points
            found = quick_match(net, "greedy", self.eval_games, CURVE_SEED, self.players)
            print(f"[average] the mean of the weights at {points} env steps: "
                  f"{found['win_rate']:.1%} of {self.eval_games} games against greedy, "
                  f"margin {found['margin']:+.1f}", flush=True)  # fmt: skip
        path = export(net, self.out, library, train, steps)
        print(f"saved {path} after {steps} env steps in {wall / 60:.1f} min", flush=True)
        return path

    def lr_factor(self, done: float) -> float:
        """The learning rate over --lr when ``done`` (0 to 1) of --steps are behind."""
        end = self.lr if self.lr_end is None else self.lr_end
        return 1.0 + (end / self.lr - 1.0) * min(1.0, max(0.0, done))

    def epsilon(self, env_steps: int) -> float:
        """Exploration at this step: falling linearly from eps_start to eps_end."""
        done = min(1.0, env_steps / self.eps_steps)
        return self.eps_start + (self.eps_end - self.eps_start) * done

    def end_bonus(self, scores: Sequence[int], seat: int) -> float:
        """What ``seat`` gets on top of its margin when the game ends by its rules with
        these scores: ``win_bonus`` times its "win" reward, since a recipe is judged by
        its wins while the margin teaches every move."""
        return self.win_bonus * win_reward(scores, seat) if self.win_bonus else 0.0

    def make_env(self, **extra) -> gymnasium.Env:
        """One learner seat against ``opponent`` in the whole-move mode, reward the margin
        scaled by REWARD_SCALE, plus ``end_bonus`` at the end."""
        env = gymnasium.make(
            ENV_ID,
            opponent=self.opponent,
            num_players=self.players,
            action_mode="moves",
            max_moves=self.max_moves,
            look_ahead=self.look_ahead,
            seat=None,
            reward="margin",
            **extra,
        )
        env = gymnasium.wrappers.TransformReward(env, lambda r: r * REWARD_SCALE)
        return EndBonus(env, self) if self.win_bonus else env


class EndBonus(gymnasium.Wrapper):
    """Adds the recipe's ``end_bonus`` to the one-seat view's reward on the step at which
    the game ends by its rules (not at a truncation: nobody won)."""

    def __init__(self, env: gymnasium.Env, recipe: QRecipe) -> None:
        super().__init__(env)
        self.recipe = recipe

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        view = self.env.unwrapped
        if terminated and view.env.game.over:
            reward += self.recipe.end_bonus(view.env.game.scores, view.seat)
        return obs, reward, terminated, truncated, info


class SelfPlayRows(MultiAgentDictEnv):
    """Every seat of one game for a recipe's self-play (``--opponent self``), in RLlib's
    dict form: each seat's "margin" reward scaled as in the one-seat view, plus its
    ``end_bonus`` when the game ends by its rules (every seat then observes once more)."""

    def __init__(self, recipe: QRecipe) -> None:
        self.recipe = recipe
        super().__init__(
            num_players=recipe.players, action_mode="moves", reward="margin",
            max_moves=recipe.max_moves, look_ahead=recipe.look_ahead,
        )  # fmt: skip

    def step(self, action_dict: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        obs, rewards, terminateds, truncateds, infos = super().step(action_dict)
        rewards = {a: r * REWARD_SCALE for a, r in rewards.items()}
        if terminateds["__all__"]:
            scores = self.env.game.scores
            for a in rewards:
                rewards[a] += self.recipe.end_bonus(scores, self.env.agent_name_mapping[a])
        return obs, rewards, terminateds, truncateds, infos


def row_values(net: MovePolicyNet, obs: torch.Tensor) -> torch.Tensor:
    """The rows' values for a library's Q-learning: the network's, masked where a row
    holds no move, and 0 for every row after the game's end (no row holds a move there),
    so that a target never reads a masked value."""
    q, _ = net(obs.float())
    _, rows = split_observation(obs, net.config.max_moves, net.config.look_ahead)
    any_move = (rows.abs().amax(dim=-1) > 0).any(dim=1, keepdim=True)
    return torch.where(any_move, q, torch.zeros_like(q))


HELP = {
    "steps": "env steps (learner turns) at most",
    "minutes": "stop after this many minutes of wall time, whatever --steps says",
    "players": "seats per game (2-4); every other seat plays --opponent",
    "opponent": "the other seats' agent spec (greedy, heuristic, ckpt:PATH, ...), or 'self' "
    "(RLlib's recipe: every seat plays and learns)",
    "look_ahead": "rows the env looks at two moves ahead (0: the 28 columns only)",
    "max_moves": "K, the rows of the table",
    "hidden": "width of the row network",
    "row_only": "each row's value reads the row's columns alone, not the position block beside "
    "them (as the move-value agent's network does)",
    "lr": "Adam learning rate",
    "lr_end": "the learning rate at --steps, reached linearly from --lr (default: --lr)",
    "gamma": "discount (the game ends: 1 is fine)",
    "win_bonus": f"reward units ({1 / REWARD_SCALE:g} points each) added at the game's end, "
    "times the env's 'win' reward: +1 to a winner, -1 to a loser with 2 players (0: none)",
    "n_step": "the returns' horizon, in learner turns",
    "batch": "transitions per gradient step",
    "buffer": "transitions the replay keeps",
    "learning_starts": "env steps collected before the first update",
    "train_every": "env steps between gradient steps",
    "target_every": "gradient steps between copies to the target network",
    "eps_start": "epsilon-greedy exploration (a random legal row) at first",
    "eps_end": "... after --eps-steps",
    "eps_steps": "env steps over which epsilon falls",
    "envs": "games stepped together",
    "seed": "random seed",
    "eval_every": "env steps between learning-curve points",
    "eval_games": "games per learning-curve point (on deal seeds 101-110)",
    "average": "the saved policy is the mean of the network's weights at the last this many "
    "curve points (1: the last network; above 1 the last one is also saved, as *_last.pt)",
    "out": "the checkpoint; its curve goes beside it",
}


def q_recipe_parser(description: str, out: str, **defaults) -> argparse.ArgumentParser:
    """The command line of a Q-learning recipe: every QRecipe field as an option (a
    recipe's own ``defaults`` override the shared ones), plus ``--smoke``."""
    base = QRecipe()
    p = argparse.ArgumentParser(
        description=description, formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument("--smoke", action="store_true", help="a run of a few hundred steps")
    for f in fields(QRecipe):
        default = defaults.get(f.name, out if f.name == "out" else getattr(base, f.name))
        flag = "--" + f.name.replace("_", "-")
        if f.type == "bool":
            p.add_argument(flag, action=argparse.BooleanOptionalAction, default=default,
                           help=HELP[f.name])  # fmt: skip
            continue
        kind = {"int": int, "float": float, "float | None": float}.get(f.type, str)
        p.add_argument(flag, type=kind, default=default, help=HELP[f.name])
    return p


SMOKE = {"steps": 300, "learning_starts": 64, "batch": 16, "buffer": 256, "eval_every": 150,
         "eval_games": 2, "envs": 2, "eps_steps": 300}  # fmt: skip


def q_recipe(
    args: argparse.Namespace, self_play: bool = False, one_seat_n_step: int | None = None
) -> QRecipe:
    """The recipe the command line asks for, or SystemExit saying every option that is
    wrong and what is allowed: before any library starts. ``self_play``: whether this
    library's recipe can play every seat with the learner (``--opponent self``).
    ``one_seat_n_step``: the longest horizon this library's replay samples correctly
    against an agent spec (None: any)."""
    chosen = {f.name: getattr(args, f.name) for f in fields(QRecipe)}
    if args.smoke:
        chosen.update(SMOKE)
    problems = []
    try:
        recipe = QRecipe(**chosen)
    except ValueError as e:
        recipe = None
        problems.append(str(e))
    against_self = chosen["opponent"] == SELF
    if against_self and not self_play:
        problems.append(
            "opponent 'self' (every seat learning) is examples/rllib_dqn.py's; this recipe "
            "plays one seat against an agent spec (greedy, heuristic, ckpt:PATH, ...)"
        )
    n_step = chosen["n_step"]
    if (one_seat_n_step is not None and not against_self and isinstance(n_step, int)
            and n_step > one_seat_n_step):  # fmt: skip
        problems.append(
            f"n_step must be at most {one_seat_n_step} with this library against an agent "
            f"spec (its replay mis-counts longer returns), got {n_step}"
        )
    if problems:
        raise SystemExit("error: " + "; ".join(problems))
    return recipe
