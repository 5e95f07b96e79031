"""Saved games as a list of frames: the table, every hand and the scores after each move.

Three kinds of file open here, each checked field by field and then read by the engine's
own loader, so that a corrupt file fails with a reason rather than a server error:

* a game record (``Game.record()``, and what the showdown page saves, with seat names);
* a full game state (``Game.to_dict()``): its seed and history are a record;
* the evaluation harness's ``results.json``, which keeps each game's deal seed, seats and
  agent seeds but not its moves: the game is played again with the same agents and seeds
  (the harness's own derivation), and the page says if the scores differ from the saved
  ones (a time-budgeted search need not repeat itself).

A record is bounded by what a game at the table can hold (``MAX_MOVES`` moves, runs of at
most ``MAX_EXCHANGE_RUN`` exchanges), and each frame is kept as compact JSON bytes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.evaluation.harness import agent_seeds, spec_of_name
from qwirkle_env.engine.game import Game
from qwirkle_env.engine.moves import Placement, move_from_json
from qwirkle_env.engine.save import FORMAT, RECORD_FORMAT
from qwirkle_env.render import board_svg
from qwirkle_env.spec import HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, NUM_TYPES

from .tables import (
    CELL_PX,
    MAX_EXCHANGE_RUN,
    MAX_MOVES,
    REPLAY_SECONDS,
    Refused,
    Table,
    move_text,
    tile_info,
)

MAX_NAME = 200  # characters in a seat name
MAX_CELL = 10_000  # |row|, |col| of a table cell (a real table spans about 110)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _fail(what: str, value: Any, allowed: str) -> Refused:
    return Refused(f"corrupt {what}: {allowed}, got {_short(value)}")


def _int(value: Any, what: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise _fail(what, value, f"an integer in {low}..{high}")
    return value


def _list(value: Any, what: str, most: int, least: int = 0) -> list:
    if not isinstance(value, list) or not least <= len(value) <= most:
        raise _fail(what, value, f"a list of {least} to {most} items")
    return value


def check_record(data: Any) -> dict[str, Any]:
    """The record if every field has the right type and size; Refused names the first fault.
    Whether its moves are legal is the engine's to say (``frames``)."""
    if not isinstance(data, dict):
        raise Refused(f"not a saved game: expected a JSON object, got {type(data).__name__}")
    if data.get("format") != RECORD_FORMAT:
        raise Refused(
            f"not a saved game: format is {_short(data.get('format'))}, expected "
            f"{RECORD_FORMAT!r} (a record) or {FORMAT!r} (a game state)"
        )
    _int(data.get("num_players"), "record: num_players", MIN_PLAYERS, MAX_PLAYERS)
    _int(data.get("seed"), "record: seed", -(2**63), 2**64)
    if not isinstance(data.get("strict_opening"), bool):
        raise _fail("record", data.get("strict_opening"), "strict_opening must be true or false")
    run = 0
    for i, move in enumerate(_list(data.get("moves"), "record: moves", MAX_MOVES)):
        what = f"record: move {i}"
        if (
            not isinstance(move, dict)
            or len(move) != 1
            or next(iter(move))
            not in (
                "place",
                "exchange",
            )
        ):
            raise _fail(what, move, "{'place': [[row, col, tile], ...]} or {'exchange': [...]}")
        kind, items = next(iter(move.items()))
        for item in _list(items, what, HAND_SIZE, 1):
            if kind == "exchange":
                _int(item, what, 0, NUM_TYPES - 1)
                continue
            r, c, t = _list(item, what + " [row, col, tile]", 3, 3)
            _int(r, what + " row", -MAX_CELL, MAX_CELL)
            _int(c, what + " col", -MAX_CELL, MAX_CELL)
            _int(t, what + " tile", 0, NUM_TYPES - 1)
        run = run + 1 if kind == "exchange" else 0
        if run > MAX_EXCHANGE_RUN:
            raise Refused(
                f"corrupt record: more than {MAX_EXCHANGE_RUN} exchanges in a row at move {i} "
                "(a game at the table stops there)"
            )
    return data


def record_of(data: Any) -> dict[str, Any]:
    """A checked game record from a record or a full game state."""
    if isinstance(data, dict) and data.get("format") == FORMAT:
        _list(data.get("history"), "game: history", MAX_MOVES)
        try:
            game = Game.from_dict(data)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as err:
            raise Refused(f"corrupt game: {reason_of(err)}") from None
        return check_record(game.record())
    return check_record(data)


def check_names(names: Any, num_players: int) -> list[str] | None:
    """Seat names sent with a record (the page's own games): None, or one short string a seat."""
    if names is None:
        return None
    _list(names, "names", num_players, num_players)
    for name in names:
        if not isinstance(name, str) or len(name) > MAX_NAME:
            raise _fail("names", name, f"a seat name is a string of at most {MAX_NAME} characters")
    return names


def frames(record: dict[str, Any]) -> tuple[list[bytes], Game]:
    """Frame k (as JSON bytes) is the game after k moves (frame 0: the deal), replayed
    through the engine; ``record`` has passed :func:`check_record`."""
    try:
        final = Game.from_record(record)
    except (ValueError, KeyError, TypeError) as err:
        raise Refused(f"corrupt record: {reason_of(err)}") from None
    game = Game(record["num_players"], record["seed"], record["strict_opening"])
    out = [_frame(game, None)]
    for data in record["moves"]:
        game.apply(move_from_json(data))  # from_record above proved every move legal
        out.append(_frame(game, game.history[-1]))
    return out, final


