"""Games on arrays: dealing, sub-steps, turns, the end, and the observation's numbers.

Compiled twins of ``engine.game.Game``, ``aec.raw_env.step`` and ``observation.Observer``
for the tile simulator; the rules themselves are in ``rules``, the deal and the kernels the
move simulator shares in ``vector/kernels.py``. Randomness is Python's MT19937
(``mt19937``), so a slot seeded like an AEC env deals and shuffles identically.
"""

from __future__ import annotations

import numpy as np

from ...jit import kernel
from ...spec import (
    BAG,
    COPIES,
    END_BONUS,
    EXCHANGE,
    EXCHANGING,
    HAND_SIZES,
    MAX_PLAYERS,
    MAY_END,
    NUM_TYPES,
    OPENING,
    PLACING,
    REACH,
    SCORES,
    SEATS,
    TO_MOVE,
    UNSEEN,
    win_share,
)
from ..kernels import (
    REWARD_WIN,
    SHAPE,
    bit_count,
    deal,
    distinct_types,
    give_points,
    remove_tile,
    sort_tiles,
)
from ..mt19937 import seed_state, shuffle
from .rules import (
    END_MASK,
    can_place,
    commit_tiles,
    recentre,
    score_placed,
    set_mask,
)
from .state import (
    C_GRID,
    C_PLAYERS,
    C_REWARD,
    C_STRICT,
    C_WINDOW,
    EMPTY,
    PLACED,
    TABLE,
)

_win_share = kernel(win_share)
# error codes (State.error)
GRID_TOO_SMALL = 1
ERRORS = {GRID_TOO_SMALL: "the table outgrew the simulator's grid"}
# action checks (check_actions)
OK, NOT_FINISHED_NONE, OUT_OF_RANGE, ILLEGAL, NEEDS_NONE = 0, 1, 2, 3, 4


@kernel
def new_game(s, i):
    """Deals slot i's next game, as ``Game(n, seeder.randrange(2**63), strict)``."""
    g = s.cfg[C_GRID]
    players = s.cfg[C_PLAYERS]
    # clear the last game's table
    if s.tiles[i]:
        for r in range(s.box[i, 0], s.box[i, 1] + 1):
            for c in range(s.box[i, 2], s.box[i, 3] + 1):
                s.grid[i, r * g + c] = EMPTY
    for k in range(s.n_front[i]):
        s.front_at[i, s.front[i, k]] = -1
    s.n_front[i] = 0
    s.tiles[i] = 0
    s.counts[i, :] = 0
    s.base[i, 0] = g // 2
    s.base[i, 1] = g // 2
    s.game_seed[i], s.bag_n[i], s.current[i], best = deal(
        players, s.seeder, s.seeder_pos, s.rng, s.rng_pos, s.key, s.bag, s.hands, s.hand_n, i
    )
    s.opening[i] = best
    s.n_groups[i] = 0
    if s.cfg[C_STRICT]:
        distinct = distinct_types(s.hands[i, s.current[i]], 6)
        for k in range(6):
            for m in (distinct & (0b111111 << (6 * k)), distinct & (SHAPE << k)):
                if bit_count(m) == best:
                    s.groups[i, s.n_groups[i]] = m
                    s.n_groups[i] += 1
    for seat in range(MAX_PLAYERS):
        s.scores[i, seat] = 0
    s.over[i] = False
    s.truncated[i] = False
    s.outside[i] = 0
    new_turn(s, i, True)


