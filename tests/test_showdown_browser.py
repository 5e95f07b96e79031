"""The showdown page in a real headless Chromium (Debian's, driven by Playwright).

Set QWIRKLE_BROWSER_REQUIRED=1 (``.ci/run`` does) to fail instead of skipping when the
browser or the [web] extra is missing.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import threading
import time

import pytest

REQUIRED = os.environ.get("QWIRKLE_BROWSER_REQUIRED") == "1"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def _need(module: str):
    if REQUIRED:
        return __import__(module)
    return pytest.importorskip(module)


_need("starlette")
_need("uvicorn")
_need("playwright")
if not os.path.exists(CHROMIUM) and not REQUIRED:
    pytest.skip("no chromium (apt-get install chromium)", allow_module_level=True)

import uvicorn  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from agents.registry import make_agent  # noqa: E402
from qwirkle_env import raw_env  # noqa: E402
from qwirkle_env.engine.game import Game  # noqa: E402
from qwirkle_env.engine.moves import move_from_json  # noqa: E402
from showdown.app import create_app  # noqa: E402

SEED = 21


@pytest.fixture(scope="module")
def server():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    config = uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(100):
        if srv.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(5)


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(server)
    yield pg
    context.close()
    assert not errors, errors


def _phase(page, *phases: str, timeout: float = 120_000) -> str:
    wanted = json.dumps(list(phases))
    try:
        page.wait_for_function(f"{wanted}.includes(document.body.dataset.phase)", timeout=timeout)
    except Exception:
        seen = page.evaluate("[document.body.dataset.phase, document.body.innerText]")
        raise AssertionError(f"waited for {phases}, the page shows {seen}") from None
    return page.evaluate("document.body.dataset.phase")


def _scores(page) -> list[int]:
    return [int(s) for s in page.locator("#scores tr[data-seat] .score").all_inner_texts()]


def _click_and_wait(page, selector: str) -> None:
    """Clicks, then waits until the page has drawn the server's answer."""
    before = page.evaluate("window.showdownDraws")
    page.click(selector)
    page.wait_for_function(f"window.showdownDraws > {before}")


def play_by_clicking(page, seed: int) -> None:
    """Start a game against greedy and play it to the end, one click at a time."""
    page.click('.tab[data-view="play"]')
    page.fill("#play-seed", str(seed))
    page.click("#play-new")
    while _phase(page, "human", "over") == "human":
        placeable = page.locator("#hand .tile.placeable")
        if placeable.count():
            _click_and_wait(page, "#hand .tile.placeable >> nth=0")
            _click_and_wait(page, "#board .target >> nth=0")
        elif page.is_enabled("#end"):
            _click_and_wait(page, "#end")
        else:
            _click_and_wait(page, "#hand .tile >> nth=0")
            _click_and_wait(page, "#exchange")


def _engine_replay(record: dict, seed: int, specs: list[str | None]) -> list[int]:
    """The same seed through the AEC env: a person's moves (spec None) from the record, each
    agent's own choices at its seat, which must be the moves the record shows."""
    env = raw_env(num_players=len(specs))
    env.reset(seed=seed)
    agents = {}
    for seat, spec in enumerate(specs):
        if spec is not None:
            agents[seat] = make_agent(spec)
            agents[seat].reset(seat, len(specs), random.Random(f"{seed}:{seat}").randrange(2**31))
    for k, data in enumerate(record["moves"]):
        move = move_from_json(data)
        seat = env.agent_name_mapping[env.agent_selection]
        if seat in agents:
            while len(env.game.history) == k:
                env.step(agents[seat].act(env.player_view()))
            assert env.game.history[-1][1] == move, f"move {k} of {specs[seat]} differs"
        else:
            for action in env.codec.move_to_actions(move, env.game.board, env.origin):
                env.step(action)
    assert env.game.over
    return list(env.game.scores)


def test_play_a_whole_game_against_greedy_by_clicking(page):
    play_by_clicking(page, SEED)
    page_scores = _scores(page)
    record = json.loads(page.evaluate("window.showdownRecord"))
    assert Game.from_record(record).scores == page_scores
    assert _engine_replay(record, SEED, [None, "greedy"]) == page_scores
    assert "Game over" in page.inner_text("#status")
    with page.expect_download() as download:
        page.click("#save-record")
    assert json.loads(open(download.value.path()).read()) == record


def test_an_illegal_request_shows_the_reason_and_changes_nothing(page, server):
    page.fill("#play-seed", "3")
    page.click("#play-new")
    _phase(page, "human")
    before = page.inner_html("#board")
    game = page.evaluate("sessionStorage.getItem('showdown.play')")
    # What a stale tab or a hand-made request would send: the server refuses it.
    answer = page.evaluate(
        """async (id) => {
            const r = await fetch(`/api/games/${id}/act`, {method: "POST",
                body: JSON.stringify({action: "end"})});
            return [r.status, (await r.json()).error];
        }""",
        game,
    )
    assert answer[0] == 400 and "illegal action" in answer[1]
    page.click(".setup.active .spec >> nth=0")
    page.fill(".setup.active .spec >> nth=0", "grandmaster")
    page.click("#play-new")
    page.wait_for_selector("#message.error")
    assert "unknown agent 'grandmaster'" in page.inner_text("#message")
    page.reload()
    _phase(page, "human")
    assert page.inner_html("#board") == before  # the tab kept its game


def test_watch_two_agents_to_the_end(page):
    page.click('.tab[data-view="watch"]')
    page.fill("#watch-seed", "8")
    page.fill("#watch-speed", "0")
    page.click("#watch-new")
    _phase(page, "over", timeout=120_000)
    record = json.loads(page.evaluate("window.showdownRecord"))
    assert _scores(page) == _engine_replay(record, 8, ["greedy", "heuristic"])
    assert page.locator("#log li").count() >= 20


def test_replay_a_saved_record_to_its_end(page, tmp_path):
    from showdown.tables import Table

    table = Table(["greedy", "heuristic"], seed=9)
    table.run_agents()
    table.wait(60)
    game = table.env.game
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.record()))
    page.click('.tab[data-view="replay"]')
    page.set_input_files("#replay-file", str(path))
    _phase(page, "replay")
    assert _scores(page) == [0, 0]
    for _ in range(len(game.history)):
        _click_and_wait(page, "#replay-next")
    assert _phase(page, "replay-end") == "replay-end"
    assert _scores(page) == game.scores
    _click_and_wait(page, "#replay-prev")
    seat, _, points = game.history[-1]
    expected = list(game.scores)
    expected[seat] -= points
    assert _scores(page) == expected
    assert page.locator("#hands .seat").count() == 2
