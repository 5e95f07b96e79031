"""A greedy player with judgement: points now, plus what the move leaves behind.

Each placement is valued by its points, less the expected Qwirkle it hands the next player
(a line of five whose completing tile is still unseen), plus a Qwirkle it sets up for
itself, plus the lines it opens, less the tiles and duplicates it keeps in hand. The
weights were fitted (least squares, within positions) to two-ply determinised rollout
values of greedy-play positions, then checked in duplicate matches against greedy. Once the
bag is empty the unseen tiles are the opponents' hands, so it weighs each of its best
moves against the best reply they allow, and hurries to go out first.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, fields

from agents.base import PlanningAgent
from agents.options import Option, check_options
from agents.scripted.baselines import exchange_rule
from qwirkle_env.engine.board import FIT_H, FIT_V, Board
from qwirkle_env.engine.lines import mask_of
from qwirkle_env.engine.moves import Exchange, Move, Placement
from qwirkle_env.engine.tiles import NUM_SHAPES, NUM_TYPES
from qwirkle_env.rows.position import chance_opponent_holds
from qwirkle_env.spec import END_BONUS
from qwirkle_env.view import PlayerView


@dataclass
class Weights:
    """The heuristic's knobs, in points (fitted to rollout values, see the module doc)."""

    points: float = 0.8  # per point scored now (big moves also open the table)
    risk: float = 2.7  # per unit chance that the next player holds a Qwirkle we opened
    own_five: float = 3.9  # per line of five we can complete and they (probably) can't
    lines: float = 0.23  # per line of 2-4 tiles through the placed tiles (room to grow)
    kept: float = 0.6  # per tile kept in hand (placing more draws more fresh tiles)
    duplicate: float = 0.45  # per extra copy of a tile type kept (two can't share a line)
    synergy: float = 0.05  # per kept tile sharing a colour/shape group with another
    hurry: float = 2.0  # per tile still held once the bag is empty
    reply: float = 1.0  # per point of the opponents' best reply, once the bag is empty
    top: int = 20  # placements looked at closely (these need a board copy)


# The weights' limits as spec options (``heuristic:risk=3``): finite, and ``top`` at least 1.
WEIGHT_OPTIONS = {
    f.name: Option(int, 1, 200) if f.type in (int, "int") else Option(float, -100, 100)
    for f in fields(Weights)
}


def leave_value(kept: list[int], w: Weights) -> float:
    """What the tiles kept in hand are worth (negative: fresh draws are better)."""
    if not kept:
        return 0.0
    distinct = set(kept)
    colours = Counter(t // NUM_SHAPES for t in distinct)
    shapes = Counter(t % NUM_SHAPES for t in distinct)
    synergy = sum(g - 1 for g in colours.values()) + sum(g - 1 for g in shapes.values())
    dups = len(kept) - len(distinct)
    return w.synergy * synergy - w.duplicate * dups - w.kept * len(kept)


def lines_through(board: Board, items) -> list[tuple[int, int]]:
    """(length, completing mask) of each line the placed tiles now belong to.

    ``board`` already holds the placed tiles. The mask (tile types that would make a line of
    five a Qwirkle at one of its ends) is 0 for other lengths.
    """
    front = board.frontier
    out = []
    for lo, hi, (dr, dc), n in board.runs_through(cell for cell, _ in items):
        mask = 0
        if n == 5:
            for end in ((lo[0] - dr, lo[1] - dc), (hi[0] + dr, hi[1] + dc)):
                info = front.get(end)
                if info is not None:
                    mask |= info[FIT_H] & info[FIT_V]
        out.append((n, mask))
    return out


def open_fives(board: Board, items) -> list[int]:
    """Completing masks of the lines of five through the placed tiles that can still grow."""
    return [mask for n, mask in lines_through(board, items) if n == 5 and mask]


class Evaluator:
    """Values placements for one view: shared by the heuristic and the search agent."""

    def __init__(self, view: PlayerView, w: Weights) -> None:
        self.view = view
        self.w = w
        self.unseen = view.unseen()
        self.unseen_total = sum(self.unseen)
        self.opp_held = sum(n for s, n in enumerate(view.hand_sizes) if s != view.seat)
        self.endgame = view.bag_size == 0

    def quick(self, items, points: int) -> float:
        """Points, end bonus and the kept tiles (no board copy)."""
        kept = list(self.view.hand)
        for _, t in items:
            kept.remove(t)
        if self.endgame:
            return points + (END_BONUS if not kept else -self.w.hurry * len(kept))
        return self.w.points * points + leave_value(kept, self.w)

    def detail(self, items) -> float:
        """Qwirkles opened for the next player or for us, lines opened; replies late on."""
        w = self.w
        board = self.view.board.copy()
        board.place_legal(list(items))
        if self.endgame:
            return -w.reply * self.best_reply(board, items)
        kept = Counter(self.view.hand)
        for _, t in items:
            kept[t] -= 1
        value = 0.0
        for n, mask in lines_through(board, items):
            if 2 <= n <= 4:
                value += w.lines
            elif n == 5 and mask:
                types = [t for t in range(NUM_TYPES) if mask >> t & 1]
                copies = sum(self.unseen[t] for t in types)
                p = chance_opponent_holds(copies, self.unseen_total, self.opp_held)
                value -= w.risk * p
                if any(kept[t] > 0 for t in types):
                    value += w.own_five * (1.0 - p)
        return value

    def best_reply(self, board: Board, items) -> float:
        """With the bag empty: the most the opponents' tiles (all unseen) can score next."""
        if not self.opp_held or self.unseen_total == 0:
            return 0.0
        if len(items) == len(self.view.hand):
            return 0.0  # we went out: the game is over
        found = board.placements_with_points(mask_of(t for t, n in enumerate(self.unseen) if n))
        best = 0
        for placed, pts in found:
            if len(placed) == self.opp_held and self.view.num_players == 2:
                pts += END_BONUS
            best = max(best, pts)
        return best

    def ranked(self, found: list) -> list[tuple[float, tuple]]:
        """(value, items), best first: the top ``w.top`` by quick value, looked at closely
        and re-ranked, then the rest (quick value only, so never ahead of the top ones)."""
        scored = sorted(
            ((self.quick(items, pts), i, items) for i, (items, pts) in enumerate(found)),
            key=lambda x: (-x[0], x[1]),
        )
        top = [(v + self.detail(items), i, items) for v, i, items in scored[: self.w.top]]
        top.sort(key=lambda x: (-x[0], x[1]))
        rest = [(v, items) for v, _, items in scored[len(top) :]]
        return [(v, items) for v, _, items in top] + rest


class HeuristicAgent(PlanningAgent):
    """Greedy plus judgement: gives away no cheap Qwirkle, keeps few tiles, hurries late.

    Exchanges (by the greedy rule) only when nothing can be placed.
    """

    OPTIONS = WEIGHT_OPTIONS

    def __init__(self, **weights) -> None:
        self.weights = Weights(**check_options("heuristic", self.OPTIONS, weights))

    def choose(self, view: PlayerView) -> Move:
        found = view.placements()
        if not found:
            return Exchange.of_ids(exchange_rule(view.hand, view.bag_size, self.rng))
        ranked = Evaluator(view, self.weights).ranked(found)[: self.weights.top]
        top = ranked[0][0]
        ties = [items for v, items in ranked if v >= top - 1e-9]
        return Placement.of_ids(ties[self.rng.randrange(len(ties))] if len(ties) > 1 else ties[0])
