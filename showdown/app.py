"""The showdown web app: JSON endpoints over tables and replays, and the static page.

Games and replays live in memory, keyed by a random id that the page keeps per tab
(``sessionStorage``), so several tabs each keep their own game. Every refusal is an HTTP
4xx whose JSON ``error`` is the reason, most often the engine's own message.

Only the page itself may call the API (``showdown.guard``): the Host header must name this server,
state-changing requests must be JSON from the server's own origin, and the page runs under a
Content-Security-Policy that allows only its own scripts. Every input is bounded by size.

    python train.py serve --port 8000     # then open http://127.0.0.1:8000
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.analysis import ANALYSERS
from agents.registry import AGENTS, agent_names, parse_spec, shipped_names

from . import replay
from .analyses import Analysis
from .guard import (
    LOOPBACK,
    Guard,
    host_name,
    is_loopback,
    parse_json_async,
    read_json,
    refuse_code,
    shown,
)
from .tables import HUMAN, Refused, Table, move_text

STATIC = Path(__file__).with_name("static")
MAX_SESSIONS = 64  # games and replays kept; the least recently used goes beyond this ...
MAX_STORED = 96 * 2**20  # ... or beyond this many bytes in all (see Store)
MAX_SPEC = 200  # characters in an agent spec typed in the page
PLAYING_KEPT = 30 * 60  # seconds: a game in progress used this recently is never dropped


class Busy(Refused):
    """Every slot holds a game or replay that someone is using: a new one must wait."""

    def __init__(self, message: str) -> None:
        super().__init__(message, 503)


class Store:
    """Games, replays and analyses by id, bounded by count and by size: the least recently
    used go first, but never one in use: a game in progress used in the last
    ``PLAYING_KEPT`` seconds, or an analysis still running. When only such items are left,
    a new one is refused (503) instead.

    Every ``get`` counts as a use. A table counts as ``Table.SIZE`` bytes, a replay or an
    analysis as its frames' bytes; an item dropped (or the store closed) has its agents or
    its analysis cancelled, so its thread stops.
    """

    def __init__(
        self,
        max_items: int = MAX_SESSIONS,
        max_bytes: int = MAX_STORED,
        clock=time.monotonic,
    ) -> None:
        self.max_items, self.max_bytes = max_items, max_bytes
        self.clock = clock
        self._items: OrderedDict[str, list] = OrderedDict()  # key -> [item, size, used]
        self._running: set[Table] = set()  # tables being replayed, not yet stored
        self._lock = threading.Lock()
        self.total = 0

    def __len__(self) -> int:
        return len(self._items)

    def in_use(self, item: Any, used: float, now: float) -> bool:
        """Whether someone is at ``item``: a game in progress used within
        ``PLAYING_KEPT``, or a running analysis."""
        if isinstance(item, Analysis):
            return item.result is None and item.error is None
        return isinstance(item, Table) and not item.over and now - used < PLAYING_KEPT

    def add(self, item: Any, size: int) -> str:
        """Stores ``item``; Busy (503) if room could only be made by dropping one in use."""
        key = secrets.token_hex(8)
        dropped = []
        with self._lock:
            now = self.clock()
            # least recently used first (the order of the dict is the order of last use)
            idle = [k for k, (it, _, used) in self._items.items() if not self.in_use(it, used, now)]
            count, total = len(self._items) + 1, self.total + size
            while idle and (count > self.max_items or (total > self.max_bytes and count > 1)):
                old, old_size, _ = self._items.pop(idle.pop(0))
                count, total = count - 1, total - old_size
                dropped.append(old)
            self.total = total - size
            if count > self.max_items or (total > self.max_bytes and count > 1):
                refused = (
                    f"the server is busy: its {len(self._items)} games are all in progress "
                    f"(a game is kept {PLAYING_KEPT // 60} minutes after its last use) or "
                    "being analysed; try again later"
                )
            else:
                refused = None
                self._items[key] = [item, size, now]
                self.total = total
        for old in dropped:
            _close(old)
        if refused:
            _close(item)
            raise Busy(refused)
        return key

    def get(self, key: str, kind: type) -> Any:
        with self._lock:
            entry = self._items.get(key)
            item = entry[0] if entry else None
            if isinstance(item, kind):
                entry[2] = self.clock()
                self._items.move_to_end(key)
        if not isinstance(item, kind):
            what = {Table: "game", Analysis: "analysis"}.get(kind, "replay")
            raise Refused(
                f"unknown {what} id {shown(key)}: it may have ended with a server restart, or "
                f"been dropped after {PLAYING_KEPT // 60} minutes unused",
                404,
            )
        return item

    def running(self, table: Table, on: bool) -> None:
        """Tracks a table played outside the store (a harness replay), to close it too."""
        with self._lock:
            (self._running.add if on else self._running.discard)(table)

    def close(self) -> None:
        """Stops every agent and analysis (server shutdown)."""
        with self._lock:
            items = [e[0] for e in self._items.values()] + list(self._running)
        for item in items:
            _close(item)


def _close(item: Any) -> None:
    """Cancels a table's agents or an analysis; a replay holds nothing to stop."""
    if isinstance(item, Table | Analysis):
        item.close()