@kernel
def new_turn(s, i, redraw):
    """The next turn's window, hand and mask, as the AEC env starts a turn (aec.py). The
    window's board codes are redrawn when the window moved (or ``redraw``); else only last
    turn's tiles change from "placed this turn" to "on the table"."""
    g = s.cfg[C_GRID]
    w = s.cfg[C_WINDOW]
    if s.tiles[i] == 0:
        cr, cc = s.base[i, 0], s.base[i, 1]
    else:
        cr = (s.box[i, 0] + s.box[i, 1]) // 2
        cc = (s.box[i, 2] + s.box[i, 3]) // 2
    r0 = cr - w // 2
    c0 = cc - w // 2
    board = s.board[i]
    if redraw or r0 != s.origin[i, 0] or c0 != s.origin[i, 1]:
        grid = s.grid[i]
        for r in range(w):
            gr = r0 + r
            row = board[r]
            if 0 <= gr < g and c0 >= 0 and c0 + w <= g:
                start = gr * g + c0
                for c in range(w):
                    row[c] = grid[start + c]
            else:
                for c in range(w):
                    gc = c0 + c
                    row[c] = grid[gr * g + gc] if 0 <= gr < g and 0 <= gc < g else EMPTY
    else:
        for j in range(s.n_placed[i]):
            p = s.placed[i, j]
            r, c = p // g - r0, p % g - c0
            if 0 <= r < w and 0 <= c < w:
                board[r, c] = TABLE + s.placed_t[i, j]
    s.origin[i, 0] = r0
    s.origin[i, 1] = c0
    s.n_placed[i] = 0
    s.n_exch[i] = 0
    s.turn_points[i] = 0
    seat = s.current[i]
    s.n_left[i] = s.hand_n[i, seat]
    for j in range(s.hand_n[i, seat]):
        s.left[i, j] = s.hands[i, seat, j]
    set_mask(s, i)
    s.check_window[i] = s.tiles[i] > 0 and (
        s.box[i, 0] - REACH < r0
        or s.box[i, 2] - REACH < c0
        or s.box[i, 1] + REACH >= r0 + w
        or s.box[i, 3] + REACH >= c0 + w
    )
    if s.check_window[i] and s.mask[i, w * w] == 0 and s.n_mask_cells[i] == 0:
        s.truncated[i] = True
        s.done[i] = True


@kernel
def _advance(s, i, after_placement):
    """Passes the turn on, skipping who can't move; ends a dead game (Game's turn passing)."""
    if s.bag_n[i] > 0 and after_placement:
        off_table = 0
        for t in range(NUM_TYPES):
            if s.counts[i, t] < COPIES:
                off_table |= 1 << t
        if not can_place(s, i, off_table):
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
            hand |= 1 << np.int64(s.hands[i, seat, j])
        if can_place(s, i, hand):
            s.current[i] = seat
            return
    s.over[i] = True


@kernel
def _refill(s, i, seat):
    """The mover's hand: what is left this turn plus draws from the end of the bag."""
    n = s.n_left[i]
    for j in range(n):
        s.hands[i, seat, j] = s.left[i, j]
    take = min(6 - n, s.bag_n[i])
    for j in range(take):
        s.hands[i, seat, n + j] = s.bag[i, s.bag_n[i] - take + j]
    s.bag_n[i] -= take
    s.hand_n[i, seat] = n + take
    sort_tiles(s.hands[i, seat], n + take)


@kernel
def end_turn(s, i):
    """Commits the turn built in slot i (tiles placed, or the exchange set), as
    Game.apply_placement / apply_exchange, and starts the next one (or finishes the game)."""
    seat = s.current[i]
    if s.n_exch[i]:
        k = s.n_exch[i]
        n = s.n_left[i]
        hand = s.hands[i, seat]
        top = s.bag_n[i] - k
        for j in range(n):
            hand[j] = s.left[i, j]
        for j in range(k):  # draw k, then the set-aside tiles go back in their place
            hand[n + j] = s.bag[i, top + j]
            s.bag[i, top + j] = s.exch[i, j]
        shuffle(s.rng, s.rng_pos, i, s.bag[i], s.bag_n[i])
        sort_tiles(hand, n + k)
        _advance(s, i, False)
    else:
        points = score_placed(s, i)
        commit_tiles(s, i)
        if not recentre(s, i):
            s.error[i] = 1
            return
        s.opening[i] = 0
        _refill(s, i, seat)
        if s.hand_n[i, seat] == 0:
            points += END_BONUS
            s.over[i] = True
        s.scores[i, seat] += points
        give_points(
            s.rewards, i, seat, points - s.turn_points[i], s.cfg[C_REWARD], s.cfg[C_PLAYERS]
        )
        if not s.over[i]:
            _advance(s, i, True)
    if s.over[i]:
        _finish(s, i)
    else:
        new_turn(s, i, False)


