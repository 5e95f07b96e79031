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

import sys
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


COMPILE_NOTICE = (
    "qwirkle_env: compiling the game's numba kernels, once per checkout or install: about "
    "20 s on 2 idle cores, 1-1.5 minutes when they are busy; later runs load them from the "
    "cache in seconds"
)


def _notice_on_first_compile() -> None:
    """A cold cache costs minutes on the first call of a kernel; say so once per process
    on stderr when numba starts compiling one of this project's functions (a cache hit
    fires no compile event, so a warm run prints nothing)."""
    from numba.core import event

    class FirstCompile(event.Listener):
        told = False

        def on_start(self, ev) -> None:
            func = getattr(ev.data.get("dispatcher"), "py_func", None)
            module = getattr(func, "__module__", "") or ""
            if not self.told and module.split(".")[0] in ("qwirkle_env", "agents"):
                FirstCompile.told = True
                print(COMPILE_NOTICE, file=sys.stderr, flush=True)

        def on_end(self, ev) -> None:
            pass

    event.register("numba:compile", FirstCompile())


if COMPILED and not config.DISABLE_JIT:
    _notice_on_first_compile()


def warn_if_slow() -> None:
    if not COMPILED:
        warnings.warn(
            "numba is not installed, so the batched simulator runs as plain Python (about "
            "70x slower, slower than the AEC env); pip install numba",
            RuntimeWarning,
            stacklevel=3,
        )


__all__ = [
    "COMPILED",
    "COMPILE_NOTICE",
    "kernel",
    "literal_unroll",
    "lowest_bit",
    "njit",
    "prange",
    "warn_if_slow",
]
