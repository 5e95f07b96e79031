"""What a request to the showdown server may be: for this server (Host), from its own page
(Origin, a JSON content type), and bounded in size and nesting. Refusals are JSON 4xx.

Against DNS rebinding the Host header must name the server; against cross-site requests a
state-changing request must be JSON (which no form or simple cross-site fetch can send)
from the server's own origin; every answer carries a Content-Security-Policy that allows
only the page's own scripts.
"""

from __future__ import annotations

import ipaddress
import json
import reprlib
import sys
import threading
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from agents.plugin import is_plugin_spec

from .tables import Refused

# A body, checked as it is read: a record needs ~50 KiB, a harness file ~350 bytes a game.
MAX_UPLOAD = 2 * 2**20
# JSON larger than this is parsed off the event loop, one text at a time: parsed, JSON takes
# up to ~30 times its size (2 MiB: ~60 MB for a moment).
BIG_JSON = 64 * 2**10
MAX_DEPTH = 16  # nesting of a request's JSON (a record needs 4)
LOOPBACK = ("127.0.0.1", "localhost", "::1")
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
SAFE_METHODS = ("GET", "HEAD")


def shown(value: Any) -> str:
    """A value as an error message quotes it: short, however large or deep it is."""
    return _REPR.repr(value)


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 80
_REPR.maxlevel = 2


def refuse_code(spec: str) -> None:
    """Refused if an agent spec names code (``file.py:NAME``, ``module:NAME``): the bench
    runs a user's own code on their machine; the page would run a stranger's."""
    if is_plugin_spec(spec):
        raise Refused(
            f"{shown(spec)} names code to run (a plugin): the page plays only the registry's "
            "agents and the checkpoints the server offers"
        )


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str:
    """The name in a Host header (``[::1]:8000`` -> ``::1``), lower case."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


async def read_json(request: Request) -> dict[str, Any]:
    """The JSON object of a request, read with its size bounded as it arrives."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_UPLOAD:
        raise Refused(f"request too large: at most {MAX_UPLOAD // 2**20} MiB", 413)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_UPLOAD:
            raise Refused(f"request too large: at most {MAX_UPLOAD // 2**20} MiB", 413)
        chunks.append(chunk)
    data = await parse_json_async(b"".join(chunks) or b"{}", "malformed JSON")
    if not isinstance(data, dict):
        raise Refused(f"the request body must be a JSON object, got {type(data).__name__}")
    return data


async def parse_json_async(raw: bytes | str, what: str) -> Any:
    """:func:`parse_json`; a large text in a worker thread, one at a time."""
    if len(raw) <= BIG_JSON:
        return parse_json(raw, what)

    def parse():
        with _PARSING:
            return parse_json(raw, what)

    return await run_in_threadpool(parse)


_PARSING = threading.Semaphore(1)


def parse_json(raw: bytes | str, what: str) -> Any:
    """JSON with its nesting bounded; Refused (400) says what is wrong."""
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise Refused(f"{what}: {err}") from None
    except ValueError:  # an integer of more digits than Python converts
        digits = sys.get_int_max_str_digits()
        message = f"{what}: a number has over {digits} digits; no field takes one so long"
        raise Refused(message) from None
    except RecursionError:
        raise Refused(f"{what}: nested more than {MAX_DEPTH} deep") from None
    level, depth = [data], 0
    while level:  # level by level: a list of references, not one tuple per value
        depth += 1
        if depth > MAX_DEPTH:
            raise Refused(f"{what}: nested more than {MAX_DEPTH} deep")
        below: list = []
        for item in level:
            if isinstance(item, dict):
                below.extend(item.values())
            elif isinstance(item, list):
                below.extend(item)
        level = below
    return data


class Guard:
    """ASGI middleware: Host must be one of ``hosts`` (else 403, against DNS rebinding);
    a request that changes state must carry JSON (else 415) and, if it sends an Origin,
    come from this server's own (else 403); every answer carries the CSP."""

    def __init__(self, app, hosts: set[str]) -> None:
        self.app, self.hosts = app, hosts

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if host_name(host) not in self.hosts:
            return await _refuse(send, 403, f"unknown host {shown(host)}: use the page's address")
        if scope["method"] not in SAFE_METHODS:
            origin = headers.get("origin")
            if origin is not None and origin.lower() != f"http://{host.lower()}":
                return await _refuse(send, 403, f"cross-origin request from {shown(origin)}")
            if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
                return await _refuse(send, 403, "cross-site request refused")
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != "application/json":
                return await _refuse(
                    send, 415, f"send JSON (Content-Type: application/json), not {shown(kind)}"
                )

        async def with_headers(message):
            if message["type"] == "http.response.start":
                message["headers"] = [
                    *message.get("headers", []),
                    (b"content-security-policy", CSP.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                ]
            await send(message)

        await self.app(scope, receive, with_headers)


async def _refuse(send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
