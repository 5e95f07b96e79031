"""The showdown server's endpoints: games through the AEC env, replays, and every refusal."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import pytest

from tests.conftest import assert_error, showdown_client

pytest.importorskip("starlette")
pytest.importorskip("httpx2")


from agents.evaluation.harness import run_tournament  # noqa: E402
from agents.options import MAX_MOVE_CPU  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from qwirkle_cli import commands as cli  # noqa: E402
from qwirkle_env.engine.game import Game  # noqa: E402
from qwirkle_env.engine.tiles import Tile  # noqa: E402
from qwirkle_env.render import board_svg  # noqa: E402
from showdown.tables import HUMAN, Table  # noqa: E402

client = showdown_client("module")


def _new(client, agents=("greedy",), mode="play", seed=11, **extra):
    r = client.post(
        "/api/games", json={"mode": mode, "agents": list(agents), "seed": seed, **extra}
    )
    assert r.status_code == 200, r.text
    return r.json()


def _human_state(client, key):
    """Polls until the person is to move (the agent runs in a worker thread)."""
    for _ in range(200):
        state = client.get(f"/api/games/{key}").json()
        if state["human_turn"] or state["over"]:
            return state
        threading.Event().wait(0.02)
    raise AssertionError("the agent never finished its turn")


def _legal_place(client, key, state):
    tile = next(t["id"] for t in state["turn"]["hand"] if t["placeable"])
    svg = client.get(f"/api/games/{key}", params={"tile": tile}).json()["board"]
    row = int(svg.split('class="target" data-row="')[1].split('"')[0])
    col = int(svg.split('class="target" data-row="')[1].split('data-col="')[1].split('"')[0])
    return tile, [row, col]


def test_board_svg_targets_are_clickable_cells():
    svg = board_svg({(0, 0): Tile.parse("red square")}, targets=[(0, 1), (5, 5)])
    assert 'class="target" data-row="0" data-col="1"' in svg
    assert 'data-row="5" data-col="5"' in svg  # the extent grew to show it


def test_play_a_turn_through_the_env(client):
    game = _new(client)
    state = _human_state(client, game["id"])
    assert state["seats"][0] == {"name": "you", "spec": HUMAN, "human": True}
    assert state["hands"][1] is None  # an opponent's hand stays hidden
    tile, cell = _legal_place(client, game["id"], state)
    after = client.post(
        f"/api/games/{game['id']}/act", json={"action": "place", "tile": tile, "cell": cell}
    ).json()
    assert after["turn"]["placed"] == 1
    undone = client.post(f"/api/games/{game['id']}/act", json={"action": "undo"}).json()
    assert undone["turn"]["placed"] == 0 and undone["board"] == state["board"]


def test_engine_errors_come_back_as_4xx_and_leave_the_game_as_it_was(client):
    key = _new(client)["id"]
    state = _human_state(client, key)
    url = f"/api/games/{key}/act"
    r = client.post(url, content=b"{not json", headers={"Content-Type": "application/json"})
    assert_error(r, 400, "malformed JSON")
    assert_error(client.post(url, json=[1, 2]), 400, "JSON object")
    assert_error(client.post(url, json={"action": "fly"}), 400, "'action' must be")
    assert_error(client.post(url, json={"action": "place", "tile": 0, "cell": "a1"}), 400, "'cell'")
    assert_error(
        client.post(url, json={"action": "place", "tile": 99, "cell": [0, 0]}), 400, "tile"
    )
    # A cell far from the table: the env's own reason.
    msg = assert_error(
        client.post(url, json={"action": "place", "tile": 0, "cell": [0, 15]}), 400, "illegal"
    )
    assert "place" in msg
    assert_error(client.post(url, json={"action": "end"}), 400, "illegal action")
    assert_error(client.post(url, json={"action": "undo"}), 400, "nothing to undo")
    assert client.get(f"/api/games/{key}").json()["board"] == state["board"]
    assert client.get(f"/api/games/{key}").json()["version"] == state["version"]


def test_out_of_turn_unknown_ids_and_bad_games(client):
    watch = _new(client, agents=["greedy", "random"], mode="watch")
    r = client.post(f"/api/games/{watch['id']}/act", json={"action": "end"})
    assert_error(r, 409, "not your turn")
    assert_error(client.get("/api/games/nope"), 404, "unknown game id")
    assert_error(client.get("/api/replays/nope/frames/0"), 404, "unknown replay id")
    assert_error(client.post("/api/games/nope/act", json={"action": "end"}), 404, "unknown game")
    r = client.post("/api/games", json={"agents": ["grandmaster"]})
    assert_error(r, 400, "unknown agent 'grandmaster'", "known agents")
    assert_error(
        client.post("/api/games", json={"agents": ["greedy:speed=9"]}), 400, "unknown option"
    )
    r = client.post("/api/games", json={"agents": ["ckpt:/etc/passwd"]})
    assert_error(r, 400, "unknown checkpoint")
    assert_error(client.post("/api/games", json={"agents": []}), 400, "1 to 3")
    assert_error(client.post("/api/games", json={"agents": ["greedy"], "seed": "x"}), 400, "'seed'")
    assert_error(client.post("/api/games", json={"agents": ["greedy"], "mode": "x"}), 400, "'mode'")
    play = _new(client)
    assert_error(client.post(f"/api/games/{play['id']}/advance", json={}), 409, "by themselves")
    assert_error(client.get(f"/api/games/{play['id']}", params={"tile": "x"}), 400, "'tile'")


def test_watch_steps_one_agent_turn_at_a_time(client):
    key = _new(client, agents=["greedy", "random"], mode="watch", seed=4)["id"]
    state = client.post(f"/api/games/{key}/advance", json={}).json()
    for _ in range(200):
        state = client.get(f"/api/games/{key}").json()
        if not state["thinking"]:
            break
        threading.Event().wait(0.02)
    assert len(state["log"]) == 1 and all(h is not None for h in state["hands"])


class _SlowGreedy:
    """Greedy that waits for a signal at its first sub-step: a long search, as the page sees it."""

    def __init__(self) -> None:
        self.inner = make_agent("greedy")
        self.go = threading.Event()

    def reset(self, seat, num_players, seed=None):
        self.inner.reset(seat, num_players, seed)

    def act(self, view):
        if not view.turn_placed and not view.turn_exchange:
            assert self.go.wait(10)
        return self.inner.act(view)


def test_a_slow_agent_shows_progress_and_blocks_no_one():
    slow = _SlowGreedy()
    table = Table(["greedy", "greedy"], seed=2, agents={0: slow, 1: make_agent("greedy")})
    if table.to_move != 0:
        table.run_agents(turns=1)
        table.wait(10)
    table.run_agents(turns=1)
    state = table.state(all_hands=True)  # answers while the agent thinks
    assert state["thinking"]["seat"] == 0 and state["thinking"]["elapsed"] >= 0
    assert state["thinking"]["budget"] is None  # greedy has no budget to show progress in
    slow.go.set()
    table.wait(10)
    assert table.state()["thinking"] is None


def test_a_searcher_s_thinking_carries_its_cpu_budget_and_the_cpu_spent():
    table = Table(["learned-search:budget=0.5", "greedy"], seed=2)
    assert table._think(0)["budget"] == 0.5  # the page draws cpu / budget as a bar
    # a fixed number of simulations may take up to the cap, and the page says so
    assert Table(["search:sims=3", "greedy"], seed=2)._think(0)["budget"] == MAX_MOVE_CPU
    table.close()
    busy = Table(["search:budget=2", "greedy"], seed=2)
    busy.run_agents()
    time.sleep(1.0)
    thinking = busy.state()["thinking"]
    busy.close()
    busy.wait(5)
    # CPU seconds of the worker thread, not wall time: never more than the time passed
    assert 0 < thinking["cpu"] <= thinking["elapsed"] + 0.1 and thinking["budget"] == 2


class _ReadOnRelease:
    """The table's lock, reading the table's state each time a thread other than the test's
    lets go of it: what a poll arriving at that moment would be answered."""

    def __init__(self, table):
        self.inner, self.table, self.seen, self.reading = table.lock, table, [], False

    def __enter__(self):
        self.inner.acquire()
        return self

    def __exit__(self, *exc):
        self.inner.release()
        if threading.current_thread() is not threading.main_thread() and not self.reading:
            self.reading = True
            try:
                state = self.table.state()
                self.seen.append((state["human_turn"], state["thinking"]))
            finally:
                self.reading = False


def test_no_state_says_an_agent_thinks_on_a_persons_turn():
    """The page stops polling on a person's turn: a state that also said "thinking" there
    (read between the agent's move and the worker's end) left it waiting for good."""
    seed = next(s for s in range(50) if Table(["greedy", HUMAN], seed=s).to_move == 0)
    table = Table(["greedy", HUMAN], seed=seed)
    spy = table.lock = _ReadOnRelease(table)
    assert table.run_agents()
    table.wait(10)
    assert spy.seen and spy.seen[-1][0] is True  # the person's turn was read
    assert [seen for seen in spy.seen if seen[0] and seen[1] is not None] == []


def test_each_tab_keeps_its_own_game(client):
    a, b = _new(client, seed=1), _new(client, seed=1)
    assert a["id"] != b["id"]
    sa = _human_state(client, a["id"])
    tile, cell = _legal_place(client, a["id"], sa)
    client.post(f"/api/games/{a['id']}/act", json={"action": "place", "tile": tile, "cell": cell})
    assert _human_state(client, b["id"])["turn"]["placed"] == 0


def _finished_game(seed=5) -> Game:
    table = Table(["greedy", "random"], seed=seed)
    table.run_agents()
    table.wait(60)
    return table.env.game


def test_replay_of_a_record_and_of_a_saved_state(client):
    game = _finished_game()
    for content in (game.record(), json.dumps(game.to_dict())):
        answer = client.post("/api/replays", json={"content": content}).json()
        assert answer["count"] == len(game.history) + 1
        assert answer["final_scores"] == game.scores
        last = client.get(f"/api/replays/{answer['id']}/frames/{answer['count'] - 1}").json()
        assert last["scores"] == game.scores and len(last["hands"]) == 2
        first = client.get(f"/api/replays/{answer['id']}/frames/0").json()
        assert first["scores"] == [0, 0] and first["move"] is None
        url = f"/api/replays/{answer['id']}/frames/{answer['count']}"
        assert_error(client.get(url), 400, "not in 0..")


def test_corrupt_records_get_the_engine_reason(client):
    record = _finished_game().record()
    broken = dict(record, moves=record["moves"][:3] + record["moves"][5:])
    assert_error(client.post("/api/replays", json={"content": broken}), 400, "cannot be replayed")
    assert_error(
        client.post("/api/replays", json={"content": {"format": "x"}}), 400, "not a saved game"
    )
    assert_error(client.post("/api/replays", json={"content": "{oops"}), 400, "not JSON")
    assert_error(client.post("/api/replays", json={"content": [1]}), 400, "not a saved game")
    assert_error(client.post("/api/replays", json={"path": "/etc/passwd"}), 400, "not a saved game")
    state = _finished_game().to_dict()
    state["scores"][0] += 1
    assert_error(client.post("/api/replays", json={"content": state}), 400, "do not add up")


def test_harness_games_replay_with_the_harness_seeds(client, tmp_path):
    run_tournament(["greedy", "random"], 2, processes=1, out_dir=tmp_path, progress=False, seed=3)
    results = json.loads((tmp_path / "results.json").read_text())
    choose = client.post("/api/replays", json={"content": results}).json()["choose"]
    assert len(choose) == 2 and "greedy" in choose[0]["label"]
    answer = client.post("/api/replays", json={"content": results, "game": 1}).json()
    assert answer["final_scores"] == results["games"][1]["scores"]
    assert answer["warning"] is None
    assert_error(client.post("/api/replays", json={"content": results, "game": 7}), 400, "'game'")
    results["names"][0] = "ckpt:/tmp/elsewhere.pt"
    assert_error(client.post("/api/replays", json={"content": results, "game": 0}), 400, "offered")


def test_serve_command_and_the_page_files(client):
    args = cli.build_parser().parse_args(["serve", "--port", "8123"])
    assert (args.host, args.port) == ("127.0.0.1", 8123)
    page = client.get("/", follow_redirects=True)
    assert page.status_code == 200 and "app.js" in page.text
    offered = client.get("/api/agents").json()["agents"]
    assert {"learned", "tile-ppo"} <= set(offered)  # the shipped checkpoints, by name
    assert offered[offered.index("learned") + 1] == "learned-search:budget=0.5"
    assert client.get("/static/app.js").status_code == 200


def test_the_core_never_imports_the_web_package():
    code = (
        "import sys, qwirkle_env, qwirkle_env.render, agents.registry, agents.evaluation.harness;"
        "assert not {'showdown', 'starlette', 'uvicorn'} & set(sys.modules), sys.modules.keys()"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_table_refuses_bad_seat_counts():
    with pytest.raises(Exception, match="2 to 4 seats"):
        Table([HUMAN])


# --- hints and analyses ------------------------------------------------------------------
def _analysed(client, body: dict) -> dict:
    """Starts an analysis and polls it to its end."""
    r = client.post("/api/analyses", json=body)
    assert r.status_code == 200, r.text
    answer = r.json()
    for _ in range(600):
        if answer["state"] != "running":
            break
        threading.Event().wait(0.05)
        answer = {"id": answer["id"], **client.get(f"/api/analyses/{answer['id']}").json()}
    assert answer["state"] == "done", answer
    return answer


def test_a_hint_is_the_analysers_move_and_the_record_notes_it(client):
    state = _new(client, seed=21)
    key = state["id"]
    state = _human_state(client, key)
    hinted = client.post(f"/api/games/{key}/hint", json={}).json()
    hint = hinted["hint"]
    assert hint["by"] == "learned" and hint["text"].startswith(("places", "exchanges"))
    assert hinted["hints"] == [len(state["log"])]
    # the hint is a legal move: playing it tile by tile is accepted
    for r, c, t in hint.get("place", []):
        assert client.post(f"/api/games/{key}/act", json={"action": "place", "tile": t,
                           "cell": [r, c]}).status_code == 200  # fmt: skip
    after = client.post(f"/api/games/{key}/act", json={"action": "end"}).json()
    assert after["log"][len(state["log"])]["points"] == hint["points"]
    assert "hint" not in after or after["hint"] is None
    watch = _new(client, ("greedy", "random"), mode="watch")["id"]
    assert_error(client.post(f"/api/games/{watch}/hint", json={}), 409, "your own turn")


def test_a_finished_game_and_a_replay_are_analysed_alike(client):
    watch = _new(client, ("greedy", "random"), mode="watch", seed=4)["id"]
    assert_error(client.post("/api/analyses", json={"game": watch}), 409, "not over")
    state = client.get(f"/api/games/{watch}").json()
    while not state["over"]:
        client.post(f"/api/games/{watch}/advance", json={})
        state = client.get(f"/api/games/{watch}").json()
    done = _analysed(client, {"game": watch})
    analysis = done["analysis"]
    assert len(analysis["moves"]) == len(state["log"]) and analysis["names"] == ["greedy", "random"]
    # asked again: the same analysis, not a second one
    assert client.post("/api/analyses", json={"game": watch}).json()["id"] == done["id"]
    record = json.loads(state["record"])
    replay = client.post("/api/replays", json={"content": record}).json()
    again = _analysed(client, {"replay": replay["id"]})["analysis"]
    assert again["moves"] == analysis["moves"]
    # a position: the played move, or an alternative, on the table
    k = analysis["players"][1]["mistakes"][0]
    url = f"/api/analyses/{done['id']}/positions/{k}"
    played, best = client.get(url).json(), client.get(url, params={"alt": 0}).json()
    assert played["alternative"] is None and best["alternative"] == 0
    assert played["board"] != best["board"] and played["scores"] == analysis["moves"][k]["scores"]
    assert_error(client.get(url, params={"alt": 9}), 400, "'alt' must be in 0..")
    assert_error(client.get(url, params={"alt": "1e9"}), 400, "'alt' must be a whole number")
    assert_error(client.get(f"/api/analyses/{done['id']}/positions/9999"), 400, "not in 0..")


def test_analyses_are_bounded_and_refuse_what_the_page_does_not_offer(client, monkeypatch):
    record = _finished_game().record()
    replay = client.post("/api/replays", json={"content": record}).json()["id"]
    for body, words in [
        ({"replay": replay, "analyser": "search:sims=1000"}, "'analyser' must be one of"),
        ({"replay": replay, "analyser": ["learned"]}, "'analyser' must be one of"),
        ({}, "say what to analyse"),
        ({"replay": "nope"}, "unknown replay"),
    ]:
        r = client.post("/api/analyses", json=body)
        assert_error(r, 404 if "unknown" in words else 400, words)
    from showdown import analyses

    monkeypatch.setattr(analyses, "MAX_ANALYSED_MOVES", 3)
    assert_error(client.post("/api/analyses", json={"replay": replay}), 413, "at most 3")
    monkeypatch.undo()
    # a running analysis is stopped when its slot is dropped (or the server closes)
    job = analyses.Analysis(record, "learned-search:budget=0.1", None)
    job.start()
    threading.Event().wait(0.3)
    job.close()
    job.wait(5)
    assert job.state() == {"state": "failed", "error": "the analysis was stopped"}
    # at most RUNNING at once: another is refused with 503, not queued without end
    jobs = sum(isinstance(e[0], analyses.Analysis) for e in _items(client))
    held = [analyses._SLOTS.acquire(blocking=False) for _ in range(analyses.RUNNING)]
    try:
        assert all(held)
        r = client.post("/api/analyses", json={"replay": replay, "analyser": "learned"})
        assert_error(r, 503, "analyses are running already")
        assert sum(isinstance(e[0], analyses.Analysis) for e in _items(client)) == jobs
    finally:
        for _ in held:
            analyses._SLOTS.release()


def _items(client) -> list:
    return list(client.app.state.store._items.values())
