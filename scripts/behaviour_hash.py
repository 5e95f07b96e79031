"""Hash what the AEC env and the batched simulator output over seeded games.

A refactor that claims "no behaviour change" runs this before and after and compares the
lines: each names a configuration and the SHA-256 of every observation, mask, reward,
termination, truncation and info the games produced (random actions from a seeded RNG).

    python scripts/behaviour_hash.py > before.txt   # ... change the code ...
    python scripts/behaviour_hash.py | diff before.txt -
"""

from __future__ import annotations

import argparse
import hashlib
import json

import numpy as np

from qwirkle_env import raw_env
from qwirkle_env.vector import VectorQwirkle


def _feed(digest, *values) -> None:
    for value in values:
        if isinstance(value, np.ndarray):
            digest.update(str((value.dtype, value.shape)).encode())
            digest.update(np.ascontiguousarray(value).tobytes())
        elif isinstance(value, dict):
            for key in sorted(value, key=str):
                _feed(digest, str(key), value[key])
        elif isinstance(value, (list, tuple)):
            digest.update(b"[")
            _feed(digest, *value)
            digest.update(b"]")
        else:
            digest.update(json.dumps(value, sort_keys=True, default=repr).encode())


def env_hash(
    num_players: int, reward: str, window: int | None, seeds: range, action_mode: str = "tiles"
) -> str:
    digest = hashlib.sha256()
    for seed in seeds:
        options = {"window": window} if window else {}
        e = raw_env(num_players=num_players, reward=reward, action_mode=action_mode, **options)
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for agent in e.agent_iter():
            obs, reward_now, terminated, truncated, info = e.last()
            _feed(digest, agent, obs["observation"], obs["action_mask"], float(reward_now))
            _feed(digest, bool(terminated), bool(truncated), info)
            _feed(digest, {a: float(r) for a, r in e.rewards.items()})
            if terminated or truncated:
                e.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            e.step(int(rng.choice(legal)))
        _feed(digest, e.game.to_dict() if hasattr(e, "game") else None)
    return digest.hexdigest()


def vector_hash(num_envs: int, num_players: int, reward: str, dense: bool, steps: int) -> str:
    digest = hashlib.sha256()
    vec = VectorQwirkle(num_envs, num_players=num_players, reward=reward, dense=dense)
    rng = np.random.default_rng(1234)
    obs, infos = vec.reset(seed=list(range(num_envs)))
    _feed(digest, *(obs[k] for k in sorted(obs)), infos)
    for _ in range(steps):
        obs, rewards, terminations, truncations, infos = vec.step(vec.sample_actions(rng))
        _feed(digest, *(obs[k] for k in sorted(obs)), rewards, terminations, truncations)
        _feed(digest, infos)
    for i in range(num_envs):
        _feed(digest, sorted((cell, str(tile)) for cell, tile in vec.table(i)))
    vec.close()
    return digest.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6, help="seeded env games per config")
    parser.add_argument("--steps", type=int, default=1500, help="simulator steps per config")
    args = parser.parse_args()
    seeds = range(args.games)
    for players, reward, window in [(2, "win", 39), (3, "points", 39), (4, "margin", 25)]:
        name = f"env players={players} reward={reward} window={window}"
        print(name, env_hash(players, reward, window, seeds), flush=True)
    for players, reward in [(2, "win"), (3, "points"), (4, "margin")]:  # rows: move features
        name = f"env moves players={players} reward={reward}"
        print(name, env_hash(players, reward, None, seeds, "moves"), flush=True)
    for players, reward, dense in [(2, "win", False), (3, "margin", False), (2, "points", True)]:
        name = f"vector players={players} reward={reward} dense={dense}"
        print(name, vector_hash(16, players, reward, dense, args.steps), flush=True)


if __name__ == "__main__":
    main()
