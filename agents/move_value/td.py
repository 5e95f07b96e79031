"""TD(lambda) self-play for the move-value network, readable top to bottom.

TD-Gammon's recipe on Qwirkle's whole moves:

1. Workers play games on the engine (no env, no board copies): at each turn the mover lists
   its legal moves, values each afterstate with the current network, and plays the best
   one, or samples a softmax over the moves' worth while ``temperature`` > 0. A share of
   games puts a scripted agent in the other seats.
2. Each learner decision k leaves an afterstate x_k. Between x_k and the mover's next
   afterstate x_{k+1} its margin (own score minus the opponents' mean) moves by r_k; after
   the last one, by the rest of the game plus ``win_value`` times the result (+1 win,
   -1 loss, shared on ties). The value target is the lambda-return
   G_k = r_k + (1 - lambda) V(x_{k+1}) + lambda G_{k+1}, in units of POINT_SCALE points.
3. The learner regresses V on the last ``replay`` batches' targets (recomputed with the
   current network each time), then hands the new weights to the workers.

Every ``eval_every`` games the run saves a checkpoint and plays duplicate matches against
``eval_opponents`` through the AEC env (agents.evaluation.harness) for the learning curve.
"""

from __future__ import annotations

import random
import time
from collections import deque
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context

import numpy as np
import torch

from agents.move_value.agent import DEFAULT_WIN_VALUE, select
from agents.move_value.features import POINT_SCALE, candidates
from agents.move_value.network import MoveValueNet, ValueNetConfig
from agents.registry import make_agent
from qwirkle_env.engine.game import Game
from qwirkle_env.rows.look_ahead import DEFAULT_LOOK_AHEAD, LookAhead
from qwirkle_env.rows.position import Position
from qwirkle_env.spec import MAX_TURNS, margin, win_reward
from qwirkle_env.view import PlayerView


@dataclass
class TDConfig:
    """Every hyper-parameter of a run. Defaults: the default run (docs/learned_agent.md).
    Each field's docstring is its --help text."""

    total_games: int = 4_000
    """self-play games to train on"""
    games_per_batch: int = 100
    """games collected between two updates"""
    players: str = "2"
    """seat counts to train on, one drawn per game (e.g. 2,3,4)"""
    lam: float = 0.7
    """TD(lambda)'s lambda (1: Monte Carlo returns)"""
    win_value: float = DEFAULT_WIN_VALUE
    """worth of a win (minus for a loss) in units of 10 points"""
    temperature_start: float = 0.3
    """softmax exploration over the moves' worth, at the start"""
    temperature_end: float = 0.05
    """... at the end (annealed linearly)"""
    p_scripted: float = 0.4
    """share of games against scripted agents (the rest: self-play)"""
    scripted: str = "greedy,heuristic"
    """comma-separated scripted opponents for those games"""
    lr: float = 1e-3
    """Adam learning rate at the start"""
    lr_end: float = 1e-4
    """... at the end (annealed linearly)"""
    epochs: int = 2
    """passes over the replay per update"""
    minibatch: int = 512
    """decisions per gradient step"""
    replay: int = 4
    """batches of games the regression keeps"""
    processes: int = 2
    """self-play worker processes (and evaluation processes)"""
    eval_every: int = 2_000
    """games between checkpoints and learning-curve matches"""
    eval_games: int = 100
    """duplicate games per opponent in each learning-curve match"""
    eval_opponents: str = "greedy,heuristic"
    """comma-separated opponents for the learning curve"""
    seed: int = 0
    """random seed"""
    # the look ahead at the shortlist (look_ahead.LookAhead), stored in checkpoints
    shortlist: int = LookAhead.shortlist
    """moves looked at two moves ahead each turn"""
    play_shortlist: int = 0
    """the shortlist the saved checkpoints play with (0: --shortlist)"""
    reply_samples: int = LookAhead.reply_samples
    """opponent hands dealt for the reply while it is unknown"""
    refill: bool = LookAhead.refill
    """our next move from the kept tiles topped up by a random draw"""
    refill_samples: int = LookAhead.refill_samples
    """draws for that top-up; our next move is their mean"""
    net: ValueNetConfig = field(default_factory=ValueNetConfig)

    def __post_init__(self) -> None:
        problems = []
        for name in ("total_games", "games_per_batch", "epochs", "minibatch", "replay",
                     "processes", "eval_every", "eval_games"):  # fmt: skip
            if getattr(self, name) < 1:
                problems.append(f"{name} must be >= 1 (got {getattr(self, name)})")
        if not 0.0 <= self.lam <= 1.0:
            problems.append(f"lam must be in [0, 1] (got {self.lam})")
        if not 0.0 <= self.p_scripted <= 1.0:
            problems.append(f"p_scripted must be in [0, 1] (got {self.p_scripted})")
        if self.temperature_start < 0 or self.temperature_end < 0:
            problems.append("temperatures must be >= 0")
        if self.lr <= 0 or self.lr_end <= 0:
            problems.append(f"lr and lr_end must be > 0 (got {self.lr}, {self.lr_end})")
        try:
            seats = self.player_counts()
            if not seats or any(n not in (2, 3, 4) for n in seats):
                problems.append(f"players must list seat counts 2, 3 or 4 (got {self.players!r})")
        except ValueError:
            problems.append(f"players must be comma-separated integers (got {self.players!r})")
        if self.play_shortlist < 0:
            problems.append(f"play_shortlist must be >= 0 (got {self.play_shortlist})")
        if self.p_scripted > 0 and not self.scripted_specs():
            problems.append("p_scripted > 0 needs at least one --scripted agent spec")
        try:
            self.look_ahead()
        except ValueError as err:
            problems.append(str(err))
        if problems:
            raise ValueError("bad training config: " + "; ".join(problems))

    def look_ahead(self) -> LookAhead:
        return LookAhead(self.shortlist, self.reply_samples, self.refill, self.refill_samples)

    def play_look_ahead(self) -> LookAhead:
        """The look ahead saved with the checkpoints: the agent may look at more moves at
        play time than it did in self-play, where each look slows collection."""
        return LookAhead(
            self.play_shortlist or self.shortlist, self.reply_samples, self.refill,
            self.refill_samples,
        )  # fmt: skip

    def player_counts(self) -> list[int]:
        return [int(s) for s in str(self.players).split(",") if s.strip()]

    def seat_counts(self) -> list[int]:
        """The distinct seat counts the run trains on, the ones its matches are played in."""
        return sorted(set(self.player_counts()))

    def scripted_specs(self) -> list[str]:
        return [s.strip() for s in self.scripted.split(",") if s.strip()]

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Trajectory:
    """One learner seat's decisions in one game."""

    features: np.ndarray  # (K, NUM_MOVE_FEATURES) of the chosen afterstates
    rewards: np.ndarray  # (K,) r_k in POINT_SCALE units, the result included in the last


