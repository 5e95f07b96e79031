"""Saved games as a list of frames: the table, every hand and the scores after each move.

Three kinds of file open here, each read by the engine's own loader so that a corrupt file
fails with the engine's message:

* a game record (``Game.record()``, and what the showdown page saves);
* a full game state (``Game.to_dict()``): its seed and history are a record;
* the evaluation harness's ``results.json``, which keeps each game's deal seed, seats and
  agent seeds but not its moves: the game is played again with the same agents and seeds
  (the harness's own derivation), and the page says if the scores differ from the saved
  ones (a time-budgeted search need not repeat itself).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from qwirkle_env.engine.game import FORMAT, Game
from qwirkle_env.engine.moves import Placement, move_from_json
from qwirkle_env.render import board_svg

from .tables import CELL_PX, Refused, Table, move_text, tile_info

MAX_TURNS = 1000  # the harness's safety net (agents/evaluate.py)


def record_of(data: Any) -> dict[str, Any]:
    """A game record from a record or a full game state; Refused with the engine's reason."""
    if not isinstance(data, dict):
        raise Refused(f"not a saved game: expected a JSON object, got {type(data).__name__}")
    if data.get("format") == FORMAT:
        try:
            game = Game.from_dict(data)
        except (ValueError, KeyError, TypeError) as err:
            raise Refused(f"corrupt game: {reason_of(err)}") from None
        return game.record()
    return data


def frames(record: dict[str, Any]) -> tuple[list[dict[str, Any]], Game]:
    """Frame k is the game after k moves (frame 0: the deal); replays through the engine."""
    try:
        final = Game.from_record(record)
        game = Game(record["num_players"], record["seed"], record["strict_opening"])
    except (ValueError, KeyError, TypeError) as err:
        raise Refused(f"corrupt record: {reason_of(err)}") from None
    out = [_frame(game, None)]
    for data in record["moves"]:
        game.apply(move_from_json(data))  # from_record above proved every move legal
        out.append(_frame(game, game.history[-1]))
    return out, final


def _frame(game: Game, last: tuple | None) -> dict[str, Any]:
    return {
        "board": {f"{r},{c}": t.id for (r, c), t in game.board},
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


def render_frame(frame: dict[str, Any]) -> dict[str, Any]:
    """A frame as the page draws it: the table as SVG, hands as tiles."""
    board = {tuple(map(int, key.split(","))): t for key, t in frame["board"].items()}
    return {
        **{k: v for k, v in frame.items() if k != "board"},
        "board": board_svg(board, CELL_PX, highlight=[tuple(c) for c in frame["placed"]]),
        "tiles_on_table": len(board),
        "hands": [[tile_info(t) for t in h] for h in frame["hands"]],
    }


def harness_games(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The games of a harness results.json, for the page to offer a choice."""
    names = results["names"]
    return [
        {
            "index": i,
            "label": f"deal {g['deal']} rotation {g['rotation']}: "
            + " vs ".join(f"{names[a]} {s}" for a, s in zip(g["agents"], g["scores"], strict=True)),
        }
        for i, g in enumerate(results["games"])
    ]


def is_harness(data: Any) -> bool:
    return isinstance(data, dict) and "games" in data and "lineups" in data and "names" in data


def replay_harness_game(
    results: dict[str, Any], index: int, allowed_ckpts: set[str]
) -> tuple[dict[str, Any], str | None]:
    """Plays harness game ``index`` again; returns its record and a warning if the scores
    differ from the saved ones. Checkpoint agents must be ones the server offers: a file
    never names a path the server will open."""
    try:
        game = results["games"][index]
        seed, lineup, deal, rot = results["seed"], game["lineup"], game["deal"], game["rotation"]
        specs = [_base_spec(results["names"][a]) for a in game["agents"]]
        env_seed, saved = game["env_seed"], game["scores"]
        n = int(results["num_players"])
    except (KeyError, IndexError, TypeError, ValueError) as err:
        raise Refused(f"corrupt harness results: {reason_of(err)}") from None
    for spec in specs:
        if spec.lower().startswith("ckpt:") and ckpt_key(spec) not in allowed_ckpts:
            raise Refused(
                f"this game seats {spec!r}; open it with that checkpoint offered by the "
                "server (python train.py serve --ckpt PATH)"
            )
    # The harness's seeds: agents/evaluate.py run_tournament.
    rs = random.Random(f"{seed}:{lineup}:{deal}:{rot}")
    agent_seeds = [rs.randrange(2**31) for _ in range(n)]
    table = Table(specs, seed=env_seed, agent_seeds=agent_seeds)
    table.run_agents(turns=MAX_TURNS)
    table.wait()
    if table.error:
        raise Refused(f"the game could not be played again: {table.error}", 422)
    record = table.env.game.record()
    warning = None
    if table.env.game.scores != saved:
        warning = (
            f"played again, the scores are {table.env.game.scores}, not the saved {saved}: "
            "an agent did not repeat its moves (a time-budgeted search need not)"
        )
    return record, warning


def _base_spec(name: str) -> str:
    """The harness names a repeated spec ``spec#2``; the spec itself has no ``#``."""
    return name.rsplit("#", 1)[0] if "#" in name else name


def ckpt_key(spec: str) -> str:
    """A ``ckpt:PATH`` spec's file, resolved: two spellings of one checkpoint compare equal."""
    return str(Path(spec.strip()[5:]).resolve())


def reason_of(err: Exception) -> str:
    """What a loading error says to a person (a KeyError names the missing field)."""
    if isinstance(err, KeyError):
        return f"missing field {err}"
    return str(err)
