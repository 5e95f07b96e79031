"""A plugin's turn, refereed: whatever its code does, the game goes on or is forfeited.

The reference agents are trusted (an error in one is a bug and stops the match); a user's
plugin (``agents.plugin``) is not. Its move is forfeited, and with it the game, when it
raises, answers with something that is not an action, names an action the mask rules out,
or thinks past the per-move limit (CPU seconds for the whole turn; a turn still running at
``WALL_FACTOR`` times the limit in wall time is stopped).
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time

import numpy as np

from agents.base import Agent
from agents.plugin import BadMove
from qwirkle_env.view import PlayerView

REASONS = ("raised", "not_a_move", "illegal", "too_slow")
WALL_FACTOR = 5.0  # a turn's wall-time stop, in per-move limits (at least MIN_WALL_S)
MIN_WALL_S = 10.0


class Forfeit(Exception):
    """A plugin lost the game by what it did on a move; ``kind`` is one of ``REASONS``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind


class _Overrun(BaseException):  # BaseException: a plugin's `except Exception` cannot eat it
    pass


@contextlib.contextmanager
def _wall_stop(seconds: float | None):
    """Interrupts the block after ``seconds`` of wall time (main thread on POSIX only)."""
    usable = (
        seconds is not None
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return

    def ring(signum, frame):
        raise _Overrun

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def refereed_act(agent: Agent, view: PlayerView, spent: float, limit: float | None) -> int:
    """The plugin's next action, checked; ``spent`` is the CPU seconds it already took this
    turn. Raises Forfeit with the reason."""
    wall = None if limit is None else max(MIN_WALL_S, WALL_FACTOR * limit)
    start = time.process_time()
    try:
        with _wall_stop(wall):
            action = agent.act(view)
    except _Overrun:
        raise Forfeit("too_slow", f"still thinking after {wall:g} s of wall time") from None
    except BadMove as err:
        raise Forfeit(err.kind, str(err)) from None
    except Exception as err:
        raise Forfeit("raised", f"{type(err).__name__}: {err}") from None
    used = spent + time.process_time() - start
    if limit is not None and used > limit:
        raise Forfeit("too_slow", f"{used:.2f} CPU s on one move; the limit is {limit:g} s")
    if isinstance(action, np.ndarray) and action.size == 1:
        action = action.reshape(()).item()
    if isinstance(action, bool) or not isinstance(action, int | np.integer):
        raise Forfeit("not_a_move", f"act() returned {type(action).__name__} {action!r:.60}")
    mask = view.action_mask
    if not 0 <= int(action) < len(mask) or not mask[int(action)]:
        raise Forfeit("illegal", f"action {int(action)} is not allowed by the mask")
    return int(action)