def offered_agents(ckpts: list[str]) -> list[str]:
    """The specs the page lists: the scripted agents, the shipped checkpoints by name
    (``learned`` first) and the checkpoints given to the server; people may type others
    (any spec but ckpt:)."""
    specs = ["greedy", "random", "heuristic", "search:budget=0.5", *shipped_names()]
    if "learned" in specs:  # the learned search plays the shipped network's moves
        specs.insert(specs.index("learned") + 1, "learned-search:budget=0.5")
    specs += [f"ckpt:{p}" for p in dict.fromkeys(ckpts)]
    extra = [n for n in agent_names() if n not in {s.split(":")[0] for s in specs}]
    return specs + [n for n in extra if not _sees_everything(n)]


def _sees_everything(name: str) -> bool:
    """The oracle sees every hand: a measuring instrument, never an opponent."""
    return getattr(AGENTS.get(name), "sees_everything", False)


def _int_field(data: dict, key: str, default: Any = None, low: int = 0, high: int = 2**31) -> Any:
    value = data.get(key, default)
    if value is default:
        return value
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise Refused(f"{key!r} must be an integer in {low}..{high}, got {shown(value)}")
    return value


def _int_param(text: str, what: str) -> int:
    """A whole number from a path or query; Refused says what it must be."""
    if not (text.isdigit() and len(text) <= 6):
        raise Refused(f"{what!r} must be a whole number of at most 6 digits, got {shown(text)}")
    return int(text)


