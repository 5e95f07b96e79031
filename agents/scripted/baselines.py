"""The simplest baselines: random, random-action and greedy.

They anchor the strength scale: any learned policy should beat random at once and greedy
soon after. They see only the PlayerView and draw from their own seeded RNG. ``random`` is
uniform over whole moves; ``random-action`` is the env's built-in opponent, uniform over the
mask's legal actions (so it favours many-tile exchanges and short placements).
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np

from agents.base import Agent, PlanningAgent
from qwirkle_env.engine.moves import Exchange, Move, Placement
from qwirkle_env.engine.placements import row_items
from qwirkle_env.engine.tiles import NUM_SHAPES
from qwirkle_env.opponents import RandomActionOpponent
from qwirkle_env.view import PlayerView


class RandomAgent(PlanningAgent):
    """Uniform over the full legal moves (each placement and each distinct exchange once).

    Uniform over moves, not over sub-steps, so it is not biased towards exchanges of many tiles.
    """

    OPTIONS: dict = {}  # none

    def choose(self, view: PlayerView) -> Move:
        moves = view.legal_moves()
        return moves[self.rng.randrange(len(moves))]


class RandomActionAgent(RandomActionOpponent, Agent):
    """The env's ``random-action`` opponent (``qwirkle_env.opponents``) as a registry agent,
    so that the spec names the same agent in ``gymnasium.make(..., opponent=...)`` and in
    ``make_agent``: uniform over the legal actions of the mask, sub-step by sub-step."""

    OPTIONS: dict = {}  # none


class GreedyAgent(PlanningAgent):
    """The placement that scores most now, ties at random.

    With no placement it keeps its largest colour/shape group and exchanges the rest.
    """

    OPTIONS: dict = {}  # none

    def choose(self, view: PlayerView) -> Move:
        rows = view.top_placement_rows()  # the highest-scoring of view.placements(), in order
        if not len(rows):
            return Exchange.of_ids(exchange_rule(view.hand, view.bag_size, self.rng))
        return Placement.of_ids(row_items(rows[best_row(rows, self.rng)]))


def best_by_points(found: list, rng: random.Random) -> tuple:
    """Items of a highest-scoring placement, ties broken by ``rng``."""
    top = max(points for _, points in found)
    best = [items for items, points in found if points == top]
    return best[rng.randrange(len(best))] if len(best) > 1 else best[0]


def best_row(rows: np.ndarray, rng: random.Random) -> int:
    """``best_by_points`` on placement rows: the index of a highest-scoring row, ties
    broken by ``rng`` with the same draws, so both pick the same placement."""
    points = rows[:, 1]
    best = np.flatnonzero(points == points.max())
    return int(best[rng.randrange(len(best))]) if len(best) > 1 else int(best[0])


def largest_group_ids(hand: list[int]) -> list[int]:
    """Distinct tile ids of a largest colour or shape group (the first found on ties)."""
    distinct = sorted(set(hand))
    best: list[int] = []
    for k in range(6):
        for group in (
            [t for t in distinct if t // NUM_SHAPES == k],
            [t for t in distinct if t % NUM_SHAPES == k],
        ):
            if len(group) > len(best):
                best = group
    return best


def exchange_rule(hand: list[int], bag_size: int, rng: random.Random) -> list[int]:
    """Tiles to trade: all but one copy of the largest group, duplicates first.

    If that trades nothing (the hand is one clean group that fits nowhere) it trades all.
    At most ``bag_size`` tiles go (the rules forbid more); duplicates go first.
    """
    keep = Counter(largest_group_ids(hand))
    out: list[int] = []
    for t in hand:
        if keep[t]:
            keep[t] -= 1
        else:
            out.append(t)
    if not out:
        out = list(hand)
    if len(out) > bag_size:
        counts = Counter(hand)
        out.sort(key=lambda t: (-counts[t], rng.random()))
        out = out[:bag_size]
    return out
