"""Saved games: the format's name and version, writing a game's parts and a record, and
reading them back with the checks that make a loaded game one that could exist (108 tiles,
three of each, valid lines, scores that add up to the moves).

This module knows the format, not the Game class: ``Game.to_dict`` / ``record`` hand it
their parts, and ``Game.from_dict`` / ``from_record`` build the game from what it reads, so
game.py imports save.py and never the other way round."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from ..spec import COPIES, HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, NUM_TILES, NUM_TYPES
from .board import Board, IllegalMove
from .moves import move_from_json
from .tiles import Tile

FORMAT = "qwirkle-env/game"
RECORD_FORMAT = FORMAT + "-record"  # a game as its seed, options and moves
FORMAT_VERSION = 1


def expect_format(data: object, name: str) -> None:
    """ValueError unless ``data`` is a dict of this format and version."""
    if not isinstance(data, dict):
        raise ValueError(f"not a saved game: expected a dict, got {type(data).__name__}")
    if data.get("format") != name:
        raise ValueError(f"not a saved game: format is {data.get('format')!r}, expected {name!r}")
    if data.get("version") != FORMAT_VERSION:
        raise ValueError(
            f"unsupported save version {data.get('version')!r}: this qwirkle-env reads version "
            f"{FORMAT_VERSION}"
        )


def _int(value: object, what: str, low: int | None = None, high: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"corrupt game: {what} must be an int, got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"corrupt game: {what} = {value} is outside {low}..{high}")
    return value


def _parts(value: object, n: int, what: str) -> list:
    """A list of exactly ``n`` items, else a ValueError that says which field is wrong."""
    if not isinstance(value, (list, tuple)) or len(value) != n:
        raise ValueError(f"corrupt game: {what} must be a list of {n} items, got {value!r}")
    return list(value)


def game_data(
    *, num_players: int, seed: int, strict_opening: bool, board: Board, bag: list[int],
    hands: list[list[int]], scores: list[int], current: int, opening_size: int | None,
    over: bool, bonus_seat: int | None, history: list, skips: list, rng: random.Random,
) -> dict[str, Any]:  # fmt: skip
    """A game's parts as the JSON-safe dict ``Game.to_dict`` returns."""
    version, internal, gauss = rng.getstate()
    return {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "num_players": num_players,
        "seed": seed,
        "strict_opening": strict_opening,
        "board": [[r, c, tile.id] for (r, c), tile in board],
        "bag": list(bag),
        "hands": [list(h) for h in hands],
        "scores": list(scores),
        "current": current,
        "opening_size": opening_size,
        "over": over,
        "bonus_seat": bonus_seat,
        "history": [{"seat": seat, **move.to_json(), "points": pts} for seat, move, pts in history],
        "skips": [list(s) for s in skips],
        "rng": [version, list(internal), gauss],
    }


def record_data(num_players: int, seed: int, strict_opening: bool, moves: list) -> dict[str, Any]:
    """The seed, the options and the moves: what ``Game.record`` returns."""
    return {
        "format": RECORD_FORMAT,
        "version": FORMAT_VERSION,
        "num_players": num_players,
        "seed": seed,
        "strict_opening": strict_opening,
        "moves": [move.to_json() for move in moves],
    }


def record_parts(record: dict[str, Any]) -> tuple[Any, Any, Any, list]:
    """(num_players, seed, strict_opening, moves as JSON) of a record, once its format and
    version are checked; ``Game.from_record`` replays the moves."""
    expect_format(record, RECORD_FORMAT)
    return record["num_players"], record["seed"], record["strict_opening"], record["moves"]


