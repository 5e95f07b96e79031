"""agents.evaluation.forfeit: a plugin that misbehaves loses the game, with its reason, and
the match goes on."""

from __future__ import annotations

import pytest

from agents.evaluation.harness import play_game, run_tournament
from tests.conftest import bot_file


@pytest.mark.parametrize(
    "name, kind, words",
    [
        ("raises", "raised", "RuntimeError: boom"),
        ("masked", "illegal", "is masked"),
        ("not_a_move", "not_a_move", "not a row number"),
    ],
)
def test_each_bad_answer_forfeits_the_game(tmp_path, name, kind, words):
    spec = f"{bot_file(tmp_path)}:{name}"
    out = play_game([spec, "greedy"], 3, [1, 2], move_limit=1.0)
    assert out["end"] == "forfeit"
    assert out["forfeits"][0].startswith(kind + ":") and words in out["forfeits"][0]
    assert out["forfeits"][1] == "" and out["winners"] == [1]


def test_thinking_past_the_limit_forfeits(tmp_path):
    spec = f"{bot_file(tmp_path)}:slow"
    out = play_game([spec, "greedy"], 3, [1, 2], move_limit=0.01)
    why = out["forfeits"][0]
    assert why.startswith("too_slow:") and "the limit is 0.01 s" in why
    within = play_game([spec, "greedy"], 3, [1, 2], move_limit=1.0)
    assert within["forfeits"] == ["", ""] and within["end"] == "rules"


def test_a_forfeit_is_a_loss_to_every_seat_and_is_counted(tmp_path):
    spec = f"{bot_file(tmp_path)}:sometimes_raises"
    res = run_tournament([spec, "greedy"], 8, 2, processes=2, progress=False, move_limit=1.0)
    lost = [r for r in res.records if any(r.forfeits)]
    kept = [r for r in res.records if not any(r.forfeits)]
    assert lost and kept, "the fixture should forfeit some games and finish others"
    row = {r["agent"]: r for r in res.summary()}
    assert row[spec]["forfeits"] == len(lost) and row["greedy"]["forfeits"] == 0
    for rec in lost:
        loser = rec.forfeits.index(next(f for f in rec.forfeits if f))
        assert loser not in rec.winners and rec.standing()[loser] == float("-inf")


def test_a_trusted_agent_is_not_refereed():
    out = play_game(["greedy", "random"], 3, [1, 2], move_limit=1e-9)
    assert out["forfeits"] == ["", ""] and out["end"] == "rules"