def create_app(
    ckpts: list[str] | None = None, hosts: list[str] | tuple[str, ...] = LOOPBACK
) -> Starlette:
    """The app; ``ckpts`` are checkpoint paths offered besides the shipped ones, ``hosts``
    the names its Host header may carry (loopback names are always allowed)."""
    offered = offered_agents(list(ckpts or []))
    allowed_ckpts = {replay.ckpt_key(s) for s in offered if s.startswith("ckpt:")}
    store = Store()

    def check_spec(spec: Any) -> str:
        if not isinstance(spec, str) or not spec.strip() or len(spec) > MAX_SPEC:
            raise Refused(
                f"an agent spec is a non-empty string of at most {MAX_SPEC} characters, "
                f"got {shown(spec)}"
            )
        spec = spec.strip()
        refuse_code(spec)
        if spec.lower().startswith("ckpt:"):
            if replay.ckpt_key(spec) not in allowed_ckpts:
                raise Refused(
                    f"unknown checkpoint {shown(spec)}: the server offers only the shipped "
                    "checkpoints and those given to it (python train.py serve --ckpt PATH)"
                )
            return spec
        try:
            name, _ = parse_spec(spec)  # the registry's own limits, before any agent is built
        except ValueError as err:
            raise Refused(str(err)) from None
        if _sees_everything(name):
            raise Refused(
                f"{shown(name)} sees every hand and the bag: it measures, it never plays here"
            )
        return spec

    async def index(request: Request) -> RedirectResponse:
        return RedirectResponse("/static/index.html")

    async def agents(request: Request) -> JSONResponse:
        return JSONResponse({"agents": offered, "analysers": list(ANALYSERS)})

    async def new_game(request: Request) -> JSONResponse:
        data = await read_json(request)
        mode = data.get("mode", "play")
        opponents = data.get("agents")
        if mode not in ("play", "watch"):
            raise Refused(f"'mode' must be 'play' or 'watch', got {shown(mode)}")
        low = 1 if mode == "play" else 2
        if not isinstance(opponents, list) or not low <= len(opponents) <= 4 - (mode == "play"):
            raise Refused(
                f"'agents' must list {low} to {4 - (mode == 'play')} agent specs for {mode}, "
                f"got {shown(opponents)}"
            )
        specs = [check_spec(s) for s in opponents]
        seed = _int_field(data, "seed")
        if mode == "play":
            seat = _int_field(data, "seat", 0, 0, len(specs))
            specs.insert(seat, HUMAN)
        table = await _threaded(lambda: Table(specs, seed))
        key = store.add(table, Table.SIZE)
        if mode == "play":
            table.run_agents()
        return JSONResponse({"id": key, "mode": mode, **table.state(all_hands=mode == "watch")})

    async def game_state(request: Request) -> JSONResponse:
        table = store.get(request.path_params["key"], Table)
        tile = request.query_params.get("tile")
        if tile is not None:
            try:
                tile = int(tile)
            except ValueError:
                raise Refused(f"'tile' must be a tile type number, got {shown(tile)}") from None
        watch = HUMAN not in table.seats
        return JSONResponse(table.state(tile, all_hands=watch))

    async def act(request: Request) -> JSONResponse:
        table = store.get(request.path_params["key"], Table)
        data = await read_json(request)
        kind = data.get("action")
        if kind not in ("place", "exchange", "end", "undo"):
            raise Refused(f"'action' must be place, exchange, end or undo, got {shown(kind)}")
        table.act(kind, data.get("tile"), data.get("cell"))
        return JSONResponse(table.state())

    async def advance(request: Request) -> JSONResponse:
        """Watch mode: the next agent turn (the page's step button and timer)."""
        table = store.get(request.path_params["key"], Table)
        if HUMAN in table.seats:
            raise Refused("agents move by themselves in a game with a person", 409)
        if table.over:
            raise Refused("the game is over", 409)
        table.retry(turns=1)
        return JSONResponse(table.state(all_hands=True))

    async def retry(request: Request) -> JSONResponse:
        """After an agent failed: clear the error and let the agents move again."""
        table = store.get(request.path_params["key"], Table)
        if table.error is None:
            raise Refused("no agent has failed in this game: nothing to retry", 409)
        watch = HUMAN not in table.seats
        table.retry(turns=1 if watch else None)
        return JSONResponse(table.state(all_hands=watch))

    async def open_replay(request: Request) -> JSONResponse:
        data = await read_json(request)
        content = data.get("content")
        if isinstance(content, str):
            content = await parse_json_async(content, "the file is not JSON")
        warning, names = None, data.get("names")
        if replay.is_harness(content):
            harness = replay.check_harness(content)
            choice = data.get("game")
            if choice is None:
                return JSONResponse({"choose": replay.harness_games(harness)})
            index = _int_field(data, "game", None, 0, len(harness["games"]) - 1)
            store_run = store.running
            record, warning, names = await _threaded(
                lambda: replay.replay_harness_game(harness, index, allowed_ckpts, store_run)
            )
        else:
            record = replay.record_of(content)
            if names is None and isinstance(content, dict):
                names = content.get("names")  # the page saves them with its records
            names = replay.check_names(names, record["num_players"])
        frames, game = await _threaded(lambda: replay.frames(record))
        log = [
            {"seat": seat, "text": move_text(move), "points": points}
            for seat, move, points in game.history
        ]
        size = sum(len(f) for f in frames) + 200 * len(frames)
        key = store.add({"frames": frames, "record": record, "names": names, "analyses": {}}, size)
        return JSONResponse(
            {
                "id": key,
                "count": len(frames),
                "num_players": game.num_players,
                "final_scores": list(game.scores),
                "names": names,
                "log": log,
                "warning": warning,
            }
        )

    async def replay_frame(request: Request) -> JSONResponse:
        item = store.get(request.path_params["key"], dict)
        frames = item["frames"]
        try:
            k = int(request.path_params["k"])
        except ValueError:
            k = -1
        if not 0 <= k < len(frames):
            raise Refused(f"frame {shown(request.path_params['k'])} is not in 0..{len(frames) - 1}")
        return JSONResponse({"index": k, "count": len(frames), **replay.render_frame(frames[k])})

    async def hint(request: Request) -> JSONResponse:
        """The analysing agent's best move for the person to move; the game notes it."""
        table = store.get(request.path_params["key"], Table)
        await _threaded(table.hint)
        return JSONResponse(table.state())

    async def new_analysis(request: Request) -> JSONResponse:
        """Starts (or finds) the analysis of a finished game or a replay."""
        data = await read_json(request)
        analyser = data.get("analyser", ANALYSERS[0])
        if not isinstance(analyser, str) or analyser not in ANALYSERS:
            raise Refused(
                f"'analyser' must be one of {', '.join(ANALYSERS)}, got {shown(analyser)}"
            )
        if isinstance(data.get("game"), str):
            table = store.get(data["game"], Table)
            if not table.over:
                raise Refused("the game is not over: analyse it once it has ended", 409)
            with table.lock:
                record = table.env.game.record()
            names = [s["name"] for s in table.state()["seats"]]
            known = table.analyses
        elif isinstance(data.get("replay"), str):
            item = store.get(data["replay"], dict)
            record, names, known = item["record"], item["names"], item["analyses"]
        else:
            raise Refused("say what to analyse: {'game': id} or {'replay': id}")
        key = known.get(analyser)
        if key is not None:
            try:
                return JSONResponse({"id": key, **store.get(key, Analysis).state()})
            except Refused:
                pass  # dropped since: analyse again
        job = await _threaded(lambda: Analysis(record, analyser, names))
        job.start()  # 503 if the server runs its most already
        key = store.add(job, job.size)  # 503 if every slot is in use: the job is closed
        known[analyser] = key
        return JSONResponse({"id": key, **job.state()})

    async def analysis_state(request: Request) -> JSONResponse:
        return JSONResponse(store.get(request.path_params["key"], Analysis).state())

    async def analysis_position(request: Request) -> JSONResponse:
        job = store.get(request.path_params["key"], Analysis)
        k = _int_param(request.path_params["k"], "move")
        alt = request.query_params.get("alt")
        alt = None if alt is None else _int_param(alt, "alt")
        return JSONResponse(await _threaded(lambda: job.position(k, alt)))

    async def refused(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=exc.status)

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)

    routes = [
        Route("/", index),
        Route("/api/agents", agents),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{key}", game_state),
        Route("/api/games/{key}/act", act, methods=["POST"]),
        Route("/api/games/{key}/advance", advance, methods=["POST"]),
        Route("/api/games/{key}/retry", retry, methods=["POST"]),
        Route("/api/games/{key}/hint", hint, methods=["POST"]),
        Route("/api/replays", open_replay, methods=["POST"]),
        Route("/api/analyses", new_analysis, methods=["POST"]),
        Route("/api/analyses/{key}", analysis_state),
        Route("/api/analyses/{key}/positions/{k}", analysis_position),
        Route("/api/replays/{key}/frames/{k}", replay_frame),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    handlers = {Refused: refused, HTTPException: http_error}
    app = Starlette(routes=routes, exception_handlers=handlers)
    app.state.store = store
    names = {host_name(h) for h in (*LOOPBACK, *hosts)}
    app.add_middleware(Guard, hosts=names)
    return app


async def _threaded(fn):
    """Runs blocking engine work (building agents, replaying) off the event loop."""
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(fn)


def few_arenas(arenas: int = 2) -> bool:
    """Caps glibc's malloc arenas: by default each thread that allocates (agent workers,
    analyses, the thread pool) may get its own, and memory freed in one is not reused by
    the others, so a long-running server's RSS creeps up. False where there is no glibc."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        return bool(libc and libc.mallopt(-8, arenas))  # M_ARENA_MAX
    except (OSError, AttributeError):
        return False


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    ckpts: list[str] | None = None,
    public: bool = False,
    allow_hosts: list[str] | None = None,
) -> None:
    """Runs the page. A non-loopback ``host`` needs ``public`` (it lets anyone who can
    reach the address play and start agents; there is no login); ``allow_hosts`` adds the
    names people use to reach it. The first SIGINT or SIGTERM cancels every agent and stops
    the server within about 3 s."""
    import uvicorn

    if not is_loopback(host):
        if not public:
            raise SystemExit(
                f"refusing to listen on {host}: that exposes the page (no login) to every "
                "machine that can reach this address; add --public to do so anyway"
            )
        print(
            f"WARNING: listening on {host}, not loopback: anyone who can reach it can play, "
            "start agents (CPU) and open files they send. There is no login."
        )
    hosts = [host, *(allow_hosts or [])]
    few_arenas()
    app = create_app(ckpts, hosts)

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:
            app.state.store.close()
            super().handle_exit(sig, frame)

    shown_host = f"[{host}]" if ":" in host else host
    print(f"showdown: open http://{shown_host}:{port} in a browser (Ctrl-C stops the server)")
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=2
    )
    Server(config).run()
