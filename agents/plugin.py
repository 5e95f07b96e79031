"""A user's own agent, named by where its code lives: ``path/to/file.py:NAME`` or
``package.module:NAME``.

NAME is an :class:`~agents.base.Agent` subclass (built with no arguments) or a function
``policy(observation, action_mask) -> row`` over the whole-move mode's observation
(``qwirkle_env.rows.table``): what any policy trained in that mode needs. The spec is a
string, so each worker process of the harness loads the code itself. The registry never
loads a plugin: only the harness does, for the commands a user runs on their own machine
(``evaluate``, ``bench``), so a server that builds agents through the registry (the
showdown page) cannot be made to run a stranger's code.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from agents.base import Agent, PlanningAgent
from qwirkle_env.engine.game import Game
from qwirkle_env.engine.moves import Move
from qwirkle_env.rows.position import Position
from qwirkle_env.rows.table import DEFAULT_MAX_MOVES, move_table, observation
from qwirkle_env.view import PlayerView

_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
SPEC_FORMS = "path/to/file.py:NAME or package.module:NAME"
# The registry names of agents a user registered in their own process (a notebook's bench):
# code from outside the project, refereed like a plugin.
IN_PROCESS = "notebook-"


class PluginError(Exception):
    """A plugin that cannot be loaded or is not an agent; the message names the plugin."""


class BadMove(Exception):
    """A plugin's answer that is not a legal move; its ``kind`` is the forfeit's reason."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def is_plugin_spec(spec: object) -> bool:
    """Whether a spec names code (``file.py:NAME``, ``module:NAME``) rather than a registry
    agent: the part after the last ``:`` is a bare identifier (a registry option is
    ``key=value``) and the part before is a ``.py`` file or a dotted module name."""
    if not isinstance(spec, str) or ":" not in spec:
        return False
    where, _, name = spec.strip().rpartition(":")
    if not _NAME.match(name.strip()):
        return False
    where = where.strip()
    if where.lower().startswith("ckpt"):
        return False
    return where.lower().endswith(".py") or bool(_MODULE.match(where))


def is_refereed(spec: str) -> bool:
    """Whether an agent is the user's code (a plugin, or registered in-process), whose
    moves the harness referees."""
    return is_plugin_spec(spec) or spec.strip().lower().startswith(IN_PROCESS)


def _split(spec: str) -> tuple[str, str]:
    where, _, name = spec.strip().rpartition(":")
    return where.strip(), name.strip()


def _load_file(path: str) -> object:
    file = Path(path).expanduser().resolve()
    if not file.is_file():
        raise PluginError(f"plugin {path!r}: no such file ({file})")
    module_name = "qwirkle_plugin_" + hashlib.sha1(str(file).encode()).hexdigest()[:12]
    if module_name in sys.modules:
        return sys.modules[module_name]
    found = importlib.util.spec_from_file_location(module_name, file)
    if found is None or found.loader is None:
        raise PluginError(f"plugin {path!r}: Python cannot load this file")
    module = importlib.util.module_from_spec(found)
    sys.modules[module_name] = module
    try:
        found.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module


def load_plugin(spec: str) -> Agent:
    """The agent a plugin spec names; PluginError (naming the plugin and its error) if the
    code cannot be imported or NAME is not an agent."""
    if not is_plugin_spec(spec):
        raise PluginError(f"{spec!r} is not a plugin spec: write {SPEC_FORMS}")
    where, name = _split(spec)
    try:
        module = (
            _load_file(where) if where.lower().endswith(".py") else importlib.import_module(where)
        )
    except PluginError:
        raise
    except BaseException as err:  # the plugin's own code ran: any error, even SystemExit
        hint = ""
        if isinstance(err, ModuleNotFoundError) and not where.lower().endswith(".py"):
            hint = " (is its folder on PYTHONPATH?)"
        raise PluginError(
            f"plugin {spec!r} cannot be imported: {type(err).__name__}: {err}{hint}"
        ) from None
    target = getattr(module, name, None)
    if target is None:
        raise PluginError(f"plugin {spec!r}: {where} defines no {name!r}")
    if inspect.isclass(target):
        if not issubclass(target, Agent):
            raise PluginError(
                f"plugin {spec!r}: class {name} is not an agents.base.Agent subclass; give an "
                "Agent subclass or a function policy(observation, action_mask) -> row"
            )
        try:
            agent = target()
        except Exception as err:
            raise PluginError(
                f"plugin {spec!r}: {name}() failed: {type(err).__name__}: {err}"
            ) from None
    elif callable(target):
        agent = PolicyAgent(target)
    else:
        raise PluginError(
            f"plugin {spec!r}: {name} is a {type(target).__name__}, not an Agent subclass or "
            "a function policy(observation, action_mask) -> row"
        )
    agent.name = spec.strip()
    return agent


def as_row(answer: object, mask: np.ndarray) -> int:
    """A policy's answer as a row of the table; BadMove if it is not an integer or names a
    row the mask rules out."""
    if isinstance(answer, np.ndarray) and answer.size == 1:
        answer = answer.reshape(()).item()
    if isinstance(answer, bool) or not isinstance(answer, int | np.integer):
        raise BadMove(
            "not_a_move",
            f"the policy returned {type(answer).__name__} {answer!r:.60}, not a row number",
        )
    row = int(answer)
    if not 0 <= row < len(mask):
        raise BadMove("illegal", f"row {row} is outside the table's 0..{len(mask) - 1}")
    if not mask[row]:
        raise BadMove("illegal", f"row {row} is masked: it holds no legal move")
    return row


class PolicyAgent(PlanningAgent):
    """A function of the move mode's observation and mask, played as an agent: each turn
    shows it the table the env's ``action_mode="moves"`` would, and plays the row it
    returns."""

    def __init__(self, policy: Callable, max_moves: int = DEFAULT_MAX_MOVES) -> None:
        self.policy = policy
        self.max_moves = max_moves
        # The table's compiled kernels load (or compile) on a process's first tables: build
        # two here, when the agent is made and nothing is timed, so that its first move's
        # CPU is the policy's own (the harness makes an agent once and resets it per game).
        game = Game(2, seed=0)
        move_table(Position.of_game(game), max_moves)
        game.apply(game.legal_moves()[0])
        move_table(Position.of_game(game), max_moves)

    def choose(self, view: PlayerView) -> Move:
        pos = Position.of_view(view)
        table = move_table(pos, self.max_moves)
        obs = observation(pos, table, self.max_moves)
        mask = np.arange(self.max_moves) < len(table)
        row = as_row(self.policy(obs, mask.copy()), mask)
        return table.move(row)
