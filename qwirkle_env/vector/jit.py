"""Numba if it is installed, else the same functions run as plain Python.

The batched simulator is written for numba. Without it every kernel still runs, exactly,
about 70 times slower (measured: 8,200 against 560,000 steps/s at batch 256, slower
than the AEC env); ``COMPILED`` says which one you have.
"""

from __future__ import annotations

import warnings

try:
    from numba import njit, prange

    COMPILED = True
except ImportError:  # pragma: no cover - exercised only where numba is missing
    COMPILED = False

    def njit(*args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return lambda f: f

    prange = range


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


__all__ = ["COMPILED", "kernel", "njit", "prange", "warn_if_slow"]
