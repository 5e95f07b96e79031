"""What a training run leaves in runs/<name>/: metrics.csv, TensorBoard events (if
tensorboard is installed), checkpoints/, learning_curve.png, config.json.

``Run`` is the ``hooks`` object agents.ppo.train calls: logging, the progress bar,
in-training evaluation (batched, vs random and greedy) and checkpoints.
"""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

from tqdm import tqdm

from .checkpoint import save_checkpoint
from .network import PolicyValueNet
from .quickeval import win_rate


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


def write_csv(rows: list[dict], path: Path) -> None:
    """Rows of possibly different keys as one CSV (the union of the keys, in first-seen order)."""
    fields: list[str] = []
    for row in rows:
        fields += [k for k in row if k not in fields]
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def plot_curve(
    evals: list[dict],
    path: Path,
    title: str = "",
    xlabel: str = "PPO steps (learner sub-steps; 0 = after warm start)",
) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    keys = sorted({k[9:] for e in evals for k in e if k.startswith("eval_win_")})
    for name in keys:
        pts = [(e["step"], e[f"eval_win_{name}"]) for e in evals if f"eval_win_{name}" in e]
        ax.plot(*zip(*pts, strict=True), marker="o", label=f"vs {name}")
        pts = [(e["step"], e[f"eval_margin_{name}"]) for e in evals if f"eval_margin_{name}" in e]
        ax2.plot(*zip(*pts, strict=True), marker="o", label=f"vs {name}")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax2.axhline(0.0, color="grey", lw=0.8, ls="--")
    ax.set_ylim(0, 1)
    ax.set_ylabel("win share (argmax policy)")
    ax2.set_ylabel("mean final score margin")
    ax.set_title(f"Learning curve {title}".strip())
    for a in (ax, ax2):
        a.set_xlabel(xlabel)
        a.legend()
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
