"""Analyses of finished games for the page: ``agents.analysis`` run in a worker thread, its
progress polled, its positions drawn with the played move or an alternative on the table.

An analysis is bounded like an agent: only the analysers the page offers
(``agents.analysis.ANALYSERS``, each well under a second of CPU a move), ``PAGE_CPU`` CPU
seconds in all, at most ``RUNNING`` at once in the server (another is refused with 503),
and cancelled between moves when it is dropped or the server stops.
"""

from __future__ import annotations

import threading
from typing import Any

from agents.analysis import ANALYSERS, MAX_ANALYSED_MOVES, analyse
from qwirkle_env.engine.moves import Placement, move_from_json

from .replay import frames, render_frame
from .tables import Refused

PAGE_CPU = 30.0  # CPU seconds an analysis asked by the page may take
RUNNING = 2  # analyses running at once in the server
_SLOTS = threading.BoundedSemaphore(RUNNING)


class Cancelled(Exception):
    """The analysis was dropped or the server stops."""


class Analysis:
    """One game's analysis: its frames (to draw positions), its progress and result."""

    def __init__(self, record: dict[str, Any], analyser: str, names: list[str] | None) -> None:
        if analyser not in ANALYSERS:
            raise Refused(f"'analyser' must be one of {', '.join(ANALYSERS)}, got {analyser!r}")
        if len(record["moves"]) > MAX_ANALYSED_MOVES:
            raise Refused(
                f"the game has {len(record['moves'])} moves; an analysis takes at most "
                f"{MAX_ANALYSED_MOVES}",
                413,
            )
        self.record, self.analyser, self.names = record, analyser, names
        self.frames, _ = frames(record)
        self.done = 0
        self.result: dict[str, Any] | None = None
        self.error: str | None = None
        self.closed = False
        self._thread: threading.Thread | None = None

    @property
    def size(self) -> int:
        """Bytes this analysis counts for in the store: its frames and its result."""
        return sum(len(f) for f in self.frames) + 4000 * len(self.frames)

    def start(self) -> None:
        """Runs the analysis in a worker thread; Refused (503) if ``RUNNING`` are running."""
        if not _SLOTS.acquire(blocking=False):
            raise Refused(
                f"{RUNNING} analyses are running already: try again in a few seconds", 503
            )
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self.result = analyse(
                self.record,
                self.analyser,
                PAGE_CPU,
                names=self.names,
                check=self._check,
                progress=self._counted,
            )
        except Cancelled:
            self.error = "the analysis was stopped"
        except Exception as err:  # shown on the page
            self.error = f"the analysis failed: {type(err).__name__}: {err}"[:500]
        finally:
            _SLOTS.release()

    def _check(self) -> None:
        if self.closed:
            raise Cancelled()

    def _counted(self, moves):
        for k in moves:
            self.done = k
            yield k

    def close(self) -> None:
        """Stops the analysis at its next move."""
        self.closed = True

    def wait(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def state(self) -> dict[str, Any]:
        """Progress while it runs, then the analysis (or why it failed)."""
        if self.result is not None:
            return {"state": "done", "analysis": self.result}
        if self.error is not None:
            return {"state": "failed", "error": self.error}
        return {"state": "running", "done": self.done, "total": len(self.record["moves"])}

    def position(self, k: int, alternative: int | None) -> dict[str, Any]:
        """Position ``k`` (before move k) with the played move, or the analyser's
        ``alternative``-th best, put on the table and ringed."""
        count = len(self.record["moves"])
        if not 0 <= k < count:
            raise Refused(f"move {k} is not in 0..{count - 1}")
        if self.result is None:
            raise Refused("the analysis is not finished", 409)
        moves = self.result["moves"]
        if k >= len(moves):
            raise Refused(f"move {k} was not analysed: {self.result['stopped']}", 409)
        if alternative is None:
            move = move_from_json(self.record["moves"][k])
        else:
            best = moves[k]["best"]
            if not 0 <= alternative < len(best):
                raise Refused(f"'alt' must be in 0..{len(best) - 1}, got {alternative}")
            data = best[alternative]
            move = move_from_json({key: data[key] for key in ("place", "exchange") if key in data})
        shown = render_frame(self.frames[k], extra=move if isinstance(move, Placement) else None)
        return {"index": k, "alternative": alternative, **shown}
