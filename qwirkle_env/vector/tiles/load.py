"""One simulator slot set to an engine Game: crafted positions (endgames, nearly dead
tables) play on in the simulator exactly as they would in the engine and the AEC env."""

from __future__ import annotations

from ...engine.game import Game
from ...engine.lines import COLOR_MASK, SHAPE_MASK, mask_of
from ...spec import NUM_COLORS
from ..batch import check_loadable, load_seats
from . import core
from .rules import refresh
from .state import C_GRID, C_PLAYERS, C_STRICT, EMPTY, MARGIN, TABLE, State


def load_game(s: State, i: int, game: Game) -> None:
    """Slot ``i`` of ``s`` continues ``game`` from the start of its current turn."""
    check_loadable(game, int(s.cfg[C_PLAYERS]), bool(s.cfg[C_STRICT]))
    g = int(s.cfg[C_GRID])
    cells = game.board.tile_ids
    bounds = game.board.bounds()
    if bounds is None:
        base = (g // 2, g // 2)
    else:
        r0, r1, c0, c1 = bounds
        if max(r1 - r0, c1 - c0) + 1 > g - 2 * MARGIN:
            raise ValueError(f"the table ({r1 - r0 + 1} x {c1 - c0 + 1}) outgrows the grid {g}")
        base = ((g - (r1 - r0 + 1)) // 2 - r0, (g - (c1 - c0 + 1)) // 2 - c0)
    s.grid[i] = EMPTY
    s.front_at[i] = -1
    s.n_front[i] = 0
    s.counts[i] = 0
    s.base[i] = base
    s.tiles[i] = len(cells)
    for (r, c), t in cells.items():
        s.grid[i, (r + base[0]) * g + c + base[1]] = TABLE + t
        s.counts[i, t] += 1
    if bounds is not None:
        s.box[i] = (r0 + base[0], r1 + base[0], c0 + base[1], c1 + base[1])
        for r, c in cells:
            p = (r + base[0]) * g + c + base[1]
            for q in (p - 1, p + 1, p - g, p + g):
                refresh(s, i, q)
    load_seats(s, i, game)
    s.n_groups[i] = 0
    if game.opening_size is not None and game.strict_opening:
        distinct = mask_of(game.hands[game.current])
        for k in range(NUM_COLORS):
            for m in (distinct & COLOR_MASK[k], distinct & SHAPE_MASK[k]):
                if m.bit_count() == game.opening_size:
                    s.groups[i, s.n_groups[i]] = m
                    s.n_groups[i] += 1
    s.truncated[i] = False
    s.outside[i] = 0
    s.final_outside[i] = 0
    s.final_truncated[i] = False
    s.error[i] = 0
    core.new_turn(s, i, True)
    core.features(s, i)
