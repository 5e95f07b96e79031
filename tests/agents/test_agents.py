"""Agents: legal play through the env, no hidden information, reproducibility, specs."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import numpy as np
import pytest

from agents.base import Agent, PlanningAgent
from agents.evaluation.harness import play_game
from agents.registry import agent_names, make_agent, parse_spec
from qwirkle_env import raw_env
from qwirkle_env.engine.tiles import COPIES, NUM_TYPES
from qwirkle_env.view import PlayerView

FAST = "search:sims=2,k=3,depth=1"

# (specs by seat, games): 200 games in all, every agent in 2, 3 and 4-player games.
MATCHES = [
    (["greedy", "random"], 50),
    (["heuristic", "random"], 40),
    (["greedy", "heuristic"], 40),
    (["random", "greedy", "heuristic"], 30),
    (["heuristic", "random", "greedy", "random"], 20),
    ([FAST, "random"], 12),
    (["greedy", FAST, "heuristic"], 8),
]


@pytest.mark.parametrize(("specs", "games"), MATCHES, ids=lambda x: str(x))
def test_agents_play_only_legal_actions(specs: list[str], games: int) -> None:
    """raw_env raises on any action its mask forbids; plans must never go stale either."""
    for g in range(games):
        out = play_game(specs, env_seed=1000 + g, agent_seeds=[g * 10 + s for s in range(4)])
        assert out["fallbacks"] == [0] * len(specs)
        assert sum(out["moves"]) > 0
        assert out["end"] == "rules"


def test_view_holds_no_hidden_information() -> None:
    """A PlayerView has no field for the opponents' hands or the bag; new fields need review."""
    names = {f.name for f in dataclasses.fields(PlayerView)}
    assert names == {
        "seat", "num_players", "board", "hand", "scores", "hand_sizes", "bag_size",
        "opening_size", "strict_opening", "turn_placed", "turn_exchange", "origin",
        "window", "observation", "action_mask", "history",
    }  # fmt: skip
    env = raw_env(num_players=3)
    env.reset(seed=3)
    view = env.player_view()
    assert not any(hasattr(view, name) for name in ("game", "hands", "bag", "_rng"))
    assert view.hand == env.game.hands[view.seat]
    lists = [v for v in vars(view).values() if isinstance(v, list)]
    for value in lists:  # nothing in it is someone else's hand or the bag
        for seat, hand in enumerate(env.game.hands):
            if seat != view.seat:
                assert value is not hand and value != hand
        assert value is not env.game.bag.tiles and value != env.game.bag.tiles


def _swap_opponent_tiles(env: raw_env, seat: int) -> None:
    """Trades an opponent's whole hand with tiles from the bag (a different hidden deal)."""
    game = env.game
    opp = (seat + 1) % game.num_players
    old = game.hands[opp]
    new = game.bag.tiles[: len(old)]
    game.bag.tiles[: len(old)] = old
    game.hands[opp] = sorted(new)
    assert game.hands[opp] != sorted(old)


@pytest.mark.parametrize("spec", ["random", "greedy", "heuristic", FAST])
def test_changing_the_opponents_hand_changes_nothing_seen(spec: str) -> None:
    env = raw_env(num_players=2)
    env.reset(seed=11)
    agent = make_agent("greedy")
    agent.reset(0, 2, 0)
    for _ in range(12):  # a few turns in, so the table is not empty
        seat = env.agent_name_mapping[env.agent_selection]
        agent.reset(seat, 2, 0)
        env.step(agent.act(env.player_view()))
    name = env.agent_selection
    seat = env.agent_name_mapping[name]
    before = env.player_view(name)
    first = make_agent(spec)
    first.reset(seat, 2, 5)
    action = first.act(before)
    _swap_opponent_tiles(env, seat)
    after = env.player_view(name)
    for f in dataclasses.fields(PlayerView):
        a, b = getattr(before, f.name), getattr(after, f.name)
        if isinstance(a, np.ndarray):
            assert np.array_equal(a, b), f.name
        else:
            assert a == b, f.name
    second = make_agent(spec)
    second.reset(seat, 2, 5)
    assert second.act(after) == action


