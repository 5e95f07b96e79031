"""The whole-move mode of the env: rows, order, the cut at K, the API tests, bad input."""

from __future__ import annotations

import functools
import pickle
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from qwirkle_env import Exchange, Game, IllegalMove, Placement, env, raw_env
from qwirkle_env.actions import ActionCodec
from qwirkle_env.engine.hand import distinct_exchanges
from qwirkle_env.rows import NUM_ROW_FEATURES, move_rows
from qwirkle_env.rows.position import Position
from qwirkle_env.rows.table import (
    DEFAULT_MAX_MOVES,
    NUM_POSITION_FEATURES,
    POS_SCORES,
    move_table,
    observation_size,
    split_observation,
)
from qwirkle_env.spec import ENV_ID

PLAYERS = (2, 3, 4)
# every table of rows made here is checked against the Python reference, bit for bit
pytestmark = pytest.mark.usefixtures("rows_agree")


def play_rows(e, rng, on_step=None) -> list[int]:
    """Random legal rows to the end through the AEC API; returns the rows chosen."""
    chosen = []
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0, "the agent to move always has a row to choose"
        row = int(legal[rng.integers(len(legal))])
        if on_step:
            on_step(e, agent, obs, row)
        e.step(row)
        chosen.append(row)
    return chosen


def game_with_many_moves(more_than: int) -> Game:
    """A position from a seeded random game whose mover has more legal moves than this."""
    rng = np.random.default_rng(0)
    for seed in range(200):
        game = Game(2, seed)
        while not game.over:
            found = game.placements_with_points()
            exchanges = game.legal_exchanges()
            if len(found) + len(exchanges) > more_than and exchanges:
                return game
            k = int(rng.integers(len(found) + len(exchanges)))
            if k < len(found):
                game.apply_placement(list(found[k][0]))
            else:
                game.apply(exchanges[k - len(found)])
    raise AssertionError(f"no position with more than {more_than} moves in 200 games")


