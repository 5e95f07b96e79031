"""Screenshots of the showdown page's three views for docs/showdown.md.

    python examples/showdown_screenshots.py      # needs [web], playwright and chromium

Starts the app on a free port, drives Debian's chromium with Playwright and writes
docs/images/showdown_{play,watch,replay}.png.
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


def main() -> None:
    srv, url = _server()
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.goto(url)
        # Play: a few turns in, a tile chosen, its legal cells marked.
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
        page.click("#hand .tile.placeable >> nth=0")
        page.wait_for_selector("#board .target")
        page.screenshot(path=OUT / "showdown_play.png")
        # Watch: two agents, paused late in the game on a nearly full table.
        page.click('.tab[data-view="watch"]')
        page.fill("#watch-seed", "3")
        page.fill("#watch-speed", "0")
        page.click("#watch-new")
        page.wait_for_function(
            "() => window.showdownState && window.showdownState.tiles_on_table > 95",
            timeout=120_000,
        )
        page.click("#watch-pause")
        _phase(page, "waiting", "over")
        page.screenshot(path=OUT / "showdown_watch.png")
        # Replay: a saved record, stepped back a few moves from its end.
        table = Table(["heuristic", "greedy", "random"], seed=7)
        table.run_agents()
        table.wait()
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "game.json"
            names = ["heuristic", "greedy", "random"]  # as the page saves its own games
            path.write_text(json.dumps({**table.env.game.record(), "names": names}))
            page.click('.tab[data-view="replay"]')
            page.set_input_files("#replay-file", str(path))
            _phase(page, "replay")
            page.click("#replay-last")
            _phase(page, "replay-end")
            for _ in range(3):
                _click(page, "#replay-prev")
            page.screenshot(path=OUT / "showdown_replay.png")
        browser.close()
    srv.should_exit = True
    print(f"wrote {OUT}/showdown_{{play,watch,replay}}.png")


if __name__ == "__main__":
    main()
