"""Whole turns on the move simulator's arrays: the move mode's rows, mask and moves.

Compiled twins of ``move_mode.move_table`` / ``observation`` and ``Game.apply_placement``
/ ``apply_exchange`` for ``VectorMoves``. The placements come from the engine's compiled
generator (``engine/movegen.grow``, anchors in the frontier's joining order), the rows
from ``rowgen.row_features`` and ``list_exchanges``, the deal from ``core.deal``, the
bag's draws from ``mt19937``: the same kernels the engine and the env use, so a slot
seeded like ``raw_env(action_mode="moves")`` shows the same rows, bit for bit
(``tests/test_vector_moves.py``). What is new here is the frontier's order: cells join it
in the order of the engine's Python set (``setorder.py``).
"""

from __future__ import annotations

import numpy as np

from ..engine.lines import COMPAT as COMPAT_TUPLE
from ..engine.movegen import grow
from ..engine.placements import WIDTH
from ..jit import njit
from ..move_mode import (
    NUM_POSITION_FEATURES,
    POS_BAG,
    POS_HAND_SIZES,
    POS_OPENING,
    POS_SCORES,
    POS_SEATS,
    POS_UNSEEN,
    SCORE_SCALE,
)
from ..rowgen import NUM_ROW_FEATURES, list_exchanges, row_features
from ..spec import (
    COPIES,
    END_BONUS,
    HAND_SIZE,
    MAX_LINE,
    MAX_PLAYERS,
    NUM_SHAPES,
    NUM_TILES,
    NUM_TYPES,
    QWIRKLE_BONUS,
    REWARD_MODES,
    win_share,
)
from .core import deal
from .move_state import BASE, C_PLAYERS, C_REWARD, C_ROWS, C_STRICT, FRONT, GRID
from .mt19937 import shuffle
from .setorder import MAX_ITEMS, REACH_CELLS, TABLE_SIZE, set_order

ALL = (1 << NUM_TYPES) - 1
COMPAT = np.array(COMPAT_TUPLE, dtype=np.int64)
COLOUR = (1 << NUM_SHAPES) - 1  # colour 0's types; << 6k for colour k
SHAPE = sum(1 << (NUM_SHAPES * c) for c in range(NUM_SHAPES))  # shape 0's; << k for shape k
STEPS = (-1, 1, -GRID, GRID)  # left, right, up, down: Board.place_legal's order
REWARD_WIN, REWARD_MARGIN = REWARD_MODES.index("win"), REWARD_MODES.index("margin")
MOST_POINTS = 128  # above any move's points (6 Qwirkles of a 6-tile move and the bonus: 90)
_win_share = njit(cache=True)(win_share)


# --- the frontier ---------------------------------------------------------------------
@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def _refresh(s, i, items, k, hashes):
    """The frontier after tiles ``items[:k]`` (cells) joined the table, as
    ``Board.place_legal``: the cells past the ends of every run through them, in the
    order of the engine's set of them; a new one joins the frontier at its end."""
    grid = s.grid[i]
    keys = np.empty(MAX_ITEMS, np.int64)
    key_hashes = np.empty(MAX_ITEMS, np.int64)
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
    slots = np.empty(TABLE_SIZE, np.int64)
    table_hashes = np.empty(TABLE_SIZE, np.int64)
    order = np.empty(MAX_ITEMS, np.int64)
    m = set_order(keys, key_hashes, n, slots, table_hashes, order)
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


@njit(cache=True)
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


# --- the move list --------------------------------------------------------------------
@njit(cache=True)
def _line_points(k) -> int:
    if k < 2:
        return 0
    return k + QWIRKLE_BONUS if k == MAX_LINE else k


@njit(cache=True)
def _emit_line(out, n, group, pos, k, down) -> int:
    if n < out.shape[0]:
        row = out[n]
        row[:] = 0
        row[0] = k
        row[1] = _line_points(k)
        for j in range(k):
            row[2 + 3 * j] = j if down else 0
            row[3 + 3 * j] = 0 if down else j
            row[4 + 3 * j] = group[pos[j]]
    return n + 1


