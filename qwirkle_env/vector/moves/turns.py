"""Whole turns on the move simulator's arrays: dealing, playing a row, passing the turn.

Compiled twins of ``Game.__init__``, ``apply_placement`` (checked) / ``apply_exchange``
and ``_advance`` for ``VectorMoves``; ``table.py`` shows each new turn's table. The deal
is ``vector/kernels.py``'s and the bag's draws ``mt19937``'s, as in the tile simulator.
What is new here is the frontier's order, which is the order of the move list: cells join
it in the order the engine's Python set of them iterates (``engine/setorder.py``), and
leave it without reordering the others, as the engine's frontier dict does.
"""

from __future__ import annotations

import numpy as np

from ...engine.compiled import COMPAT, REACH_CELLS, set_order
from ...jit import kernel, njit
from ...spec import ALL, COPIES, END_BONUS, HAND_SIZE, MAX_PLAYERS, NUM_TYPES, win_share
from ..kernels import REWARD_WIN, deal, give_points, remove_tile, sort_tiles
from ..mt19937 import shuffle
from .state import BASE, C_PLAYERS, C_REWARD, FRONT, GRID
from .table import scratch, show, show_in_full

STEPS = (-1, 1, -GRID, GRID)  # left, right, up, down: Board.place_legal's order

_win_share = njit(cache=True)(win_share)


# --- the frontier ---------------------------------------------------------------------
@kernel
def _fit_axis(grid, p, d) -> int:
    """Types a tile alone on empty p may have for its line along d (Board's FIT_H/FIT_V)."""
    t1 = 0
    c1 = ALL
    q = p - d
    while grid[q] > 0:
        t = grid[q] - 1
        t1 |= np.int64(1) << t
        c1 &= COMPAT[t]
        q -= d
    c2 = ALL
    q = p + d
    while grid[q] > 0:
        c2 &= COMPAT[grid[q] - 1]
        q += d
    return 0 if t1 & ~c2 else c1 & c2


@kernel
def _drop(s, i, p):
    """Takes cell p off game i's frontier, keeping the others' order."""
    front = s.front[i]
    n = s.n_front[i]
    for k in range(n):
        if front[k] == p:
            for j in range(k, n - 1):
                front[j] = front[j + 1]
                s.fit[i, j] = s.fit[i, j + 1]
            s.n_front[i] = n - 1
            return


@kernel
def _refresh(s, i, items, k, hashes, w):
    """The frontier after tiles ``items[:k]`` (cells) joined the table, as
    ``Board.place_legal``: the cells past the ends of every run through them, in the
    order of the engine's set of them; a new one joins the frontier at its end."""
    grid = s.grid[i]
    keys, key_hashes = w.keys, w.key_hashes
    n = 0
    for j in range(k):
        for d in STEPS:
            q = items[j] + d
            while grid[q] > 0:
                q += d
            r = q // GRID - BASE + REACH_CELLS
            c = q % GRID - BASE + REACH_CELLS
            keys[n] = q
            key_hashes[n] = hashes[r, c]
            n += 1
    order = w.refreshed
    m = set_order(keys, key_hashes, n, w.slots, w.table_hashes, order, w.old)
    for j in range(m):
        q = order[j]
        fit = _fit_axis(grid, q, 1) & _fit_axis(grid, q, GRID)
        if grid[q] == FRONT:
            for f in range(s.n_front[i]):
                if s.front[i, f] == q:
                    s.fit[i, f] = fit
                    break
        else:
            grid[q] = FRONT
            f = s.n_front[i]
            s.front[i, f] = q
            s.fit[i, f] = fit
            s.n_front[i] = f + 1


@kernel
def _can_place(s, i, hand) -> bool:
    """Board.can_place: whether a type of the mask fits anywhere."""
    if hand == 0:
        return False
    if s.tiles[i] == 0:
        return True
    for f in range(s.n_front[i]):
        if s.fit[i, f] & hand:
            return True
    return False


# --- playing a row --------------------------------------------------------------------
@kernel
def play(s, i, row, hashes, w):
    """Game i's mover plays the move of ``row``, as Game.apply_placement (checked) or
    apply_exchange, and passes the turn on (or ends the game); ``w``: scratch
    (``table.make_scratch``)."""
    seat = s.current[i]
    move = s.moves[i, row]
    hand = s.hands[i, seat]
    n = s.hand_n[i, seat]
    k = move[0]
    if k > 0:
        grid = s.grid[i]
        cells = w.cells
        first = s.tiles[i] == 0
        for j in range(k):
            p = move[2 + 2 * j]
            t = move[3 + 2 * j]
            cells[j] = p
            grid[p] = 1 + t
            s.counts[i, t] += 1
            s.tiles[i] += 1
            n = remove_tile(hand, n, t)
            r, c = p // GRID, p % GRID
            if first and j == 0:
                s.box[i, 0], s.box[i, 1], s.box[i, 2], s.box[i, 3] = r, r, c, c
            else:
                s.box[i, 0] = min(s.box[i, 0], r)
                s.box[i, 1] = max(s.box[i, 1], r)
                s.box[i, 2] = min(s.box[i, 2], c)
                s.box[i, 3] = max(s.box[i, 3], c)
        for j in range(k):
            _drop(s, i, cells[j])
        _refresh(s, i, cells, k, hashes, w)
        s.opening[i] = 0
        take = min(HAND_SIZE - n, s.bag_n[i])
        for j in range(take):
            hand[n + j] = s.bag[i, s.bag_n[i] - take + j]
        s.bag_n[i] -= take
        n += take
        sort_tiles(hand, n)
        s.hand_n[i, seat] = n
        points = move[1]
        if n == 0:
            points += END_BONUS
            s.over[i] = True
        s.scores[i, seat] += points
        give_points(s.rewards, i, seat, points, s.cfg[C_REWARD], s.cfg[C_PLAYERS])
        if not s.over[i]:
            _advance(s, i, True)
    else:
        k = -k
        top = s.bag_n[i] - k
        for j in range(k):
            n = remove_tile(hand, n, move[3 + 2 * j])
        for j in range(k):  # draw k, then the returned tiles go back and the bag is shuffled
            hand[n + j] = s.bag[i, top + j]
            s.bag[i, top + j] = move[3 + 2 * j]
        shuffle(s.rng, s.rng_pos, i, s.bag[i], s.bag_n[i])
        n += k
        sort_tiles(hand, n)
        _advance(s, i, False)
    if s.over[i]:
        _finish(s, i)


