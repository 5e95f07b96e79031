"""``qwirkle analyse RECORD``: where a finished game was won or lost (``agents.analysis``).

    python train.py analyse game.json                        # game.analysis.json, .png
    python train.py analyse game.json --analyser learned-search:budget=0.2 --budget 120

RECORD is a game record (``Game.record()``, or what the showdown page saves, with its seat
names) or a full game state (``Game.to_dict()``). The JSON lists, for each move, the
analysing agent's best moves with their points and value, the played move's value and
its loss against the best, and each player's biggest mistakes; the PNG charts each
player's outlook and the loss of each of their moves.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from agents.analysis import DEFAULT_CPU, MAX_CPU, analyse
from qwirkle_cli.options import SubCommands, command
from qwirkle_env.engine.game import Game
from qwirkle_env.engine.save import FORMAT, RECORD_FORMAT


def add_parsers(sub: SubCommands) -> None:
    """The ``analyse`` sub-command's options."""
    a = command(
        sub, "analyse", cmd_analyse, "analyse a finished game: best moves, mistakes, outlook"
    )
    a.add_argument("record", help="a game record or game state (JSON)")
    a.add_argument(
        "--analyser",
        default="learned",
        help="the agent that values the moves: learned, learned-search:budget=B, "
        "search:budget=B, or a move-value ckpt:PATH",
    )
    a.add_argument(
        "--budget",
        type=float,
        default=DEFAULT_CPU,
        help=f"CPU seconds for the whole analysis, in (0, {MAX_CPU:g}]",
    )
    a.add_argument("--out", default=None, help="JSON to write (default: RECORD.analysis.json)")
    a.add_argument("--chart", default=None, help="PNG to write (default: RECORD.analysis.png)")
    a.add_argument("--no-progress", action="store_true", help="no progress bar")


def read_record(path: Path) -> tuple[dict[str, Any], list[str] | None]:
    """The record in ``path`` and its seat names, if it has them; SystemExit says what is
    wrong with a file that is neither a record nor a game state."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise SystemExit(f"cannot read {path}: {err}") from None
    if not isinstance(data, dict) or data.get("format") not in (RECORD_FORMAT, FORMAT):
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise SystemExit(
            f"{path} is not a game record: its format is {found!r}, expected "
            f"{RECORD_FORMAT!r} (a record) or {FORMAT!r} (a game state)"
        )
    names = data.get("names")
    try:
        record = Game.from_dict(data).record() if data["format"] == FORMAT else data
    except (ValueError, KeyError, TypeError) as err:
        raise SystemExit(f"{path} is not a readable game: {err}") from None
    return record, names if isinstance(names, list) else None


def cmd_analyse(args: argparse.Namespace) -> dict[str, Any]:
    path = Path(args.record)
    record, names = read_record(path)
    progress = None
    if not args.no_progress:
        from tqdm import tqdm

        def progress(moves):
            return tqdm(moves, desc="analysing", unit="move")

    try:
        result = analyse(record, args.analyser, args.budget, names=names, progress=progress)
    except ValueError as err:
        raise SystemExit(f"cannot analyse {path}: {err}") from None
    out = Path(args.out) if args.out else path.with_suffix(".analysis.json")
    chart = Path(args.chart) if args.chart else path.with_suffix(".analysis.png")
    out.write_text(json.dumps(result, indent=1))
    plot_analysis(result, chart)
    for p in result["players"]:
        who = names[p["seat"]] if names else f"player {p['seat']}"
        mean = p["mean_loss"] or 0
        print(f"{who}: {p['moves']} moves, lost {p['total_loss']:.1f} points of value "
              f"(mean {mean:.2f}); biggest mistakes at moves {p['mistakes']}")  # fmt: skip
    if result["stopped"]:
        print(f"stopped early: {result['stopped']}")
    print(f"wrote {out} and {chart}")
    return result


def plot_analysis(result: dict[str, Any], path: Path) -> Path:
    """Each player's outlook at their turns (top) and what each move lost (bottom)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n, names = result["num_players"], result["names"]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    end = len(result["moves"])
    for seat in range(n):
        label = names[seat] if names else f"player {seat}"
        mine = [m for m in result["moves"] if m["seat"] == seat]
        xs = [m["index"] for m in mine]
        ys = [m["outlook"] for m in mine]
        if result["complete"]:
            xs, ys = [*xs, end], [*ys, result["final_outlook"][seat]]
        (line,) = top.plot(xs, ys, marker=".", label=label)
        lost = [(m["index"], m["loss"]) for m in mine if m["loss"] is not None]
        if lost:
            bottom.bar(*zip(*lost, strict=True), color=line.get_color(), label=label)
    top.axhline(0, color="grey", lw=0.8, ls="--")
    top.set_ylabel("outlook (final margin, +20 a win)")
    top.set_title(f"Analysis by {result['analyser']}")
    bottom.set_ylabel("value lost by the move (points)")
    bottom.set_xlabel("move")
    for ax in (top, bottom):
        ax.legend()
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
