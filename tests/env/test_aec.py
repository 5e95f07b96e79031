"""The PettingZoo env: API conformance, exact masks, rewards, errors, hidden information."""

from __future__ import annotations

import functools
import pickle
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from qwirkle_env import Board, Game, IllegalMove, env, raw_env
from qwirkle_env.actions import ActionCodec
from qwirkle_env.engine.tiles import Tile
from qwirkle_env.observation import observation_size, split_observation
from qwirkle_env.spec import DEFAULT_WINDOW, NUM_FEATURES, NUM_PLANES
from tests.conftest import rewards_of_a_random_game

PLAYERS = (2, 3, 4)
REWARDS = ("win", "points", "margin")


def random_game(e, rng, on_step=None):
    """Plays random legal sub-steps to the end through the AEC API; returns the steps."""
    steps = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = obs["action_mask"].view(bool).nonzero()[0]
        assert len(legal) > 0, "the agent to move must always have a legal action"
        action = int(legal[rng.integers(len(legal))])
        if on_step:
            on_step(e, agent, obs, action)
        e.step(action)
        steps += 1
    return steps


# --- PettingZoo's own tests --------------------------------------------------------------
@pytest.mark.parametrize("num_players", PLAYERS)
@pytest.mark.parametrize("reward", REWARDS)
def test_pettingzoo_api_test(num_players, reward):
    # The two warnings api_test gives (Dict observation space, observation not an array)
    # come with every PettingZoo classic game: the mask travels beside the observation.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        api_test(env(num_players=num_players, reward=reward), num_cycles=300)
        api_test(raw_env(num_players=num_players, reward=reward), num_cycles=300)


@pytest.mark.parametrize("num_players", PLAYERS)
@pytest.mark.parametrize("reward", REWARDS)
def test_pettingzoo_seed_test(num_players, reward):
    seed_test(functools.partial(env, num_players=num_players, reward=reward), num_cycles=200)


@pytest.mark.parametrize("num_players", PLAYERS)
def test_pettingzoo_render_test(num_players, monkeypatch):
    pytest.importorskip("pygame")  # "human" opens a window: the [human] extra
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # headless

    def fast(**kwargs):  # the window's pace is metadata["render_fps"]: 2 frames a second
        made = env(num_players=num_players, **kwargs)
        made.unwrapped.metadata = {**made.unwrapped.metadata, "render_fps": 10_000}
        return made

    render_test(fast)


@pytest.mark.parametrize("num_players", PLAYERS)
@pytest.mark.parametrize("reward", REWARDS)
def test_pickle_round_trip_keeps_the_state_and_plays_on_identically(num_players, reward):
    rng = np.random.default_rng(num_players)
    e = raw_env(num_players=num_players, reward=reward)
    e.reset(seed=5)
    for _ in range(40):
        obs = e.observe(e.agent_selection)
        legal = obs["action_mask"].view(bool).nonzero()[0]
        e.step(int(legal[rng.integers(len(legal))]))
    copy = pickle.loads(pickle.dumps(e))
    for _ in range(60):
        a, b = e.observe(e.agent_selection), copy.observe(copy.agent_selection)
        assert e.agent_selection == copy.agent_selection
        assert np.array_equal(a["observation"], b["observation"])
        assert np.array_equal(a["action_mask"], b["action_mask"])
        if e.terminations[e.agent_selection]:
            break
        legal = a["action_mask"].view(bool).nonzero()[0]
        action = int(legal[rng.integers(len(legal))])
        e.step(action)
        copy.step(action)
        assert e.rewards == copy.rewards


# --- the mask ----------------------------------------------------------------------------
def _reachable(e) -> set:
    """Every complete placement reachable by following masked sub-steps, then "end"."""
    found = set()
    codec = e.codec
    turn = e.turn

    def search():
        for a in e.mover_mask().view(bool).nonzero()[0]:
            kind = codec.decode(int(a))
            if kind[0] == "end" and turn.placed:
                found.add(tuple(sorted(turn.placed)))
            if kind[0] != "place":
                continue
            _, t, r, c = kind
            saved = (list(turn.placed), list(turn.hand_left))
            turn.place((e.origin[0] + r, e.origin[1] + c), t, trusted=True)
            e._mask_cache = None
            search()
            turn.placed, turn.hand_left = saved
            e._mask_cache = None

    search()
    return found


