"""A trained network as an Agent, so checkpoints play in the evaluation harness.

    make_agent("ckpt:checkpoints/qwirkle_ppo.pt")   # via agents.registry
    load_agent("checkpoints/qwirkle_ppo.pt", greedy=True)

A checkpoint holds a tile-level policy (masked PPO; ``PolicyAgent``), a move-value network
(TD self-play; ``agents.value_agent.ValueAgent``) or a whole-move policy (the RL-library
recipes; ``agents.move_policy.MovePolicyAgent``); ``load_agent`` builds whichever the
file's format names. All work in an env of any window size.
"""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import numpy as np
import torch

from qwirkle_env.observation import split_observation
from qwirkle_env.view import PlayerView

from .base import Agent
from .checkpoint import MOVES_FORMAT, VALUE_FORMAT, load_checkpoint
from .look_ahead import LookAhead
from .move_features import FEATURES
from .move_policy import MovePolicyAgent, layout
from .network import PolicyValueNet, masked_logits
from .value_agent import ValueAgent


class PolicyAgent(Agent):
    """Picks the most likely legal action (``greedy``) or samples the masked policy."""

    name = "policy"

    def __init__(self, net: PolicyValueNet, greedy: bool = True, meta: dict | None = None):
        self.net = net.eval()
        self.greedy = greedy
        self.meta = meta or {}
        self.reset(0, 2, 0)

    def reset(self, seat: int, num_players: int, seed: int | None = None) -> None:
        super().reset(seat, num_players, seed)
        self.gen = torch.Generator().manual_seed(0 if seed is None else int(seed) % 2**63)

    @torch.no_grad()
    def act(self, view: PlayerView) -> int:
        if view.observation is None or view.action_mask is None:
            raise ValueError("PolicyAgent needs a view from raw_env.player_view (observation)")
        obs = torch.from_numpy(np.asarray(view.observation, dtype=np.float32))[None]
        mask = torch.from_numpy(np.asarray(view.action_mask))[None]
        planes, features = split_observation(obs, view.window)
        logits, _ = self.net(planes, features)
        logits = masked_logits(logits, mask)
        if self.greedy:
            return int(logits.argmax(dim=1))
        probs = torch.softmax(logits, dim=1)
        return int(torch.multinomial(probs, 1, generator=self.gen))


def load_agent(path: str | Path, greedy: bool = True) -> Agent:
    """The checkpoint at ``path`` as an agent, of the kind its format names (a tile-level
    policy or a move-value network); ValueError if the file is bad."""
    if multiprocessing.current_process().name != "MainProcess":
        # Evaluation workers: one core each, set before the first tensor op. A worker
        # forked from a parent whose OpenMP pool is running would otherwise wait for ever
        # on that pool's threads (they are not copied by fork) at the first large copy.
        torch.set_num_threads(1)
    net, meta = load_checkpoint(path, kind=None)
    if meta["format"] == VALUE_FORMAT:
        agent = value_agent_of(net, meta, path)
    elif meta["format"] == MOVES_FORMAT:
        trained_on = {k: (meta.get("env") or {}).get(k) for k in layout()}
        if trained_on != layout():
            raise ValueError(
                f"checkpoint {path} was trained on a move-mode observation laid out as "
                f"{trained_on!r}; this version's env shows {layout()!r}: retrain it"
            )
        agent = MovePolicyAgent(net, greedy=greedy, meta=meta)
    else:
        agent = PolicyAgent(net, greedy=greedy, meta=meta)
    agent.name = f"ckpt:{path}"
    return agent


def value_agent_of(net, meta: dict, path: str | Path) -> ValueAgent:
    """A ValueAgent, once the checkpoint's feature list is checked against this version's."""
    env = meta.get("env") or {}
    trained_on = env.get("features")
    if trained_on != list(FEATURES):
        raise ValueError(
            f"checkpoint {path} was trained on move features {trained_on!r}; this version "
            f"describes moves with {list(FEATURES)!r}: retrain it with this version"
        )
    try:
        look = LookAhead(**env["look_ahead"])
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(
            f"checkpoint {path} has no usable look-ahead settings ({err!r}); a move-value "
            "checkpoint stores the shortlist, reply_samples and refill it was trained with"
        ) from None
    return ValueAgent(net, meta=meta, look_ahead=look)
