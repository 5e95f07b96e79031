"""The registry: agents built from short spec strings.

Specs are strings (``"greedy"``, ``"search:budget=0.1"``, ``"ckpt:PATH"``) so that worker
processes and command lines can rebuild the same agents. The registry sits above the
scripted agents and imports them; learned agents load from checkpoints on demand (torch is
imported only then).
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Agent
from .baselines import GreedyAgent, RandomAgent
from .heuristic import HeuristicAgent
from .options import check_options, describe
from .search import SearchAgent

AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
    "search": SearchAgent,
}
CHECKPOINT = "ckpt:"  # "ckpt:PATH": the agent a trained checkpoint describes
MAX_SPEC = 1000  # characters


def register(name: str) -> Callable:
    """Class decorator for agents defined elsewhere (examples, notebooks): makes
    ``make_agent(name)`` build this class, in this process."""

    def deco(cls):
        AGENTS[name] = cls
        return cls

    return deco


def _value(text: str):
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_spec(spec: str) -> tuple[str, dict]:
    """``"search:budget=0.1,k=8"`` -> ``("search", {"budget": 0.1, "k": 8})``; a known
    agent's options are checked against its limits (``agents.options``) here."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec is a non-empty string like 'greedy', got {spec!r}")
    if len(spec) > MAX_SPEC:
        raise ValueError(f"an agent spec has at most {MAX_SPEC} characters, got {len(spec)}")
    name, _, rest = spec.strip().partition(":")
    kwargs = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, val = part.partition("=")
        if not eq or not key.strip():
            raise ValueError(
                f"agent spec {spec!r}: option {part!r} is not key=value "
                "(write e.g. 'search:budget=0.1,k=8')"
            )
        kwargs[key.strip()] = _value(val.strip())
    name = name.strip().lower()
    cls = AGENTS.get(name)
    if cls is not None:
        try:
            kwargs = check_options(name, getattr(cls, "OPTIONS", None), kwargs)
        except ValueError as err:
            raise ValueError(f"agent spec {spec!r}: {err}") from None
    return name, kwargs


def make_agent(spec: str) -> Agent:
    """Builds an agent from a spec: ``random``, ``greedy``, ``heuristic``, ``search``,
    options as ``name:key=value,...``, or ``ckpt:PATH`` for a trained checkpoint."""
    if isinstance(spec, str) and spec.strip().lower().startswith(CHECKPOINT):
        from .policy import load_agent  # torch: only when a checkpoint is asked for

        agent = load_agent(spec.strip()[len(CHECKPOINT) :])
        agent.name = spec.strip()
        return agent
    name, kwargs = parse_spec(spec)
    cls = AGENTS.get(name)
    if cls is None:
        known = ", ".join(sorted(AGENTS) + [CHECKPOINT + "PATH"])
        raise ValueError(f"unknown agent {name!r} in spec {spec!r}; known agents: {known}")
    try:
        agent = cls(**kwargs)
    except TypeError as err:
        raise ValueError(f"agent spec {spec!r}: bad option ({err})") from None
    agent.name = spec.strip()
    return agent


def agent_options(name: str) -> list[str]:
    """The options a scripted agent takes and their limits, one line each."""
    return describe(getattr(AGENTS[name], "OPTIONS", None) or {})


def agent_names() -> list[str]:
    """The scripted agents' names (``ckpt:PATH`` aside)."""
    return sorted(AGENTS)
