"""Determinised Monte Carlo search: try the best few moves against sampled hidden tiles.

The heuristic proposes the top ``k`` candidates. Each simulation deals the unseen tiles at
random into a full game consistent with the view, plays every candidate in a copy of that
same deal (common random numbers: the candidates face the same opponent hands and the same
bag), then lets greedy players go on for ``depth`` turns (to the end once the bag is
empty), and scores the final margin. The candidate with the best mean margin is played.
The simulations run on the simulator's arrays (``qwirkle_env.vector.tiles.rollouts``), compiled;
``greedy_rollout`` is the same rollout on an engine Game, for scripts that hold one.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import numpy as np

from agents import options
from agents.base import PlanningAgent
from agents.options import Option, check_options
from agents.scripted.baselines import best_row, exchange_rule
from agents.scripted.heuristic import WEIGHT_OPTIONS, Evaluator, Weights
from qwirkle_env.engine.game import Game
from qwirkle_env.engine.hand import HAND_SIZE
from qwirkle_env.engine.moves import Exchange, Move, Placement
from qwirkle_env.engine.placements import row_items
from qwirkle_env.vector.tiles.rollouts import Rollouts
from qwirkle_env.view import PlayerView

MAX_ROLLOUT = 200  # turns; a blocked table would otherwise let exchanges go on for ever


def greedy_rollout(game: Game, turns: int | None, rng: random.Random) -> None:
    """Greedy moves for ``turns`` turns (None: to the end), the greedy exchange when stuck."""
    n = 0
    limit = MAX_ROLLOUT if turns is None else turns
    while not game.over and n < limit:
        rows = game.top_placement_rows()  # the highest-scoring placements, as rows
        if len(rows):
            game.apply_placement(row_items(rows[best_row(rows, rng)]), trusted=True)
        else:
            hand = game.hands[game.current]
            game.apply_exchange(exchange_rule(hand, len(game.bag), rng))
        n += 1


# What every search simulates with; the heuristic's weights or a network choose its moves.
SEARCH_OPTIONS = {
    "budget": Option(float, 0, options.MAX_MOVE_CPU, low_open=True, unit="CPU seconds per move"),
    "sims": Option(int, 1, 1000, none="the budget decides"),
    "k": Option(int, 1, 50),
    "depth": Option(int, 0, 20, none="roll out to the end"),
}
# The options of the search over a learned network's moves (agents.move_value.search),
# written here so that the registry checks them without loading torch.
LEARNED_SEARCH_OPTIONS = {
    **SEARCH_OPTIONS,
    "prior": Option(float, 0, 10, unit="x the network's afterstate value in points"),
    "endgame": Option(int, 0, 1, unit="1: every reply searched once the bag is empty"),
    "leaf": Option(int, 0, 1, unit="1: the network values each simulation's end"),
}


class SearchAgent(PlanningAgent):
    """Determinised Monte Carlo over the heuristic's top-k moves with greedy rollouts.

    ``budget`` is CPU seconds per move (CPU, not wall, so that a busy shared machine does
    not weaken it); ``sims`` (if given) fixes the number of simulations instead, which makes
    the agent reproducible whatever the machine's speed, up to ``options.MAX_MOVE_CPU``: a
    move that reaches the cap stops there and is counted in ``capped``. :meth:`cancel`
    stops a move between simulations.
    """

    OPTIONS = {**SEARCH_OPTIONS, **WEIGHT_OPTIONS}

    def __init__(
        self,
        budget: float = 0.25,
        sims: int | None = None,
        k: int = 10,
        depth: int | None = 2,
        **weights,
    ) -> None:
        given = {"budget": budget, "sims": sims, "k": k, "depth": depth, **weights}
        opts = check_options("search", self.OPTIONS, given)
        self.budget = opts.pop("budget")
        self.sims = opts.pop("sims")
        self.k = opts.pop("k")
        self.depth = opts.pop("depth")
        self.weights = Weights(**opts)
        self.capped = 0  # moves whose fixed ``sims`` were cut short by MAX_MOVE_CPU

    def proposals(self, view: PlayerView) -> tuple[list[Move], np.ndarray]:
        """The candidate moves, and what each is worth before any simulation (in points,
        added to its mean margin): nothing here; a learned search puts its network there."""
        moves = self.candidates(view)
        return moves, np.zeros(len(moves))

    def candidates(self, view: PlayerView) -> list:
        """The candidate moves, best heuristic value first."""
        found = view.placements()
        out = []
        if found:
            ranked = Evaluator(view, self.weights).ranked(found)
            out = [Placement.of_ids(items) for _, items in ranked[: self.k]]
        if view.bag_size and view.opening_size is None:
            # The greedy rule's exchange competes too, unless the bag is nearly empty and
            # there are plenty of placements (exchanging that late rarely pays).
            ids = exchange_rule(view.hand, view.bag_size, self.rng)
            late = view.bag_size < HAND_SIZE
            if ids and not (late and len(out) >= self.k):
                out.append(Exchange.of_ids(ids))
        return out

    def choose(self, view: PlayerView) -> Move:
        moves, worth = self.appraise(view)
        if len(moves) == 1:
            return moves[0]
        return moves[int(np.nanargmax(worth))]  # the first of the best

    def appraise(self, view: PlayerView, also: Move | None = None) -> tuple[list[Move], np.ndarray]:
        """The candidates, ``also`` added if it is not one (an analysis's played move; it
        gets no prior), and each one's worth in points: mean margin plus prior, NaN where
        unknown (a single move is not simulated)."""
        start = time.process_time()  # the budget covers the whole decision
        moves, prior = self.proposals(view)
        if also is not None and also not in moves:
            moves, prior = [*moves, also], np.append(prior, 0.0)
        if len(moves) == 1:
            return moves, np.full(1, np.nan)
        simulate = self.simulation(view, moves)
        totals = np.zeros(len(moves))
        done = 0
        while not self.enough(start, done):
            totals += simulate()
            done += 1
        return moves, totals / done + prior

    def simulation(self, view: PlayerView, moves: list[Move]) -> Callable[[], np.ndarray]:
        """One decision's simulation: each call values every move in a fresh deal."""
        # The table is loaded once; each simulation deals the hidden tiles again.
        rollouts = Rollouts(view.sample_game(self.rng), moves)
        # With the bag empty nothing more is drawn: roll out to the end.
        depth = None if view.bag_size == 0 else self.depth
        return lambda: rollouts.simulate(self.rng.randrange(2**63), depth)

    def enough(self, start: float, done: int) -> bool:
        """Whether a decision begun at CPU time ``start`` with ``done`` simulations should
        stop: ``sims`` reached, or the next one would overrun the budget (with ``sims``:
        the cap, ``options.MAX_MOVE_CPU``). Raises if the move was cancelled."""
        self.check_cancelled()
        if self.sims is not None and done >= self.sims:
            return True
        if not done:
            return False
        spent = time.process_time() - start
        over = spent + spent / done > self.cpu_limit()
        if over and self.sims is not None:
            self.capped += 1
        return over

    def cpu_limit(self) -> float:
        """The CPU seconds a move may take: the budget, or the cap with a fixed ``sims``."""
        return options.MAX_MOVE_CPU if self.sims is not None else self.budget
