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


def _opened(browser, server, **context_options):
    """The page in a fresh browser context; fails the test on any script error."""
    context = browser.new_context(**context_options)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(server)
    yield pg
    context.close()
    assert not errors, errors


@pytest.fixture
def page(browser, server):
    yield from _opened(browser, server, viewport={"width": 1366, "height": 768})


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


def _open_setup(page) -> None:
    """Unfolds the view's New-game form (folded while a game goes on)."""
    if not page.is_visible(".setup.active .spec >> nth=0"):
        page.click(".setup.active summary")


def play_by_clicking(page, seed: int, hint_at: int | None = None) -> None:
    """Start a game against greedy and play it to the end, one click at a time; ask for a
    hint on the person's turn number ``hint_at``."""
    page.click('.tab[data-view="play"]')
    _open_setup(page)
    page.fill("#play-seed", str(seed))
    page.click("#play-new")
    play_on(page, hint_at)


def play_on(page, hint_at: int | None = None) -> None:
    """Plays the game in progress to its end by clicking."""
    turn = 0
    while _phase(page, "human", "over") == "human":
        if turn == hint_at:
            _click_and_wait(page, "#hint")
        turn += 1
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
    _open_setup(page)
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
    page.fill("#watch-speed", "10")
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
    assert "CPU " in page.inner_text("#status") and " of 2 s" in page.inner_text("#status")
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
    page.fill("#watch-speed", "10")
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
    page.fill("#watch-speed", "10")
    page.click("#retry")
    _phase(page, "over")
    assert not page.is_visible("#retry")


# --- phones, first-time players, analysis -------------------------------------------------
@pytest.fixture
def phone(browser, server):
    """The page at a phone's size (390 x 844), touch enabled."""
    yield from _opened(browser, server, viewport={"width": 390, "height": 844}, has_touch=True)