def test_sampled_deals_use_only_unseen_tiles() -> None:
    env = raw_env(num_players=3)
    env.reset(seed=21)
    greedy = make_agent("greedy")
    for _ in range(30):
        greedy.reset(env.agent_name_mapping[env.agent_selection], 3, 0)
        env.step(greedy.act(env.player_view()))
    view = env.player_view()
    unseen = view.unseen()
    rng = random.Random(0)
    for _ in range(50):
        game = view.sample_game(rng)
        assert game.hands[view.seat] == sorted(view.hand)
        assert [len(h) for h in game.hands] == view.hand_sizes
        assert len(game.bag) == view.bag_size
        hidden = Counter(t for s, h in enumerate(game.hands) if s != view.seat for t in h)
        hidden.update(game.bag.tiles)
        assert all(hidden[t] == unseen[t] for t in range(NUM_TYPES))
        total = Counter(t.id for _, t in game.board)
        total.update(t for h in game.hands for t in h)
        total.update(game.bag.tiles)
        assert all(total[t] == COPIES for t in range(NUM_TYPES))


@pytest.mark.parametrize("spec", ["random", "greedy", "heuristic", FAST])
def test_agents_are_reproducible_from_their_seed(spec: str) -> None:
    runs = [play_game([spec, "random"], env_seed=5, agent_seeds=[7, 8]) for _ in range(2)]
    assert runs[0]["scores"] == runs[1]["scores"]
    assert runs[0]["moves"] == runs[1]["moves"]


def test_stale_plan_falls_back_to_a_legal_action() -> None:
    env = raw_env(num_players=2)
    env.reset(seed=2)
    agent = make_agent("greedy")
    agent.reset(env.agent_name_mapping[env.agent_selection], 2, 0)
    env.step(agent.act(env.player_view()))  # the plan's first tile
    other = make_agent("greedy")
    other.reset(0, 2, 1)
    view = env.player_view()
    action = other.act(view)  # mid-turn with no plan of its own
    assert view.action_mask[action] == 1
    assert other.fallbacks == 1


def test_make_agent_specs() -> None:
    assert set(agent_names()) >= {"random", "greedy", "heuristic", "search"}
    assert parse_spec("search:budget=0.1, k=8,depth=none") == (
        "search",
        {"budget": 0.1, "k": 8, "depth": None},
    )
    agent = make_agent("search:budget=0.1")
    assert agent.name == "search:budget=0.1" and agent.budget == 0.1
    assert isinstance(agent, PlanningAgent) and isinstance(agent, Agent)
    assert make_agent("heuristic:risk=3").weights.risk == 3


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nosuch", "unknown agent 'nosuch'"),
        ("greedy:fast", "not key=value"),
        ("heuristic:wobble=1", "unknown option .wobble."),
        ("search:budget=0", r"budget must be a number in \(0, 10\]"),
        ("", "non-empty string"),
        ("ckpt:/nonexistent/none.pt", "does not exist"),
    ],
)
def test_make_agent_errors_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_agent(spec)


def test_stale_plan_without_a_usable_mask_fails_clearly() -> None:
    env = raw_env(num_players=2)
    env.reset(seed=2)
    first = make_agent("greedy")
    first.reset(env.agent_name_mapping[env.agent_selection], 2, 0)
    env.step(first.act(env.player_view()))
    view = env.player_view()
    agent = make_agent("greedy")
    agent.reset(0, 2, 1)
    with pytest.raises(RuntimeError, match="no legal action"):
        agent.act(dataclasses.replace(view, action_mask=np.zeros_like(view.action_mask)))
    with pytest.raises(RuntimeError, match="carries no action mask"):
        agent.act(dataclasses.replace(view, action_mask=None))


def test_shipped_agents_have_names_and_the_old_path_warns():
    import warnings

    from agents.move_value.agent import BySeatCount
    from agents.tile_ppo.agent import PolicyAgent

    assert isinstance(make_agent("learned"), BySeatCount)
    assert isinstance(make_agent("tile-ppo"), PolicyAgent)
    with pytest.raises(ValueError, match="takes no options"):
        make_agent("learned:greedy=false")
    with pytest.warns(DeprecationWarning, match="use the spec 'learned'"):
        old = make_agent("ckpt:checkpoints/qwirkle_ppo.pt")
    assert isinstance(old, BySeatCount) and old.name == "ckpt:checkpoints/qwirkle_ppo.pt"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make_agent("learned")  # the new name warns about nothing
