"""The batched simulator: a second, compiled implementation of the rules, for throughput.

``simulator`` steps many games at once; ``core`` and ``rules`` are its numba kernels,
``state`` its arrays, ``compact`` its compact observation and mask, ``playout`` whole
greedy turns on the engine's compiled move generator, ``mt19937`` the random generator it
shares with the engine's seeds (``qwirkle_env.jit`` is the numba switch). It reads the rule
facts from ``qwirkle_env.spec`` and never imports the PettingZoo env.
"""

from .simulator import COMPILED, VectorQwirkle

__all__ = ["COMPILED", "VectorQwirkle"]
