"""Agent options and their limits: every option a spec may set is checked before an agent
is built, so no spec (a command line, a gymnasium opponent, the showdown page) can ask for
unbounded work or build an agent that fails on its first move.

An agent class lists its options as ``OPTIONS = {name: Option(...)}``; the registry checks a
spec's options against it. Classes without ``OPTIONS`` (registered by other code) still get
the generic check: numbers must be finite.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

# The most CPU seconds one move of a searching agent may take, whatever its options: a
# ``budget`` is at most this, and a fixed ``sims`` stops here too (the agent counts such
# moves in ``capped``), so that no spec can make one move think longer.
MAX_MOVE_CPU = 10.0


@dataclass(frozen=True)
class Option:
    """A numeric option: an int or a float within ``[low, high]`` (``(low, high]`` when
    ``low_open``), or None where ``none`` says what None means."""

    kind: type
    low: float
    high: float
    low_open: bool = False
    none: str | None = None
    unit: str = ""

    def limits(self) -> str:
        lo = "(" if self.low_open else "["
        what = "an integer" if self.kind is int else "a number"
        unit = f" {self.unit}" if self.unit else ""
        text = f"{what} in {lo}{self.low:g}, {self.high:g}]{unit}"
        return text + (f", or none ({self.none})" if self.none else "")

    def check(self, agent: str, key: str, value: Any) -> Any:
        """``value`` if allowed, else ValueError naming the option's limits."""
        if value is None and self.none:
            return None
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if self.kind is int:
            number = number and float(value).is_integer()
        ok = number and math.isfinite(value)
        if ok:
            ok = (value > self.low if self.low_open else value >= self.low) and value <= self.high
        if not ok:
            limits = self.limits()
            raise ValueError(f"agent {agent!r}: option {key} must be {limits}, got {value!r}")
        return int(value) if self.kind is int else float(value)


def check_options(agent: str, options: dict[str, Option] | None, values: dict) -> dict:
    """The checked values (ints and floats as their kind); ValueError names the first bad
    one and its limits, or an unknown option and the known ones."""
    out = {}
    for key, value in values.items():
        if options is None:
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"agent {agent!r}: option {key} must be finite, got {value!r}")
            out[key] = value
            continue
        option = options.get(key)
        if option is None:
            known = ", ".join(sorted(options)) or "none"
            raise ValueError(f"agent {agent!r}: unknown option {key!r} (known options: {known})")
        out[key] = option.check(agent, key, value)
    return out


def describe(options: dict[str, Option]) -> list[str]:
    """One line per option, for help texts and docs."""
    return [f"{key}: {option.limits()}" for key, option in sorted(options.items())]
