"""The tile-mode simulator, ``VectorQwirkle``: many games stepped one tile at a time, as
the env's tile mode (``qwirkle_env.vector`` says what each file holds)."""

from .simulator import COMPILED, VectorQwirkle

__all__ = ["COMPILED", "VectorQwirkle"]
