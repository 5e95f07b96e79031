"""The learned oracle: a measuring instrument that sees every hand and the bag's order, and
judges what it sees with the learned network.

The scripted oracle (``agents.scripted.oracle``) rolls greedy players out to the end of the
true game, so it models greedy opponents exactly and every other opponent badly. This one
assumes nothing about the opponent: each of its network's best ``k`` moves is played in
the true game (its own draw is the bag's true next tiles), the next opponent's best
``replies`` answers (by the network from their seat, and the highest-scoring one) are each
played from their true hand, and the position that comes back is worth the margin plus
the network's best 1-ply worth of the hand we then truly hold. A move is worth its worst
answer. Once the bag of a 2-player game is empty it plays the learned search's endgame on
the true game. In 3- and 4-player games the opponents after the next one answer with their
network's best move. No player may know what it knows, so it is never an opponent; the
evaluation harness shows it the whole game (``peek``) before each of its turns.
"""

from __future__ import annotations

import numpy as np

from agents.move_value.agent import DEFAULT_WIN_VALUE, BySeatCount, ValueAgent, move_values
from agents.move_value.features import POINT_SCALE, candidates
from agents.move_value.search import ENDGAME_K, rank_moves, turn_worth
from agents.options import check_options
from agents.scripted.endgame import endgame_values
from agents.scripted.oracle import LEARNED_ORACLE_OPTIONS, PeekingAgent
from qwirkle_env.engine.game import Game
from qwirkle_env.engine.moves import Move
from qwirkle_env.rows.position import Position
from qwirkle_env.spec import margin, win_reward
from qwirkle_env.view import PlayerView


class LearnedOracleAgent(PeekingAgent):
    """Perfect-information search two plies deep, the network at the leaves."""

    OPTIONS = LEARNED_ORACLE_OPTIONS
    who = "the learned oracle"

    def __init__(self, network: ValueAgent | BySeatCount, k: int = 10, replies: int = 8) -> None:
        opts = check_options("learned-oracle", self.OPTIONS, {"k": k, "replies": replies})
        self.k, self.replies = opts["k"], opts["replies"]
        self.network = network

    def check_players(self, num_players: int) -> None:
        self.network.check_players(num_players)

    def choose(self, view: PlayerView) -> Move:
        game = self.true_game(view)
        network = self.network.network(game.num_players)
        endgame = game.num_players == 2 and game.bag_size == 0
        k = ENDGAME_K if endgame else self.k
        cands, order, _ = rank_moves(network, Position.of_game(game), k, self.rng)
        moves = [cands.move(int(i)) for i in order[:k]]
        if len(moves) == 1:
            return moves[0]
        if endgame:  # nothing is hidden even to a fair player: the learned search's endgame
            worth = endgame_values(game, moves, self.rng.randrange(2**63), 0.0, None)
            return moves[int(np.nanargmax(worth))]
        worth = [self.worst_answer(game, move, network) for move in moves]
        return moves[int(np.argmax(worth))]  # the first of the best

    def worst_answer(self, game: Game, move: Move, network: ValueAgent) -> float:
        """``move`` in a copy of the true game, then its worst outcome over the next
        opponent's likeliest answers, in points from the mover's seat."""
        seat = game.current
        after = game.clone()
        after.apply(move)
        if after.over or after.current == seat:  # nobody can answer
            return self.outcome(after, seat, network)
        cands = candidates(Position.of_game(after))
        worth = move_values(network.layers, cands)
        picked = list(np.argsort(-worth, kind="stable")[: self.replies])
        greedy = int(np.argmax(cands.points))  # the first of the highest-scoring
        if greedy not in picked:
            picked.append(greedy)
        worst = np.inf
        for i in picked:
            answered = after.clone()
            answered.apply(cands.move(int(i)))
            while not answered.over and answered.current != seat:  # 3-4 players: the rest
                answered.apply(best_move(network, answered))
            worst = min(worst, self.outcome(answered, seat, network))
        return worst

    def outcome(self, game: Game, seat: int, network: ValueAgent) -> float:
        """The margin from ``seat`` plus what is to come: the network's worth of the turn
        if it is ``seat``'s, the result at the network's weight if the game is over."""
        value = float(margin(game.scores, seat))
        if game.over:
            trained = network.meta.get("train") or {}
            win_value = float(trained.get("win_value", DEFAULT_WIN_VALUE))
            return value + POINT_SCALE * win_value * win_reward(game.scores, seat)
        if game.current == seat:
            value += turn_worth(network.layers, game)
        return value


def best_move(network: ValueAgent, game: Game) -> Move:
    """The network's cheapest judgement of the player to move: the best 1-ply worth."""
    cands = candidates(Position.of_game(game))
    return cands.move(int(np.argmax(move_values(network.layers, cands))))