# --- self-play ---------------------------------------------------------------------------
_SCRIPTED: dict[str, object] = {}  # per worker


def play_game(
    layers: list,
    seed: int,
    num_players: int,
    temperature: float,
    scripted: str | None,
    win_value: float,
    how: LookAhead = DEFAULT_LOOK_AHEAD,
) -> tuple[list[Trajectory], int, Game]:
    """One game; the learner plays every seat, or seat ``seed % n`` against ``scripted``.

    Returns the learner seats' trajectories, the number of learner decisions and the
    finished game.
    """
    rng = random.Random(seed)
    game = Game(num_players, seed=seed)
    learner = set(range(num_players))
    others = {}
    if scripted is not None:
        seat = seed % num_players
        learner = {seat}
        if scripted not in _SCRIPTED:
            _SCRIPTED[scripted] = make_agent(scripted)
        others = {s: _SCRIPTED[scripted] for s in range(num_players) if s != seat}
    feats: dict[int, list] = {s: [] for s in learner}
    margins: dict[int, list] = {s: [] for s in learner}
    turns = 0
    while not game.over and turns < MAX_TURNS:
        seat = game.current
        if seat in others:
            agent = others[seat]
            agent.reset(seat, num_players, rng.randrange(2**31))
            game.apply(agent.choose(PlayerView.of(game, seat)))
        else:
            cands = candidates(Position.of_game(game))
            i = select(layers, cands, temperature, rng, how)
            game.apply(cands.move(i), trusted=True)
            feats[seat].append(cands.features[i])
            margins[seat].append(margin(game.scores, seat))
        turns += 1
    out = []
    for s in sorted(learner):
        if not feats[s]:
            continue
        m = np.array(margins[s] + [margin(game.scores, s)], dtype=np.float32)
        rewards = np.diff(m) / POINT_SCALE
        rewards[-1] += win_value * win_reward(game.scores, s)
        out.append(Trajectory(np.stack(feats[s]), rewards))
    return out, sum(len(f) for f in feats.values()), game


def one_thread() -> None:
    """Pool initializer: each self-play worker keeps to one torch thread."""
    torch.set_num_threads(1)


