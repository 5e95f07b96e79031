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
    try:
        # A function, not an expression: the page's CSP forbids evaluating strings.
        page.wait_for_function(
            "(ps) => ps.includes(document.body.dataset.phase)", arg=list(phases), timeout=timeout
        )
    except Exception:
        seen = page.evaluate("[document.body.dataset.phase, document.body.innerText]")
        probe = page.evaluate(
            """async () => {
                const id = sessionStorage.getItem("showdown.play");
                const ctl = new AbortController();
                setTimeout(() => ctl.abort(), 3000);
                try {
                    const r = await fetch(`/api/games/${id}`, {signal: ctl.signal});
                    const s = await r.json();
                    return [r.status, s.human_turn, s.thinking, s.version];
                } catch (e) { return String(e); }
            }"""
        )
        raise AssertionError(
            f"waited for {phases}; server: {probe}; the page shows {seen}"
        ) from None
    return page.evaluate("document.body.dataset.phase")


def _scores(page) -> list[int]:
    return [int(s) for s in page.locator("#scores tr[data-seat] .score").all_inner_texts()]


def _click_and_wait(page, selector: str) -> None:
    """Clicks, then waits until the page has drawn the server's answer."""
    before = page.evaluate("window.showdownDraws")
    page.click(selector)
    page.wait_for_function("(n) => window.showdownDraws > n", arg=before)


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
                headers: {"Content-Type": "application/json"},
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


def test_a_searcher_s_thinking_shows_as_progress_against_its_budget(page):
    page.click('.tab[data-view="watch"]')
    specs = page.locator('.setup[data-view="watch"] input.spec')
    specs.nth(0).fill("learned-search:budget=2")
    specs.nth(1).fill("greedy")
    page.fill("#watch-seed", "5")
    page.click("#watch-new")
    bar = page.wait_for_selector("progress.think", timeout=30_000)
    assert bar.get_attribute("max") == "2"
    assert 0 <= float(bar.get_attribute("value")) <= 2
    assert "is thinking" in page.inner_text("#status")
    page.click("#watch-pause")


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


PAYLOAD = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'


@pytest.fixture
def watched(browser, server):
    """A page that records script that ran (window.pwned) and CSP violations."""
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    pg = context.new_page()
    pg.add_init_script(
        "window.violations = [];"
        "document.addEventListener('securitypolicyviolation',"
        " (e) => window.violations.push(e.violatedDirective));"
    )
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    response = pg.goto(server)
    assert "script-src 'self'" in response.headers["content-security-policy"]
    yield pg
    context.close()
    assert not errors, errors


def _nothing_ran(page) -> None:
    found = page.evaluate(
        "[window.pwned, window.violations, document.querySelectorAll("
        "'img, #side script, #side b, #replay-choose *:not(option)').length]"
    )
    assert found == [None, [], 0], found


def test_script_payloads_in_a_spec_a_record_and_a_results_file_never_run(watched, tmp_path):
    from agents.evaluation.harness import run_tournament
    from showdown.tables import Table

    page = watched
    # An opponent spec carrying script: refused, its text shown as text.
    page.fill(".setup.active .spec >> nth=0", f"search:k={PAYLOAD}")
    page.click("#play-new")
    page.wait_for_selector("#message.error")
    assert "<img src=x" in page.inner_text("#message")
    _nothing_ran(page)
    # A record whose seat names carry script.
    table = Table(["greedy", "random"], seed=4)
    table.run_agents()
    table.wait(60)
    record = {**table.env.game.record(), "names": [PAYLOAD, "<b>bold</b>"]}
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    page.click('.tab[data-view="replay"]')
    page.set_input_files("#replay-file", str(path))
    _phase(page, "replay")
    _click_and_wait(page, "#replay-last")
    assert PAYLOAD in page.inner_text("#scores") and "<b>bold</b>" in page.inner_text("#log")
    _nothing_ran(page)
    # A harness results file whose names carry script ("spec#note" replays as spec).
    run_tournament(["greedy", "random"], 1, processes=1, out_dir=tmp_path, progress=False)
    results = json.loads((tmp_path / "results.json").read_text())
    results["names"] = [f"greedy#{PAYLOAD}", "random#<b>x</b>"]
    path = tmp_path / "results-names.json"  # a new name: choosing the same file fires nothing
    path.write_text(json.dumps(results))
    page.set_input_files("#replay-file", str(path))
    page.wait_for_selector("#replay-choose:not([hidden])")
    labels = page.locator("#replay-choose option").all_inner_texts()
    assert any(PAYLOAD in label for label in labels), labels
    page.select_option("#replay-choose", "0")
    _phase(page, "replay")
    assert f"greedy#{PAYLOAD}" in page.inner_text("#scores")
    _nothing_ran(page)
    # A deal field carrying script: refused, the reason shown as text.
    results["games"][0]["deal"] = PAYLOAD
    path = tmp_path / "results-deal.json"
    path.write_text(json.dumps(results))
    page.set_input_files("#replay-file", str(path))
    page.wait_for_selector("#message.error")
    assert "deal" in page.inner_text("#message")
    _nothing_ran(page)


