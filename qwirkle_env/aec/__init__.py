"""The PettingZoo AEC env: ``env.py`` holds what both action modes share, ``tiles.py`` the
tile mode (one tile per sub-step) and ``moves.py`` the move mode (one whole move per step).
``raw_env(action_mode=...)`` builds the mode's env; ``env(...)`` wraps it as PettingZoo does.
"""

from .env import env, raw_env
from .moves import MoveEnv
from .tiles import TileEnv

__all__ = ["MoveEnv", "TileEnv", "env", "raw_env"]
