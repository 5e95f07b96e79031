"""The endgame of a 2-player game: once the bag is empty, nothing is hidden.

The unseen tiles are all in the opponent's hand, so every deal a simulation could draw is
the same one, and the simulations of ``search`` only repeat each other. Here each of our
candidates is answered by every legal reply of the opponent instead, each reply followed
by greedy turns to the end of the game (compiled: ``qwirkle_env.vector.tiles.rollouts``, with
no deal), and a candidate is worth its worst final margin. (Ranking a win above every
loss first would change nothing: the worst case and the best of them are the same under
any order that keeps the margins' order.)
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import numpy as np

from agents.scripted.search import greedy_rollout
from qwirkle_env.engine.game import Game
from qwirkle_env.engine.moves import Move
from qwirkle_env.spec import margin
from qwirkle_env.vector.tiles.rollouts import Rollouts


def endgame_values(
    game: Game,
    moves: list[Move],
    seed: int,
    start: float,
    budget: float | None,
    check: Callable[[], None] | None = None,
) -> np.ndarray:
    """Each move's worst final margin for the player to move, over every reply.

    ``game`` must be a 2-player game with an empty bag. Moves are valued in the order
    given while the next one fits in ``budget`` CPU seconds counted from ``start``
    (``time.process_time``; None: every move); the first is always valued, the ones not
    reached are NaN, so put the likeliest first. ``check`` is called before each move (an
    agent's ``check_cancelled``: it raises to stop).
    """
    if game.num_players != 2 or game.bag_size:
        raise ValueError("the endgame is for 2-player games with an empty bag")
    seat = game.current
    rng = random.Random(seed)
    values = np.full(len(moves), np.nan)
    began = time.process_time()
    for k, move in enumerate(moves):
        if check is not None:
            check()
        if k and budget is not None:
            now = time.process_time()
            if now - start + (now - began) / k > budget:  # the next one would overrun
                break
        after = game.clone()
        after.apply(move)
        if not after.over and after.current == seat:  # the opponent is stuck: no reply
            greedy_rollout(after, None, rng)
        if after.over:
            values[k] = margin(after.scores, seat)
            continue
        replies = after.legal_placements()  # the bag is empty: no exchange
        theirs = Rollouts(after, replies, deal=False).simulate(rng.randrange(2**63), None)
        values[k] = float(np.min(-theirs))  # their margin is minus ours
    return values


def empty_bag_positions(count: int, seed: int, players: int = 2) -> list[Game]:
    """Games at the turn their bag emptied: greedy games of seeds seed, seed + 1, ... (ties
    broken by ``random.Random(seed)``), the ones that ended before it left out. Positions
    for measuring endgame play."""
    found, rng = [], random.Random(seed)
    while len(found) < count:
        game = Game(players, seed=seed)
        seed += 1
        while not game.over and game.bag_size:
            greedy_rollout(game, 1, rng)
        if not game.over:
            found.append(game)
    return found


__all__ = ["empty_bag_positions", "endgame_values"]