def _translated(placements) -> set:
    out = set()
    for p in placements:
        r0 = min(cell[0] for cell, _ in p)
        c0 = min(cell[1] for cell, _ in p)
        out.add(tuple(sorted(((r - r0, c - c0), t) for (r, c), t in p)))
    return out


@pytest.mark.parametrize("strict", [True, False])
def test_mask_is_exact_on_random_mid_game_positions(strict):
    """Placements reachable through the mask equal Board.legal_placements(hand), 150 x 2."""
    rng = np.random.default_rng(1 if strict else 2)
    checked = 0
    for num_players in PLAYERS:
        e = raw_env(num_players=num_players, strict_opening=strict)
        e.reset(seed=num_players)
        while checked < 50 * (num_players - 1):
            if e.game.over:
                e.reset()
            obs = e.observe(e.agent_selection)
            if not e.turn.placed and not e.turn.exchange:
                game = e.game
                want = {
                    tuple(sorted((cell, t.id) for cell, t in p))
                    for p in game.board.legal_placements(game.hand())
                }
                got = _reachable(e)
                if game.opening_size is not None:
                    if strict:
                        want = {p for p in want if len(p) == game.opening_size}
                    # the opening's first tile goes to the window centre: compare shapes
                    assert _translated(got) == _translated(want)
                else:
                    assert got == want
                checked += 1
            legal = obs["action_mask"].view(bool).nonzero()[0]
            e.step(int(legal[rng.integers(len(legal))]))
    assert checked >= 150


def test_every_masked_out_sub_step_raises_in_raw_env():
    rng = np.random.default_rng(3)
    e = raw_env(num_players=2)
    e.reset(seed=11)
    tried = 0
    for _ in range(150):
        obs = e.observe(e.agent_selection)
        mask = obs["action_mask"]
        for a in rng.choice(np.flatnonzero(mask == 0), 15, replace=False):
            before = (e.game.to_dict(), list(e.turn.placed), list(e.turn.exchange))
            with pytest.raises(ValueError, match="illegal action"):
                e.step(int(a))
            assert before == (e.game.to_dict(), list(e.turn.placed), list(e.turn.exchange))
            tried += 1
        legal = mask.view(bool).nonzero()[0]
        e.step(int(legal[rng.integers(len(legal))]))
        if e.game.over:
            e.reset()
    assert tried == 150 * 15


def test_illegal_action_message_decodes_the_action_and_names_the_rule():
    e = raw_env()
    e.reset(seed=0)
    codec = e.codec
    hand = e.game.hands[e.game.current]
    missing = next(t for t in range(36) if t not in hand)
    with pytest.raises(ValueError, match=r"place .* at window \(0, 0\).*not in hand"):
        e.step(codec.place(missing, 0, 0))
    with pytest.raises(ValueError, match="end: nothing placed"):
        e.step(codec.end)
    with pytest.raises(ValueError, match="opening: the first player must place"):
        e.step(codec.exchange(hand[0]))
    centre = e.window // 2
    with pytest.raises(ValueError, match="window centre"):
        e.step(codec.place(hand[0], centre, centre + 1))


@pytest.mark.parametrize("bad", [-1, 10**9, 3.5, "7", None, True])
def test_out_of_range_and_non_integer_actions_get_clear_errors(bad):
    e = raw_env()
    e.reset(seed=0)
    with pytest.raises(ValueError, match="action"):
        e.step(bad)


def test_step_after_the_game_ended_is_a_clear_error():
    e = raw_env()
    e.reset(seed=4)
    random_game(e, np.random.default_rng(0))
    e.reset(seed=4)
    rng = np.random.default_rng(0)
    while not e.game.over:
        obs = e.observe(e.agent_selection)
        legal = obs["action_mask"].view(bool).nonzero()[0]
        e.step(int(legal[rng.integers(len(legal))]))
    with pytest.raises(ValueError, match="game is over"):
        e.step(0)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"num_players": 1}, "num_players must be 2, 3 or 4"),
        ({"num_players": 5}, "num_players must be 2, 3 or 4"),
        ({"window": 5}, "window must be an int >= 11"),
        ({"reward": "score"}, "reward must be one of"),
        ({"render_mode": "svg"}, "render_mode must be None or one of"),
    ],
)
def test_bad_options_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        raw_env(**kwargs)


