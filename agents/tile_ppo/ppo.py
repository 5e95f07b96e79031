"""Masked PPO with self-play, readable top to bottom (in the spirit of CleanRL's ppo.py).

1. Warm start (optional): clone the greedy agent (agents.tile_ppo.imitation).
2. Loop: collect ``rollout_steps`` learner transitions from ``num_envs`` games stepped
   together (agents.tile_ppo.selfplay; opponents: the current policy, past snapshots, scripted
   agents; or, with ``backend="vector"``, agents.tile_ppo.vector_selfplay on the batched simulator,
   without scripted agents), compute GAE per seat-trajectory, then ``epochs`` passes of
   clipped-objective minibatch updates with value and entropy terms.
3. Every ``eval_every`` steps: win rates against random and greedy for the learning curve,
   a checkpoint, a snapshot for the opponent pool.

Reward: a dense zero-sum score margin (``margin_scale`` per point, weight annealed from
``margin_coef_start`` to ``margin_coef_end``) plus the game result (+1/-1) at the end.
The margin teaches scoring quickly; the win term is what the final policy optimises.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import asdict, dataclass, field, fields

import numpy as np
import torch

from agents.tile_ppo.network import NetConfig, PolicyValueNet, masked_distribution
from agents.tile_ppo.selfplay import Buffer, SelfPlay
from qwirkle_env.actions import ActionCodec
from qwirkle_env.spec import DEFAULT_WINDOW, MIN_WINDOW, NUM_FEATURES

BACKENDS = ("aec", "vector")


@dataclass
class PPOConfig:
    """Every hyper-parameter of a run. Defaults: the default run on 2 CPU cores
    (docs/training.md gives its time). Each field's docstring is its --help text."""

    # environment
    num_players: int = 2
    """seats per game (2-4)"""
    window: int = DEFAULT_WINDOW
    """env window side W (the network works for any W)"""
    strict_opening: bool = True
    """force the largest-group opening (rules default)"""
    # rollouts
    backend: str = "aec"
    """rollouts from AEC envs (aec) or the batched simulator (vector; no scripted
    opponents there: the default --p-scripted share is self-play, a different
    --p-scripted or --scripted is an error)"""
    # budget
    total_steps: int = 2_048
    """learner sub-steps collected by PPO"""
    num_envs: int = 16
    """games stepped together, one batched forward per step"""
    rollout_steps: int = 1024
    """transitions per PPO update"""
    # PPO
    epochs: int = 2
    """passes over each rollout"""
    minibatch: int = 256
    """transitions per gradient step"""
    lr: float = 2e-4
    """Adam learning rate (PPO)"""
    anneal_lr: bool = True
    """decay the PPO learning rate linearly to 0"""
    gamma: float = 0.995
    """discount per sub-step"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    clip: float = 0.2
    """PPO clip range"""
    ent_coef: float = 0.003
    """entropy bonus weight"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping norm"""
    # reward
    margin_scale: float = 0.05
    """reward per point of score margin"""
    margin_coef_start: float = 1.0
    """weight of the margin reward at the start"""
    margin_coef_end: float = 0.25
    """weight of the margin reward at the end (annealed linearly)"""
    win_coef: float = 1.0
    """reward for winning (minus for losing) at the end of a game"""
    # opponents, per game: pool snapshot, scripted agent, else self-play
    p_pool: float = 0.2
    """share of games against a past snapshot"""
    p_scripted: float = 0.3
    """share of games against a scripted agent (the rest: self-play)"""
    scripted: str = "greedy"
    """comma-separated scripted opponents, e.g. greedy,heuristic"""
    pool_size: int = 8
    """snapshots kept in the opponent pool"""
    # warm start by behaviour cloning (0 games: PPO from scratch)
    bc_games: int = 16
    """teacher games for the behaviour-cloning warm start (0: none)"""
    bc_epochs: int = 2
    """passes over the teacher data"""
    bc_teacher: str = "greedy"
    """agent spec cloned in the warm start"""
    bc_lr: float = 1e-3
    """learning rate of the warm start"""
    # evaluation and checkpoints
    eval_every: int = 2_048
    """PPO steps between evaluations, checkpoints and pool snapshots"""
    eval_games: int = 16
    """games per opponent in each in-training evaluation"""
    eval_opponents: str = "random,greedy"
    """comma-separated opponents for the learning curve"""
    seed: int = 0
    """random seed"""
    device: str = "cpu"
    """cpu or cuda (if available)"""
    threads: int = 1
    """torch CPU threads (1 is faster than 2 on 2 shared cores: docs/training.md)"""
    net: NetConfig = field(default_factory=NetConfig)

    def __post_init__(self) -> None:
        """ValueError naming every field out of its range, and the pairs of fields that do
        not go together, as TDConfig does."""
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {self.backend!r}")
        problems = [
            f"{name} must be {rule} (got {getattr(self, name)!r})"
            for name, rule, ok in [
                ("num_players", "2, 3 or 4", self.num_players in (2, 3, 4)),
                ("window", f"an integer >= {MIN_WINDOW}", self.window >= MIN_WINDOW),
                ("total_steps", "an integer >= 1", self.total_steps >= 1),
                ("num_envs", "an integer >= 1", self.num_envs >= 1),
                ("rollout_steps", "an integer >= 1", self.rollout_steps >= 1),
                ("epochs", "an integer >= 1", self.epochs >= 1),
                ("minibatch", "an integer >= 1", self.minibatch >= 1),
                ("lr", "> 0", self.lr > 0),
                ("gamma", "in [0, 1]", 0 <= self.gamma <= 1),
                ("gae_lambda", "in [0, 1]", 0 <= self.gae_lambda <= 1),
                ("clip", "> 0", self.clip > 0),
                ("ent_coef", ">= 0", self.ent_coef >= 0),
                ("vf_coef", ">= 0", self.vf_coef >= 0),
                ("max_grad_norm", "> 0", self.max_grad_norm > 0),
                ("p_pool", "in [0, 1]", 0 <= self.p_pool <= 1),
                ("p_scripted", "in [0, 1]", 0 <= self.p_scripted <= 1),
                ("pool_size", "an integer >= 1", self.pool_size >= 1),
                ("bc_games", "an integer >= 0", self.bc_games >= 0),
                ("bc_epochs", "an integer >= 1", self.bc_epochs >= 1),
                ("bc_lr", "> 0", self.bc_lr > 0),
                ("eval_every", "an integer >= 1", self.eval_every >= 1),
                ("eval_games", "an integer >= 1", self.eval_games >= 1),
                ("threads", "an integer >= 1", self.threads >= 1),
                ("device", "cpu or cuda[:N]", self.device.split(":")[0] in ("cpu", "cuda")),
            ]
            if not ok
        ]
        if self.p_pool + self.p_scripted > 1:
            problems.append(
                f"p_pool + p_scripted must be <= 1 (got {self.p_pool} + {self.p_scripted})"
            )
        defaults = {f.name: f.default for f in fields(self)}
        if self.backend == "vector" and self.p_scripted > 0:
            if (self.p_scripted, self.scripted) != (defaults["p_scripted"], defaults["scripted"]):
                problems.append(
                    "the vector backend has no scripted opponents (they need the AEC env's "
                    "per-game objects): leave p_scripted and scripted at their defaults "
                    "(--p-scripted, --scripted), or use backend aec"
                )
        if self.device.startswith("cuda") and not torch.cuda.is_available():
            problems.append("device cuda: CUDA is not available here; use device cpu")
        if problems:
            raise ValueError("bad PPO config: " + "; ".join(problems))

    def env_options(self) -> dict:
        return {
            "num_players": self.num_players,
            "window": self.window,
            "strict_opening": self.strict_opening,
        }

    def to_dict(self) -> dict:
        return asdict(self)


