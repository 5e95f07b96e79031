"""The learned search: the search agent's simulations over the learned network's best moves.

The network proposes: every legal move is valued one ply deep as the learned agent values
it (points now plus the afterstate value, its shortlist looked at two moves ahead), and the
best ``k`` become the candidates. The simulations then judge them as ``search`` does
(fresh deals of the hidden tiles, greedy turns after, on compiled arrays). ``prior`` > 0
adds the network's afterstate value, in points, times ``prior`` to each mean margin; the
default is 0, which did better in the pilots (docs/strength.md, "How the agents were
tuned"): the network chooses what to look at, the simulations choose among it.
Once the bag of a 2-player game is empty nothing is hidden, and the simulations would only
repeat one deal: the network's best ``ENDGAME_K`` moves are then answered by every reply
instead (``agents.scripted.endgame``; ``endgame=0`` keeps the simulations).
A simulation is judged by the network (``leaf=1``, the default) rather than by the margin
a few greedy turns later (``leaf=0``): each candidate is played in the deal, the opponents
reply greedily, and the position that comes back is worth the margin so far plus the
network's best 1-ply worth there. That is a better judge than a raw margin, which ignores
what each player is left holding, at the price of far fewer simulations (a move
generation and a network pass per candidate, in Python); it won the pilots on seed 1
(docs/strength.md).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import numpy as np

from agents.move_value.agent import BySeatCount, ValueAgent, move_values
from agents.move_value.features import POINT_SCALE, MoveRowsAhead, candidates
from agents.move_value.network import values
from agents.options import check_options
from agents.scripted.endgame import endgame_values
from agents.scripted.search import LEARNED_SEARCH_OPTIONS, SearchAgent, greedy_rollout
from qwirkle_env.engine.game import Game
from qwirkle_env.engine.moves import Move
from qwirkle_env.rows.position import Position
from qwirkle_env.spec import margin
from qwirkle_env.view import PlayerView

ENDGAME_K = 50  # the network's best moves valued against every reply once the bag is empty


class LearnedSearchAgent(SearchAgent):
    """Determinised Monte Carlo over a move-value network's top-k moves."""

    OPTIONS = LEARNED_SEARCH_OPTIONS

    def __init__(
        self,
        network: ValueAgent | BySeatCount,
        budget: float = 0.25,
        sims: int | None = None,
        k: int = 6,
        depth: int | None = 2,
        prior: float = 0.0,
        endgame: int = 1,
        leaf: int = 1,
    ) -> None:
        given = {"budget": budget, "sims": sims, "k": k, "depth": depth, "prior": prior,
                 "endgame": endgame, "leaf": leaf}  # fmt: skip
        opts = check_options("learned-search", self.OPTIONS, given)
        super().__init__(budget=opts["budget"], sims=opts["sims"], k=opts["k"], depth=opts["depth"])
        self.prior = opts["prior"]
        self.endgame = bool(opts["endgame"])
        self.leaf = bool(opts["leaf"])
        self.network = network  # before the first reset, which asks it about seat counts

    def check_players(self, num_players: int) -> None:
        self.network.check_players(num_players)

    def appraise(self, view: PlayerView, also: Move | None = None) -> tuple[list[Move], np.ndarray]:
        """As ``SearchAgent.appraise``; once the bag of a 2-player game is empty, the
        network's best moves (and ``also``, valued second) against every reply."""
        if not (self.endgame and view.bag_size == 0 and view.num_players == 2):
            return super().appraise(view, also)
        start = time.process_time()
        moves, _ = self.proposals(view, max(self.k, ENDGAME_K))
        if also is not None and also not in moves:
            moves.insert(1, also)
        if len(moves) == 1:
            return moves, np.full(1, np.nan)
        game = view.sample_game(self.rng)  # the only deal: the unseen tiles are their hand
        seed = self.rng.randrange(2**63)
        worth = endgame_values(game, moves, seed, start, self.cpu_limit(), self.check_cancelled)
        return moves, worth

    def simulation(self, view: PlayerView, moves: list[Move]) -> Callable[[], np.ndarray]:
        if not self.leaf:
            return super().simulation(view, moves)
        layers = self.network.network(view.num_players).layers

        def simulate() -> np.ndarray:
            deal = view.sample_game(self.rng)
            return np.array([leaf_value(deal, move, layers, self.rng) for move in moves])

        return simulate

    def ranking(self, view: PlayerView, k: int) -> tuple[MoveRowsAhead, np.ndarray, np.ndarray]:
        """Every legal move (``MoveRowsAhead``), the rows the network looked at two moves
        ahead, best first (at least ``k``, where there are so many), and every row's worth."""
        network = self.network.network(view.num_players)
        return rank_moves(network, Position.of_view(view), k, self.rng)

    def proposals(self, view: PlayerView, k: int | None = None) -> tuple[list[Move], np.ndarray]:
        """The network's best ``k`` moves (default: the agent's ``k``), best first, and
        ``prior`` times their afterstate values in points."""
        k = self.k if k is None else k
        cands, order, worth = self.ranking(view, k)
        top = order[:k]
        moves = [cands.move(int(i)) for i in top]
        after = worth[top] - cands.points[top] / POINT_SCALE  # the afterstate's value
        return moves, self.prior * POINT_SCALE * after


def rank_moves(
    network: ValueAgent, position: Position, k: int, rng: random.Random
) -> tuple[MoveRowsAhead, np.ndarray, np.ndarray]:
    """Every legal move of ``position`` valued as the learned agent values it: the cheap
    features for all, then the look ahead for the best (the network's shortlist, at least
    ``k``). Returns the moves, the looked-at rows best first, and every row's worth."""
    layers, how = network.layers, network.look_ahead
    cands = candidates(position)
    if not len(cands):
        raise RuntimeError("no legal move in this position: is it this seat's turn?")
    worth = move_values(layers, cands)
    order = np.argsort(-worth, kind="stable")
    if cands.position is not None and len(cands) > 1:
        short = order[: max(how.shortlist, k)]
        cands.look_ahead(short, rng, how)
        again = cands.points[short] / POINT_SCALE + values(layers, cands.features[short])
        worth[short] = again
        order = short[np.argsort(-again, kind="stable")]
    return cands, order, worth


def leaf_value(deal: Game, move: Move, layers: list, rng: random.Random) -> float:
    """``move`` in a copy of ``deal``, the opponents' greedy replies, then the margin from
    the mover's seat plus the network's best worth there, in points: how the learned search
    judges a simulation (and ``rollout-values --leaf 1`` its training targets)."""
    game = deal.clone()
    seat = game.current
    game.apply(move)
    greedy_rollout(game, game.num_players - 1, rng)
    value = margin(game.scores, seat)
    if not game.over and game.current == seat:
        value += turn_worth(layers, game)
    return value


def turn_worth(layers: list, game: Game) -> float:
    """The best 1-ply worth, in points, of the player to move in ``game`` (cheap features,
    no look ahead): what a simulation's leaf is worth to them beyond the margin."""
    return POINT_SCALE * float(move_values(layers, candidates(Position.of_game(game))).max())
