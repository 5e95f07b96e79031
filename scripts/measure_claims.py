"""Re-measures the times and results that README.md and the docs quote, as a newcomer
meets them: each measurement runs in a fresh copy of the checkout's tracked files (an
empty numba cache, as in a new clone), and says the conditions it ran under (cores, load
average before and after, cold or cached). Prints the table the docs quote.

    python scripts/measure_claims.py                      # train.py and the README snippets
    python scripts/measure_claims.py --what snippets      # one part: train, snippets,
    python scripts/measure_claims.py --what train --repeats 2   # notebooks, tests
    python scripts/measure_claims.py --what tests         # the README's test command

Run it on an otherwise idle machine for the idle numbers; under load it says so.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FINAL_ROW = re.compile(r"^\| ckpt:\S+ +\| \d+ +\| [\d.]+ +\| ([\d.]+)%")


def fresh_copy(into: Path) -> Path:
    """The checkout's tracked files (as they are in the working tree), with no cache."""
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, files):
        src, dst = ROOT / name.decode(), into / name.decode()
        if src.is_file():
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(src.read_bytes())
    return into


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def timed(cmd: list[str], cwd: Path, env: dict | None = None) -> tuple[float, str, str, str]:
    """Wall seconds, the load average before and after, and the output; the copy's
    packages come first (an editable install elsewhere would otherwise win in a kernel)."""
    before = load()
    start = time.perf_counter()
    out = subprocess.run(
        cmd,
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(cwd), **(env or {})},  # the copy's packages
    )
    wall = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    return wall, before, load(), out.stdout + out.stderr


def row(what: str, cache: str, wall: float, before: str, after: str, result: str = "") -> None:
    cores = os.cpu_count()
    print(f"| {what} | {cores} cores, load {before} → {after}, {cache} | {wall / 60:.1f} min "
          f"({wall:.0f} s) | {result} |", flush=True)  # fmt: skip


def readme_snippets() -> list[str]:
    """The README's python blocks, in order."""
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def measure_train(repeats: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        copy = fresh_copy(Path(tmp) / "clone")
        for i in range(repeats):
            cmd = [sys.executable, "train.py", "--no-progress", "--name", f"claims{i}"]
            wall, before, after, out = timed(cmd, copy)
            rates = [m.group(1) + "%" for m in map(FINAL_ROW.match, out.splitlines()) if m]
            result = "beat greedy in {}, heuristic in {}".format(*rates[:2])
            row("`python train.py`", "cold cache" if i == 0 else "cached", wall, before, after,
                result)  # fmt: skip


def measure_snippets() -> None:
    for i, code in enumerate(readme_snippets()):
        with tempfile.TemporaryDirectory() as tmp:
            copy = fresh_copy(Path(tmp) / "clone")
            first = code.strip().splitlines()[0][:40]
            for cache in ("cold cache", "cached"):
                wall, before, after, _ = timed([sys.executable, "-c", code], copy)
                row(f"README snippet {i + 1} (`{first}`)", cache, wall, before, after)


def measure_notebooks() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        copy = fresh_copy(Path(tmp) / "clone")
        for nb in sorted((copy / "notebooks").glob("*.ipynb")):
            code = (
                "import nbformat, nbclient, sys\n"
                f"nb = nbformat.read({str(nb)!r}, as_version=4)\n"
                f"nbclient.NotebookClient(nb, timeout=3600, resources={{'metadata': "
                f"{{'path': {str(nb.parent)!r}}}}}).execute()\n"
            )
            wall, before, after, _ = timed([sys.executable, "-c", code], copy)
            row(f"notebook {nb.name} (full size)", "fresh copy, one after another", wall, before,
                after)  # fmt: skip


def measure_tests() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        copy = fresh_copy(Path(tmp) / "clone")
        cmd = [sys.executable, "-m", "pytest", "-q", "-n", "2"]
        wall, before, after, out = timed(cmd, copy)
        summary = [line for line in out.splitlines() if " passed" in line][-1:]
        row("`python -m pytest -q -n 2`", "cold cache", wall, before, after, " ".join(summary))


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument(
        "--what", nargs="+", default=["train", "snippets"],
        choices=("train", "snippets", "notebooks", "tests"), help="what to measure",
    )  # fmt: skip
    p.add_argument(
        "--repeats", type=int, default=1,
        help="runs of train.py in one copy (the first cold, then cached): the spread",
    )  # fmt: skip
    args = p.parse_args()
    if args.repeats < 1:
        raise SystemExit(f"--repeats must be >= 1, got {args.repeats}")
    print(f"measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {sys.executable}")
    print("| what | conditions | wall time | result |")
    print("|---|---|---|---|")
    parts = {"train": lambda: measure_train(args.repeats), "snippets": measure_snippets,
             "notebooks": measure_notebooks, "tests": measure_tests}  # fmt: skip
    for name in args.what:
        parts[name]()


if __name__ == "__main__":
    main()
