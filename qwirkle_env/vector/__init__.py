"""The batched simulators: second, compiled implementations of the rules, for throughput.

Two simulators, one folder each, the same file name where the concept is the same:

- ``tiles/``: ``VectorQwirkle`` steps many games at once one tile at a time (the env's
  tile mode). ``simulator`` is the class, ``core`` and ``rules`` its numba kernels (the
  sub-step, turns, the end; the lines), ``state`` its arrays, ``load`` a crafted Game into
  a slot, ``compact`` its compact observation and mask, ``playout`` whole greedy turns on
  the engine's compiled move generator, ``rollouts`` a search's simulations on its arrays.
- ``moves/``: ``VectorMoves`` steps many games one whole turn at a time (the env's move
  mode). ``simulator`` is the class, ``turns`` and ``table`` its kernels (playing a row;
  showing the table, in the order of the engine's frontier, ``engine/setorder``'s),
  ``state`` its arrays, ``load`` a crafted Game into a slot; ``single`` puts one learning
  seat in each of its games, the other seats played inside by a batched opponent.

Beside them only what both use: ``batch`` (the arrays of the seats, the generators and the
results, a reset's seeds, the threads), ``mt19937`` (the random generator they share with
the engine's seeds) and ``kernels`` (the deal, sorted hands, the points given as rewards).
Neither simulator imports the other. ``qwirkle_env.old_paths`` keeps the module paths from
before the split importable for one release. ``qwirkle_env.jit`` is the numba switch. They read the
rule facts from ``qwirkle_env.spec`` and never import the PettingZoo env.
"""

from .moves import VectorMoves, VectorSingleAgent
from .tiles import COMPILED, VectorQwirkle

__all__ = ["COMPILED", "VectorMoves", "VectorQwirkle", "VectorSingleAgent"]
