"""The analysis of a finished game: each move beside the analyser's best, mistakes, outlooks,
and its bounds (CPU budget, cancel, record size)."""

from __future__ import annotations

import pytest

from agents.analysis import MAX_ANALYSED_MOVES, analyse, move_words, tile_words
from qwirkle_env.engine.game import Game
from qwirkle_env.engine.moves import Exchange
from qwirkle_env.engine.tiles import Tile
from tests.conftest import play_record


@pytest.fixture(scope="module")
def record():
    return play_record(["learned", "random"], seed=7)


@pytest.fixture(scope="module")
def analysis(record):
    return analyse(record)


def test_every_move_is_valued_beside_the_analyser_s_best(record, analysis):
    moves = analysis["moves"]
    assert analysis["complete"] and analysis["stopped"] is None
    assert len(moves) == len(record["moves"])
    game = Game(record["num_players"], record["seed"])
    for k, m in enumerate(moves):
        assert m["index"] == k and m["seat"] == game.current
        assert m["played"]["points"] == game.clone().apply(_move(record["moves"][k]))
        values = [b["value"] for b in m["best"]]
        assert values == sorted(values, reverse=True) and 1 <= len(values) <= 3
        if m["loss"] is not None:  # the best move's value minus the played one's
            assert m["loss"] == pytest.approx(values[0] - m["played"]["value"], abs=0.02)
            assert m["loss"] >= 0
        for b in m["best"]:  # each alternative is legal here and scores what it says
            assert game.clone().apply(_move(b)) == b["points"]
        game.apply(_move(record["moves"][k]))


def _move(data: dict):
    from qwirkle_env.engine.moves import move_from_json

    return move_from_json({k: data[k] for k in ("place", "exchange") if k in data})


def test_the_random_player_loses_more_value_than_the_learned_one(analysis):
    learned, rand = analysis["players"]
    assert learned["moves"] > 10 and rand["moves"] > 10
    # learned plays the analyser's own choice most of the time; random rarely does
    assert learned["mean_loss"] < 1.0 < rand["mean_loss"]
    ranks = [m["played"]["rank"] for m in analysis["moves"] if m["seat"] == 0]
    assert sum(r == 1 for r in ranks) >= 0.7 * len(ranks)
    # mistakes: the biggest losses first, only moves that lost something
    for p in analysis["players"]:
        losses = [analysis["moves"][k]["loss"] for k in p["mistakes"]]
        assert losses == sorted(losses, reverse=True) and all(x > 0 for x in losses)
        assert len(p["mistakes"]) <= 3


def test_the_outlook_follows_the_game(record, analysis):
    final = Game.from_record(record)
    winner = final.winners()[0]
    last = [m["outlook"] for m in analysis["moves"] if m["seat"] == winner][-3:]
    assert all(x > 0 for x in last)  # late in a won game the winner expects to win
    assert analysis["final_outlook"][winner] > 0 > analysis["final_outlook"][1 - winner]


def test_the_same_record_gives_the_same_analysis(record, analysis):
    again = analyse(record)
    assert {**again, "cpu_seconds": 0} == {**analysis, "cpu_seconds": 0}


def test_the_search_analyses_too_and_values_the_played_move(record):
    short = {**record, "moves": record["moves"][:6]}
    result = analyse(short, "search:sims=4,k=3")
    assert len(result["moves"]) == 6
    assert all(m["played"]["value"] is not None or len(m["best"]) == 1 for m in result["moves"])


def test_an_analysis_stops_at_its_cpu_budget_and_says_where(record):
    result = analyse(record, budget=0.02)
    assert not result["complete"] and 1 <= len(result["moves"]) < len(record["moves"])
    assert result["stopped"].startswith("the CPU budget of 0.02 s was reached after")


def test_an_analysis_is_cancelled_by_its_check(record):
    seen = []

    def check():
        seen.append(1)
        if len(seen) > 3:
            raise RuntimeError("stopped by the page")

    with pytest.raises(RuntimeError, match="stopped by the page"):
        analyse(record, check=check)
    assert len(seen) == 4


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"analyser": "greedy"}, "cannot value moves"),
        ({"budget": 0}, "(0, 120] CPU seconds"),
        ({"budget": float("nan")}, "(0, 120] CPU seconds"),
        ({"budget": 1e9}, "(0, 120] CPU seconds"),
        ({"analyser": "search:k=0"}, "k must be an integer in [1, 50]"),
    ],
)
def test_bad_settings_are_refused_with_what_is_allowed(record, kwargs, words):
    with pytest.raises(ValueError) as err:
        analyse(record, **kwargs)
    assert words in str(err.value)


def test_records_too_long_or_corrupt_are_refused(record):
    long = {**record, "moves": [{"exchange": [0]}] * (MAX_ANALYSED_MOVES + 1)}
    with pytest.raises(ValueError, match=f"an analysis takes at most {MAX_ANALYSED_MOVES}"):
        analyse(long)
    bad = {**record, "moves": [{"place": [[5, 5, 0]]}]}
    with pytest.raises(ValueError, match="move 0 cannot be replayed"):
        analyse(bad)


def test_shapes_are_named_as_the_rules_name_them():
    assert tile_words(Tile.from_id(1)) == "red four-point star"
    assert tile_words(5) == "red eight-point star"
    assert move_words(Exchange([Tile.from_id(1), Tile.from_id(2)])) == "exchanges 2 tiles"
