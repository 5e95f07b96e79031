"""Numba if it is installed, else the same functions run as plain Python.

Both rule implementations compile their hot loops with it: the batched simulator
(``qwirkle_env.vector``) and the engine's move generator (``engine/movegen.py``), and so do
the move mode's rows (``rowgen.py``). Without
numba every kernel still runs, exactly, as plain Python (the simulator about 70 times
slower: 8,200 against 560,000 steps/s at batch 256); ``COMPILED`` says which one you have.
This module is the one place that imports numba, so the rest of ``qwirkle_env`` reads it
as an ordinary compiler switch.
"""

from __future__ import annotations

import warnings

try:
    from numba import config, literal_unroll, njit, prange
    from numba.cpython.unsafe.numbers import trailing_zeros

    COMPILED = True
except ImportError:  # pragma: no cover - exercised only where numba is missing
    COMPILED = False
    config = None

    def njit(*args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return lambda f: f

    prange = range

    def literal_unroll(items):
        return items


if config is None or config.DISABLE_JIT:  # an intrinsic, which plain Python can't run

    def trailing_zeros(mask):
        return int(mask & -mask).bit_length() - 1


@njit(cache=True, inline="always")
def lowest_bit(mask):
    """The index of the lowest set bit of a non-zero mask: one instruction compiled,
    where a loop over the bits cost a step per bit below it."""
    return trailing_zeros(mask)


def kernel(function):
    """A compiled kernel: cached on disk, free of the GIL, and without numba's reference
    counting (kernels allocate nothing; counting each array read through the state tuple
    cost more than the rules)."""
    return njit(cache=True, nogil=True, _nrt=False)(function)


def warn_if_slow() -> None:
    if not COMPILED:
        warnings.warn(
            "numba is not installed, so the batched simulator runs as plain Python (about "
            "70x slower, slower than the AEC env); pip install numba",
            RuntimeWarning,
            stacklevel=3,
        )


__all__ = ["COMPILED", "kernel", "literal_unroll", "lowest_bit", "njit", "prange", "warn_if_slow"]
