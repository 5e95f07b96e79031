"""Expert iteration (agents/move_value/distil.py): the learned search's choices are
recorded with the rows the network saw, and training moves the network towards them."""

from __future__ import annotations

import torch

from agents.checkpoint import load_checkpoint
from agents.loading import value_agent
from agents.move_value.distil import DistilConfig, Recorder, collect_game, distil, fine_tune
from agents.move_value.features import NUM_MOVE_FEATURES, POINT_SCALE
from agents.move_value.network import MoveValueNet
from agents.registry import recorded_name, shipped_dir
from qwirkle_env import Game
from qwirkle_env.view import PlayerView

torch.set_num_threads(1)
SHIPPED = shipped_dir() / "move_value.pt"
TINY = DistilConfig(games=2, sims=2, processes=1, epochs=2)


def test_each_decision_is_the_searched_move_among_the_rows_the_network_looked_at():
    network = value_agent(SHIPPED)
    game = Game(2, seed=3)
    agent = Recorder(network, others=5, sims=2)
    checked = 0
    for turn in range(12):
        agent.reset(game.current, 2, turn)
        before = len(agent.decisions)
        points = game.apply(agent.choose(PlayerView.of(game, game.current)))
        if len(agent.decisions) > before:
            d = agent.decisions[-1]
            assert d.looked.shape[1] == NUM_MOVE_FEATURES and len(d.others) <= 5
            assert d.points[d.chosen] * POINT_SCALE == points, "the chosen row is the move played"
            checked += 1
    assert checked >= 8, "most turns of a game are recorded"


def test_fine_tuning_makes_the_network_agree_with_the_search():
    data = collect_game((str(SHIPPED), 5, TINY))
    net, _ = load_checkpoint(SHIPPED, kind=MoveValueNet)
    cfg = DistilConfig(epochs=30, lr=3e-3, batch=16)
    history = fine_tune(net, data, cfg)
    assert history[-1]["choice"] < history[0]["choice"]
    assert history[-1]["agree"] > history[0]["agree"] + 0.1


def test_a_round_saves_a_checkpoint_the_learned_agent_loads(tmp_path):
    out = distil(SHIPPED, tmp_path / "distilled.pt", TINY)
    agent = value_agent(out)
    _, meta = load_checkpoint(out, kind=MoveValueNet)
    assert meta["train"]["distil"]["games"] == 2 and meta["train"]["players"] == "2"
    recorded = meta["train"]["distil_from"]
    assert recorded == "checkpoints/move_value.pt"  # not the building machine's directories
    assert recorded_name(tmp_path / "mine.pt") == str(tmp_path / "mine.pt")  # others as given
    game = Game(2, seed=1)
    agent.reset(game.current, 2, 0)
    assert agent.choose(PlayerView.of(game, game.current)) in game.legal_moves()
    old, new = (load_checkpoint(p, kind=MoveValueNet)[0].state_dict() for p in (SHIPPED, out))
    assert any(not torch.equal(old[k], new[k]) for k in old), "the round trained the network"


def test_the_command_refuses_bad_settings_before_any_game():
    import pytest

    from qwirkle_cli.commands import main

    with pytest.raises(SystemExit, match="games must be an integer >= 1.*temperature must be > 0"):
        main(["distil", "--games", "0", "--temperature", "0"])


def test_a_config_out_of_range_is_refused_when_built():
    import pytest

    with pytest.raises(ValueError, match="budget must be in \\(0, 10\\] CPU seconds"):
        DistilConfig(budget=0)
