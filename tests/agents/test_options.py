"""Agent options are bounded where a spec is parsed, and a move can be cancelled."""

from __future__ import annotations

import threading
import time

import pytest

from agents.base import Cancelled
from agents.registry import agent_options, make_agent, parse_spec
from agents.scripted.search import SearchAgent
from qwirkle_env import raw_env
from qwirkle_env.opponents import make_opponent


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "search:budget=nan",
            r"budget must be a number in \(0, 10\] CPU seconds per move, got nan",
        ),
        ("search:budget=inf", r"budget must be a number in \(0, 10\].*got inf"),
        ("search:budget=-inf", r"budget must be a number in \(0, 10\]"),
        ("search:budget=1e9", r"budget must be a number in \(0, 10\]"),
        ("search:budget=0", r"budget must be a number in \(0, 10\]"),
        ("search:budget=fast", r"budget must be a number.*got 'fast'"),
        ("search:k=0", r"k must be an integer in \[1, 50\], got 0"),
        ("search:k=2.5", r"k must be an integer in \[1, 50\]"),
        ("search:k=true", r"k must be an integer in \[1, 50\], got True"),
        ("search:k=<img src=x>", r"k must be an integer"),
        ("search:sims=0", r"sims must be an integer in \[1, 1000\], or none"),
        ("search:sims=1e12", r"sims must be an integer in \[1, 1000\]"),
        ("search:depth=-1", r"depth must be an integer in \[0, 20\]"),
        ("search:risk=nan", r"risk must be a number in \[-100, 100\]"),
        ("heuristic:top=0", r"top must be an integer in \[1, 200\]"),
        ("heuristic:kept=inf", r"kept must be a number in \[-100, 100\]"),
        ("greedy:speed=9", r"unknown option 'speed' \(known options: none\)"),
        ("random:k=1", r"unknown option 'k'"),
        ("search:" + "k=1," * 400, r"at most 1000 characters"),
    ],
)
def test_out_of_range_options_are_refused_when_the_spec_is_parsed(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_spec(spec)
    with pytest.raises(ValueError, match=message):
        make_agent(spec)


def test_the_limits_protect_gymnasium_opponents_and_direct_construction():
    with pytest.raises(ValueError, match=r"budget must be a number in \(0, 10\]"):
        make_opponent("search:budget=nan")
    with pytest.raises(ValueError, match="k must be an integer"):
        SearchAgent(k=0)
    assert "budget: a number in (0, 10] CPU seconds per move" in agent_options("search")
    assert make_agent("search:sims=none,depth=none,k=1").k == 1


def test_a_search_move_is_cancelled_from_another_thread():
    env = raw_env(num_players=2)
    env.reset(seed=4)
    agent = make_agent("search:budget=10,k=50")
    agent.reset(env.agent_name_mapping[env.agent_selection], 2, 0)
    outcome: list = []

    def think():
        try:
            outcome.append(agent.act(env.player_view()))
        except Cancelled as err:
            outcome.append(err)

    thread = threading.Thread(target=think)
    thread.start()
    time.sleep(0.3)
    assert thread.is_alive()  # a 10 s budget: still thinking
    start = time.monotonic()
    agent.cancel()
    thread.join(5)
    assert not thread.is_alive() and time.monotonic() - start < 2
    assert isinstance(outcome[0], Cancelled)
    with pytest.raises(Cancelled):
        agent.act(env.player_view())  # for good