# --- PettingZoo's and gymnasium's own tests -----------------------------------------------
@pytest.mark.parametrize("num_players", PLAYERS)
def test_pettingzoo_api_test_in_move_mode(num_players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # Dict observation, as every classic game
        api_test(env(num_players=num_players, action_mode="moves"), num_cycles=200)
        api_test(raw_env(num_players=num_players, action_mode="moves"), num_cycles=200)


@pytest.mark.parametrize("num_players", PLAYERS)
def test_pettingzoo_seed_test_in_move_mode(num_players):
    seed_test(functools.partial(env, num_players=num_players, action_mode="moves"), 150)


@pytest.mark.parametrize("num_players", PLAYERS)
def test_gymnasium_check_env_on_the_single_agent_move_mode(num_players):
    made = gymnasium.make(ENV_ID, opponent="greedy", action_mode="moves", num_players=num_players)
    check_env(made.unwrapped, skip_render_check=True)
    obs, _ = made.reset(seed=1)
    assert obs.shape == (observation_size(DEFAULT_MAX_MOVES),)
    assert made.action_space.n == DEFAULT_MAX_MOVES


@pytest.mark.parametrize("num_players", PLAYERS)
def test_pickle_round_trip_in_move_mode_plays_on_identically(num_players):
    rng = np.random.default_rng(num_players)
    e = raw_env(num_players=num_players, action_mode="moves", reward="margin")
    e.reset(seed=3)
    for _ in range(10):
        e.step(int(rng.choice(np.flatnonzero(e.mover_mask()))))
    copy = pickle.loads(pickle.dumps(e))
    while not e.terminations[e.agent_selection]:
        a, b = e.observe(e.agent_selection), copy.observe(copy.agent_selection)
        assert np.array_equal(a["observation"], b["observation"])
        assert np.array_equal(a["action_mask"], b["action_mask"])
        row = int(rng.choice(np.flatnonzero(a["action_mask"])))
        e.step(row)
        copy.step(row)
        assert e.rewards == copy.rewards
    assert copy.game.scores == e.game.scores


# --- the same game in both modes ----------------------------------------------------------
@pytest.mark.parametrize("num_players", PLAYERS)
def test_move_mode_games_replayed_tile_by_tile_are_identical(num_players):
    for seed in range(3):
        moves_env = raw_env(num_players=num_players, action_mode="moves")
        moves_env.reset(seed=seed)
        played = []

        def record(e, agent, obs, row, played=played):
            played.append((agent, e.candidate_moves()[row]))

        play_rows(moves_env, np.random.default_rng(seed), record)
        tiles_env = raw_env(num_players=num_players)
        tiles_env.reset(seed=seed)
        codec = ActionCodec(tiles_env.window)
        for agent, move in played:
            assert tiles_env.agent_selection == agent
            board = tiles_env.game.board
            for action in codec.move_to_actions(move, board, tiles_env.origin):
                tiles_env.step(action)
        assert tiles_env.game.to_dict() == moves_env.game.to_dict()
        assert tiles_env.game.over and moves_env.game.over


def test_move_mode_rewards_match_the_tile_mode_for_every_reward_kind():
    for reward in ("win", "points", "margin"):
        e = raw_env(num_players=3, action_mode="moves", reward=reward)
        e.reset(seed=4)
        totals = dict.fromkeys(e.possible_agents, 0.0)
        for agent in e.agent_iter():
            obs, r, term, trunc, _ = e.last()
            totals[agent] += r
            if term or trunc:
                e.step(None)
                continue
            e.step(0)
        scores = e.game.scores if e.game else None
        assert abs(sum(totals.values())) < 1e-9 or reward == "points"
        if reward == "points":
            assert [totals[a] for a in e.possible_agents] == pytest.approx(scores)


# --- rows: order, content, cut --------------------------------------------------------------
def test_rows_are_placements_by_points_then_exchanges_and_match_candidate_moves():
    e = raw_env(action_mode="moves")
    e.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(30):
        obs = e.observe(e.agent_selection)
        moves = e.candidate_moves()
        n = int(obs["action_mask"].sum())
        assert obs["action_mask"][:n].all() and not obs["action_mask"][n:].any()
        assert len(moves) == n
        position, rows = split_observation(obs["observation"], DEFAULT_MAX_MOVES)
        assert not rows[n:].any(), "padding rows are zero"
        kinds = [isinstance(m, Placement) for m in moves]
        assert kinds == sorted(kinds, reverse=True), "placements first, then exchanges"
        points = [e.game.board.score(list(m.tiles)) for m in moves if isinstance(m, Placement)]
        assert points == sorted(points, reverse=True)
        found = move_rows(Position.of_game(e.game))
        assert sorted(map(tuple, rows[:n].tolist())) == sorted(map(tuple, found.features.tolist()))
        e.step(int(rng.integers(n)))


def test_position_part_holds_hand_scores_and_seats_from_the_observer():
    e = raw_env(num_players=3, action_mode="moves")
    e.reset(seed=2)
    for _ in range(6):
        e.step(0)
    seat = e.game.current
    position, _ = split_observation(e.observe(e.agent_selection)["observation"], e.max_moves)
    assert position.shape == (NUM_POSITION_FEATURES,)
    assert position[:36].sum() * 3 == pytest.approx(len(e.game.hands[seat]))
    expected = [e.game.scores[(seat + k) % 3] / 100 for k in range(3)] + [0.0]
    assert position[POS_SCORES : POS_SCORES + 4] == pytest.approx(expected)


def test_a_position_with_more_moves_than_k_keeps_the_first_k_and_counts_the_cut():
    game = game_with_many_moves(DEFAULT_MAX_MOVES)
    every = len(game.placements_with_points()) + len(game.legal_exchanges())
    e = raw_env(action_mode="moves")
    e.reset(options={"game": game})
    obs, _, _, _, info = e.last()
    assert obs["action_mask"].all(), "all K rows hold a move"
    assert info["moves_cut"] == every - DEFAULT_MAX_MOVES > 0
    assert info["moves_cut_total"] >= info["moves_cut"]
    full = move_table(Position.of_game(game), 10_000)
    assert [m for m in full.moves[:DEFAULT_MAX_MOVES]] == e.move_table().moves
    assert full.cut == 0 and len(full) == every
    # the cut takes the lowest-scoring placements and the exchanges (they come last)
    kept_points = e.move_table().points
    assert kept_points.min() >= full.points[DEFAULT_MAX_MOVES:].max()
    # a move left out can still be played by step_move
    left_out = e.move_table().moves[-1]
    assert isinstance(left_out, Placement)
    exchange = Exchange(game.legal_exchanges()[0].tiles)
    e.step_move(exchange)
    assert e.game.history[-1][1] == exchange


def test_small_max_moves_cuts_in_the_documented_order():
    e = raw_env(action_mode="moves", max_moves=3)
    e.reset(seed=0)
    e.step(0)
    obs, _, _, _, info = e.last()
    full = move_table(Position.of_game(e.game), 10_000)
    assert obs["action_mask"].tolist() == [1, 1, 1]
    assert info["moves_cut"] == len(full) - 3
    assert e.move_table().moves == full.moves[:3]


def test_same_seed_same_rows_and_masks():
    def trace(seed):
        e = raw_env(num_players=2, action_mode="moves")
        e.reset(seed=seed)
        out = []
        play_rows(e, np.random.default_rng(7), lambda e, a, obs, row: out.append(obs))
        return out

    a, b = trace(5), trace(5)
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x["observation"], y["observation"])
        assert np.array_equal(x["action_mask"], y["action_mask"])


