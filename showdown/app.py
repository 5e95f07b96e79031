"""The showdown web app: JSON endpoints over tables and replays, and the static page.

Games and replays live in memory, keyed by a random id that the page keeps per tab
(``sessionStorage``), so several tabs each keep their own game. Every refusal is an HTTP
4xx whose JSON ``error`` is the reason, most often the engine's own message.

    python train.py serve --port 8000     # then open http://127.0.0.1:8000
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agents.registry import agent_names

from . import replay
from .tables import HUMAN, Refused, Table

STATIC = Path(__file__).with_name("static")
MAX_SESSIONS = 64  # the oldest game or replay is dropped beyond this
MAX_UPLOAD = 8 * 2**20
SHIPPED_CKPTS = Path(__file__).resolve().parent.parent / "checkpoints"


class _Store:
    """Games and replays by id; the oldest is dropped when full."""

    def __init__(self) -> None:
        self._items: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, item: Any) -> str:
        key = secrets.token_hex(8)
        with self._lock:
            self._items[key] = item
            while len(self._items) > MAX_SESSIONS:
                self._items.popitem(last=False)
        return key

    def get(self, key: str, kind: type) -> Any:
        with self._lock:
            item = self._items.get(key)
        if not isinstance(item, kind):
            what = "game" if kind is Table else "replay"
            raise Refused(
                f"unknown {what} id {key!r}: it may have ended with a server restart", 404
            )
        return item


def offered_agents(ckpts: list[str]) -> list[str]:
    """The specs the page lists; people may type others (any spec but ckpt:)."""
    shipped = (
        sorted(_short(p) for p in SHIPPED_CKPTS.glob("*.pt")) if SHIPPED_CKPTS.is_dir() else []
    )
    specs = ["greedy", "random", "heuristic", "search:budget=0.5"]
    specs += [f"ckpt:{p}" for p in dict.fromkeys([*shipped, *ckpts])]
    extra = [n for n in agent_names() if n not in {s.split(":")[0] for s in specs}]
    return specs + extra


def _short(path: Path) -> str:
    """A path relative to the working directory where it lies below it (as people type it)."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_UPLOAD:
        raise Refused(f"request too large: at most {MAX_UPLOAD // 2**20} MiB", 413)
    try:
        data = json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise Refused(f"malformed JSON: {err}") from None
    if not isinstance(data, dict):
        raise Refused(f"the request body must be a JSON object, got {type(data).__name__}")
    return data


def _int_field(data: dict, key: str, default: Any = None, low: int = 0, high: int = 2**31) -> Any:
    value = data.get(key, default)
    if value is default:
        return value
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise Refused(f"{key!r} must be an integer in {low}..{high}, got {value!r}")
    return value


def create_app(ckpts: list[str] | None = None) -> Starlette:
    """The app; ``ckpts`` are checkpoint paths offered besides the shipped ones."""
    offered = offered_agents(list(ckpts or []))
    allowed_ckpts = {replay.ckpt_key(s) for s in offered if s.startswith("ckpt:")}
    store = _Store()

    def check_spec(spec: Any) -> str:
        if not isinstance(spec, str) or not spec.strip():
            raise Refused(f"an agent spec is a non-empty string, got {spec!r}")
        spec = spec.strip()
        if spec.lower().startswith("ckpt:") and replay.ckpt_key(spec) not in allowed_ckpts:
            raise Refused(
                f"unknown checkpoint {spec!r}: the server offers only the shipped checkpoints "
                "and those given to it (python train.py serve --ckpt PATH)"
            )
        return spec

    async def index(request: Request) -> RedirectResponse:
        return RedirectResponse("/static/index.html")

    async def agents(request: Request) -> JSONResponse:
        return JSONResponse({"agents": offered})

    async def new_game(request: Request) -> JSONResponse:
        data = await _body(request)
        mode = data.get("mode", "play")
        opponents = data.get("agents")
        if mode not in ("play", "watch"):
            raise Refused(f"'mode' must be 'play' or 'watch', got {mode!r}")
        low = 1 if mode == "play" else 2
        if not isinstance(opponents, list) or not low <= len(opponents) <= 4 - (mode == "play"):
            raise Refused(
                f"'agents' must list {low} to {4 - (mode == 'play')} agent specs for {mode}, "
                f"got {opponents!r}"
            )
        specs = [check_spec(s) for s in opponents]
        seed = _int_field(data, "seed")
        if mode == "play":
            seat = _int_field(data, "seat", 0, 0, len(specs))
            specs.insert(seat, HUMAN)
        table = await _threaded(lambda: Table(specs, seed))
        key = store.add(table)
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
                raise Refused(f"'tile' must be a tile type number, got {tile!r}") from None
        watch = HUMAN not in table.seats
        return JSONResponse(table.state(tile, all_hands=watch))

    async def act(request: Request) -> JSONResponse:
        table = store.get(request.path_params["key"], Table)
        data = await _body(request)
        kind = data.get("action")
        if kind not in ("place", "exchange", "end", "undo"):
            raise Refused(f"'action' must be place, exchange, end or undo, got {kind!r}")
        table.act(kind, data.get("tile"), data.get("cell"))
        return JSONResponse(table.state())

    async def advance(request: Request) -> JSONResponse:
        """Watch mode: the next agent turn (the page's step button and timer)."""
        table = store.get(request.path_params["key"], Table)
        if HUMAN in table.seats:
            raise Refused("agents move by themselves in a game with a person", 409)
        if table.over:
            raise Refused("the game is over", 409)
        table.run_agents(turns=1)
        return JSONResponse(table.state(all_hands=True))

    async def open_replay(request: Request) -> JSONResponse:
        data = await _body(request)
        content = data.get("content")
        if isinstance(content, str):
            try:
                content = json.loads(content)
            except json.JSONDecodeError as err:
                raise Refused(f"the file is not JSON: {err}") from None
        warning = None
        if replay.is_harness(content):
            choice = data.get("game")
            if choice is None:
                try:
                    games = replay.harness_games(content)
                except (KeyError, IndexError, TypeError) as err:
                    raise Refused(f"corrupt harness results: {replay.reason_of(err)}") from None
                return JSONResponse({"choose": games})
            index = _int_field(data, "game", None, 0, len(content["games"]) - 1)
            record, warning = await _threaded(
                lambda: replay.replay_harness_game(content, index, allowed_ckpts)
            )
        else:
            record = replay.record_of(content)
        frames, game = await _threaded(lambda: replay.frames(record))
        key = store.add({"frames": frames, "record": record})
        return JSONResponse(
            {
                "id": key,
                "count": len(frames),
                "num_players": game.num_players,
                "final_scores": list(game.scores),
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
            raise Refused(f"frame {request.path_params['k']!r} is not in 0..{len(frames) - 1}")
        return JSONResponse({"index": k, "count": len(frames), **replay.render_frame(frames[k])})

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
        Route("/api/replays", open_replay, methods=["POST"]),
        Route("/api/replays/{key}/frames/{k}", replay_frame),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    handlers = {Refused: refused, HTTPException: http_error}
    return Starlette(routes=routes, exception_handlers=handlers)


async def _threaded(fn):
    """Runs blocking engine work (building agents, replaying) off the event loop."""
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(fn)


def serve(host: str = "127.0.0.1", port: int = 8000, ckpts: list[str] | None = None) -> None:
    import uvicorn

    print(f"showdown: open http://{host}:{port} in a browser (Ctrl-C stops the server)")
    uvicorn.run(create_app(ckpts), host=host, port=port, log_level="warning")
