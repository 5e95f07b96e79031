"""Expert iteration, one round: the 1-ply network learns from its own search's choices.

Self-play games of the learned search (the network proposes, simulations choose) record,
at each decision, the moves the network looked at two moves ahead and the one the search
played. The network is then trained so that its one-ply worth (points plus afterstate
value) puts the searched move first: a softmax over the looked-at moves, cross-entropy to
the search's choice. A second term keeps its values near the starting network's on other
moves of the same positions, whose cheap features choose the shortlist at play time.
"""

from __future__ import annotations

import copy
import random
from dataclasses import asdict, dataclass
from multiprocessing import Pool
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from agents.checkpoint import load_checkpoint, save_checkpoint
from agents.move_value.agent import ValueAgent, value_agent_of
from agents.move_value.features import POINT_SCALE, MoveRowsAhead
from agents.move_value.network import MoveValueNet
from agents.move_value.search import LearnedSearchAgent
from agents.registry import recorded_name
from qwirkle_env import Game
from qwirkle_env.engine.moves import Move
from qwirkle_env.view import PlayerView


@dataclass
class DistilConfig:
    games: int = 600
    """self-play games of the learned search"""
    budget: float = 0.05
    """the search's CPU seconds a move"""
    sims: int | None = None
    """simulations a move instead of the budget (reproducible, for tests)"""
    epochs: int = 3
    """passes over the decisions"""
    lr: float = 3e-4
    """Adam learning rate"""
    batch: int = 256
    """decisions per gradient step"""
    temperature: float = 0.1
    """the softmax's temperature on worth (POINT_SCALE units: 0.1 makes a point one logit)"""
    anchor: float = 1.0
    """weight of the squared change of value on the other moves"""
    others: int = 16
    """other moves a decision keeps for that term"""
    processes: int = 2
    """worker processes for the games"""
    seed: int = 0
    """seeds the games and the fit"""

    def to_dict(self) -> dict:
        return asdict(self)

    def __post_init__(self) -> None:
        """ValueError naming every field out of its range, as TDConfig does."""
        problems = [
            f"{name} must be {rule} (got {getattr(self, name)!r})"
            for name, rule, ok in [
                ("games", "an integer >= 1", self.games >= 1),
                ("budget", "in (0, 10] CPU seconds", 0 < self.budget <= 10),
                ("epochs", "an integer >= 1", self.epochs >= 1),
                ("lr", "> 0", self.lr > 0),
                ("batch", "an integer >= 1", self.batch >= 1),
                ("temperature", "> 0", self.temperature > 0),
                ("anchor", ">= 0", self.anchor >= 0),
                ("others", "an integer >= 0", self.others >= 0),
                ("processes", "an integer >= 1", self.processes >= 1),
            ]
            if not ok
        ]
        if problems:
            raise ValueError("distil: " + "; ".join(problems))


@dataclass
class Decision:
    looked: np.ndarray  # float32 (r, features): the moves looked at, complete rows
    points: np.ndarray  # float32 (r,): their points over POINT_SCALE
    chosen: int  # the row among ``looked`` the search played
    others: np.ndarray  # float32 (m, features): other moves, cheap rows (look ahead zero)


class Recorder(LearnedSearchAgent):
    """The learned search, keeping each decision it makes as a ``Decision``."""

    def __init__(self, network: ValueAgent, others: int, **options) -> None:
        super().__init__(network, **options)
        self.others = others
        self.decisions: list[Decision] = []
        self._seen: tuple[MoveRowsAhead, np.ndarray] | None = None

    def ranking(self, view: PlayerView, k: int):
        cands, order, worth = super().ranking(view, k)
        if cands.position is not None and len(cands) > 1:
            self._seen = (cands, order)  # the look-ahead rows are exactly ``order``
        return cands, order, worth

    def choose(self, view: PlayerView) -> Move:
        self._seen = None
        move = super().choose(view)
        if self._seen is not None:
            cands, order = self._seen
            looked = [cands.move(int(i)) for i in order]
            if move in looked:
                rest = np.setdiff1d(np.arange(len(cands)), order)
                pick = self.rng.sample(range(len(rest)), min(self.others, len(rest)))
                self.decisions.append(
                    Decision(
                        looked=cands.features[order].astype(np.float32),
                        points=(cands.points[order] / POINT_SCALE).astype(np.float32),
                        chosen=looked.index(move),
                        others=cands.features[rest[pick]].astype(np.float32),
                    )
                )
        return move


