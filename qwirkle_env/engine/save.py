"""Saved games: the format's name and version, and loading one back with the checks that
make a loaded game one that could exist (108 tiles, three of each, valid lines, scores that
add up to the moves)."""

from __future__ import annotations

import random
from collections import Counter
from typing import TYPE_CHECKING, Any

from ..spec import COPIES, HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, NUM_TILES, NUM_TYPES
from .board import Board, IllegalMove
from .moves import move_from_json
from .tiles import Tile

if TYPE_CHECKING:
    from .game import Game

FORMAT = "qwirkle-env/game"
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


def load_game(cls: type[Game], data: dict[str, Any]) -> Game:
    """The game ``Game.to_dict`` saved, checked field by field: ValueError names the fault."""
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
    return cls.from_parts(
        num_players=n, seed=seed, strict_opening=strict_opening, rng=rng, board=board, bag=bag,
        hands=[sorted(h) for h in hands], scores=scores, history=history, skips=skips,
        bonus_seat=bonus_seat, over=over, current=current, opening_size=opening_size,
    )  # fmt: skip