def ppo_update(
    net: PolicyValueNet,
    opt: torch.optim.Optimizer,
    buf: Buffer,
    cfg: PPOConfig,
    device: torch.device,
    rng: np.random.Generator,
) -> dict:
    """GAE, then ``cfg.epochs`` passes of clipped PPO over the complete transitions."""
    adv_all, ret_all = buf.gae(cfg.gamma, cfg.gae_lambda)
    idx_all = buf.complete()
    stats: dict[str, list[float]] = {k: [] for k in ("pg", "vf", "ent", "kl", "clipfrac")}
    net.train()
    for _ in range(cfg.epochs):
        for idx in buf.minibatches(idx_all, cfg.minibatch, rng):
            b = buf.batch(idx, device)
            adv = torch.from_numpy(adv_all[idx]).to(device)
            ret = torch.from_numpy(ret_all[idx]).to(device)
            loss, info = ppo_loss(net, b, adv, ret, cfg)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            opt.step()
            for k, v in info.items():
                stats[k].append(v)
    net.eval()
    out = {k: float(np.mean(v)) for k, v in stats.items() if v}
    var = np.var(ret_all[idx_all])
    out["explained_var"] = float(1 - np.var(ret_all[idx_all] - buf.values[idx_all]) / (var + 1e-8))
    return out


def ppo_loss(
    net: PolicyValueNet, b: dict, adv: torch.Tensor, ret: torch.Tensor, cfg: PPOConfig
) -> tuple[torch.Tensor, dict]:
    """The clipped surrogate + value + entropy loss on one minibatch (and diagnostics)."""
    logits, values = net(b["planes"], b["features"])
    dist = masked_distribution(logits, b["masks"])
    logp = dist.log_prob(b["actions"])
    entropy = dist.entropy().mean()
    log_ratio = logp - b["logps"]
    ratio = log_ratio.exp()
    adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(adv) > 1 else adv
    pg = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip, 1 + cfg.clip)).mean()
    vf = 0.5 * ((values - ret) ** 2).mean()
    loss = pg - cfg.ent_coef * entropy + cfg.vf_coef * vf
    with torch.no_grad():
        info = {
            "pg": pg.item(),
            "vf": vf.item(),
            "ent": entropy.item(),
            "kl": ((ratio - 1) - log_ratio).mean().item(),
            "clipfrac": ((ratio - 1).abs() > cfg.clip).float().mean().item(),
        }
    return loss, info


