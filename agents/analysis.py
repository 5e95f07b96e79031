"""The analysis of a finished game: at every move, the best moves by an analysing agent,
what the played move was worth beside them, and each player's outlook.

The analysing agent (``learned`` by default, ``learned-search`` for a closer look; any agent
with an ``appraise`` method) sees each position as the player to move saw it: their own
hand, the table, the scores and the bag's size, never the other hands. It values its own
candidates and the played move alike, so the played move's **loss** is the best worth
minus its worth, in points. The **outlook** of the player to move is what the TD networks
(the learned search's judges, whose values compare across positions) expect them to end
with: the margin so far plus the best move's worth, in points of final margin with 20 for
a win (-20 a loss), as the networks were trained.

Bounded like any agent: at most ``MAX_ANALYSED_MOVES`` moves, ``budget`` CPU seconds in
all (the moves not reached are left out, and the analysis says where it stopped), and a
``check`` called before each move to cancel it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from agents.base import Agent
from agents.loading import by_seat_count
from agents.move_value.agent import DEFAULT_WIN_VALUE
from agents.move_value.features import POINT_SCALE
from agents.registry import make_agent, value_paths
from qwirkle_env.engine.game import Game
from qwirkle_env.engine.moves import Exchange, Move, move_from_json
from qwirkle_env.engine.tiles import SHAPE_NAMES, Tile
from qwirkle_env.spec import margin
from qwirkle_env.view import PlayerView

FORMAT = "qwirkle-analysis/1"
ANALYSERS = ("learned", "learned-search:budget=0.1")  # what the page offers
MAX_ANALYSED_MOVES = 400  # a record longer than this is refused (a real game has ~100)
MAX_CPU = 120.0  # CPU seconds an analysis may take at most
DEFAULT_CPU = 60.0
TOP = 3  # best moves shown a position
MISTAKES = 3  # biggest losses listed a player
WIN_POINTS = POINT_SCALE * DEFAULT_WIN_VALUE  # the TD networks' worth of a win, in points
SHAPE_WORDS = {"star4": "four-point star", "star8": "eight-point star"}


def tile_words(tile: Tile | int) -> str:
    """A tile as the rules name it: "red four-point star"."""
    tile = Tile.from_id(tile) if isinstance(tile, int) else tile
    shape = SHAPE_NAMES[tile.shape]
    return f"{tile.color.name.lower()} {SHAPE_WORDS.get(shape, shape)}"


def move_words(move: Move) -> str:
    """A move as people say it: "places red circle at (0, 1)" / "exchanges 2 tiles"."""
    if isinstance(move, Exchange):
        return f"exchanges {len(move.tiles)} tile{'s' * (len(move.tiles) != 1)}"
    return "places " + ", ".join(f"{tile_words(t)} at {cell}" for cell, t in move.tiles)


def _move_json(move: Move, points: int | None) -> dict[str, Any]:
    return {**move.to_json(), "text": move_words(move), "points": points}


def _points(game: Game, move: Move) -> int:
    after = game.clone()
    return after.apply(move)


def analyser_of(spec: str) -> Agent:
    """The agent ``spec`` names, if it can value moves; ValueError says which can."""
    agent = make_agent(spec)
    if not callable(getattr(agent, "appraise", None)):
        raise ValueError(
            f"{spec!r} cannot value moves, so it cannot analyse a game; use one of "
            f"{', '.join(ANALYSERS)} (or search, learned-search with other options)"
        )
    return agent


def check_budget(budget: Any) -> float:
    if not isinstance(budget, int | float) or isinstance(budget, bool) or not 0 < budget <= MAX_CPU:
        raise ValueError(
            f"an analysis budget is a number in (0, {MAX_CPU:g}] CPU seconds, got {budget!r}"
        )
    return float(budget)


def analyse(
    record: dict[str, Any],
    analyser: str = "learned",
    budget: float = DEFAULT_CPU,
    names: list[str] | None = None,
    check: Callable[[], None] | None = None,
    progress: Callable[[Iterable], Iterable] | None = None,
) -> dict[str, Any]:
    """The analysis of ``record`` (``Game.record()``) as a JSON-ready dict (``FORMAT``).

    ``budget`` bounds the CPU seconds of this thread; ``check`` is called before each
    move (it raises to cancel); ``progress`` wraps the moves (e.g. ``tqdm``). ValueError
    for a record that cannot be replayed, is too long, or an analyser that cannot value
    moves. The same record, analyser and budget give the same analysis when the budget
    is not reached (each position's agent seed comes from the record's seed).
    """
    budget = check_budget(budget)
    count = len(record.get("moves") or ()) if isinstance(record, dict) else 0
    if count > MAX_ANALYSED_MOVES:
        raise ValueError(
            f"the record has {count} moves; an analysis takes at most {MAX_ANALYSED_MOVES}"
        )
    final = Game.from_record(record)  # ValueError with the engine's reason
    moves = [move_from_json(m) for m in record["moves"]]
    n = final.num_players
    agent = analyser_of(analyser)
    judge = by_seat_count(value_paths())
    game = Game(n, record["seed"], record["strict_opening"])
    start = time.thread_time()
    out: list[dict[str, Any]] = []
    stopped = None
    steps = range(len(moves)) if progress is None else progress(range(len(moves)))
    for k in steps:
        if check is not None:
            check()
        spent = time.thread_time() - start
        if out and spent + spent / len(out) > budget:
            stopped = (
                f"the CPU budget of {budget:g} s was reached after {len(out)} of {len(moves)} moves"
            )
            break
        out.append(_position(game, moves[k], k, agent, judge, record["seed"]))
        game.apply(moves[k])
    return {
        "format": FORMAT,
        "analyser": analyser,
        "judge": "learned-search's TD networks",
        "num_players": n,
        "names": names,
        "seed": record["seed"],
        "moves": out,
        "players": _players(out, n),
        "final_scores": list(final.scores),
        "final_outlook": [
            margin(final.scores, s) + WIN_POINTS * _result(final, s) for s in range(n)
        ],
        "complete": stopped is None,
        "stopped": stopped,
        "cpu_seconds": round(time.thread_time() - start, 3),
    }


def _result(game: Game, seat: int) -> float:
    """+1 win, -1 loss, 0 a shared win, as the TD networks' targets count it."""
    winners = game.winners()
    if seat not in winners:
        return -1.0
    return 1.0 if len(winners) == 1 else 0.0