def play_task(task: tuple) -> tuple[list[Trajectory], int]:
    """``play_game`` on one tuple of its arguments, for a process pool (without the game)."""
    trajs, decisions, _ = play_game(*task)
    return trajs, decisions


def lambda_returns(traj: Trajectory, next_values: np.ndarray, lam: float) -> np.ndarray:
    """G_k = r_k + (1 - lam) V(x_{k+1}) + lam G_{k+1}; ``next_values[k]`` is V(x_{k+1})
    (0 after the last decision)."""
    out = np.empty_like(traj.rewards)
    g = 0.0
    for k in range(len(out) - 1, -1, -1):
        g = traj.rewards[k] + (1.0 - lam) * next_values[k] + lam * g
        out[k] = g
    return out


def targets(net: MoveValueNet, batch: list[Trajectory], lam: float) -> tuple:
    """(features, lambda-return targets) of every decision in ``batch``."""
    x = np.concatenate([t.features for t in batch])
    with torch.no_grad():
        v = net(torch.from_numpy(x)).numpy()
    ys, at = [], 0
    for t in batch:
        k = len(t.rewards)
        nxt = np.zeros(k, dtype=np.float32)
        nxt[:-1] = v[at + 1 : at + k]
        ys.append(lambda_returns(t, nxt, lam))
        at += k
    return x, np.concatenate(ys)


# --- the loop ------------------------------------------------------------------------------
def train(cfg: TDConfig, hooks, initial: dict | None = None) -> MoveValueNet:
    """Runs TD(lambda) self-play; ``hooks`` (agents.move_value.run.TDRun) logs and evaluates."""
    torch.manual_seed(cfg.seed)
    rng = random.Random(f"td-train:{cfg.seed}")
    net = MoveValueNet(cfg.net)
    if initial is not None:
        net.load_state_dict(initial)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    replay: deque[list[Trajectory]] = deque(maxlen=cfg.replay)
    counts = cfg.player_counts()
    scripted = cfg.scripted_specs()
    torch.set_num_threads(1)  # small products: threads only add waiting on a busy machine
    ctx = get_context("fork")
    pool = ctx.Pool(cfg.processes, initializer=one_thread) if cfg.processes > 1 else None
    played = 0
    hooks.evaluate(net, 0)
    next_eval = cfg.eval_every
    try:
        while played < cfg.total_games:
            frac = played / cfg.total_games
            temp = cfg.temperature_start + (cfg.temperature_end - cfg.temperature_start) * frac
            for group in opt.param_groups:
                group["lr"] = cfg.lr + (cfg.lr_end - cfg.lr) * frac
            layers = net.numpy_layers()
            n = min(cfg.games_per_batch, cfg.total_games - played)
            tasks = []
            for _ in range(n):
                opp = None
                if rng.random() < cfg.p_scripted:
                    opp = scripted[rng.randrange(len(scripted))]
                tasks.append((layers, rng.randrange(2**62) + 2**31, rng.choice(counts), temp,
                              opp, cfg.win_value, cfg.look_ahead()))  # fmt: skip
            start = time.perf_counter()
            results = pool.map(play_task, tasks, chunksize=4) if pool else map(play_task, tasks)
            batch, decisions = [], 0
            for trajs, k in results:
                batch += trajs
                decisions += k
            collect_s = time.perf_counter() - start
            replay.append(batch)
            start = time.perf_counter()
            loss = fit_values(net, opt, [t for b in replay for t in b], cfg, rng)
            update_s = time.perf_counter() - start
            played += n
            hooks.log(played, {
                "decisions_per_s": decisions / collect_s, "collect_s": collect_s,
                "update_s": update_s, "loss": loss, "temperature": temp,
                "lr": opt.param_groups[0]["lr"],
            })  # fmt: skip
            if played >= next_eval or played >= cfg.total_games:
                hooks.evaluate(net, played)
                next_eval += cfg.eval_every
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return net


def fit_values(net: MoveValueNet, opt, data: list[Trajectory], cfg: TDConfig, rng) -> float:
    """``cfg.epochs`` passes of minibatch regression on the lambda-returns; the mean loss."""
    x, y = targets(net, data, cfg.lam)
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    gen = torch.Generator().manual_seed(rng.randrange(2**31))
    losses = []
    for _ in range(cfg.epochs):
        order = torch.randperm(len(y), generator=gen)
        for i in range(0, len(y), cfg.minibatch):
            idx = order[i : i + cfg.minibatch]
            loss = torch.nn.functional.mse_loss(net(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return float(np.mean(losses))
