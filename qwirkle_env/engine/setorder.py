"""The order in which Python iterates a small set of cells, for compiled code.

The engine's ``Board.place_legal``, in Python, collects the empty cells at the ends of the
runs a move touched in a Python ``set`` of ``(row, col)`` tuples and refreshes them in the
set's iteration order; cells new to the frontier join it in that order, and the frontier's
order is the order of the move list (``movegen.py``) and so of the move mode's rows among
equal points. To give the same ranks, the board's kernel (``grid.py``) and the batched move
simulator repeat CPython's set: the
hashes come from the running interpreter (``hash((row, col))``, tabled once), the probing
is CPython's ``set_add_entry`` / ``set_table_resize`` (LINEAR_PROBES 9, PERTURB_SHIFT 5,
a table of 8 that grows to 4x the entries once 3/5 full). ``tests/vector/test_moves.py``
checks it against real sets, so an interpreter that orders sets differently fails there
first.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..jit import kernel

REACH_CELLS = 128  # cells |row|, |col| < this are tabled: no table gets past 109
LINEAR_PROBES = 9
PERTURB_SHIFT = 5
MIN_SIZE = 8
MAX_ITEMS = 32  # the most cells one set is asked to hold (a move touches at most 24)
TABLE_SIZE = 128  # 4 x MAX_ITEMS, a power of two
LOW59 = (1 << 59) - 1  # perturb's first shift is unsigned: keep the bits a logical shift keeps


@cache
def cell_hashes() -> np.ndarray:
    """``hash((r, c))`` for |r|, |c| < REACH_CELLS, at ``[r + REACH_CELLS, c + REACH_CELLS]``."""
    span = range(-REACH_CELLS, REACH_CELLS)
    return np.array([[hash((r, c)) for c in span] for r in span], dtype=np.int64)


@kernel
def _insert_clean(slots, hashes, mask, key, h):
    perturb = h
    first = True
    i = h & mask
    while True:
        if slots[i] < 0:
            slots[i] = key
            hashes[i] = h
            return
        if i + LINEAR_PROBES <= mask:
            for j in range(1, LINEAR_PROBES + 1):
                if slots[i + j] < 0:
                    slots[i + j] = key
                    hashes[i + j] = h
                    return
        perturb = (perturb >> PERTURB_SHIFT) & LOW59 if first else perturb >> PERTURB_SHIFT
        first = False
        i = (i * 5 + 1 + perturb) & mask


@kernel
def set_order(keys, key_hashes, n, slots, hashes, out, spare) -> int:
    """Adds ``keys[:n]`` (distinct ints for distinct cells, with their ``hash``) to an
    empty set in that order, and writes the set's iteration order into ``out``; returns
    its length. ``slots`` and ``hashes`` are scratch of TABLE_SIZE entries, ``spare`` of
    2 x TABLE_SIZE (the table before a resize)."""
    mask = MIN_SIZE - 1
    for j in range(mask + 1):
        slots[j] = -1
    fill = 0
    for k in range(n):
        key = keys[k]
        h = key_hashes[k]
        i = h & mask
        perturb = h
        first = True
        found = False
        while True:  # set_add_entry: linear probes, then a perturbed jump
            probes = LINEAR_PROBES if i + LINEAR_PROBES <= mask else 0
            j = i
            empty = -1
            for _ in range(probes + 1):
                if slots[j] < 0:
                    empty = j
                    break
                if hashes[j] == h and slots[j] == key:
                    found = True
                    break
                j += 1
            if found or empty >= 0:
                break
            perturb = (perturb >> PERTURB_SHIFT) & LOW59 if first else perturb >> PERTURB_SHIFT
            first = False
            i = (i * 5 + 1 + perturb) & mask
        if found:
            continue
        slots[empty] = key
        hashes[empty] = h
        fill += 1
        if fill * 5 >= mask * 3:  # set_table_resize(used * 4), entries in slot order
            size = MIN_SIZE
            while size <= fill * 4:
                size <<= 1
            old_keys, old_hashes = spare[0], spare[1]
            for j in range(mask + 1):
                old_keys[j] = slots[j]
                old_hashes[j] = hashes[j]
            old = mask
            mask = size - 1
            for j in range(mask + 1):
                slots[j] = -1
            for j in range(old + 1):
                if old_keys[j] >= 0:
                    _insert_clean(slots, hashes, mask, old_keys[j], old_hashes[j])
    m = 0
    for j in range(mask + 1):
        if slots[j] >= 0:
            out[m] = slots[j]
            m += 1
    return m


__all__ = ["MAX_ITEMS", "REACH_CELLS", "TABLE_SIZE", "cell_hashes", "set_order"]
