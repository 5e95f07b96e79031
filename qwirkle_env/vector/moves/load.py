"""One move-simulator slot set to an engine Game: crafted positions (endgames, skipped
turns, nearly dead tables) play on in ``VectorMoves`` exactly as in
``raw_env(action_mode="moves").reset(options={"game": game})``."""

from __future__ import annotations

from ...engine.game import Game
from ..batch import check_loadable, load_seats
from .state import BASE, C_PLAYERS, C_STRICT, FRONT, GRID, MoveState

FAR = BASE - 16  # table cells beyond this would put the walks past the grid's edge


def load_game(s: MoveState, i: int, game: Game) -> None:
    """Slot ``i`` of ``s`` continues ``game`` from the start of its current turn, its
    frontier in the board's own order (the order of its move list)."""
    check_loadable(game, int(s.cfg[C_PLAYERS]), bool(s.cfg[C_STRICT]))
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
    load_seats(s, i, game)


__all__ = ["load_game"]
