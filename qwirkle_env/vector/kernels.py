"""The kernels both batched simulators run: the deal, hands kept sorted, and the points a
seat gains given out as rewards, with the reward codes of their configs.

The tile simulator (``tiles/core.py``) and the move simulator (``moves/turns.py``) deal
and score with these same kernels, so a slot seeded like an AEC env deals the same game in
both, and neither simulator imports the other. Randomness is Python's MT19937
(``mt19937``).
"""

from __future__ import annotations

import numpy as np

from ..jit import kernel
from ..spec import COPIES, HAND_SIZE, NUM_SHAPES, NUM_TILES, NUM_TYPES, REWARD_MODES
from .mt19937 import randbelow, randrange63, seed_from_int63, shuffle

# cfg's reward codes, the same in both states
REWARD_CODES = {mode: code for code, mode in enumerate(REWARD_MODES)}
REWARD_WIN, REWARD_MARGIN = REWARD_CODES["win"], REWARD_CODES["margin"]
SHAPE = sum(1 << (NUM_SHAPES * c) for c in range(NUM_SHAPES))  # the circles; << k for shape k


@kernel
def sort_tiles(a, n):
    """a[:n] in increasing order (hands are kept sorted; n is at most a hand)."""
    for j in range(1, n):
        x = a[j]
        k = j - 1
        while k >= 0 and a[k] > x:
            a[k + 1] = a[k]
            k -= 1
        a[k + 1] = x


@kernel
def remove_tile(a, n, t) -> int:
    """Removes the first t from a[:n] keeping order; returns the new length."""
    for j in range(n):
        if a[j] == t:
            for k in range(j, n - 1):
                a[k] = a[k + 1]
            return n - 1
    return n


@kernel
def distinct_types(hand, n) -> int:
    """The types in hand[:n], as bits (identical tiles once)."""
    m = 0
    for j in range(n):
        m |= 1 << np.int64(hand[j])
    return m


@kernel
def _largest_group(distinct) -> int:
    """Size of the hand's largest colour or shape group, identical tiles once."""
    best = 0
    for k in range(6):
        best = max(
            best, bit_count(distinct & (0b111111 << (6 * k))), bit_count(distinct & (SHAPE << k))
        )
    return best


@kernel
def bit_count(m) -> int:
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


@kernel
def deal(players, seeder, seeder_pos, rng, rng_pos, key, bag, hands, hand_n, i):
    """Row i's next deal, as ``Game(players, seeder.randrange(2**63))``: seeds the game's
    generator, shuffles the bag, fills the hands (sorted) and picks the opener; returns
    (game seed, tiles left in the bag, opener, size of the forced opening). Both batched
    simulators deal with it."""
    seed = randrange63(seeder, seeder_pos, i)
    seed_from_int63(rng, rng_pos, i, seed, key[i])
    for t in range(NUM_TYPES):
        for c in range(COPIES):
            bag[i, COPIES * t + c] = t
    shuffle(rng, rng_pos, i, bag[i], NUM_TILES)
    best = 0
    tied = 0  # seats with the largest group, as bits
    for seat in range(players):
        hand = hands[i, seat]
        for j in range(HAND_SIZE):
            hand[j] = bag[i, NUM_TILES - HAND_SIZE * seat - HAND_SIZE + j]
        hand_n[i, seat] = HAND_SIZE
        sort_tiles(hand, HAND_SIZE)
        size = _largest_group(distinct_types(hand, HAND_SIZE))
        if size > best:
            best = size
            tied = 0
        if size == best:
            tied |= 1 << seat
    pick = 0 if bit_count(tied) == 1 else randbelow(rng, rng_pos, i, bit_count(tied))
    opener = 0
    for seat in range(players):
        if tied >> seat & 1:
            if pick == 0:
                opener = seat
                break
            pick -= 1
    return seed, NUM_TILES - HAND_SIZE * players, opener, best


@kernel
def give_points(rewards, i, seat, gained, mode, n):
    """The dense rewards of points gained by ``seat`` in game i: all to it under "points",
    and under "margin" also minus an equal share to each of the n - 1 others; nothing under
    "win". Both simulators call it, each with its own state's config."""
    if gained == 0 or mode == REWARD_WIN:
        return
    rewards[i, seat] += gained
    if mode == REWARD_MARGIN:
        share = gained / (n - 1)
        for other in range(n):
            if other != seat:
                rewards[i, other] -= share
