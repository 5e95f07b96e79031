"""The endgame (agents/scripted/endgame.py): once the bag is empty every reply is searched,
and a move is worth its worst final margin."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.registry import make_agent
from agents.scripted.endgame import empty_bag_positions, endgame_values
from agents.scripted.search import greedy_rollout
from qwirkle_env import Game
from qwirkle_env.engine.placements import row_items
from qwirkle_env.spec import margin
from qwirkle_env.view import PlayerView


def endgames(count: int, players: int = 2) -> list[Game]:
    return empty_bag_positions(count, 0, players)


def greedy_ends(game: Game, seat: int) -> set[float]:
    """Every final margin for ``seat`` that greedy turns from ``game`` can reach, one per
    way of breaking the ties (the bag is empty: placements only, or skipped turns)."""
    if game.over:
        return {margin(game.scores, seat)}
    ends: set[float] = set()
    for row in game.top_placement_rows():
        then = game.clone()
        then.apply_placement(row_items(row), trusted=True)
        ends |= greedy_ends(then, seat)
    return ends


def test_each_move_is_worth_its_worst_reply_followed_by_greedy_turns():
    for game in endgames(4):
        seat = game.current
        moves = game.legal_placements()[:4]
        got = endgame_values(game, moves, seed=3, start=0.0, budget=None)
        for move, value in zip(moves, got, strict=True):
            after = game.clone()
            after.apply(move)
            if after.current == seat and not after.over:
                continue  # the opponent is stuck: no reply to search
            if after.over:
                assert value == margin(after.scores, seat)
                continue
            lows, highs = [], []
            for reply in after.legal_placements():
                then = after.clone()
                then.apply(reply)
                ends = greedy_ends(then, seat)
                lows.append(min(ends))
                highs.append(max(ends))
            # the worst reply under some tie-breaking, between the luckiest and unluckiest
            assert min(lows) <= value <= min(highs), (game.seed, move)


def test_a_move_that_ends_the_game_is_worth_its_final_margin():
    checked = 0
    for game in endgames(10):
        while not game.over and checked < 5:
            seat = game.current
            hand = len(game.hands[seat])
            out = [m for m in game.legal_placements() if len(m.tiles) == hand]
            if out:  # each empties the hand: the game ends, with the bonus
                values = endgame_values(game, out, seed=0, start=0.0, budget=None)
                for move, value in zip(out, values, strict=True):
                    after = game.clone()
                    after.apply(move)
                    assert after.over and value == margin(after.scores, seat)
                checked += 1
            greedy_rollout(game, 1, random.Random(0))
    assert checked == 5, "too few positions where a move ends the game"


def test_the_budget_stops_after_the_first_move_and_leaves_the_rest_unvalued():
    game = endgames(1)[0]
    moves = game.legal_placements()
    values = endgame_values(game, moves, seed=0, start=-1e9, budget=1e-9)
    assert np.isfinite(values[0]) and np.isnan(values[1:]).all()


@pytest.mark.parametrize("players", [3])
def test_the_endgame_refuses_more_players_and_a_bag_with_tiles(players):
    with pytest.raises(ValueError, match="2-player games with an empty bag"):
        endgame_values(endgames(1, players)[0], [], seed=0, start=0.0, budget=None)
    with pytest.raises(ValueError, match="2-player games with an empty bag"):
        endgame_values(Game(2, seed=0), [], seed=0, start=0.0, budget=None)


def test_learned_search_searches_the_endgame_and_can_be_told_not_to(monkeypatch):
    import agents.move_value.search as learned_search

    calls = []

    def recorded(*args, **kwargs):
        calls.append((args[1], endgame_values(*args, **kwargs)))
        return calls[-1][1]

    monkeypatch.setattr(learned_search, "endgame_values", recorded)
    game = endgames(1)[0]
    view = PlayerView.of(game, game.current)
    for flag in (0, 1):
        agent = make_agent(f"learned-search:sims=2,k=3,endgame={flag}")
        agent.reset(game.current, 2, 7)
        move = agent.choose(view)
        assert move in game.legal_moves()
        assert len(calls) == flag, "the endgame is searched only when asked"
    moves, values = calls[0]
    assert len(moves) > 3, "the endgame looks at more of the network's moves than k"
    assert values[moves.index(move)] == np.nanmax(values)


def test_a_cancelled_agent_stops_in_the_endgame():
    from agents.base import Cancelled

    game = endgames(1)[0]
    agent = make_agent("learned-search:sims=2")
    agent.reset(game.current, 2, 0)
    agent.cancel()
    with pytest.raises(Cancelled):
        agent.choose(PlayerView.of(game, game.current))


@pytest.mark.parametrize("bad", ["endgame=2", "endgame=-1", "endgame=0.5"])
def test_the_endgame_option_is_bounded(bad):
    with pytest.raises(ValueError, match="option endgame must be an integer in \\[0, 1\\]"):
        make_agent(f"learned-search:{bad}")