@kernel
def _finish(s, i):
    s.done[i] = True
    s.n_placed[i] = 0
    s.n_exch[i] = 0
    set_mask(s, i)
    if s.cfg[C_REWARD] == REWARD_WIN:
        n = s.cfg[C_PLAYERS]
        best = s.scores[i, 0]
        for seat in range(n):
            best = max(best, s.scores[i, seat])
        winners = 0
        for seat in range(n):
            winners += s.scores[i, seat] == best
        for seat in range(n):
            s.rewards[i, seat] = _win_share(n, winners, s.scores[i, seat] == best)


@kernel
def apply_action(s, i, a):
    """One sub-step of the mover of game i, already checked against the mask."""
    w = s.cfg[C_WINDOW]
    g = s.cfg[C_GRID]
    cells = w * w
    exchange_base = NUM_TYPES * cells  # the action layout of actions.ActionCodec
    if a < exchange_base:
        t = a // cells
        cell = a % cells
        r, c = cell // w, cell % w
        p = (s.origin[i, 0] + r) * g + s.origin[i, 1] + c
        s.grid[i, p] = PLACED + t
        s.board[i, r, c] = PLACED + t
        k = s.n_placed[i]
        s.placed[i, k] = p
        s.placed_t[i, k] = t
        s.n_placed[i] = k + 1
        s.n_left[i] = remove_tile(s.left[i], s.n_left[i], t)
        s.counts[i, t] += 1
        s.tiles[i] += 1
        if s.cfg[C_REWARD] != REWARD_WIN:
            points = score_placed(s, i)
            gained = points - s.turn_points[i]
            give_points(s.rewards, i, s.current[i], gained, s.cfg[C_REWARD], s.cfg[C_PLAYERS])
            s.turn_points[i] = points
        set_mask(s, i)
    elif a < exchange_base + NUM_TYPES:
        t = a - exchange_base
        s.exch[i, s.n_exch[i]] = t
        s.n_exch[i] += 1
        s.n_left[i] = remove_tile(s.left[i], s.n_left[i], t)
        set_mask(s, i)
    else:
        end_turn(s, i)


