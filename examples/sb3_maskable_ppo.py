"""Stable-Baselines3: sb3-contrib's MaskablePPO on one seat against scripted opponents.

    pip install -e ".[sb3]"
    python examples/sb3_maskable_ppo.py --smoke          # ~25 s on 2 cores
    python examples/sb3_maskable_ppo.py --steps 20000 --opponent random  # ~6 min: won 20/20

Makes the single-agent view by its registered id, ``gymnasium.make("qwirkle_env/Qwirkle-v0",
opponent=...)`` (its ``action_masks()`` feeds MaskablePPO), trains, saves the model, then
wraps it as a project ``Agent`` and evaluates it with ``agents.evaluation.harness``'s duplicate-deal
harness. The window is 21, not 39: 15,913 actions instead of 54,793, and no game of the
measured ones (docs/integrations.md) needed more; a smaller window would truncate some
games, when every legal move of the player to move lies outside it. The harness plays at
the default window 39, so the agent crops the centred 21 x 21 view.
"""

from __future__ import annotations

import argparse
import math

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from agents.base import Agent
from agents.evaluation.harness import run_tournament
from agents.registry import register
from qwirkle_env.actions import ActionCodec
from qwirkle_env.engine.tiles import NUM_TYPES
from qwirkle_env.observation import split_observation
from qwirkle_env.spec import NUM_FEATURES, NUM_PLANES
from qwirkle_env.view import PlayerView
from qwirkle_env.wrappers import ENV_ID

WINDOW = 21


def window_of(observation_space: spaces.Box) -> int:
    return round(math.sqrt((observation_space.shape[0] - NUM_FEATURES) / NUM_PLANES))


class BoardExtractor(BaseFeaturesExtractor):
    """Small conv net over the 13 board planes plus an MLP over the 126 features.

    Chosen over MlpPolicy because legality and scoring are local, translation-invariant
    patterns: a conv shares its weights across cells, a flat MLP must learn each cell anew.
    Inputs are divided by the observation space's upper bounds (scores reach hundreds).
    """

    def __init__(self, observation_space: spaces.Box, features_dim: int = 256) -> None:
        super().__init__(observation_space, features_dim)
        self.window = window_of(observation_space)
        self.register_buffer("scale", torch.as_tensor(1.0 / observation_space.high))
        self.conv = torch.nn.Sequential(
            torch.nn.Conv2d(NUM_PLANES, 32, 3, padding=1),
            torch.nn.ReLU(),
            torch.nn.Conv2d(32, 32, 3, padding=1, stride=2),
            torch.nn.ReLU(),
            torch.nn.Flatten(),
        )
        side = (self.window + 1) // 2
        self.head = torch.nn.Sequential(
            torch.nn.Linear(32 * side * side + NUM_FEATURES, features_dim), torch.nn.ReLU()
        )

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        planes, feats = split_observation(obs * self.scale, self.window)
        return self.head(torch.cat((self.conv(planes), feats), dim=1))


def train(steps: int, opp: str = "greedy", window: int = WINDOW, seed: int = 0) -> MaskablePPO:
    """MaskablePPO with a "margin" reward: dense, and zero-sum like winning."""
    env = gymnasium.make(ENV_ID, opponent=opp, seat=None, window=window, reward="margin")
    n = min(512, steps)
    policy_kwargs = {"features_extractor_class": BoardExtractor, "net_arch": [128]}
    kwargs = {"n_steps": n, "batch_size": min(64, n), "n_epochs": 4, "seed": seed, "device": "cpu"}
    model = MaskablePPO("MlpPolicy", env, policy_kwargs=policy_kwargs, **kwargs)
    return model.learn(total_timesteps=steps)


def crop(view: PlayerView, window: int) -> tuple[np.ndarray, np.ndarray]:
    """The view's observation and mask cut to the centred ``window`` (both windows are
    centred on the table's bounding box, so cell (r, c) is cell (r + off, c + off))."""
    big, off = view.window, view.window // 2 - window // 2
    planes, feats = split_observation(view.observation, big)
    inner = planes[:, off : off + window, off : off + window]
    obs = np.concatenate((inner.ravel(), feats)).astype(np.float32)
    m, cut = view.action_mask, NUM_TYPES * big * big
    place = m[:cut].reshape(NUM_TYPES, big, big)[:, off : off + window, off : off + window]
    return obs, np.concatenate((place.ravel(), m[cut:])).astype(bool)


def uncrop(action: int, window: int, big: int) -> int:
    small, large, off = ActionCodec(window), ActionCodec(big), big // 2 - window // 2
    kind = small.decode(action)
    if kind[0] == "place":
        return large.place(kind[1], kind[2] + off, kind[3] + off)
    return large.exchange(kind[1]) if kind[0] == "exchange" else large.end


@register("sb3")
class SB3Agent(Agent):
    """A saved MaskablePPO model as a project Agent: ``make_agent("sb3:path=MODEL.zip")``."""

    def __init__(self, path: str, deterministic: bool = True) -> None:
        self.model = MaskablePPO.load(path, device="cpu")
        self.window = window_of(self.model.observation_space)
        self.deterministic = deterministic

    def act(self, view: PlayerView) -> int:
        obs, mask = crop(view, self.window)
        if not mask.any():  # every legal move lies outside the model's window
            legal = np.flatnonzero(view.action_mask)
            return int(legal[self.rng.randrange(len(legal))])
        action, _ = self.model.predict(obs, action_masks=mask, deterministic=self.deterministic)
        return uncrop(int(action), self.window, view.window)


def evaluate(path: str, opp: str, games: int) -> str:
    """Duplicate deals through agents.evaluation, in this process (where "sb3" is registered)."""
    results = run_tournament([f"sb3:path={path}", opp], games, processes=1, progress=False)
    return results.table()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="256 steps, 4 evaluation games")
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument(
        "--opponent", default="greedy", help="opponent spec: greedy, random-action, search..."
    )
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--out", default="runs/sb3_maskable_ppo.zip")
    args = parser.parse_args()
    torch.set_num_threads(1)  # small nets on shared cores: 30x faster than contended threads
    steps, games = (256, 4) if args.smoke else (args.steps, args.games)
    model = train(steps, args.opponent)
    model.save(args.out)
    print(f"saved {args.out} after {model.num_timesteps} steps")
    print(evaluate(args.out, args.opponent, games))


if __name__ == "__main__":
    main()
