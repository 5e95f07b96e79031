"""The learned oracle (agents/move_value/oracle.py): sees the whole game, answers each of its
moves with the next opponent's likeliest replies from their true hand, and keeps the move
whose worst answer is best; a measuring instrument, never an opponent."""

from __future__ import annotations

import numpy as np
import pytest

from agents.evaluation.harness import play_game
from agents.move_value.features import POINT_SCALE, candidates
from agents.move_value.search import turn_worth
from agents.registry import make_agent
from qwirkle_env import Game
from qwirkle_env.rows.position import Position
from qwirkle_env.spec import margin, win_reward
from qwirkle_env.view import PlayerView


def mid_game(seed: int, turns: int = 12) -> Game:
    game = Game(2, seed=seed)
    greedy = make_agent("greedy")
    for _ in range(turns):
        greedy.reset(game.current, 2, seed)
        game.apply(greedy.choose(PlayerView.of(game, game.current)))
    return game


def oracle(spec: str = "learned-oracle", seat: int = 0):
    agent = make_agent(spec)
    agent.reset(seat, 2, 0)
    return agent


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_learned_oracle_plays_whole_legal_games_in_the_harness(players):
    seats = ["learned-oracle:k=3,replies=2"] + ["greedy"] * (players - 1)
    result = play_game(seats, 3, list(range(players)))
    assert result["end"] == "rules" and result["fallbacks"] == [0] * players


def test_the_learned_oracle_is_reproducible():
    seats = ["learned-oracle:k=3,replies=2", "greedy"]
    assert play_game(seats, 4, [1, 2])["scores"] == play_game(seats, 4, [1, 2])["scores"]


def test_the_learned_oracle_refuses_to_play_blind():
    game = Game(2, seed=0)
    with pytest.raises(RuntimeError, match="only the evaluation harness shows"):
        oracle().choose(PlayerView.of(game, game.current))


@pytest.mark.parametrize("bad", ["k=0", "k=51", "replies=0", "replies=51", "budget=1"])
def test_the_learned_oracle_s_options_are_bounded(bad):
    with pytest.raises(ValueError, match="learned-oracle"):
        make_agent(f"learned-oracle:{bad}")


def test_a_move_is_worth_its_worst_answer_from_the_true_hand():
    for seed in range(5, 50):  # a position whose answers all fit in the replies option
        game = mid_game(seed)
        move = candidates(Position.of_game(game)).move(0)
        after = game.clone()
        after.apply(move)
        replies = candidates(Position.of_game(after))
        if 8 < len(replies) <= 50:
            break
    agent = oracle(seat=game.current)
    network = agent.network.network(2)
    seat = game.current
    outcomes = []
    for i in range(len(replies)):  # every answer the opponent truly has
        answered = after.clone()
        answered.apply(replies.move(i))
        assert not answered.over and answered.current == seat  # the bag is not empty
        outcomes.append(margin(answered.scores, seat) + turn_worth(network.layers, answered))
    worth = agent.worst_answer(game, move, network)
    assert min(outcomes) < max(outcomes), "a position whose answers differ"
    assert min(outcomes) - 1e-9 <= worth <= max(outcomes) + 1e-9
    greedy = int(np.argmax(replies.points))
    assert worth <= outcomes[greedy] + 1e-9, "the highest-scoring answer is always tried"
    every = oracle(f"learned-oracle:replies={len(replies)}", seat).worst_answer(game, move, network)
    assert every == pytest.approx(min(outcomes)), "all answers tried: the true minimum"


def test_a_finished_game_is_worth_its_margin_and_result_at_the_network_s_weight():
    game = Game(2, seed=8)
    greedy = make_agent("greedy")
    while not game.over:
        greedy.reset(game.current, 2, 0)
        game.apply(greedy.choose(PlayerView.of(game, game.current)))
    agent = oracle()
    network = agent.network.network(2)
    win_value = network.meta["train"]["win_value"]
    for seat in (0, 1):
        expected = margin(game.scores, seat) + POINT_SCALE * win_value * win_reward(
            game.scores, seat
        )
        assert agent.outcome(game, seat, network) == pytest.approx(expected)


def test_the_learned_oracle_beats_greedy_in_a_short_duplicate_match():
    margins = []
    for seed in (1, 2, 3):
        for seats, us in ((["learned-oracle", "greedy"], 0), (["greedy", "learned-oracle"], 1)):
            scores = play_game(seats, seed, [seed, seed + 1])["scores"]
            margins.append(scores[us] - scores[1 - us])
    assert sum(m > 0 for m in margins) >= 5 and sum(margins) > 0
