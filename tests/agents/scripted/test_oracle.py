"""The oracle (agents/scripted/oracle.py): a measuring instrument that plays only where
the harness shows it the whole game, and never on the page."""

from __future__ import annotations

import pytest

from agents.evaluation.harness import play_game
from agents.registry import make_agent
from qwirkle_env import Game
from qwirkle_env.view import PlayerView


def test_the_oracle_plays_whole_legal_games_in_the_harness():
    margins = []
    for seed in (1, 2):
        result = play_game(["oracle:k=10,sims=1", "greedy"], seed, [seed, seed + 1])
        assert result["end"] == "rules" and result["fallbacks"] == [0, 0]
        margins.append(result["scores"][0] - result["scores"][1])
    assert sum(margins) > 0, "seeing everything wins against greedy"


def test_the_oracle_refuses_to_play_blind():
    agent = make_agent("oracle")
    game = Game(2, seed=0)
    agent.reset(0, 2, 0)
    with pytest.raises(RuntimeError, match="only the evaluation harness shows it"):
        agent.choose(PlayerView.of(game, game.current))


@pytest.mark.parametrize("bad", ["k=0", "k=501", "sims=0", "sims=51", "budget=1"])
def test_the_oracle_s_options_are_bounded(bad):
    with pytest.raises(ValueError, match="oracle"):
        make_agent(f"oracle:{bad}")