@kernel
def check_actions(s, actions):
    """(game, problem) for the first action that can't be taken, or (-1, OK)."""
    w = s.cfg[C_WINDOW]
    cells = w * w
    exchange_base = NUM_TYPES * cells  # the action layout of actions.ActionCodec
    end = exchange_base + NUM_TYPES
    for i in range(len(actions)):
        a = actions[i]
        if s.over[i] or s.truncated[i]:
            if a != -1:
                return i, NEEDS_NONE
            continue
        if a == -1:
            return i, NOT_FINISHED_NONE
        if a < 0 or a > end:
            return i, OUT_OF_RANGE
        if a < exchange_base:
            legal = s.mask[i, a % cells] >> (a // cells) & 1
        elif a < end:
            legal = s.mask[i, cells] >> (a - exchange_base) & 1
        else:
            legal = s.mask[i, cells] & END_MASK
        if not legal:
            return i, ILLEGAL
    return -1, OK


@kernel
def features(s, i):
    """The 126 observation features from the seat to move, as Observer._features."""
    f = s.features[i]
    f[:] = 0.0
    n = s.cfg[C_PLAYERS]
    seat = s.current[i]
    acting = not s.over[i]
    to_move = acting and not s.truncated[i]
    n_placed, n_exch = s.n_placed[i], s.n_exch[i]
    if acting:
        left = s.left[i]
        for j in range(s.n_left[i]):
            f[left[j]] += 1.0
        exch = s.exch[i]
        for j in range(n_exch):
            f[EXCHANGE + exch[j]] += 1.0
    else:
        hand = s.hands[i, seat]
        for j in range(s.hand_n[i, seat]):
            f[hand[j]] += 1.0
    counts = s.counts[i]
    for t in range(NUM_TYPES):
        f[UNSEEN + t] = COPIES - counts[t] - f[t] - f[EXCHANGE + t]
    f[BAG] = s.bag_n[i]
    busy = n_placed + n_exch if acting else 0
    scores = s.scores[i]
    sizes = s.hand_n[i]
    for k in range(n):
        other = (seat + k) % n
        f[SCORES + k] = scores[other]
        f[HAND_SIZES + k] = sizes[other] - (busy if other == seat else 0)
        f[SEATS + k] = 1.0
    f[TO_MOVE] = to_move
    f[OPENING] = s.opening[i] != 0
    if acting:
        w = s.cfg[C_WINDOW]
        f[PLACING] = n_placed > 0
        f[EXCHANGING] = n_exch > 0
        f[MAY_END] = to_move and (s.mask[i, w * w] & END_MASK) != 0


@kernel
def _finish_one(s, i, autoreset):
    if s.done[i]:
        for seat in range(MAX_PLAYERS):
            s.final_scores[i, seat] = s.scores[i, seat]
        s.final_outside[i] = s.outside[i]
        s.final_truncated[i] = s.truncated[i]
        if autoreset:
            new_game(s, i)
    features(s, i)


@kernel
def step_games(s, actions, autoreset, lo, hi):
    """Games lo..hi-1 take their actions, record an ending, deal the next game (with
    autoreset) and fill their features; threads run disjoint ranges without the GIL.
    A game whose new window needs its outside moves counted (``check_window``, rare) waits
    for ``finish_games`` after Python has counted them."""
    for i in range(lo, hi):
        s.done[i] = False
        s.rewards[i, :] = 0.0
        if actions[i] >= 0:
            apply_action(s, i, actions[i])
        if not s.check_window[i]:
            _finish_one(s, i, autoreset)


@kernel
def finish_games(s, autoreset, which):
    for i in which:
        _finish_one(s, i, autoreset)


@kernel
def _reset_one(s, i, key):
    if len(key):
        seed_state(s.seeder, s.seeder_pos, i, key)
    new_game(s, i)
    s.done[i] = False
    s.rewards[i, :] = 0.0
    features(s, i)


@kernel
def reset_games(s, keys, key_lo, key_hi, which):
    """Deals the slots in ``which`` a new game, first seeding those with a key
    (``keys[key_lo[j]:key_hi[j]]``, empty for none)."""
    for j in range(len(which)):
        _reset_one(s, which[j], keys[key_lo[j] : key_hi[j]])


@kernel
def sample_actions(s, u, out, lo, hi):
    """A uniformly random legal action per game (``u`` uniform in [0, 1)); -1 if none.

    Reads the mask through the list of its set cells, so it costs what the legal
    actions cost, not the window's size."""
    w = s.cfg[C_WINDOW]
    cells = w * w
    for i in range(lo, hi):
        total = bit_count(s.mask[i, cells])
        for j in range(s.n_mask_cells[i]):
            total += bit_count(s.mask[i, s.mask_cells[i, j]])
        if total == 0:
            out[i] = -1
            continue
        k = int(u[i] * total)
        for j in range(s.n_mask_cells[i]):
            cell = s.mask_cells[i, j]
            m = s.mask[i, cell]
            b = bit_count(m)
            if k < b:
                for t in range(NUM_TYPES):
                    if m >> t & 1:
                        if k == 0:
                            out[i] = t * cells + cell
                            break
                        k -= 1
                break
            k -= b
        else:
            m = s.mask[i, cells]
            for t in range(NUM_TYPES + 1):  # exchange types, then "end" (END_BIT)
                if m >> t & 1:
                    if k == 0:
                        out[i] = NUM_TYPES * cells + t
                        break
                    k -= 1
