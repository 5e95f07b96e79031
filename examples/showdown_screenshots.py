"""Screenshots of the showdown page's three views for docs/showdown.md.

    python examples/showdown_screenshots.py      # needs [web], playwright and chromium

    python examples/showdown_screenshots.py phone   # one size only

Starts the app on a free port, drives Debian's chromium with Playwright and writes
docs/images/showdown_{start,play,watch,replay}_{phone,laptop,desktop}.png: 390x844,
1366x768 and 1920x1080.
"""

from __future__ import annotations

import json
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from showdown.app import create_app  # noqa: E402
from showdown.tables import Table  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "docs" / "images"


def _server() -> tuple[uvicorn.Server, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(create_app(), port=port, log_level="warning"))
    threading.Thread(target=srv.run, daemon=True).start()
    while not srv.started:
        time.sleep(0.05)
    return srv, f"http://127.0.0.1:{port}"


def _phase(page, *phases: str) -> None:
    # Functions, not expressions: the page's CSP forbids evaluating strings.
    page.wait_for_function(
        "(ps) => ps.includes(document.body.dataset.phase)", arg=list(phases), timeout=120_000
    )


def _click(page, selector: str) -> None:
    draws = page.evaluate("window.showdownDraws")
    page.click(selector)
    page.wait_for_function("(n) => window.showdownDraws > n", arg=draws)


SIZES = {"phone": (390, 844), "laptop": (1366, 768), "desktop": (1920, 1080)}


def _record_file(tmp: str) -> Path:
    table = Table(["heuristic", "greedy", "random"], seed=7)
    table.run_agents()
    table.wait()
    path = Path(tmp) / "heuristic-greedy-random.json"
    names = ["heuristic", "greedy", "random"]  # as the page saves its own games
    path.write_text(json.dumps({**table.env.game.record(), "names": names}))
    return path


def shoot(browser, url: str, size: str, record: Path) -> list[Path]:
    """The three views at one window size: a turn with a tile chosen and a hint, a watch
    game paused late, and a replay analysed with a mistake shown on the table."""
    width, height = SIZES[size]
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(url)
    shots = [OUT / f"showdown_{view}_{size}.png" for view in ("start", "play", "watch", "replay")]
    page.screenshot(path=shots[0])
    # Play: a few turns in, a hint asked, a tile chosen, its legal cells marked.
    page.fill(".setup.active .spec >> nth=0", "learned")
    page.fill("#play-seed", "12")
    page.click("#play-new")
    for _ in range(4):
        _phase(page, "human")
        while page.locator("#hand .tile.placeable").count():
            _click(page, "#hand .tile.placeable >> nth=0")
            _click(page, "#board .target >> nth=0")
        _click(page, "#end")
    _phase(page, "human")
    _click(page, "#hint")
    page.click("#hand .tile.placeable >> nth=0")
    page.wait_for_selector("#board .target")
    page.screenshot(path=shots[1])
    # Watch: two agents, paused late in the game on a nearly full table.
    page.click('.tab[data-view="watch"]')
    page.click('.setup[data-view="watch"] summary') if not page.is_visible("#watch-seed") else None
    page.fill("#watch-seed", "3")
    page.fill("#watch-speed", "10")
    page.click("#watch-new")
    page.wait_for_function(
        "() => window.showdownState && window.showdownState.tiles_on_table > 95",
        timeout=120_000,
    )
    page.click("#watch-pause")
    _phase(page, "paused", "over")
    page.screenshot(path=shots[2])
    # Replay: a saved record, analysed, its first player's biggest mistake on the table.
    page.click('.tab[data-view="replay"]')
    page.set_input_files("#replay-file", str(record))
    _phase(page, "replay")
    page.click("#replay-last")
    _phase(page, "replay-end")
    page.click("#analyse")
    page.wait_for_function("() => document.body.dataset.analysis === 'done'", timeout=120_000)
    _click(page, "#mistakes li[data-move] >> nth=0")
    page.screenshot(path=shots[3])
    page.close()
    return shots


def main() -> None:
    srv, url = _server()
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        record = _record_file(tmp)
        for size in sys.argv[1:] or SIZES:
            for shot in shoot(browser, url, size, record):
                print(f"wrote {shot}")
        browser.close()
    srv.should_exit = True


if __name__ == "__main__":
    main()
