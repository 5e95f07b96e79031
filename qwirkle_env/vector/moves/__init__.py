"""The move-mode simulator, ``VectorMoves``: many games stepped one whole turn at a time, as
the env's move mode, and ``VectorSingleAgent``, one learning seat in each of its games
(``qwirkle_env.vector`` says what each file holds)."""

from .simulator import COMPILED, VectorMoves
from .single import VectorSingleAgent

__all__ = ["COMPILED", "VectorMoves", "VectorSingleAgent"]