@njit(cache=True)
def opening_rows(hand, size, out) -> int:
    """``placements.opening_placements`` in its order, as rows, keeping those of ``size``
    tiles (0: every size); returns how many (rows past ``out``'s end are not written)."""
    n = 0
    if size <= 1:
        for t in range(NUM_TYPES):
            if hand >> t & 1:
                if n < out.shape[0]:
                    out[n, :] = 0
                    out[n, 0] = 1
                    out[n, 1] = 1
                    out[n, 4] = t
                n += 1
    group = np.empty(MAX_LINE, np.int64)
    pos = np.empty(MAX_LINE, np.int64)
    nxt = np.empty(MAX_LINE, np.int64)
    for g in range(2 * NUM_SHAPES):  # the colours, then the shapes
        members = hand & (COLOUR << (NUM_SHAPES * g) if g < NUM_SHAPES else SHAPE << (g - 6))
        m = 0
        for t in range(NUM_TYPES):
            if members >> t & 1:
                group[m] = t
                m += 1
        for k in range(2, m + 1):
            if size and k != size:
                continue
            # itertools.permutations(group, k): positions in lexicographic order
            used = 0
            d = 0
            nxt[0] = 0
            while d >= 0:
                j = nxt[d]
                while j < m and used >> j & 1:
                    j += 1
                if j == m:
                    d -= 1
                    if d >= 0:
                        used &= ~(1 << pos[d])
                        nxt[d] = pos[d] + 1
                    continue
                pos[d] = j
                if d == k - 1:
                    n = _emit_line(out, n, group, pos, k, False)
                    n = _emit_line(out, n, group, pos, k, True)
                    nxt[d] = j + 1
                else:
                    used |= 1 << j
                    d += 1
                    nxt[d] = 0
    return n


@njit(cache=True)
def _placements(s, i, hand_mask, rows):
    """(rows, count): the mover's legal placements in the engine's order."""
    if s.tiles[i] == 0:
        size = s.opening[i] if s.cfg[C_STRICT] else 0
        count = opening_rows(hand_mask, size, rows)
        if count > rows.shape[0]:
            rows = np.empty((count, WIDTH), np.int64)
            opening_rows(hand_mask, size, rows)
        return rows, count
    grid = s.grid[i]
    count = grow(grid, GRID, s.front[i], s.n_front[i], hand_mask, -BASE, -BASE, rows)
    if count > rows.shape[0]:
        rows = np.empty((count, WIDTH), np.int64)
        grow(grid, GRID, s.front[i], s.n_front[i], hand_mask, -BASE, -BASE, rows)
    return rows, count


@njit(cache=True)
def _position(s, i, seat, out):
    """``move_mode.position_features`` of ``seat`` into ``out`` (86 float32)."""
    for j in range(NUM_POSITION_FEATURES):
        out[j] = 0.0
    third = np.float32(COPIES)
    hand = s.hands[i, seat]
    for j in range(s.hand_n[i, seat]):
        out[hand[j]] += np.float32(1.0)
    for t in range(NUM_TYPES):
        unseen = np.float32(COPIES - s.counts[i, t]) - out[t]
        out[t] = out[t] / third
        out[POS_UNSEEN + t] = unseen / third
    out[POS_BAG] = s.bag_n[i] / NUM_TILES
    n = s.cfg[C_PLAYERS]
    for k in range(n):
        other = (seat + k) % n
        out[POS_SCORES + k] = s.scores[i, other] / SCORE_SCALE
        out[POS_HAND_SIZES + k] = s.hand_n[i, other] / HAND_SIZE
        out[POS_SEATS + k] = 1.0
    out[POS_OPENING] = 1.0 if s.tiles[i] == 0 else 0.0


@njit(cache=True)
def show(s, i, scratch_rows, features, points, exchanges):
    """Game i's observation, mask and moves for its seat to move (a finished game: the
    position of its last mover, no rows)."""
    obs = s.obs[i]
    seat = s.current[i]
    _position(s, i, seat, obs)
    shown = 0
    if not s.over[i]:
        shown = _table(s, i, seat, scratch_rows, features, points, exchanges)
    else:
        s.cut[i] = 0
    rows_k = s.cfg[C_ROWS]
    for j in range(NUM_POSITION_FEATURES + shown * NUM_ROW_FEATURES,
                   NUM_POSITION_FEATURES + s.n_rows[i] * NUM_ROW_FEATURES):  # fmt: skip
        obs[j] = 0.0
    mask = s.mask[i]
    for j in range(shown, min(s.n_rows[i], rows_k)):
        mask[j] = 0
    for j in range(shown):
        mask[j] = 1
    s.n_rows[i] = shown