@kernel
def _advance(s, i, after_placement):
    """Game._advance: passes the turn on, skipping who can't move; ends a dead game."""
    if s.bag_n[i] > 0 and after_placement:
        off_table = 0
        for t in range(NUM_TYPES):
            if s.counts[i, t] < COPIES:
                off_table |= np.int64(1) << t
        if not _can_place(s, i, off_table):
            s.over[i] = True
            return
    n = s.cfg[C_PLAYERS]
    for step in range(1, n + 1):
        seat = (s.current[i] + step) % n
        if s.bag_n[i] > 0:
            s.current[i] = seat
            return
        hand = 0
        for j in range(s.hand_n[i, seat]):
            hand |= np.int64(1) << s.hands[i, seat, j]
        if _can_place(s, i, hand):
            s.current[i] = seat
            return
    s.over[i] = True


@kernel
def _finish(s, i):
    s.done[i] = True
    n = s.cfg[C_PLAYERS]
    for seat in range(MAX_PLAYERS):
        s.final_scores[i, seat] = s.scores[i, seat]
    if s.cfg[C_REWARD] == REWARD_WIN:
        best = s.scores[i, 0]
        for seat in range(n):
            best = max(best, s.scores[i, seat])
        winners = 0
        for seat in range(n):
            winners += s.scores[i, seat] == best
        for seat in range(n):
            s.rewards[i, seat] = _win_share(n, winners, s.scores[i, seat] == best)


# --- games ----------------------------------------------------------------------------
@kernel
def new_game(s, i):
    """Deals slot i's next game, as ``Game(n, seeder.randrange(2**63), strict)``."""
    grid = s.grid[i]
    if s.tiles[i]:
        for r in range(s.box[i, 0] - 1, s.box[i, 1] + 2):
            for c in range(s.box[i, 2] - 1, s.box[i, 3] + 2):
                grid[r * GRID + c] = 0
    s.n_front[i] = 0
    s.tiles[i] = 0
    for t in range(NUM_TYPES):
        s.counts[i, t] = 0
    s.game_seed[i], s.bag_n[i], s.current[i], s.opening[i] = deal(
        s.cfg[C_PLAYERS], s.seeder, s.seeder_pos, s.rng, s.rng_pos, s.key, s.bag, s.hands,
        s.hand_n, i,
    )  # fmt: skip
    for seat in range(s.scores.shape[1]):
        s.scores[i, seat] = 0
    s.over[i] = False


@kernel
def _step(s, actions, autoreset, hashes, lo, hi, w, need) -> int:
    """``step_games`` on games lo..hi-1 while ``w`` holds their tables; returns hi, or
    the game whose table did not fit (played, not shown; ``need``: what it needs)."""
    for i in range(lo, hi):
        s.done[i] = False
        for seat in range(s.rewards.shape[1]):
            s.rewards[i, seat] = 0.0
        if actions[i] >= 0:
            play(s, i, actions[i], hashes, w)
        if s.done[i] and autoreset:
            new_game(s, i)
        if not show(s, i, w, need):
            return i
    return hi


@njit(cache=True, nogil=True)
def step_games(s, actions, autoreset, hashes, lo, hi):
    """Games lo..hi-1 play their rows (-1: none, a finished game), deal the next game
    where one ended (with autoreset) and show their next tables; threads run disjoint
    ranges without the GIL. The turns run as kernels; a table too long for the scratch
    gets a longer one here."""
    w = scratch()
    need = np.zeros(2, np.int64)
    i = _step(s, actions, autoreset, hashes, lo, hi, w, need)
    while i < hi:
        w = show_in_full(s, i, w, need)
        i = _step(s, actions, autoreset, hashes, i + 1, hi, w, need)


@kernel
def _reset(s, which, start, w, need) -> int:
    """``reset_games`` from ``which[start]`` while ``w`` holds the tables; returns
    len(which), or the index of the slot whose table did not fit (dealt, not shown)."""
    for k in range(start, which.shape[0]):
        i = which[k]
        new_game(s, i)
        s.done[i] = False
        for seat in range(s.rewards.shape[1]):
            s.rewards[i, seat] = 0.0
        if not show(s, i, w, need):
            return k
    return which.shape[0]


@njit(cache=True, nogil=True)
def reset_games(s, which):
    """Deals the slots in ``which`` a new game and shows its first table (their seeders
    already seeded)."""
    w = scratch()
    need = np.zeros(2, np.int64)
    k = _reset(s, which, 0, w, need)
    while k < which.shape[0]:
        w = show_in_full(s, which[k], w, need)
        k = _reset(s, which, k + 1, w, need)


@njit(cache=True, nogil=True)
def sample_rows(n_rows, u, out, lo, hi):
    """A uniformly random shown row per game (``u`` uniform in [0, 1)); -1 if none."""
    for i in range(lo, hi):
        out[i] = int(u[i] * n_rows[i]) if n_rows[i] else -1


__all__ = ["new_game", "play", "reset_games", "sample_rows", "step_games"]