def _frame(game: Game, last: tuple | None) -> bytes:
    frame = {
        "board": [[r, c, t.id] for (r, c), t in game.board],
        "hands": [list(h) for h in game.hands],
        "scores": list(game.scores),
        "bag": game.bag_size,
        "to_move": None if game.over else game.current,
        "move": None
        if last is None
        else {"seat": last[0], "text": move_text(last[1]), "points": last[2]},
        "placed": [list(cell) for cell, _ in last[1].tiles]
        if last and isinstance(last[1], Placement)
        else [],
    }
    return json.dumps(frame, separators=(",", ":")).encode()


def render_frame(frame: bytes, extra: Placement | None = None) -> dict[str, Any]:
    """A frame as the page draws it: the table as SVG, hands as tiles; ``extra`` (a move
    shown in an analysis) put on the table and ringed instead of the last move."""
    data = json.loads(frame)
    board = {(r, c): t for r, c, t in data["board"]}
    ringed = [tuple(c) for c in data["placed"]]
    if extra is not None:
        board.update({cell: t.id for cell, t in extra.tiles})
        ringed = [cell for cell, _ in extra.tiles]
    return {
        **{k: v for k, v in data.items() if k != "board"},
        "board": board_svg(board, CELL_PX, highlight=ringed),
        "tiles_on_table": len(board),
        "hands": [[tile_info(t) for t in h] for h in data["hands"]],
    }


def is_harness(data: Any) -> bool:
    return isinstance(data, dict) and "games" in data and "lineups" in data and "names" in data


def check_harness(results: dict[str, Any]) -> dict[str, Any]:
    """A harness results file whose every field the replay reads has the right type and
    size, and whose games seat ``num_players`` agents each; Refused names the first fault."""
    what = "harness results"
    n = _int(results.get("num_players"), what + ": num_players", MIN_PLAYERS, MAX_PLAYERS)
    _int(results.get("seed"), what + ": seed", -(2**63), 2**64)
    names = _list(results.get("names"), what + ": names", 1000, 1)
    for name in names:
        if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME:
            raise _fail(what, name, f"a name is a string of 1 to {MAX_NAME} characters")
    games = _list(results.get("games"), what + ": games", 100_000, 1)
    for i, game in enumerate(games):
        at = f"{what}: game {i}"
        if not isinstance(game, dict):
            raise _fail(at, game, "a game is a JSON object")
        for key in ("lineup", "deal", "rotation"):
            _int(game.get(key), f"{at} {key}", 0, 2**31)
        _int(game.get("env_seed"), f"{at} env_seed", -(2**63), 2**64)
        for a in _list(game.get("agents"), f"{at} agents", n, n):
            _int(a, f"{at} agents", 0, len(names) - 1)
        for s in _list(game.get("scores"), f"{at} scores", n, n):
            _int(s, f"{at} scores", 0, 10_000)
    return results


def harness_games(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The games of a checked harness results.json, for the page to offer a choice."""
    names = results["names"]
    return [
        {
            "index": i,
            "label": f"deal {g['deal']} rotation {g['rotation']}: "
            + " vs ".join(f"{names[a]} {s}" for a, s in zip(g["agents"], g["scores"], strict=True)),
        }
        for i, g in enumerate(results["games"])
    ]


def replay_harness_game(
    results: dict[str, Any],
    index: int,
    allowed_ckpts: set[str],
    running: Callable[[Table, bool], None] | None = None,
) -> tuple[dict[str, Any], str | None, list[str]]:
    """Plays harness game ``index`` of a checked results file again; returns its record, a
    warning if the scores differ from the saved ones, and the seats' names. Checkpoint
    agents must be ones the server offers: a file never names a path the server will open.
    ``running(table, on)`` is told while the game plays, so a shutdown can cancel it; a game
    that takes over ``REPLAY_SECONDS`` is stopped and refused."""
    game = results["games"][index]
    seed, lineup, deal, rot = results["seed"], game["lineup"], game["deal"], game["rotation"]
    names = [results["names"][a] for a in game["agents"]]
    specs = [spec_of_name(name) for name in names]
    env_seed, saved, n = game["env_seed"], game["scores"], results["num_players"]
    for spec in specs:
        if spec.lower().startswith("ckpt:") and ckpt_key(spec) not in allowed_ckpts:
            raise Refused(
                f"this game seats {spec!r}; open it with that checkpoint offered by the "
                "server (python train.py serve --ckpt PATH)"
            )
    seeds = agent_seeds(seed, lineup, deal, rot, n)  # the harness's own derivation
    table = Table(specs, seed=env_seed, agent_seeds=seeds)
    if running:
        running(table, True)
    try:
        table.run_agents()
        table.wait(REPLAY_SECONDS)
        if table.busy():
            table.close()
            table.wait(5)
            raise Refused(
                f"the game could not be played again within {REPLAY_SECONDS} s: "
                "its agents think too long for the page",
                422,
            )
    finally:
        if running:
            running(table, False)
    if table.error:
        raise Refused(f"the game could not be played again: {table.error}", 422)
    record = table.env.game.record()
    warning = None
    if table.env.game.scores != saved:
        warning = (
            f"played again, the scores are {table.env.game.scores}, not the saved {saved}: "
            "an agent did not repeat its moves (a time-budgeted search need not)"
        )
    return record, warning, names


def ckpt_key(spec: str) -> str:
    """A ``ckpt:PATH`` spec's file, resolved: two spellings of one checkpoint compare equal."""
    return str(Path(spec.strip()[5:]).resolve())


def reason_of(err: Exception) -> str:
    """What a loading error says to a person (a KeyError names the missing field)."""
    if isinstance(err, KeyError):
        return f"missing field {err}"
    text = str(err)
    return text if len(text) <= 300 else text[:297] + "..."
