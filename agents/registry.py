"""The registry: agents built from short spec strings.

Specs are strings (``"greedy"``, ``"search:budget=0.1"``, ``"learned"``, ``"ckpt:PATH"``) so
that worker processes and command lines can rebuild the same agents. The registry sits above
the scripted agents and imports them; learned agents load from checkpoints on demand
(``agents.loading``, and torch, are imported only then). The shipped checkpoints have names
of their own (``SHIPPED``) and travel inside the installed package, so ``"learned"`` works
from any directory.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType

from agents.base import Agent
from agents.options import check_options, describe
from agents.scripted.baselines import GreedyAgent, RandomActionAgent, RandomAgent
from agents.scripted.heuristic import HeuristicAgent
from agents.scripted.oracle import LEARNED_ORACLE_OPTIONS, OracleAgent
from agents.scripted.search import LEARNED_SEARCH_OPTIONS, SearchAgent


def learned_search(**options) -> Agent:
    """``learned-search``: the search over the shipped learned network's best moves
    (``agents.move_value.search``, loaded with torch on demand)."""
    return checkpoint_loaders().learned_search_agent(value_paths(), **options)


learned_search.OPTIONS = LEARNED_SEARCH_OPTIONS  # type: ignore[attr-defined]


def learned_oracle(**options) -> Agent:
    """``learned-oracle``: the oracle that judges by the shipped learned network
    (``agents.move_value.oracle``, loaded with torch on demand)."""
    return checkpoint_loaders().learned_oracle_agent(value_paths(), **options)


learned_oracle.OPTIONS = LEARNED_ORACLE_OPTIONS  # type: ignore[attr-defined]
learned_oracle.sees_everything = True  # type: ignore[attr-defined]

AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,  # uniform over whole moves
    "random-action": RandomActionAgent,  # the env's opponent: uniform over the mask's actions
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
    "search": SearchAgent,
    "learned-search": learned_search,
    "oracle": OracleAgent,  # sees every hand: for measurements, never an opponent
    "learned-oracle": learned_oracle,  # the same, judging by the network
}
# ``learned`` plays each game with the network trained for its seat count: with 2 players
# the one fitted to the search's simulated values (agents.move_value.rollout_values).
LEARNED_BY_SEATS = {2: "move_value_rollouts.pt", 3: "move_value_34.pt", 4: "move_value_34.pt"}
# The TD self-play networks, whose values are a position's worth and so can be compared
# across positions: the learned search and the learned oracle judge by them.
VALUES_BY_SEATS = {2: "move_value.pt", 3: "move_value_34.pt", 4: "move_value_34.pt"}
CHECKPOINT = "ckpt:"  # "ckpt:PATH": the agent a trained checkpoint describes
SHIPPED = {  # registry name -> its file among the shipped checkpoints (docs/learned_agent.md)
    "learned": LEARNED_BY_SEATS[2],  # the 1-ply move-value agent
    "tile-ppo": "tile_ppo.pt",  # the tile-level masked-PPO reference
    "sb3-moves": "sb3_moves.pt",  # the whole-move policy, trained by each RL library
    "tianshou-moves": "tianshou_moves.pt",
    "rllib-moves": "rllib_moves.pt",
    "sb3-dqn": "sb3_dqn.pt",  # the Q-learning policies over the rows (docs/integrations.md)
    "tianshou-dqn": "tianshou_dqn.pt",
    "rllib-dqn": "rllib_dqn.pt",
    "rllib-dqn-3p": "rllib_dqn_3p.pt",  # RLlib's self-play, every seat learning, 3 players
    "rllib-dqn-4p": "rllib_dqn_4p.pt",
}
RENAMED = {"qwirkle_ppo.pt": "learned"}  # shipped files renamed since: old name -> spec
MAX_SPEC = 1000  # characters


LOADERS = "agents.loaders"  # the entry-point group naming the module that loads checkpoints


def checkpoint_loaders() -> ModuleType:
    """``agents.loading``, the module that builds an agent from a checkpoint of any kind,
    found through the ``agents.loaders`` entry point (pyproject.toml). It imports every
    learner, and the learners build their opponents here: an import would close a circle,
    so the registry reaches it the way ``qwirkle_env`` reaches the agents, by entry point,
    on demand (torch loads only when a checkpoint is asked for)."""
    found = entry_points(group=LOADERS, name="loading")
    if not found:
        raise RuntimeError(
            f"no {LOADERS!r} entry point: qwirkle-env is not installed "
            "(pip install -e . in the checkout), so no checkpoint can be loaded"
        )
    return next(iter(found)).load()


def register(name: str) -> Callable:
    """Class decorator for agents defined elsewhere (examples, notebooks): makes
    ``make_agent(name)`` build this class, in this process."""

    def deco(cls):
        AGENTS[name] = cls
        return cls

    return deco


def shipped_dir() -> Path:
    """Where the shipped checkpoints lie: inside the installed package (``agents/shipped``,
    pyproject.toml maps the checkout's ``checkpoints/`` there) or in the checkout."""
    here = Path(__file__).resolve().parent
    return here / "shipped" if (here / "shipped").is_dir() else here.parent / "checkpoints"


def recorded_name(path: str | Path) -> str:
    """How a train record names a checkpoint: a shipped one as ``checkpoints/FILE``, so the
    record does not carry the directories of the machine that built it; any other as
    given."""
    try:
        return (Path("checkpoints") / Path(path).resolve().relative_to(shipped_dir())).as_posix()
    except ValueError:
        return str(path)


def checkpoint_path(spec: str) -> Path | None:
    """The checkpoint file a spec plays (a shipped name or ``ckpt:PATH``), else None. A path
    to a shipped file under its old name loads the file with a DeprecationWarning that names
    the spec to use."""
    text = spec.strip() if isinstance(spec, str) else ""
    if text.lower() in SHIPPED:
        return shipped_dir() / SHIPPED[text.lower()]
    if not text.lower().startswith(CHECKPOINT):
        return None
    path = Path(text[len(CHECKPOINT) :])
    if not path.exists() and path.name in RENAMED:
        new = RENAMED[path.name]
        warnings.warn(
            f"agent spec {text!r} is deprecated: the file was renamed; use the spec {new!r}",
            DeprecationWarning,
            stacklevel=3,
        )
        return shipped_dir() / SHIPPED[new]
    return path


def learned_paths() -> dict[int, Path]:
    """The shipped networks of ``learned``, by seat count."""
    return {n: shipped_dir() / file for n, file in LEARNED_BY_SEATS.items()}


def value_paths() -> dict[int, Path]:
    """The shipped TD networks, by seat count: what ``learned-search`` and
    ``learned-oracle`` judge by."""
    return {n: shipped_dir() / file for n, file in VALUES_BY_SEATS.items()}


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
    if name in SHIPPED and kwargs:
        raise ValueError(f"agent spec {spec!r}: the shipped agent {name!r} takes no options")
    cls = AGENTS.get(name)
    if cls is not None:
        try:
            kwargs = check_options(name, getattr(cls, "OPTIONS", None), kwargs)
        except ValueError as err:
            raise ValueError(f"agent spec {spec!r}: {err}") from None
    return name, kwargs


def make_agent(spec: str) -> Agent:
    """Builds an agent from a spec: ``random``, ``random-action``, ``greedy``, ``heuristic``,
    ``search``, options as ``name:key=value,...``, a shipped checkpoint's name
    (``learned``, ``tile-ppo``...) or ``ckpt:PATH`` for any trained checkpoint."""
    path = checkpoint_path(spec)
    if path is not None:
        loaders = checkpoint_loaders()  # torch: only when a checkpoint is asked for
        # "learned", or its file under an old name: a network per seat count
        learned = path == shipped_dir() / SHIPPED["learned"]
        agent = loaders.by_seat_count(learned_paths()) if learned else loaders.load_agent(path)
        agent.name = spec.strip()
        return agent
    name, kwargs = parse_spec(spec)
    cls = AGENTS.get(name)
    if cls is None:
        known = ", ".join(sorted(AGENTS) + sorted(SHIPPED) + [CHECKPOINT + "PATH"])
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
    """The scripted agents' names (``ckpt:PATH`` and the shipped names aside)."""
    return sorted(AGENTS)


def shipped_names() -> list[str]:
    """The shipped checkpoints' names whose file is present, in ``SHIPPED``'s order."""
    return [name for name, file in SHIPPED.items() if (shipped_dir() / file).is_file()]
