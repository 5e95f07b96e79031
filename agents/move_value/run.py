"""What a TD self-play run leaves in runs/<name>/: metrics.csv, checkpoints/,
learning_curve.png (win rate against the scripted agents over training), config.json.

``TDRun`` is the ``hooks`` object agents.move_value.td.train calls: logging, the progress bar, and
duplicate-deal matches through the AEC env (agents.evaluation.harness) at each checkpoint.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path

from tqdm import tqdm

from agents.checkpoint import save_checkpoint
from agents.curves import plot_curve, write_csv
from agents.move_value.features import FEATURES, NUM_BASE_FEATURES
from agents.move_value.network import MoveValueNet
from qwirkle_env.rows.look_ahead import LookAhead

CURVE_SEED = 1  # deal seed of the in-training matches (reports use other seeds)


class TDRun:
    def __init__(self, cfg, out_dir: str | Path, bar: bool = True) -> None:
        self.cfg = cfg
        self.dir = Path(out_dir)
        (self.dir / "checkpoints").mkdir(parents=True, exist_ok=True)
        (self.dir / "config.json").write_text(json.dumps(cfg.to_dict(), indent=2))
        self.rows: list[dict] = []
        self.evals: list[dict] = []
        self.start = time.time()
        self.progress = bar
        self.bar = tqdm(total=cfg.total_games, desc="self-play games", unit="game", disable=not bar)

    def log(self, games: int, stats: dict) -> None:
        self.rows.append({"games": games, "wall_s": round(time.time() - self.start, 1), **stats})
        write_csv(self.rows, self.dir / "metrics.csv")
        self.bar.n = games
        self.bar.set_postfix(
            turns_s=f"{stats['decisions_per_s']:.0f}", loss=f"{stats['loss']:.3f}", refresh=False
        )
        self.bar.refresh()

    def checkpoint(self, net: MoveValueNet, games: int) -> Path:
        path = self.dir / "checkpoints" / f"games_{games:07d}.pt"
        env = env_options(self.cfg.play_look_ahead(), net.config.features)
        save_checkpoint(path, net, env, self.cfg.to_dict(), games)
        save_checkpoint(self.dir / "checkpoints" / "latest.pt", net, env,
                        self.cfg.to_dict(), games)  # fmt: skip
        return path

    def evaluate(self, net: MoveValueNet, games: int) -> dict:
        """Checkpoint, then duplicate matches against each eval opponent, in each seat count
        the run trains on (the opponent in all the other seats; a network is refused for
        seat counts it was not trained on)."""
        from agents.evaluation.harness import run_tournament

        path = self.checkpoint(net, games)
        result: dict = {"step": games}
        for opp in [s.strip() for s in self.cfg.eval_opponents.split(",") if s.strip()]:
            for n in self.cfg.seat_counts():
                res = run_tournament([f"ckpt:{path}"] + [opp] * (n - 1), self.cfg.eval_games, n,
                                     seed=CURVE_SEED, processes=self.cfg.processes,
                                     progress=False)  # fmt: skip
                row = res.summary()[0]
                key = opp if n == 2 else f"{opp} ({n} players)"
                result[f"eval_win_{key}"] = row["win_rate"]
                result[f"eval_margin_{key}"] = row["mean_margin"]
                fair = "" if n == 2 else f", {n} players, fair share {1 / n:.0%}"
                self.bar.write(
                    f"after {games} games: {row['win_rate']:.1%} of {row['games']} against "
                    f"{opp} (margin {row['mean_margin']:+.1f}{fair})"
                )
        self.evals.append(result)
        write_csv(self.evals, self.dir / "evals.csv")
        xlabel = "self-play games (0 = untrained: plays as greedy)"
        plot_curve(self.evals, self.dir / "learning_curve.png", self.dir.name, xlabel)
        return result

    def close(self) -> None:
        self.bar.close()


def env_options(look_ahead: LookAhead, features: int = NUM_BASE_FEATURES) -> dict:
    """What a move-value checkpoint must agree on with the code that loads it: the
    features its network reads (the first ``features`` of the list), and the look ahead it
    was trained with (the agent plays with the same)."""
    return {"features": list(FEATURES[:features]), "look_ahead": asdict(look_ahead)}