def _position(
    game: Game, played: Move, k: int, agent: Agent, judge: Agent, seed: int
) -> dict[str, Any]:
    seat = game.current
    view = PlayerView.of(game, seat)
    agent.reset(seat, game.num_players, random.Random(f"{seed}:{k}").randrange(2**31))
    found, worth = agent.appraise(view, played)
    index = next((i for i, m in enumerate(found) if m == played), None)
    order = [i for i in np.argsort(-np.nan_to_num(worth, nan=-np.inf), kind="stable")]
    best_worth = float(np.nanmax(worth)) if np.isfinite(worth).any() else None
    played_worth = None if index is None or np.isnan(worth[index]) else float(worth[index])
    if len(found) == 1:
        loss = 0.0
    elif best_worth is None or played_worth is None:
        loss = None
    else:
        loss = best_worth - played_worth
    judge.reset(seat, game.num_players, 0)
    _, judged = judge.appraise(view)
    best = [
        {**_move_json(found[i], _points(game, found[i])), "value": _rounded(worth[i])}
        for i in order[:TOP]
    ]
    return {
        "index": k,
        "seat": seat,
        "scores": list(game.scores),
        "played": {
            **_move_json(played, _points(game, played)),
            "value": _rounded(played_worth),
            "rank": None if index is None or played_worth is None else order.index(index) + 1,
        },
        "best": best,
        "loss": _rounded(loss),
        "outlook": round(margin(game.scores, seat) + float(np.max(judged)), 2),
    }


def _rounded(x: float | None) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), 2)


def _players(moves: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """Each player's moves analysed, total and mean loss, and biggest mistakes (move
    indices, biggest first; only moves that lost something)."""
    out = []
    for seat in range(n):
        mine = [m for m in moves if m["seat"] == seat and m["loss"] is not None]
        worst = sorted((m for m in mine if m["loss"] > 0), key=lambda m: -m["loss"])
        total = sum(m["loss"] for m in mine)
        out.append(
            {
                "seat": seat,
                "moves": len(mine),
                "total_loss": round(total, 2),
                "mean_loss": round(total / len(mine), 2) if mine else None,
                "mistakes": [m["index"] for m in worst[:MISTAKES]],
            }
        )
    return out


__all__ = ["ANALYSERS", "FORMAT", "MAX_ANALYSED_MOVES", "MAX_CPU", "analyse", "move_words",
           "tile_words"]  # fmt: skip