def _fits_the_width(page, *selectors: str) -> None:
    """Nothing sticks out sideways, and each element lies inside the window's width."""
    width = page.evaluate("window.innerWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for sel in selectors:
        box = page.locator(sel).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, (sel, box)


def test_a_whole_game_on_a_phone_with_a_hint(phone):
    page = phone
    assert "pick a tile" in page.inner_text("#welcome").lower() or "tap a tile" in page.inner_text(
        "#welcome"
    )
    _fits_the_width(page, "#play-new", ".setup.active .spec >> nth=0")
    page.click('.tab[data-view="play"]')
    page.fill("#play-seed", str(SEED))
    page.click("#play-new")
    _phase(page, "human")
    # The table fills the width; the hand, the buttons and Fit are all on screen.
    board = page.locator("#board").bounding_box()
    assert board["width"] >= 370 and board["height"] >= 250, board
    _fits_the_width(page, "#zoom-fit", "#hand", "#exchange", "#end", "#hint", "#scores")
    assert "Pick a tile with a green border" in page.inner_text("#help")
    # the hand is marked the same way every turn: each tile placeable or faded
    tiles = page.locator("#hand .tile")
    marked = page.locator("#hand .tile.placeable, #hand .tile.unplaceable")
    assert tiles.count() == marked.count() == 6
    play_on(page, hint_at=1)
    page_scores = _scores(page)
    record = json.loads(page.evaluate("window.showdownRecord"))
    assert Game.from_record(record).scores == page_scores
    assert _engine_replay(record, SEED, [None, "greedy"]) == page_scores
    assert len(record["hints"]) == 1  # the game notes the hint, by move number
    _fits_the_width(page, "#save-record", "#analyse", "#log")


def test_a_hint_shows_the_learned_agent_s_move_and_rings_its_cells(page):
    page.fill("#play-seed", "5")
    page.click("#play-new")
    _phase(page, "human")
    _click_and_wait(page, "#hint")
    text = page.inner_text("#hint-text")
    assert text.startswith("Hint (learned): places") and "points" in text
    state = page.evaluate("window.showdownState")
    assert state["hint"]["cells"] and state["hints"] == [len(state["log"])]
    # the hinted move is legal: its first tile may go on its first cell
    tile = state["hint"]["place"][0][2]
    page.click(f'#hand .tile[data-tile="{tile}"]')
    page.wait_for_selector("#board .target")
    r, c = state["hint"]["cells"][0]
    assert page.locator(f'#board .target[data-row="{r}"][data-col="{c}"]').count() == 1


def _analyse(page) -> dict:
    page.click("#analyse")
    page.wait_for_function("() => document.body.dataset.analysis === 'done'", timeout=60_000)
    return page.evaluate("Analysis.result")


def test_an_analysis_shows_chart_mistakes_and_positions(page):
    page.click('.tab[data-view="watch"]')
    page.fill("#watch-seed", "8")
    page.fill("#watch-speed", "10")
    page.click("#watch-new")
    _phase(page, "over")
    final = page.inner_html("#board")
    result = _analyse(page)
    assert result["analyser"] == "learned" and result["complete"]
    assert len(result["moves"]) == page.locator("#log li").count()
    # the chart: one line per player, a dot per listed mistake
    assert page.locator("#chart polyline").count() == 2
    mistakes = sum(len(p["mistakes"]) for p in result["players"])
    assert page.locator("#chart circle.mistake").count() == mistakes > 0
    assert page.locator("#mistakes li[data-move]").count() == mistakes
    # a mistake clicked: its position, the played move and the analyser's best
    k = result["players"][0]["mistakes"][0]
    _click_and_wait(page, f'#mistakes li[data-move="{k}"]')
    assert page.evaluate("document.body.dataset.position") == f"{k}:played"
    played = page.inner_html("#board")
    assert played != final and page.is_visible("#back-to-game")
    assert f"Move {k}:" in page.inner_text("#position-title")
    assert page.locator("#alternatives li").count() == 1 + len(result["moves"][k]["best"])
    _click_and_wait(page, "#alternatives li >> nth=1")  # the best move instead
    assert page.evaluate("document.body.dataset.position") == f"{k}:0"
    assert page.inner_html("#board") != played
    page.click("#back-to-game")
    page.wait_for_function("(b) => document.querySelector('#board').innerHTML === b", arg=final)


def test_watch_shows_pause_and_a_speed_that_goes_faster_to_the_right(page):
    page.click('.tab[data-view="watch"]')
    page.fill("#watch-speed", "0")
    assert page.inner_text("#watch-delay") == "2.0 s between moves"
    page.fill("#watch-speed", "10")
    assert page.inner_text("#watch-delay") == "no pause"
    page.fill("#watch-seed", "3")
    page.click("#watch-new")
    page.wait_for_function("() => window.showdownState && window.showdownState.log.length > 2")
    page.click("#watch-pause")
    assert _phase(page, "paused") == "paused"
    assert page.inner_text("#status").startswith("Paused:")
    assert page.inner_text("#watch-pause") == "Play" and page.is_enabled("#watch-step")
    moves = len(page.evaluate("window.showdownState.log"))
    time.sleep(0.6)
    assert len(page.evaluate("window.showdownState.log")) == moves  # paused means paused
    page.click("#watch-step")
    page.wait_for_function("(n) => window.showdownState.log.length === n + 1", arg=moves)
    _phase(page, "paused")


def test_replay_names_its_file_and_a_failed_load_clears_the_old_game(page, tmp_path):
    from showdown.tables import Table

    table = Table(["greedy", "heuristic"], seed=9)
    table.run_agents()
    table.wait(60)
    good = tmp_path / "a-fine-game.json"
    good.write_text(json.dumps(table.env.game.record()))
    bad = tmp_path / "broken.json"
    bad.write_text('{"format": "qwirkle-env/game-record", "num_players": 7}')
    page.click('.tab[data-view="replay"]')
    assert page.inner_text("#replay-name") == "no game loaded"
    page.set_input_files("#replay-file", str(good))
    _phase(page, "replay")
    assert page.inner_text("#replay-name") == "a-fine-game.json"
    assert page.locator("#scores tr").count() == 3 and page.inner_html("#board")
    page.set_input_files("#replay-file", str(bad))
    page.wait_for_selector("#message.error")
    assert "num_players" in page.inner_text("#message")
    assert page.inner_html("#board") == "" and page.inner_html("#scores") == ""
    assert page.inner_text("#replay-name") == "no game loaded"
    assert page.evaluate("sessionStorage.getItem('showdown.replay')") is None


def test_long_names_and_errors_wrap_inside_the_panel(page, tmp_path):
    from showdown.tables import Table

    table = Table(["greedy", "random"], seed=4)
    table.run_agents()
    table.wait(60)
    long = "an-agent-with-a-very-long-name-" * 6
    path = tmp_path / "long.json"
    path.write_text(json.dumps({**table.env.game.record(), "names": [long, long]}))
    page.click('.tab[data-view="replay"]')
    page.set_input_files("#replay-file", str(path))
    _phase(page, "replay")
    side = page.locator("#side").bounding_box()
    for sel in ("#scores", "#scores .score >> nth=0", "#replay-name"):
        box = page.locator(sel).bounding_box()
        assert box["x"] + box["width"] <= side["x"] + side["width"] + 1, (sel, box, side)
    page.click('.tab[data-view="play"]')
    page.fill(".setup.active .spec >> nth=0", "x" * 190)
    page.click("#play-new")
    page.wait_for_selector("#message.error")
    box = page.locator("#message").bounding_box()
    assert box["x"] + box["width"] <= side["x"] + side["width"] + 1