def test_picking_a_tile_keeps_the_grid_still_and_counts_clear_with_the_view(page):
    page.fill("#play-seed", "5")
    page.click("#play-new")
    _phase(page, "human")
    for _ in range(4):  # a few turns in, so the table is not the opening's single cell
        while page.locator("#hand .tile.placeable").count():
            _click_and_wait(page, "#hand .tile.placeable >> nth=0")
            _click_and_wait(page, "#board .target >> nth=0")
        _click_and_wait(page, "#end")
        _phase(page, "human")
    box = "document.querySelector('#board svg').getAttribute('viewBox')"
    before = page.evaluate(box)
    _click_and_wait(page, "#hand .tile.placeable >> nth=0")
    assert page.locator("#board .target").count() > 0
    assert page.evaluate(box) == before  # the same cells, drawn at the same place
    assert "tiles on the table" in page.inner_text("#tile-count")
    page.click('.tab[data-view="replay"]')
    assert page.inner_text("#tile-count") == "" and page.inner_html("#board") == ""


def test_a_replay_shows_the_agents_names_and_the_move_log(page):
    page.click('.tab[data-view="watch"]')
    page.fill("#watch-seed", "6")
    page.fill("#watch-speed", "0")
    page.click("#watch-new")
    _phase(page, "over")
    moves = page.locator("#log li").count()
    page.click("#replay-this")
    _phase(page, "replay")
    assert "P0 greedy" in page.inner_text("#scores") and "P1 heuristic" in page.inner_text(
        "#scores"
    )
    assert page.locator("#log li").count() == 0
    for k in range(1, 4):
        _click_and_wait(page, "#replay-next")
        assert page.locator("#log li").count() == k
    assert page.inner_text("#log li >> nth=0").startswith(("P0 greedy", "P1 heuristic"))
    _click_and_wait(page, "#replay-last")
    assert page.locator("#log li").count() == moves


class _FailsOnce:
    """Greedy that fails its first move: an agent error in the middle of a game."""

    OPTIONS: dict = {}
    failed = False

    def __init__(self) -> None:
        self.inner = make_agent("greedy")

    def reset(self, seat, num_players, seed=None):
        self.inner.reset(seat, num_players, seed)

    def act(self, view):
        if not _FailsOnce.failed:
            _FailsOnce.failed = True
            raise RuntimeError("lost its <b>nerve</b>")
        return self.inner.act(view)


def test_an_agent_error_shows_and_a_retry_goes_on(page, monkeypatch):
    from agents.registry import AGENTS

    monkeypatch.setitem(AGENTS, "fails-once", _FailsOnce)
    page.click('.tab[data-view="watch"]')
    page.fill(".setup.active .spec >> nth=0", "fails-once")
    page.fill("#watch-seed", "6")
    page.click("#watch-new")
    assert _phase(page, "stuck") == "stuck"
    assert "lost its <b>nerve</b>" in page.inner_text("#message")
    assert "failed" in page.inner_text("#status") and page.is_visible("#retry")
    page.fill("#watch-speed", "0")
    page.click("#retry")
    _phase(page, "over")
    assert not page.is_visible("#retry")