def collect_game(task: tuple) -> list[Decision]:
    """One 2-player self-play game of the learned search, both seats recorded."""
    torch.set_num_threads(1)
    path, seed, cfg = task
    net, meta = load_checkpoint(path, kind=MoveValueNet)
    network = value_agent_of(net, meta, path)
    game = Game(2, seed=seed)
    seats = [Recorder(network, cfg.others, budget=cfg.budget, sims=cfg.sims) for _ in range(2)]
    for seat, agent in enumerate(seats):
        agent.reset(seat, 2, seed * 2 + seat)
    while not game.over:
        game.apply(seats[game.current].choose(PlayerView.of(game, game.current)))
    return [d for agent in seats for d in agent.decisions]


def collect(path: str | Path, cfg: DistilConfig) -> list[Decision]:
    """The decisions of ``cfg.games`` self-play games, in worker processes."""
    tasks = [(str(path), cfg.seed * 1_000_003 + i, cfg) for i in range(cfg.games)]
    out: list[Decision] = []
    with Pool(cfg.processes) as pool:
        for found in tqdm(pool.imap(collect_game, tasks), total=len(tasks), desc="searched games"):
            out.extend(found)
    return out


def fine_tune(net: MoveValueNet, data: list[Decision], cfg: DistilConfig) -> list[dict]:
    """Trains ``net`` in place on the search's choices; one dict of losses per epoch."""
    start = copy.deepcopy(net).eval()
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    rng = random.Random(cfg.seed)
    width = max(len(d.points) for d in data)
    history = []
    for epoch in range(cfg.epochs):
        order = list(range(len(data)))
        rng.shuffle(order)
        sums = {"choice": 0.0, "anchor": 0.0, "agree": 0.0}
        for b in range(0, len(order), cfg.batch):
            batch = [data[i] for i in order[b : b + cfg.batch]]
            x, points, mask, chosen = _padded(batch, width)
            rows = torch.from_numpy(np.concatenate([d.others for d in batch]))
            worth = points + net(x)
            logits = torch.where(mask, worth / cfg.temperature, torch.tensor(-1e9))
            choice = torch.nn.functional.cross_entropy(logits, chosen)
            with torch.no_grad():
                kept = start(rows)
            anchor = ((net(rows) - kept) ** 2).mean()
            loss = choice + cfg.anchor * anchor
            opt.zero_grad()
            loss.backward()
            opt.step()
            n = len(batch)
            sums["choice"] += choice.item() * n
            sums["anchor"] += anchor.item() * n
            sums["agree"] += float((logits.argmax(1) == chosen).float().sum())
        history.append({"epoch": epoch + 1, **{k: v / len(data) for k, v in sums.items()}})
    return history


def _padded(batch: list[Decision], width: int):
    features = batch[0].looked.shape[1]
    x = np.zeros((len(batch), width, features), np.float32)
    points = np.zeros((len(batch), width), np.float32)
    mask = np.zeros((len(batch), width), bool)
    for j, d in enumerate(batch):
        r = len(d.points)
        x[j, :r], points[j, :r], mask[j, :r] = d.looked, d.points, True
    chosen = torch.tensor([d.chosen for d in batch])
    return torch.from_numpy(x), torch.from_numpy(points), torch.from_numpy(mask), chosen


def distil(start: str | Path, out: str | Path, cfg: DistilConfig) -> Path:
    """One round: collect from the network at ``start``, fine-tune it, save it to ``out``."""
    net, meta = load_checkpoint(start, kind=MoveValueNet)
    data = collect(start, cfg)
    history = fine_tune(net, data, cfg)
    for row in history:
        print(row)
    train = {**meta.get("train", {}), "distil": cfg.to_dict(), "distil_from": recorded_name(start)}
    return save_checkpoint(out, net, meta["env"], train, meta.get("step", 0))


__all__ = ["Decision", "DistilConfig", "Recorder", "collect", "distil", "fine_tune"]