def train(cfg: PPOConfig, hooks) -> PolicyValueNet:
    """Runs the whole schedule. ``hooks`` (``agents.tile_ppo.run.Run``) provides ``initial``
    (weights to start from, or None), ``log(step, dict)``, ``evaluate(net, step)``,
    ``checkpoint(net, step)`` and ``progress(step, dict)``."""
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    device = torch.device(cfg.device)
    net = PolicyValueNet(cfg.net).to(device).eval()
    if hooks.initial is not None:  # resume / fine-tune from a checkpoint
        net.load_state_dict(hooks.initial)

    if cfg.bc_games > 0 and hooks.initial is None:
        from agents.tile_ppo.imitation import clone, teacher_games

        t0 = time.time()
        data = teacher_games(cfg, cfg.bc_games, cfg.seed + 1)
        hooks.log(0, {"bc_samples": data.size, "bc_gen_s": time.time() - t0})
        net.train()
        clone(
            net,
            data,
            cfg.bc_epochs,
            cfg.minibatch,
            cfg.bc_lr,
            device,
            cfg.seed,
            log=lambda s: hooks.log(0, s),
        )
        net.eval()
        del data
        hooks.checkpoint(net, 0)  # the warm start alone, to resume from or compare with
    hooks.evaluate(net, 0)  # the learning curve's first point

    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr, eps=1e-5)
    play, buf = make_rollouts(cfg, device)
    pool_net = PolicyValueNet(cfg.net).to(device)
    pool: deque[dict] = deque(maxlen=cfg.pool_size)
    pool.append({k: v.clone() for k, v in net.state_dict().items()})
    rng = np.random.default_rng(cfg.seed)
    step, next_eval, start = 0, cfg.eval_every, time.time()
    recent: deque[dict] = deque(maxlen=200)
    while step < cfg.total_steps:
        frac = step / cfg.total_steps
        if cfg.anneal_lr:
            opt.param_groups[0]["lr"] = cfg.lr * (1.0 - frac)
        play.margin_coef = cfg.margin_coef_start + frac * (
            cfg.margin_coef_end - cfg.margin_coef_start
        )
        play.set_pool(list(pool), pool_net)
        t0, before = time.time(), buf.size
        agent_steps, forward_s = play.agent_steps, play.forward_s
        play.collect(net, buf, cfg.rollout_steps)
        added, t1 = buf.size - before, time.time()
        step += added
        stats = ppo_update(net, opt, buf, cfg, device, rng)
        play.remap(buf.carry_pending())  # unfinished transitions wait for their reward
        recent.extend(play.finished)
        play.finished.clear()
        stats.update(summarise_games(recent))
        stats.update(
            steps_per_s=step / (time.time() - start),
            collect_s=t1 - t0,
            collect_steps_per_s=added / (t1 - t0),  # learner transitions
            env_steps_per_s=(play.agent_steps - agent_steps) / (t1 - t0),  # all seats
            forward_s=play.forward_s - forward_s,  # of collect_s: the networks' sampling
            update_s=time.time() - t1,
            lr=opt.param_groups[0]["lr"],
            margin_coef=play.margin_coef,
        )
        hooks.log(step, stats)
        hooks.progress(step, stats)
        if step >= next_eval or step >= cfg.total_steps:
            next_eval += cfg.eval_every
            pool.append({k: v.detach().clone() for k, v in net.state_dict().items()})
            hooks.evaluate(net, step)
            hooks.checkpoint(net, step)
    return net


def make_rollouts(cfg: PPOConfig, device: torch.device):
    """The games and the buffer of the configured backend."""
    num_actions = ActionCodec(cfg.window).num_actions
    if cfg.backend == "vector":
        from agents.tile_ppo.vector_selfplay import CompactBuffer, VectorSelfPlay

        buf = CompactBuffer(cfg.rollout_steps * 2, cfg.window, num_actions, NUM_FEATURES)
        return VectorSelfPlay(cfg, device), buf
    buf = Buffer(cfg.rollout_steps * 2, cfg.window, num_actions, NUM_FEATURES)
    return SelfPlay(cfg, device), buf


def summarise_games(games) -> dict:
    """Recent training games: win share and margin per opponent kind."""
    out = {}
    for kind in ("self", "pool", "scripted"):
        sel = [g for g in games if g["versus"] == kind]
        if sel and kind != "self":
            out[f"train_win_{kind}"] = float(np.mean([g["share"] for g in sel]))
        if sel:
            out[f"train_margin_{kind}"] = float(np.mean([g["margin"] for g in sel]))
    return out
