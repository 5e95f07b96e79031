"""A trained network as an Agent, so checkpoints play in the evaluation harness.

    make_agent("learned")                        # a shipped checkpoint, by its registry name
    make_agent("ckpt:runs/td/checkpoints/final.pt")
    load_agent("runs/td/checkpoints/final.pt", greedy=True)

A checkpoint holds a tile-level policy (masked PPO; ``agents.tile_ppo.agent.PolicyAgent``),
a move-value network (TD self-play; ``agents.move_value.agent.ValueAgent``) or a whole-move
policy (the RL-library recipes; ``agents.move_policy.network.MovePolicyAgent``);
``load_agent`` builds whichever the file's format names. All work in an env of any window
size. This is the one module that imports every learner; the registry imports it only when
a checkpoint is asked for.
"""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import torch

from agents.base import Agent
from agents.checkpoint import MOVES_FORMAT, VALUE_FORMAT, load_checkpoint
from agents.move_policy.network import MovePolicyNet, move_policy_agent_of
from agents.move_value.agent import BySeatCount, ValueAgent, value_agent_of
from agents.move_value.network import MoveValueNet
from agents.move_value.oracle import LearnedOracleAgent
from agents.move_value.search import LearnedSearchAgent
from agents.tile_ppo.agent import PolicyAgent
from agents.tile_ppo.network import PolicyValueNet


def load_agent(path: str | Path, greedy: bool = True) -> Agent:
    """The checkpoint at ``path`` as an agent, of the kind its format names (a tile-level
    policy, a move-value network or a whole-move policy); ValueError if the file is bad."""
    if multiprocessing.current_process().name != "MainProcess":
        # Evaluation workers: one core each, set before the first tensor op. A worker
        # forked from a parent whose OpenMP pool is running would otherwise wait for ever
        # on that pool's threads (they are not copied by fork) at the first large copy.
        torch.set_num_threads(1)
    net, meta = load_checkpoint(path, kind=(PolicyValueNet, MoveValueNet, MovePolicyNet))
    if meta["format"] == VALUE_FORMAT:
        agent = value_agent_of(net, meta, path)
    elif meta["format"] == MOVES_FORMAT:
        agent = move_policy_agent_of(net, meta, path, greedy=greedy)
    else:
        agent = PolicyAgent(net, greedy=greedy, meta=meta)
    agent.name = f"ckpt:{path}"
    return agent


def value_agent(path: str | Path) -> ValueAgent:
    """The move-value checkpoint at ``path`` as an agent; ValueError if the file holds
    another kind of checkpoint."""
    agent = load_agent(path)
    if not isinstance(agent, ValueAgent):
        raise ValueError(
            f"{path} holds a {type(agent).__name__}, not a move-value network (the kind "
            "'train.py train' makes)"
        )
    return agent


def by_seat_count(paths: dict[int, Path]) -> BySeatCount:
    """One move-value agent per seat count, each loaded once (``learned``)."""
    loaded = {path: value_agent(path) for path in set(paths.values())}
    return BySeatCount({n: loaded[path] for n, path in paths.items()})


def learned_search_agent(paths: dict[int, Path], **options) -> LearnedSearchAgent:
    """The search over the moves of the move-value networks at ``paths``, one per seat
    count (``learned-search``)."""
    return LearnedSearchAgent(by_seat_count(paths), **options)


def learned_oracle_agent(paths: dict[int, Path], **options) -> LearnedOracleAgent:
    """The perfect-information instrument that judges by the move-value networks at
    ``paths``, one per seat count (``learned-oracle``)."""
    return LearnedOracleAgent(by_seat_count(paths), **options)
