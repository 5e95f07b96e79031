"""The batched simulators: second, compiled implementations of the rules, for throughput.

``simulator`` steps many games at once one tile at a time (the env's tile mode); ``core``
and ``rules`` are its numba kernels, ``state`` its arrays, ``compact`` its compact
observation and mask, ``playout`` whole greedy turns on the engine's compiled move
generator, ``rollouts`` a search's simulations on its arrays, ``mt19937`` the random
generator it shares with the engine's seeds. ``moves``
steps many games one whole turn at a time (the env's move mode): ``turns`` and
``move_table`` are its kernels, ``move_state`` its arrays (the order of the engine's
frontier is ``engine/setorder``'s); ``single`` puts one learning seat in each of its
games, the other seats played inside by a batched opponent. ``qwirkle_env.jit`` is the
numba switch. They read the rule facts from ``qwirkle_env.spec`` and never import the
PettingZoo env.
"""

from . import old_paths
from .moves import VectorMoves, VectorSingleAgent
from .tiles import COMPILED, VectorQwirkle

old_paths.install()

__all__ = ["COMPILED", "VectorMoves", "VectorQwirkle", "VectorSingleAgent"]
