"""The agent interface: what every agent is, whatever it thinks with.

An agent sees only a :class:`~qwirkle_env.view.PlayerView` (what its seat may know) and
answers with the env's next sub-step action. Most scripted agents think in whole moves, so
:class:`PlanningAgent` plans a move at the first sub-step of a turn and replays it one tile
at a time. ``agents.registry`` builds agents by name.
"""

from __future__ import annotations

import random

import numpy as np

from qwirkle_env.actions import ActionCodec
from qwirkle_env.engine.moves import Move
from qwirkle_env.view import PlayerView


class Cancelled(Exception):
    """Raised by an agent's ``act`` once :meth:`Agent.cancel` was called."""


class Agent:
    """Anything that maps a PlayerView to the next AEC action.

    ``OPTIONS`` lists the options a spec may set and their limits (``agents.options``);
    None means only the generic check (finite numbers).
    """

    name: str = "agent"
    OPTIONS: dict | None = None
    cancelled: bool = False

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        """Called before each game; all the agent's randomness comes from ``seed``."""
        self.check_players(num_players)
        self.seat = seat
        self.num_players = num_players
        self.rng = random.Random(seed)

    def act(self, view: PlayerView) -> int:
        raise NotImplementedError

    def check_players(self, num_players: int) -> None:
        """ValueError if this agent cannot play games of ``num_players`` seats (a network
        trained for other seat counts); callers ask before a game starts."""

    def cancel(self) -> None:
        """Stops this agent for good: a move in progress ends at its next check (a search
        checks between simulations) and every later ``act`` raises :class:`Cancelled`.
        Safe to call from another thread."""
        self.cancelled = True

    def check_cancelled(self) -> None:
        """Cancelled if :meth:`cancel` was called; long thinking calls this often."""
        if self.cancelled:
            raise Cancelled(f"agent {self.name!r} was cancelled")


class PlanningAgent(Agent):
    """Plans a full engine move per turn (``choose``) and emits it as sub-step actions.

    The plan is made when the turn is fresh (nothing placed or set aside) and queued. If the
    view later disagrees with the queue (someone else stepped, or an action the mask does not
    allow), the agent finishes the turn safely from the mask instead of failing.
    """

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        super().reset(seat, num_players, seed)
        self._queue: list[int] = []
        self._done = 0  # sub-steps of this turn emitted from the plan
        self.fallbacks = 0  # sub-steps taken off the plan (0 unless someone else stepped)
        self._codecs: dict[int, ActionCodec] = {}

    def choose(self, view: PlayerView) -> Move:
        raise NotImplementedError

    def act(self, view: PlayerView) -> int:
        self.check_cancelled()
        if not hasattr(self, "_queue"):
            self.reset(view.seat, view.num_players)
        steps = len(view.turn_placed) + len(view.turn_exchange)
        if steps == 0:
            codec = self._codecs.get(view.window)
            if codec is None:
                codec = self._codecs[view.window] = ActionCodec(view.window)
            self._queue = codec.move_to_actions(self.choose(view), view.board, view.origin)
            self._done = 0
        if self._queue and steps == self._done and _allowed(view, self._queue[0]):
            self._done += 1
            return self._queue.pop(0)
        self._queue = []
        self.fallbacks += 1
        return self._fallback(view)

    def _fallback(self, view: PlayerView) -> int:
        """A stale plan: end the turn if allowed, else any legal sub-step."""
        if view.action_mask is None:
            raise RuntimeError("the plan is stale and the view carries no action mask")
        legal = np.flatnonzero(view.action_mask)
        if len(legal) == 0:
            raise RuntimeError("no legal action in the view's mask: is it this agent's turn?")
        end = len(view.action_mask) - 1
        return end if view.action_mask[end] else int(legal[self.rng.randrange(len(legal))])


def _allowed(view: PlayerView, action: int) -> bool:
    return view.action_mask is None or bool(view.action_mask[action])