@njit(cache=True)
def _table(s, i, seat, scratch_rows, features, points, exchanges) -> int:
    """``move_mode.move_table``: every legal move's row (``rowgen``), placements by points
    (stable: ties in the engine's order), then the exchanges, cut to K; returns the rows
    shown."""
    n_hand = s.hand_n[i, seat]
    hand = np.empty(n_hand, np.int64)
    hand_mask = 0
    for j in range(n_hand):
        hand[j] = s.hands[i, seat, j]
        hand_mask |= np.int64(1) << hand[j]
    rows, n_place = _placements(s, i, hand_mask, scratch_rows)
    n_exch = 0
    bag = s.bag_n[i]
    if s.opening[i] == 0 and bag > 0:
        n_exch = list_exchanges(hand, min(n_hand, bag), exchanges)
    total = n_place + n_exch
    if total > features.shape[0]:
        features = np.empty((total, NUM_ROW_FEATURES), np.float32)
        points = np.empty(total, np.float32)
    unseen = np.empty(NUM_TYPES, np.int64)
    for t in range(NUM_TYPES):
        unseen[t] = COPIES - s.counts[i, t]
    for j in range(n_hand):
        unseen[hand[j]] -= 1
    n = s.cfg[C_PLAYERS]
    held = 0
    others = 0
    best = -(1 << 62)
    for k in range(n):
        if k != seat:
            held += s.hand_n[i, k]
            others += s.scores[i, k]
            best = max(best, s.scores[i, k])
    playable = ALL
    if s.tiles[i]:
        playable = 0
        for f in range(s.n_front[i]):
            playable |= s.fit[i, f]
    mine = s.scores[i, seat]
    context = np.zeros(NUM_ROW_FEATURES, np.float64)  # candidates._context
    context[0] = bag / NUM_TILES
    context[1] = 1.0 if bag == 0 else 0.0
    context[2] = min(bag, HAND_SIZE) / HAND_SIZE
    context[3] = (mine - others / (n - 1)) / 50.0
    context[4] = (mine - best) / 50.0
    context[5] = held / (HAND_SIZE * (n - 1))
    context[6] = 1.0 if n == 3 else 0.0
    context[7] = 1.0 if n == 4 else 0.0
    row_features(s.grid[i], GRID, -BASE, -BASE, rows[:n_place], hand, bag, unseen, held,
                 playable, context, exchanges, n_exch, features, points)  # fmt: skip
    # the order: placements by points, highest first, stable (a counting sort), then
    # the exchanges
    counts = np.zeros(MOST_POINTS + 1, np.int64)
    for j in range(n_place):
        counts[MOST_POINTS - int(points[j])] += 1
    start = 0
    for v in range(MOST_POINTS + 1):
        c = counts[v]
        counts[v] = start
        start += c
    order = np.empty(total, np.int64)
    for j in range(n_place):
        v = MOST_POINTS - int(points[j])
        order[counts[v]] = j
        counts[v] += 1
    for j in range(n_exch):
        order[n_place + j] = n_place + j
    shown = min(total, s.cfg[C_ROWS])
    s.cut[i] = total - shown
    obs = s.obs[i]
    moves = s.moves[i]
    for r in range(shown):
        j = order[r]
        at = NUM_POSITION_FEATURES + r * NUM_ROW_FEATURES
        for c in range(NUM_ROW_FEATURES):
            obs[at + c] = features[j, c]
        move = moves[r]
        if j < n_place:
            k = rows[j, 0]
            move[0] = k
            move[1] = rows[j, 1]
            for t in range(k):
                move[2 + 2 * t] = (rows[j, 2 + 3 * t] + BASE) * GRID + rows[j, 3 + 3 * t] + BASE
                move[3 + 2 * t] = rows[j, 4 + 3 * t]
        else:
            e = j - n_place
            k = exchanges[e, 0]
            move[0] = -k
            move[1] = 0
            for t in range(k):
                move[3 + 2 * t] = exchanges[e, 1 + t]
    return shown


# --- playing a row --------------------------------------------------------------------
@njit(cache=True)
def _remove(hand, n, t) -> int:
    for j in range(n):
        if hand[j] == t:
            for k in range(j, n - 1):
                hand[k] = hand[k + 1]
            return n - 1
    return n


@njit(cache=True)
def _sort(a, n):
    for j in range(1, n):
        x = a[j]
        k = j - 1
        while k >= 0 and a[k] > x:
            a[k + 1] = a[k]
            k -= 1
        a[k + 1] = x


@njit(cache=True)
def _give(s, i, seat, gained):
    mode = s.cfg[C_REWARD]
    if gained == 0 or mode == REWARD_WIN:
        return
    s.rewards[i, seat] += gained
    if mode == REWARD_MARGIN:
        n = s.cfg[C_PLAYERS]
        share = gained / (n - 1)
        for other in range(n):
            if other != seat:
                s.rewards[i, other] -= share


