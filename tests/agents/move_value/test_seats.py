"""Seat counts and the learned search (agents/move_value/agent.py BySeatCount, search.py):
``learned`` plays each game with the network trained for its seat count, a network is
refused for seat counts it was not trained on, and ``learned-search`` plays legal,
reproducible games and refuses bad options before any game starts."""

from __future__ import annotations

import math

import pytest
import torch

from agents.evaluation.harness import play_game, run_tournament
from agents.move_value.agent import BySeatCount, ValueAgent, trained_seat_counts
from agents.move_value.search import LearnedSearchAgent
from agents.registry import make_agent
from qwirkle_env import Game
from qwirkle_env.view import PlayerView

torch.set_num_threads(1)


def test_learned_picks_its_network_by_seat_count():
    learned = make_agent("learned")
    assert isinstance(learned, BySeatCount)
    assert learned.agents[2].seat_counts == {2}
    assert learned.agents[3] is learned.agents[4] and learned.agents[3].seat_counts == {3, 4}
    assert learned.agents[2].layers.encoder  # the 2-player network reads the type block
    searched = make_agent("learned-search:sims=1")  # the search judges by the TD networks
    assert not searched.network.agents[2].layers.encoder
    assert searched.network.agents[3].seat_counts == {3, 4}
    for n in (2, 3, 4):
        learned.reset(0, n, 1)
        assert learned.active is learned.agents[n]
    with pytest.raises(ValueError, match=r"networks for \[2, 3, 4\] players, not 5"):
        learned.reset(0, 5, 1)


def test_learned_plays_two_player_games_as_its_two_player_network():
    plain = ["ckpt:checkpoints/move_value_rollouts.pt", "greedy"]
    for seed in (3, 4):
        a = play_game(plain, seed, [seed, seed + 1])
        b = play_game(["learned", "greedy"], seed, [seed, seed + 1])
        assert a["scores"] == b["scores"]


def test_a_network_is_refused_for_other_seat_counts_before_any_game():
    two = make_agent("ckpt:checkpoints/move_value.pt")
    assert isinstance(two, ValueAgent)
    with pytest.raises(ValueError, match="trained for 2-player games, not 3"):
        two.reset(0, 3, 0)
    with pytest.raises(ValueError, match="trained for 2-player games, not 4"):
        run_tournament(["ckpt:checkpoints/move_value.pt"] + ["greedy"] * 3, 4, num_players=4,
                       processes=1, progress=False)  # fmt: skip
    assert trained_seat_counts({"train": {"players": "3,4"}}) == {3, 4}
    assert trained_seat_counts({}) is None  # older checkpoints do not say: any
    with pytest.raises(ValueError, match="not a list of seat counts"):
        trained_seat_counts({"train": {"players": "two"}})


@pytest.mark.parametrize(
    "bad", ["budget=0", "budget=-1", "budget=inf", "budget=nan", "budget=11", "k=0", "prior=-1",
            "sims=0", "depth=21", "width=3", "leaf=2", "leaf=-1"],
)  # fmt: skip
def test_learned_search_refuses_bad_options(bad):
    with pytest.raises(ValueError, match="learned-search"):
        make_agent(f"learned-search:{bad}")


@pytest.mark.parametrize("leaf", [0, 1])
def test_learned_search_plays_legal_reproducible_games(leaf):
    spec = f"learned-search:sims=2,k=3,leaf={leaf}"
    for n in (2, 3):
        specs = [spec] + ["greedy"] * (n - 1)
        a = play_game(specs, 11 + leaf, list(range(n)))
        assert play_game(specs, 11 + leaf, list(range(n)))["scores"] == a["scores"]
        assert a["end"] == "rules" and a["fallbacks"] == [0] * n


def test_a_leaf_value_is_the_margin_after_the_replies_plus_the_network_s_best_worth():
    import random

    from agents.move_value.agent import move_values
    from agents.move_value.features import POINT_SCALE, candidates
    from agents.move_value.search import leaf_value
    from agents.scripted.search import greedy_rollout
    from qwirkle_env.rows.position import Position
    from qwirkle_env.spec import margin

    agent = make_agent("learned-search:sims=1,k=4,leaf=1")
    game = Game(2, seed=8)
    greedy_rollout(game, 10, random.Random(1))
    seat = game.current
    agent.reset(seat, 2, 0)
    layers = agent.network.network(2).layers
    for move in game.legal_moves()[:5]:
        state = agent.rng.getstate()
        got = leaf_value(game, move, layers, agent.rng)
        replay, rng = game.clone(), random.Random()
        rng.setstate(state)
        replay.apply(move)
        greedy_rollout(replay, 1, rng)  # the opponent's greedy reply, ties as the agent broke them
        want = margin(replay.scores, seat)
        assert not replay.over and replay.current == seat
        rows = candidates(Position.of_game(replay))
        want += POINT_SCALE * float(move_values(layers, rows).max())
        assert got == pytest.approx(want)
    assert game.current == seat and not game.over  # the deal itself is left as it was


def test_learned_search_prior_ranks_the_network_s_moves():
    agent = make_agent("learned-search:sims=1,k=4,prior=1")
    assert isinstance(agent, LearnedSearchAgent)
    game = Game(2, seed=5)
    for _ in range(6):
        game.apply(game.legal_moves()[0])
    agent.reset(game.current, 2, 0)
    moves, prior = agent.proposals(PlayerView.of(game, game.current))
    assert len(moves) == 4 and len(set(moves)) == 4
    assert all(m in game.legal_moves() for m in moves)
    assert all(math.isfinite(p) for p in prior)


def test_learned_search_refuses_other_checkpoints_and_seat_counts():
    from pathlib import Path

    from agents.loading import learned_search_agent

    with pytest.raises(ValueError, match="not a move-value network"):
        learned_search_agent({2: Path("checkpoints/tile_ppo.pt")})
    with pytest.raises(ValueError, match="trained for 2-player games, not 3"):
        learned_search_agent({3: Path("checkpoints/move_value.pt")})
    agent = learned_search_agent({2: Path("checkpoints/move_value.pt")}, budget=0.1)
    with pytest.raises(ValueError, match=r"networks for \[2\] players, not 4"):
        agent.check_players(4)
