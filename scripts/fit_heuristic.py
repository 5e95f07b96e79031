"""Where the heuristic's weights come from: least squares on two-ply rollout values.

Greedy self-play gives positions; in each, the ten highest-scoring placements are valued by
determinised rollouts (the search agent's: sampled hidden tiles, greedy reply and greedy
next move, mean final margin over 40 deals). The heuristic's features are then fitted to
those values within each position (both sides centred per position, since only the order
of one position's moves matters), and the coefficients are the defaults of
``agents.scripted.heuristic.Weights``, rounded. ``--games 200`` gives 1,286 positions, R^2 0.67
(0.58 for points alone) and points +0.81, risk +2.70, own_five +3.95, lines +0.23, kept
+0.58, duplicate +0.45, synergy +0.07.

    python scripts/fit_heuristic.py --games 200     # about 4 minutes on 2 cores
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from multiprocessing import Pool

import numpy as np

from agents.scripted.baselines import best_by_points, exchange_rule
from agents.scripted.heuristic import lines_through
from agents.scripted.search import greedy_rollout
from qwirkle_env import Game
from qwirkle_env.rows.position import chance_opponent_holds
from qwirkle_env.spec import margin
from qwirkle_env.view import PlayerView

FEATURES = ["points", "risk", "own_five", "lines", "kept", "duplicate", "synergy"]


def features(view: PlayerView, items, points: int) -> list[float]:
    """The heuristic's terms for one placement, unweighted (signs as in Weights)."""
    unseen = view.unseen()
    total = sum(unseen)
    held = sum(n for s, n in enumerate(view.hand_sizes) if s != view.seat)
    kept = list(view.hand)
    for _, t in items:
        kept.remove(t)
    board = view.board.copy()
    board.place_legal(list(items))
    risk = own = lines = 0.0
    counts = Counter(kept)
    for n, mask in lines_through(board, items):
        if 2 <= n <= 4:
            lines += 1
        elif n == 5 and mask:
            types = [t for t in range(36) if mask >> t & 1]
            p = chance_opponent_holds(sum(unseen[t] for t in types), total, held)
            risk -= p
            own += (1 - p) if any(counts[t] for t in types) else 0.0
    distinct = set(kept)
    groups = Counter(t // 6 for t in distinct) + Counter(6 + t % 6 for t in distinct)
    synergy = sum(g - 1 for g in groups.values())
    return [points, risk, own, lines, -len(kept), -(len(kept) - len(distinct)), synergy]


def positions(seed: int, deals: int = 40, share: float = 0.15) -> list:
    """(features, rollout values) for some positions of one greedy self-play game."""
    rng = random.Random(seed)
    game = Game(2, seed=seed)
    out = []
    while not game.over and len(game.history) < 300:
        found = game.placements_with_points()
        if game.history and found and game.bag.tiles and rng.random() < share:
            view = PlayerView.of(game, game.current)
            cands = sorted(found, key=lambda x: -x[1])[:10]
            values = np.zeros(len(cands))
            for _ in range(deals):
                deal, rollout_seed = view.sample_game(rng), rng.randrange(2**31)
                for i, (items, _) in enumerate(cands):
                    g = deal.clone()
                    g.apply_placement(list(items))
                    greedy_rollout(g, 2, random.Random(rollout_seed))
                    values[i] += margin(g.scores, view.seat) / deals
            feats = np.array([features(view, items, pts) for items, pts in cands])
            out.append((feats, values))
        if found:
            game.apply_placement(list(best_by_points(found, rng)))
        else:
            game.apply_exchange(exchange_rule(game.hands[game.current], len(game.bag), rng))
    return out


def fit(data: list) -> tuple[np.ndarray, float]:
    """Least-squares weights on per-position centred data, and the R^2."""
    x = np.vstack([f - f.mean(axis=0) for f, _ in data])
    y = np.concatenate([v - v.mean() for _, v in data])
    w, *_ = np.linalg.lstsq(x, y, rcond=None)
    r2 = 1 - ((y - x @ w) ** 2).sum() / (y**2).sum()
    return w, float(r2)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fit the heuristic's weights.")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args(argv)
    with Pool(args.processes) as pool:
        data = [p for game in pool.map(positions, range(args.games)) for p in game]
    w, r2 = fit(data)
    print(f"{len(data)} positions, R^2 {r2:.2f}")
    for name, value in zip(FEATURES, w, strict=True):
        print(f"{name:10s} {value:+.3f}")


if __name__ == "__main__":
    main()