@njit(cache=True)
def play(s, i, row, hashes):
    """Game i's mover plays the move of ``row``, as Game.apply_placement (checked) or
    apply_exchange, and passes the turn on (or ends the game)."""
    seat = s.current[i]
    move = s.moves[i, row]
    hand = s.hands[i, seat]
    n = s.hand_n[i, seat]
    k = move[0]
    if k > 0:
        grid = s.grid[i]
        cells = np.empty(HAND_SIZE, np.int64)
        first = s.tiles[i] == 0
        for j in range(k):
            p = move[2 + 2 * j]
            t = move[3 + 2 * j]
            cells[j] = p
            grid[p] = 1 + t
            s.counts[i, t] += 1
            s.tiles[i] += 1
            n = _remove(hand, n, t)
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
        _refresh(s, i, cells, k, hashes)
        s.opening[i] = 0
        take = min(HAND_SIZE - n, s.bag_n[i])
        for j in range(take):
            hand[n + j] = s.bag[i, s.bag_n[i] - take + j]
        s.bag_n[i] -= take
        n += take
        _sort(hand, n)
        s.hand_n[i, seat] = n
        points = move[1]
        if n == 0:
            points += END_BONUS
            s.over[i] = True
        s.scores[i, seat] += points
        _give(s, i, seat, points)
        if not s.over[i]:
            _advance(s, i, True)
    else:
        k = -k
        top = s.bag_n[i] - k
        for j in range(k):
            n = _remove(hand, n, move[3 + 2 * j])
        for j in range(k):  # draw k, then the returned tiles go back and the bag is shuffled
            hand[n + j] = s.bag[i, top + j]
            s.bag[i, top + j] = move[3 + 2 * j]
        shuffle(s.rng, s.rng_pos, i, s.bag[i], s.bag_n[i])
        n += k
        _sort(hand, n)
        _advance(s, i, False)
    if s.over[i]:
        _finish(s, i)


@njit(cache=True)
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


@njit(cache=True)
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
@njit(cache=True)
def new_game(s, i):
    """Deals slot i's next game, as ``Game(n, seeder.randrange(2**63), strict)``."""
    grid = s.grid[i]
    if s.tiles[i]:
        for r in range(s.box[i, 0] - 1, s.box[i, 1] + 2):
            for c in range(s.box[i, 2] - 1, s.box[i, 3] + 2):
                grid[r * GRID + c] = 0
    s.n_front[i] = 0
    s.tiles[i] = 0
    s.counts[i, :] = 0
    s.game_seed[i], s.bag_n[i], s.current[i], s.opening[i] = deal(
        s.cfg[C_PLAYERS], s.seeder, s.seeder_pos, s.rng, s.rng_pos, s.key, s.bag, s.hands,
        s.hand_n, i,
    )  # fmt: skip
    s.scores[i, :] = 0
    s.over[i] = False


@njit(cache=True, nogil=True)
def step_games(s, actions, autoreset, hashes, lo, hi):
    """Games lo..hi-1 play their rows (-1: none, a finished game), deal the next game
    where one ended (with autoreset) and show their next tables; threads run disjoint
    ranges without the GIL."""
    rows, features, points, exchanges = _scratch()
    for i in range(lo, hi):
        s.done[i] = False
        s.rewards[i, :] = 0.0
        if actions[i] >= 0:
            play(s, i, actions[i], hashes)
        if s.done[i] and autoreset:
            new_game(s, i)
        show(s, i, rows, features, points, exchanges)


@njit(cache=True, nogil=True)
def reset_games(s, which):
    """Deals the slots in ``which`` a new game and shows its first table (their seeders
    already seeded)."""
    rows, features, points, exchanges = _scratch()
    for i in which:
        new_game(s, i)
        s.done[i] = False
        s.rewards[i, :] = 0.0
        show(s, i, rows, features, points, exchanges)


@njit(cache=True, nogil=True)
def show_games(s, which):
    """Shows the tables of the slots in ``which`` (after ``move_load``)."""
    rows, features, points, exchanges = _scratch()
    for i in which:
        show(s, i, rows, features, points, exchanges)


@njit(cache=True)
def _scratch():
    return (np.empty((512, WIDTH), np.int64), np.empty((576, NUM_ROW_FEATURES), np.float32),
            np.empty(576, np.float32), np.empty((64, HAND_SIZE + 1), np.int64))  # fmt: skip


@njit(cache=True, nogil=True)
def sample_rows(n_rows, u, out, lo, hi):
    """A uniformly random shown row per game (``u`` uniform in [0, 1)); -1 if none."""
    for i in range(lo, hi):
        out[i] = int(u[i] * n_rows[i]) if n_rows[i] else -1


__all__ = [
    "opening_rows",
    "play",
    "reset_games",
    "sample_rows",
    "show",
    "show_games",
    "step_games",
]