def test_wrapped_env_ends_the_game_with_minus_one_for_an_illegal_action():
    e = env(num_players=3)
    e.reset(seed=0)
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    maker = e.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(illegal)
    assert all(e.terminations.values())
    assert e._cumulative_rewards[maker] == -1
    assert all(r == 0 for a, r in e._cumulative_rewards.items() if a != maker)


# --- rewards -----------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", PLAYERS)
def test_points_rewards_sum_to_the_engine_final_scores(num_players):
    for seed in range(4):
        e = raw_env(num_players=num_players, reward="points")
        e.reset(seed=seed)
        totals = rewards_of_a_random_game(e, np.random.default_rng(seed))
        assert [totals[a] for a in e.possible_agents] == e.game.scores
        assert e.outside_window == 0


@pytest.mark.parametrize("num_players", PLAYERS)
def test_margin_rewards_are_zero_sum_and_win_rewards_follow_the_ranking(num_players):
    for mode in ("margin", "win"):
        e = raw_env(num_players=num_players, reward=mode)
        e.reset(seed=7)
        totals = rewards_of_a_random_game(e, np.random.default_rng(0))
        assert sum(totals.values()) == pytest.approx(0.0, abs=1e-9)
        if mode == "win":
            winners = e.game.winners()
            for seat, agent in enumerate(e.possible_agents):
                if len(winners) == 1:
                    expected = 1.0 if seat in winners else -1.0 / (num_players - 1)
                    assert totals[agent] == pytest.approx(expected)
                else:
                    assert (totals[agent] > 0) == (seat in winners)


def test_win_reward_is_zero_for_both_on_a_two_player_shared_win():
    e = raw_env(num_players=2)
    e.reset(seed=0)
    e.game.scores = [10, 10]
    e._finish()
    assert e.rewards == {"player_0": 0.0, "player_1": 0.0}


