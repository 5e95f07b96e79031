"""One move-simulator slot set to an engine Game: crafted positions (endgames, skipped
turns, nearly dead tables) play on in ``VectorMoves`` exactly as in
``raw_env(action_mode="moves").reset(options={"game": game})``."""

from __future__ import annotations

import numpy as np

from ..engine.game import Game
from .move_state import BASE, C_PLAYERS, C_STRICT, FRONT, GRID, MoveState
from .mt19937 import N_WORDS

FAR = BASE - 16  # table cells beyond this would put the walks past the grid's edge


def load_game(s: MoveState, i: int, game: Game) -> None:
    """Slot ``i`` of ``s`` continues ``game`` from the start of its current turn, its
    frontier in the board's own order (the order of its move list)."""
    if not isinstance(game, Game):
        raise TypeError(f"expected an engine Game, got {game!r}")
    if game.over:
        raise ValueError("the game is over: load a game that still has a move to play")
    if game.num_players != s.cfg[C_PLAYERS] or game.strict_opening != bool(s.cfg[C_STRICT]):
        raise ValueError(
            f"the game has {game.num_players} players, strict_opening={game.strict_opening}; "
            f"this simulator plays {int(s.cfg[C_PLAYERS])}, "
            f"strict_opening={bool(s.cfg[C_STRICT])}"
        )
    board = game.board
    cells = board.tile_ids
    if any(abs(x) > FAR for cell in cells for x in cell):
        raise ValueError(f"the table reaches past +-{FAR} cells from (0, 0): it can't be loaded")
    s.grid[i] = 0
    s.counts[i] = 0
    s.tiles[i] = len(cells)
    for (r, c), t in cells.items():
        s.grid[i, (r + BASE) * GRID + c + BASE] = 1 + t
        s.counts[i, t] += 1
    bounds = board.bounds()
    if bounds is not None:
        s.box[i] = [x + BASE for x in bounds]
    fits = board.fit_masks
    for k, (r, c) in enumerate(board.frontier):  # in the order the cells joined it
        p = (r + BASE) * GRID + c + BASE
        s.grid[i, p] = FRONT
        s.front[i, k] = p
        s.fit[i, k] = fits.get((r, c), 0)
    s.n_front[i] = len(board.frontier)
    s.bag[i, : len(game.bag.tiles)] = game.bag.tiles
    s.bag_n[i] = len(game.bag.tiles)
    s.hands[i] = 0
    s.hand_n[i] = 0
    s.scores[i] = 0
    for seat in range(game.num_players):
        s.hands[i, seat, : len(game.hands[seat])] = sorted(game.hands[seat])
        s.hand_n[i, seat] = len(game.hands[seat])
        s.scores[i, seat] = game.scores[seat]
    s.current[i] = game.current
    s.opening[i] = game.opening_size or 0
    _, words, _ = game.to_dict()["rng"]  # Python's MT19937: 624 words and a position
    s.rng[i] = np.array(words[:N_WORDS], dtype=np.uint32)
    s.rng_pos[i] = words[N_WORDS]
    s.game_seed[i] = game.seed
    s.over[i] = False
    s.done[i] = False
    s.rewards[i] = 0.0
    s.final_scores[i] = 0


__all__ = ["load_game"]
