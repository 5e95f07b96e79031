"""The learned search: the search agent's simulations over the learned network's best moves.

The network proposes: every legal move is valued one ply deep as the learned agent values
it (points now plus the afterstate value, its shortlist looked at two moves ahead), and the
best ``k`` become the candidates. The simulations then judge them as ``search`` does
(fresh deals of the hidden tiles, greedy turns after, on compiled arrays). ``prior`` > 0
adds the network's afterstate value, in points, times ``prior`` to each mean margin; the
default is 0, which did better in the pilots (docs/strength.md, "How the agents were
tuned"): the network chooses what to look at, the simulations choose among it.
"""

from __future__ import annotations

import numpy as np

from agents.base import exchange, placement
from agents.move_value.agent import BySeatCount, ValueAgent, move_values
from agents.move_value.features import POINT_SCALE, candidates
from agents.move_value.network import values
from agents.options import check_options
from agents.scripted.search import LEARNED_SEARCH_OPTIONS, SearchAgent
from qwirkle_env.engine.moves import Move
from qwirkle_env.position import Position
from qwirkle_env.view import PlayerView


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
    ) -> None:
        given = {"budget": budget, "sims": sims, "k": k, "depth": depth, "prior": prior}
        opts = check_options("learned-search", self.OPTIONS, given)
        super().__init__(budget=opts["budget"], sims=opts["sims"], k=opts["k"], depth=opts["depth"])
        self.prior = opts["prior"]
        self.network = network  # before the first reset, which asks it about seat counts

    def check_players(self, num_players: int) -> None:
        self.network.check_players(num_players)

    def proposals(self, view: PlayerView) -> tuple[list[Move], np.ndarray]:
        network = self.network.network(view.num_players)
        layers, how = network.layers, network.look_ahead
        cands = candidates(Position.of_view(view))
        if not len(cands):
            raise RuntimeError("no legal move in this view: is it this agent's turn?")
        worth = move_values(layers, cands)
        order = np.argsort(-worth, kind="stable")
        if cands.position is not None and len(cands) > 1:
            short = order[: max(how.shortlist, self.k)]
            cands.look_ahead(short, self.rng, how)
            again = cands.points[short] / POINT_SCALE + values(layers, cands.features[short])
            worth[short] = again
            order = short[np.argsort(-again, kind="stable")]
        top = order[: self.k]
        moves = []
        for i in top:
            kind, what = cands.move(int(i))
            moves.append(placement(what) if kind == "place" else exchange(what))
        after = worth[top] - cands.points[top] / POINT_SCALE  # the afterstate's value
        return moves, self.prior * POINT_SCALE * after