# --- observation -------------------------------------------------------------------------
def test_observation_layout_matches_the_documented_table():
    e = raw_env(num_players=3)
    e.reset(seed=2)
    w = e.window
    obs = e.observe(e.agent_selection)["observation"]
    assert obs.shape == (observation_size(w),) == (NUM_PLANES * w * w + NUM_FEATURES,)
    planes, features = split_observation(obs, w)
    assert planes.shape == (13, w, w) and features.shape == (126,)
    seat = e.game.current
    hand = np.bincount(e.game.hands[seat], minlength=36)
    assert np.array_equal(features[:36], hand)
    assert features[108] == len(e.game.bag)
    assert list(features[117:121]) == [1, 1, 1, 0]
    assert features[121] == 1 and features[122] == 1  # to move, opening
    # place the first tile: it shows on the colour, shape and "this turn" planes
    legal = e.observe(e.agent_selection)["action_mask"].view(bool).nonzero()[0]
    _, t, r, c = e.codec.decode(int(legal[0]))
    e.step(int(legal[0]))
    planes, features = split_observation(e.observe(e.agent_selection)["observation"], w)
    assert planes[t // 6, r, c] == 1 and planes[6 + t % 6, r, c] == 1 and planes[12, r, c] == 1
    assert planes[:, r, c].sum() == 3 and planes.sum() == 3
    assert features[t] == hand[t] - 1
    # the batch form splits too
    batch = np.stack([obs, obs])
    p, f = split_observation(batch, w)
    assert p.shape == (2, 13, w, w) and f.shape == (2, 126)


def test_observation_leaks_no_hidden_information():
    e = raw_env(num_players=2)
    e.reset(seed=9)
    rng = np.random.default_rng(0)
    for _ in range(30):
        legal = e.observe(e.agent_selection)["action_mask"].view(bool).nonzero()[0]
        e.step(int(legal[rng.integers(len(legal))]))
    watcher = "player_0" if e.agent_selection == "player_1" else "player_1"
    before = e.observe(watcher)
    other = e.agent_name_mapping[e.agent_selection]
    # swap the mover's hand with tiles from the bag, and shuffle the bag
    hand, bag = e.game.hands[other], e.game.bag.tiles
    k = len(hand)
    e.game.hands[other], bag[:k] = sorted(bag[:k]), hand
    bag.reverse()
    after = e.observe(watcher)
    assert np.array_equal(before["observation"], after["observation"])
    assert not before["action_mask"].any()
    view = e.player_view(watcher)
    assert not hasattr(view, "hands") and not hasattr(view, "bag")


def test_same_seed_gives_the_same_game_masks_and_observations():
    def trace(seed):
        e = raw_env(num_players=3)
        e.reset(seed=seed)
        rng = np.random.default_rng(1)
        out = []
        while not e.game.over and len(out) < 300:
            obs = e.observe(e.agent_selection)
            out.append((obs["observation"].tobytes(), obs["action_mask"].tobytes()))
            legal = obs["action_mask"].view(bool).nonzero()[0]
            e.step(int(legal[rng.integers(len(legal))]))
        return out

    assert trace(3) == trace(3)
    assert trace(3) != trace(4)


def test_outside_window_count_is_zero_in_random_games():
    rng = np.random.default_rng(5)
    for num_players in PLAYERS:
        e = raw_env(num_players=num_players)
        for seed in range(3):
            e.reset(seed=seed)
            random_game(e, rng)
            assert e.outside_window == 0


def test_a_small_window_counts_the_legal_moves_it_cannot_show():
    e = raw_env(num_players=2, window=11)
    e.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(400):
        legal = e.observe(e.agent_selection)["action_mask"].view(bool).nonzero()[0]
        e.step(int(legal[rng.integers(len(legal))]))
    assert e.outside_window > 0
    assert e.infos["player_0"]["outside_window"] == e.outside_window


def test_a_window_showing_no_legal_move_truncates_the_episode():
    # Two tiles far apart: the window sits between them, the bag is empty, so the player
    # to move has legal moves but none the window can show.
    e = raw_env(num_players=2, window=11)
    e.reset(seed=0)
    game = e.game
    red, blue = Tile.parse("red circle"), Tile.parse("blue square")
    game.board = Board({(0, 0): red, (0, 100): blue})
    game.bag.tiles = []
    game.hands = [[Tile.parse("red square").id], [Tile.parse("green square").id]]
    game.opening_size = None
    game.current = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e._new_turn()
    assert e.outside_window > 0
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert "too small" in e.infos["player_0"]["truncated"]
    assert not e.observe("player_0")["action_mask"].any()
    for _ in list(e.agents):
        e.step(None)  # PettingZoo's way out for finished agents
    assert not e.agents


# --- codec -------------------------------------------------------------------------------
def test_codec_round_trips_and_describes():
    codec = ActionCodec(39)
    a = codec.place(Tile.parse("red square").id, 3, 4)
    assert codec.decode(a) == ("place", 3, 3, 4)
    assert codec.describe(a) == "place red square at window (3, 4)"
    assert codec.decode(codec.exchange(35)) == ("exchange", 35)
    assert codec.decode(codec.end) == ("end",)
    assert codec.num_actions == 36 * 39 * 39 + 37
    with pytest.raises(ValueError, match="outside the encoding"):
        codec.place(36, 0, 0)


def test_move_to_actions_plays_every_kind_of_engine_move():
    rng = np.random.default_rng(2)
    e = raw_env(num_players=2)
    e.reset(seed=21)
    moves = 0
    while not e.game.over and moves < 40:
        game = e.game
        legal = game.legal_moves()
        move = legal[rng.integers(len(legal))]
        shadow = game.clone()
        expected_points = shadow.apply(move) if game.board else None
        for action in e.codec.move_to_actions(move, game.board, e.origin):
            e.step(action)
        if expected_points is not None:
            assert e.game.history[-1][2] == expected_points
            assert e.game.board == shadow.board
        moves += 1
    assert moves == 40 or e.game.over


def test_env_turn_commits_through_the_engine_rules():
    # Turn.place with the check on refuses what the engine refuses.
    e = raw_env()
    e.reset(seed=0)
    with pytest.raises(IllegalMove):
        e.turn.place((5, 5), e.game.hands[e.game.current][0])


def test_game_from_env_matches_a_game_from_the_same_engine_seed():
    e = raw_env(num_players=2)
    e.reset(seed=123)
    g = Game(2, seed=e.game.seed)
    assert g.hands == e.game.hands and g.bag.tiles == e.game.bag.tiles


def test_player_view_lists_only_moves_the_window_can_show():
    e = raw_env(num_players=2, window=15)
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    shown = 0
    while not e.game.over and not any(e.truncations.values()):
        view = e.player_view()
        if not view.turn_placed and not view.turn_exchange:
            r0, c0 = view.origin
            for items, _ in view.placements():
                if len(view.board):
                    assert all(0 <= r - r0 < 15 and 0 <= c - c0 < 15 for (r, c), _ in items)
                shown += 1
        legal = view.action_mask.view(bool).nonzero()[0]
        e.step(int(legal[rng.integers(len(legal))]))
    assert shown > 0


def test_mover_features_kept_through_the_turn_equal_features_computed_afresh():
    for num_players in PLAYERS:
        e = raw_env(num_players=num_players)
        e.reset(seed=num_players)
        rng = np.random.default_rng(num_players)
        for _ in range(400):
            if e.game.over:
                break
            seat = e.game.current
            obs = e.observe(e.agent_selection)
            fresh = e._observer._features(e.game, e.turn, seat, True)
            assert np.array_equal(split_observation(obs["observation"], e.window)[1], fresh)
            legal = obs["action_mask"].view(bool).nonzero()[0]
            e.step(int(legal[rng.integers(len(legal))]))


def test_planes_kept_and_shifted_between_turns_equal_planes_drawn_afresh():
    from qwirkle_env.observation import Observer

    for window in (DEFAULT_WINDOW, 13):
        e = raw_env(num_players=2, window=window)
        e.reset(seed=window)
        rng = np.random.default_rng(window)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            while not e.game.over and not any(e.truncations.values()):
                obs = e.observe(e.agent_selection)
                fresh = Observer(window, 2)
                fresh.new_turn(e.game, e.origin, e.game.board.bounds())
                r0, c0 = e.origin
                for (r, c), t in e.turn.placed:
                    fresh.place(r - r0, c - c0, t)
                planes = split_observation(obs["observation"], window)[0]
                assert np.array_equal(planes, fresh.planes)
                legal = obs["action_mask"].view(bool).nonzero()[0]
                e.step(int(legal[rng.integers(len(legal))]))
        # a window too small for every legal move ends the game with a warning that says so
        too_small = [w for w in caught if f"window {window} is too small" in str(w.message)]
        assert len(too_small) == int(any(e.truncations.values()))


@pytest.mark.parametrize(
    "call",
    ["step", "observe", "last", "agent_iter", "player_view", "render", "render_svg", "human_frame"],
)
def test_every_call_before_reset_says_call_reset_first(call):
    e = raw_env(render_mode="ansi")
    args = {"step": (0,), "observe": ("player_0",)}.get(call, ())
    with pytest.raises(RuntimeError, match=rf"call reset\(\) before {call}\(\)"):
        getattr(e, call)(*args)
    assert e._repr_svg_() is None  # Jupyter falls back to the text repr


def test_single_agent_view_and_simulator_before_reset_say_call_reset_first():
    from qwirkle_env.opponents import RandomActionOpponent
    from qwirkle_env.vector import VectorQwirkle
    from qwirkle_env.wrappers import SingleAgentEnv

    single = SingleAgentEnv(RandomActionOpponent())
    for call, args in [("step", (0,)), ("action_masks", ())]:
        with pytest.raises(RuntimeError, match=rf"call reset\(\) before {call}\(\)"):
            getattr(single, call)(*args)
    vec = VectorQwirkle(2)
    for call, args in [("step", ([0, 0],)), ("sample_actions", ()), ("observations", ()),
                       ("table", (0,))]:  # fmt: skip
        with pytest.raises(RuntimeError, match=rf"call reset\(\) before {call}\(\)"):
            getattr(vec, call)(*args)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before seats\(\)"):
        vec.seats  # noqa: B018
