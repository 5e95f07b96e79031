"""The oracle: a measuring instrument that sees every hand and the bag's order.

No player may know what it knows, so it is not offered as an opponent; the evaluation
harness shows it the whole game (``peek``) before each of its turns. It plays each of its
best ``k`` placements by points, and the greedy exchange, in the true game, lets greedy
players go on to the end, and keeps the move with the best final margin (``sims`` tie
seeds averaged). Its win rate bounds what skill can win against those opponents: the rest
is luck no player can see past. It assumes greedy opponents, so against stronger ones it
is a strong player rather than an exact ceiling; after an exchange the bag's new order is
the simulator's, not the game's.
"""

from __future__ import annotations

import numpy as np

from agents.base import PlanningAgent
from agents.options import Option, check_options
from agents.scripted.baselines import exchange_rule
from qwirkle_env.engine.game import Game
from qwirkle_env.engine.moves import Exchange, Move, Placement
from qwirkle_env.engine.placements import row_items
from qwirkle_env.vector.tiles.rollouts import Rollouts
from qwirkle_env.view import PlayerView

# The options of the oracle that judges by the learned network (agents.move_value.oracle),
# written here so that the registry checks them without loading torch.
LEARNED_ORACLE_OPTIONS = {
    "k": Option(int, 1, 50, unit="the network's best moves tried"),
    "replies": Option(int, 1, 50, unit="the next opponent's answers tried per move"),
}


class PeekingAgent(PlanningAgent):
    """An instrument that sees the whole game: the harness shows it (``peek``) before each
    of its turns, and nothing else does, so it never plays on the page or in the env."""

    sees_everything = True  # the harness calls peek(game) before each turn
    who = "the oracle"  # for the refusal
    game: Game | None = None

    def peek(self, game: Game) -> None:
        """The whole game, as it stands at the start of this agent's turn."""
        self.game = game

    def true_game(self, view: PlayerView) -> Game:
        """The game ``view`` is a view of, as peeked; RuntimeError if none was shown."""
        game = self.game
        if game is None or game.current != view.seat or len(game.board) != len(view.board):
            raise RuntimeError(
                f"{self.who} sees the whole game: only the evaluation harness shows it one "
                "(peek), so it cannot play on the page or as an env opponent"
            )
        return game


class OracleAgent(PeekingAgent):
    """Perfect-information search with greedy rollouts to the end of the true game."""

    OPTIONS = {"k": Option(int, 1, 500), "sims": Option(int, 1, 50)}

    def __init__(self, k: int = 30, sims: int = 2) -> None:
        opts = check_options("oracle", self.OPTIONS, {"k": k, "sims": sims})
        self.k, self.sims = opts["k"], opts["sims"]

    def choose(self, view: PlayerView) -> Move:
        game = self.true_game(view)
        rows = game.placement_rows()
        order = np.argsort(-rows[:, 1], kind="stable")[: self.k] if len(rows) else []
        moves: list[Move] = [Placement.of_ids(row_items(rows[i])) for i in order]
        if game.bag and game.opening_size is None:
            ids = exchange_rule(game.hands[game.current], len(game.bag), self.rng)
            if ids:
                moves.append(Exchange.of_ids(ids))
        if len(moves) == 1:
            return moves[0]
        rollouts = Rollouts(game, moves, deal=False)
        totals = np.zeros(len(moves))
        for _ in range(self.sims):
            totals += rollouts.simulate(self.rng.randrange(2**63), None)
        return moves[int(np.argmax(totals))]