# --- the single-agent view against scripted opponents --------------------------------------
def test_single_agent_move_mode_against_greedy_plays_whole_games():
    made = gymnasium.make(ENV_ID, opponent="greedy", action_mode="moves", seat=None)
    for seed in range(3):
        obs, info = made.reset(seed=seed)
        done = False
        while not done:
            mask = made.unwrapped.action_masks()
            assert mask.dtype == bool and mask.any()
            obs, reward, term, trunc, info = made.step(int(np.flatnonzero(mask)[0]))
            done = term or trunc
        assert reward in (-1.0, 0.0, 1.0)
        assert made.unwrapped.env.game.over


# --- bad input ------------------------------------------------------------------------------
def test_unknown_action_mode_names_the_allowed_ones():
    with pytest.raises(ValueError, match=r"action_mode must be one of \('tiles', 'moves'\)"):
        raw_env(action_mode="move")


@pytest.mark.parametrize("bad", [0, -1, 5000, 2.5, "9", True])
def test_bad_max_moves_is_refused(bad):
    with pytest.raises(ValueError, match="max_moves must be"):
        raw_env(action_mode="moves", max_moves=bad)


def test_options_of_the_other_mode_are_refused():
    with pytest.raises(ValueError, match='max_moves applies to action_mode="moves" only'):
        raw_env(max_moves=64)
    with pytest.raises(ValueError, match='window applies to action_mode="tiles" only'):
        raw_env(action_mode="moves", window=39)
    e = raw_env()
    e.reset(seed=0)
    with pytest.raises(RuntimeError, match='is for action_mode="moves"'):
        e.candidate_moves()


def test_a_row_past_the_moves_or_past_k_says_what_is_allowed():
    e = raw_env(action_mode="moves", max_moves=64)
    e.reset(seed=0)
    n = int(e.mover_mask().sum())
    assert n < 64
    with pytest.raises(ValueError, match=rf"row {n} is masked: player_\d has {n} legal moves"):
        e.step(n)
    with pytest.raises(ValueError, match=r"out of range: rows are 0\.\.63"):
        e.step(64)
    with pytest.raises(ValueError, match=r"out of range"):
        e.step(-1)
    with pytest.raises(ValueError, match="a row index"):
        e.step("0")


def test_step_move_refuses_an_illegal_move():
    e = raw_env(action_mode="moves")
    e.reset(seed=0)
    e.step(0)
    hand = e.game.hands[e.game.current]
    from qwirkle_env import Tile

    far = Placement([((50, 50), Tile.from_id(hand[0]))])
    with pytest.raises(IllegalMove):
        e.step_move(far)
    with pytest.raises(TypeError, match="Placement or an Exchange"):
        e.step_move("a move")


@pytest.mark.parametrize("mode", ["tiles", "moves"])
def test_a_step_after_every_agent_is_done_says_the_game_is_over(mode):
    e = raw_env(action_mode=mode)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    if mode == "moves":
        play_rows(e, rng)
    else:
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert not e.agents
    with pytest.raises(RuntimeError, match="the game is over and every agent has been removed"):
        e.step(0)


@pytest.mark.parametrize("mode", ["tiles", "moves"])
@pytest.mark.parametrize("seed", ["x", 1.5, True, [1]])
def test_a_seed_that_is_not_an_int_is_refused(mode, seed):
    e = raw_env(action_mode=mode)
    with pytest.raises(TypeError, match="seed must be an int or None"):
        e.reset(seed=seed)


def test_distinct_exchanges_are_rows_too():
    e = raw_env(action_mode="moves", max_moves=DEFAULT_MAX_MOVES)
    e.reset(seed=8)
    e.step(0)
    moves = e.candidate_moves()
    exchanges = [m for m in moves if isinstance(m, Exchange)]
    hand = e.game.hands[e.game.current]
    assert len(exchanges) == len(distinct_exchanges(hand, len(e.game.bag)))
    _, rows = split_observation(e.observe(e.agent_selection)["observation"], e.max_moves)
    assert rows.shape[1] == NUM_ROW_FEATURES
    assert (rows[len(moves) - len(exchanges) : len(moves), 9] == 1.0).all()
