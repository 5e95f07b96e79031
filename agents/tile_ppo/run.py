"""What a training run leaves in runs/<name>/: metrics.csv, TensorBoard events (if
tensorboard is installed), checkpoints/, learning_curve.png, config.json.

``Run`` is the ``hooks`` object agents.tile_ppo.ppo.train calls: logging, the progress bar,
in-training evaluation (batched, vs random and greedy) and checkpoints.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from tqdm import tqdm

from agents.checkpoint import save_checkpoint
from agents.curves import plot_curve, write_csv
from agents.tile_ppo.network import PolicyValueNet
from agents.tile_ppo.quickeval import win_rate


class Run:
    def __init__(self, cfg, out_dir: str | Path, initial: dict | None = None, bar: bool = True):
        self.cfg = cfg
        self.dir = Path(out_dir)
        (self.dir / "checkpoints").mkdir(parents=True, exist_ok=True)
        (self.dir / "config.json").write_text(json.dumps(cfg.to_dict(), indent=2))
        self.initial = initial
        self.rows: list[dict] = []
        self.evals: list[dict] = []
        self.start = time.time()
        self.last_ckpt: Path | None = None
        self.postfix: dict = {}
        self.bar = tqdm(total=cfg.total_steps, desc="ppo steps", unit="step", disable=not bar)
        self.tb = None
        try:
            from torch.utils.tensorboard import SummaryWriter

            self.tb = SummaryWriter(str(self.dir / "tb"))
        except Exception:  # tensorboard is optional
            self.tb = None

    # --- hooks ------------------------------------------------------------------------
    def log(self, step: int, stats: dict) -> None:
        row = {"step": step, "wall_s": round(time.time() - self.start, 1), **stats}
        self.rows.append(row)
        self._write_csv()
        if self.tb is not None:
            for k, v in stats.items():
                if isinstance(v, int | float):
                    self.tb.add_scalar(k, v, step)

    def progress(self, step: int, stats: dict) -> None:
        self.bar.n = min(step, self.cfg.total_steps)
        self.postfix.update(
            sps=f"{stats.get('steps_per_s', 0):.0f}",
            margin=f"{stats.get('train_margin_scripted', float('nan')):+.1f}",
            win_scr=f"{stats.get('train_win_scripted', float('nan')):.2f}",
        )
        self.bar.set_postfix(self.postfix, refresh=False)
        self.bar.refresh()

    def evaluate(self, net: PolicyValueNet, step: int) -> dict:
        cfg = self.cfg
        result = {}
        for spec in [s.strip() for s in cfg.eval_opponents.split(",") if s.strip()]:
            r = win_rate(
                net, spec, cfg.eval_games, cfg.window, cfg.num_players,
                cfg.strict_opening, seed=12345, device=cfg.device,
            )  # fmt: skip
            result[f"eval_win_{spec}"] = r["win_rate"]
            result[f"eval_margin_{spec}"] = r["margin"]
            self.postfix[f"vs_{spec}"] = f"{r['win_rate']:.2f}"
        self.evals.append({"step": step, **result})
        self.log(step, result)
        self.plot()
        return result

    def checkpoint(self, net: PolicyValueNet, step: int) -> Path:
        cfg = self.cfg
        path = self.dir / "checkpoints" / f"step_{step:08d}.pt"
        save_checkpoint(path, net, cfg.env_options(), cfg.to_dict(), step)
        save_checkpoint(self.dir / "checkpoints" / "latest.pt", net, cfg.env_options(),
                        cfg.to_dict(), step)  # fmt: skip
        self.last_ckpt = self.dir / "checkpoints" / "latest.pt"
        return path

    def close(self) -> None:
        self.bar.close()
        if self.tb is not None:
            self.tb.close()

    # --- files ------------------------------------------------------------------------
    def _write_csv(self) -> None:
        write_csv(self.rows, self.dir / "metrics.csv")

    def plot(self, path: Path | None = None) -> Path | None:
        """Learning curve: in-training win rate vs each evaluation opponent."""
        if not self.evals:
            return None
        return plot_curve(self.evals, path or self.dir / "learning_curve.png", self.dir.name)
