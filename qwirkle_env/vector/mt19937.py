"""Python's ``random.Random`` (MT19937) on arrays, so compiled code draws what Python draws.

The batched simulator must deal the same games as the AEC env for the same seed. The env
seeds ``random.Random`` and shuffles with it; these kernels repeat that bit for bit:
seeding from an integer, ``getrandbits``, ``_randbelow``, ``shuffle``, ``choice`` and
``randrange(2**63)``. One generator is a row of 624 uint32 words plus a position.
"""

from __future__ import annotations

import numpy as np

from ..jit import kernel

N_WORDS = 624
_M = 397
_UPPER = 0x80000000
_LOWER = 0x7FFFFFFF
_MATRIX = 0x9908B0DF
_W32 = 0xFFFFFFFF


def seed_key(seed: int) -> np.ndarray:
    """The 32-bit words ``random.seed(seed)`` feeds to MT19937's init_by_array."""
    n = abs(int(seed))
    words = []
    while n:
        words.append(n & _W32)
        n >>= 32
    return np.array(words or [0], dtype=np.int64)


@kernel
def seed_state(state, pos, row, key):
    """Seeds generator ``row`` like ``random.Random(seed)``; ``key`` from ``seed_key``."""
    mt = state[row]
    mt[0] = 19650218
    for i in range(1, N_WORDS):
        prev = np.int64(mt[i - 1])
        mt[i] = (1812433253 * (prev ^ (prev >> 30)) + i) & _W32
    i, j = 1, 0
    n = len(key)
    for _ in range(max(N_WORDS, n)):
        prev = np.int64(mt[i - 1])
        mt[i] = ((np.int64(mt[i]) ^ ((prev ^ (prev >> 30)) * 1664525)) + key[j] + j) & _W32
        i += 1
        j += 1
        if i >= N_WORDS:
            mt[0] = mt[N_WORDS - 1]
            i = 1
        if j >= n:
            j = 0
    for _ in range(N_WORDS - 1):
        prev = np.int64(mt[i - 1])
        mt[i] = ((np.int64(mt[i]) ^ ((prev ^ (prev >> 30)) * 1566083941)) - i) & _W32
        i += 1
        if i >= N_WORDS:
            mt[0] = mt[N_WORDS - 1]
            i = 1
    mt[0] = _UPPER
    pos[row] = N_WORDS


@kernel
def _twist(mt):
    for k in range(N_WORDS):
        y = (np.int64(mt[k]) & _UPPER) | (np.int64(mt[(k + 1) % N_WORDS]) & _LOWER)
        v = np.int64(mt[(k + _M) % N_WORDS]) ^ (y >> 1)
        if y & 1:
            v ^= _MATRIX
        mt[k] = v


@kernel
def next_word(state, pos, row) -> int:
    """genrand_uint32: the next 32 random bits."""
    mt = state[row]
    if pos[row] >= N_WORDS:
        _twist(mt)
        pos[row] = 0
    y = np.int64(mt[pos[row]])
    pos[row] += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y & _W32


@kernel
def randbelow(state, pos, row, n) -> int:
    """``_randbelow(n)`` for 1 <= n < 2**31: ``getrandbits(n.bit_length())`` until < n."""
    k = 0
    m = n
    while m:
        k += 1
        m >>= 1
    while True:
        r = next_word(state, pos, row) >> (32 - k)
        if r < n:
            return r


@kernel
def randrange63(state, pos, row) -> int:
    """``randrange(2**63)``: 64 random bits (low word first) until below 2**63."""
    while True:
        low = next_word(state, pos, row)
        high = next_word(state, pos, row)
        if high < _UPPER:
            return (high << 32) | low


@kernel
def shuffle(state, pos, row, items, n):
    """``random.shuffle`` of ``items[:n]`` in place."""
    for i in range(n - 1, 0, -1):
        j = randbelow(state, pos, row, i + 1)
        items[i], items[j] = items[j], items[i]


@kernel
def seed_from_int63(state, pos, row, seed, key):
    """Seeds ``row`` like ``random.Random(seed)`` for 0 <= seed < 2**63, inside compiled
    code; ``key`` is room for two words."""
    key[0] = seed & _W32
    key[1] = seed >> 32
    seed_state(state, pos, row, key[:2] if seed >> 32 else key[:1])


def new_generators(n: int) -> tuple[np.ndarray, np.ndarray]:
    """State for ``n`` generators, unseeded."""
    return np.zeros((n, N_WORDS), dtype=np.uint32), np.zeros(n, dtype=np.int64)