def game_parts(data: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of ``Game.from_parts`` for a dict ``Game.to_dict`` saved,
    checked field by field: ValueError names the fault."""
    expect_format(data, FORMAT)
    try:
        return _checked_parts(data)
    except (KeyError, TypeError, IndexError, AttributeError) as err:
        raise ValueError(f"corrupt game: missing or malformed field ({err!r})") from None


def _checked_parts(data: dict[str, Any]) -> dict[str, Any]:
    n = _int(data["num_players"], "num_players", MIN_PLAYERS, MAX_PLAYERS)
    tile_ids = []
    board_tiles = {}
    for entry in data["board"]:
        r, c, t = _parts(entry, 3, "board entry [row, col, tile]")
        cell = (_int(r, "board row"), _int(c, "board column"))
        if cell in board_tiles:
            raise ValueError(f"corrupt game: board cell {cell} appears twice")
        board_tiles[cell] = Tile.from_id(_int(t, "board tile", 0, NUM_TYPES - 1))
    bag = [_int(t, "bag tile", 0, NUM_TYPES - 1) for t in data["bag"]]
    hands = [[_int(t, "hand tile", 0, NUM_TYPES - 1) for t in h] for h in data["hands"]]
    if len(hands) != n:
        raise ValueError(f"corrupt game: {len(hands)} hands for {n} players")
    for seat, h in enumerate(hands):
        if len(h) > HAND_SIZE:
            raise ValueError(f"corrupt game: player {seat} holds {len(h)} tiles, at most 6")
    tile_ids = [t.id for t in board_tiles.values()] + bag + [t for h in hands for t in h]
    if len(tile_ids) != NUM_TILES:
        raise ValueError(
            f"corrupt game: {len(tile_ids)} tiles (table {len(board_tiles)}, bag {len(bag)}, "
            f"hands {sum(map(len, hands))}); a game holds exactly {NUM_TILES}"
        )
    for t, count in Counter(tile_ids).items():
        if count != COPIES:
            raise ValueError(
                f"corrupt game: {count} copies of {Tile.from_id(t)}; each tile has {COPIES}"
            )
    try:
        board = Board(board_tiles)
    except IllegalMove as err:
        raise ValueError(f"corrupt game: the table breaks a rule: {err}") from None
    scores = [_int(s, "score", 0) for s in data["scores"]]
    if len(scores) != n:
        raise ValueError(f"corrupt game: {len(scores)} scores for {n} players")
    history = []
    totals = [0] * n
    for entry in data["history"]:
        seat = _int(entry["seat"], "history seat", 0, n - 1)
        points = _int(entry["points"], "history points", 0)
        move = move_from_json({k: v for k, v in entry.items() if k in ("place", "exchange")})
        history.append((seat, move, points))
        totals[seat] += points
    if totals != scores:
        raise ValueError(f"corrupt game: scores {scores} do not add up to the moves' {totals}")
    seed = _int(data["seed"], "seed")
    strict_opening = bool(data["strict_opening"])
    version, internal, gauss = _parts(data["rng"], 3, "rng")
    rng = random.Random()
    try:
        rng.setstate((version, tuple(internal), gauss))
    except (TypeError, ValueError) as err:
        raise ValueError(f"corrupt game: bad random state ({err})") from None
    skips = [
        (_int(a, "skip move"), _int(b, "skip seat", 0, n - 1))
        for a, b in (_parts(s, 2, "skip [move, seat]") for s in data["skips"])
    ]
    bonus = data["bonus_seat"]
    bonus_seat = None if bonus is None else _int(bonus, "bonus_seat", 0, n - 1)
    over = bool(data["over"])
    current = _int(data["current"], "current", 0, n - 1)
    opening = data["opening_size"]
    opening_size = None if opening is None else _int(opening, "opening_size", 1, HAND_SIZE)
    if (opening_size is None) != bool(len(board)):
        raise ValueError("corrupt game: opening_size must be set exactly while the table is empty")
    return dict(
        num_players=n, seed=seed, strict_opening=strict_opening, rng=rng, board=board, bag=bag,
        hands=[sorted(h) for h in hands], scores=scores, history=history, skips=skips,
        bonus_seat=bonus_seat, over=over, current=current, opening_size=opening_size,
    )  # fmt: skip
