"""Executes the notebooks at full size and saves them with their outputs.

    pip install -e ".[notebooks]"            # and ".[sb3]" for 02_training
    python scripts/run_notebooks.py          # all of them, one after the other
    python scripts/run_notebooks.py 02_training.ipynb

The notebooks are stored with their outputs so that a reader sees boards, curves and
tables before running anything (notebooks/README.md). This is the one command that
regenerates those outputs. Each notebook runs in notebooks/ (its relative paths start
there), without QWIRKLE_NOTEBOOK_FAST, and is written back only if every cell ran.
tests/test_notebooks.py checks what is stored.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from tqdm import tqdm

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def run(path: Path, timeout: int) -> float:
    """Executes ``path`` top to bottom and saves it; the wall time in seconds."""
    import nbclient
    import nbformat

    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,  # no timestamps: a rerun changes only what it shows
        coalesce_streams=True,  # one stream per cell, progress bars' "\r" resolved
    )
    cells = sum(cell.cell_type == "code" for cell in nb.cells)
    start = time.perf_counter()
    with tqdm(total=cells, desc=path.name, unit="cell") as bar:
        client.on_cell_executed = lambda **_: bar.update()
        client.execute()  # raises CellExecutionError naming the failing cell; nothing written
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="notebook file names (default: all)")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per cell (1800)")
    args = parser.parse_args(argv)
    paths = sorted(NOTEBOOKS.glob("*.ipynb"))
    if args.names:
        known = {p.name: p for p in paths}
        unknown = [n for n in args.names if n not in known]
        if unknown:
            raise SystemExit(f"unknown notebooks {unknown}; known: {sorted(known)}")
        paths = [known[n] for n in args.names]
    if os.environ.pop("QWIRKLE_NOTEBOOK_FAST", None) is not None:
        print("QWIRKLE_NOTEBOOK_FAST unset: the stored outputs are the full-size run's")
    os.environ.pop("MPLBACKEND", None)  # the kernel's inline backend draws the figures
    for path in paths:
        wall = run(path, args.timeout)
        print(f"saved {path.name} with its outputs ({wall / 60:.1f} min)", flush=True)


if __name__ == "__main__":
    sys.exit(main())
