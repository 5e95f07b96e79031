"""The batched simulator plays exactly the AEC env's games, and says clearly what it rejects.

The differential test runs ~1,000 games side by side: the same seeds, the same random legal
actions, and at every step the same mask, observation, rewards, terminations, truncations,
final scores and window counts.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

from qwirkle_env import Game, raw_env
from qwirkle_env.vector import VectorQwirkle
from qwirkle_env.vector.mt19937 import (
    new_generators,
    next_word,
    randbelow,
    randrange63,
    seed_key,
    seed_state,
    shuffle,
)
from qwirkle_env.vector.tiles.compact import (
    dense_mask,
    dense_observation,
    dense_planes,
    legal_count,
    torch_dense_mask,
    torch_masked_logits,
    torch_planes,
)
from tests.conftest import greedy_until, nearly_dead_table


def play_side_by_side(n_games, seed, max_steps=10**6, games=None, **options):
    """Steps ``n_games`` AEC envs and one simulator together; asserts they agree. With
    ``games`` (engine Games), both start from those positions instead of fresh deals."""
    window = options.get("window", 39)
    vec = VectorQwirkle(n_games, autoreset=False, **options)
    env_options = {k: v for k, v in options.items() if k != "grid"}
    obs, _ = vec.reset(seed=seed)
    envs = [raw_env(**env_options) for _ in range(n_games)]
    for i, env in enumerate(envs):
        if games is None:
            env.reset(seed=seed + i)
        else:
            env.reset(options={"game": games[i]})
            obs = vec.load(i, games[i])
    rng = np.random.default_rng(seed)
    live = np.ones(n_games, dtype=bool)
    seen = {"steps": 0, "truncated": 0, "outside": 0, "shifted": 0}
    for step in range(max_steps):
        if not live.any():
            break
        if step % 50 == 0:  # the dense forms too, now and then (they cost 55k entries a game)
            for i in np.flatnonzero(live):
                expected = envs[i].observe(envs[i].agent_selection)["action_mask"]
                np.testing.assert_array_equal(dense_mask(obs["action_mask"][i]), expected)
        actions = np.full(n_games, -1, dtype=np.int64)
        for i in np.flatnonzero(live):
            env = envs[i]
            expected = env.observe(env.agent_selection)
            legal = expected["action_mask"].view(bool).nonzero()[0]
            assert compact_of(legal, window).tolist() == obs["action_mask"][i].tolist(), i
            ours = dense_observation(obs["board"][i], obs["features"][i])
            np.testing.assert_array_equal(ours, expected["observation"], err_msg=f"game {i}")
            assert vec.state.current[i] == env.agent_name_mapping[env.agent_selection]
            actions[i] = legal[rng.integers(len(legal))]
        obs, rewards, terminations, truncations, infos = vec.step(actions)
        seen["steps"] += int(live.sum())
        seen["shifted"] += int((vec.state.base != vec.state.cfg[0] // 2).any(axis=1).sum())
        for i in np.flatnonzero(live):
            env = envs[i]
            env.step(int(actions[i]))
            expected = [env.rewards[a] for a in env.possible_agents]
            assert rewards[i].tolist() == expected, f"game {i}"
            assert terminations[i] == any(env.terminations.values())
            assert truncations[i] == any(env.truncations.values())
            assert infos["outside_window"][i] == env.outside_window
            if terminations[i] or truncations[i]:
                live[i] = False
                assert infos["final_scores"][i].tolist() == env.game.scores
                assert infos["final_outside_window"][i] == env.outside_window
                seen["truncated"] += int(truncations[i])
                seen["outside"] += env.outside_window
    return seen


def compact_of(legal: np.ndarray, window: int) -> np.ndarray:
    """The compact mask of these legal action indices (the inverse of ``dense_mask``)."""
    cells = window * window
    compact = np.zeros(cells + 1, dtype=np.int64)
    place = legal[legal < 36 * cells]
    np.bitwise_or.at(compact, place % cells, np.left_shift(1, place // cells))
    rest = legal[legal >= 36 * cells] - 36 * cells
    compact[cells] = np.bitwise_or.reduce(np.left_shift(1, rest)) if len(rest) else 0
    return compact


DIFFERENTIAL = [
    # (games, seed, options)
    (250, 0, {}),
    (250, 1000, {}),
    (150, 2000, {"num_players": 3, "reward": "points"}),
    (150, 3000, {"num_players": 4, "reward": "margin"}),
    (100, 4000, {"strict_opening": False, "reward": "points"}),
    (100, 5000, {"grid": 44}),  # small grid: tables move back to its middle
]


@pytest.mark.parametrize("n_games,seed,options", [(n // 5, s, o) for n, s, o in DIFFERENTIAL])
def test_differential_same_games_as_the_aec_env(n_games, seed, options):
    """A fifth of the games in CI; ``test_differential_all_games`` plays them all."""
    warnings.simplefilter("ignore")
    seen = play_side_by_side(n_games, seed, **options)
    assert seen["steps"] > 200 * n_games
    if options.get("grid"):
        assert seen["shifted"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("n_games,seed,options", DIFFERENTIAL)
def test_differential_all_games(n_games, seed, options):
    test_differential_same_games_as_the_aec_env(n_games, seed, options)


def test_differential_small_window_truncates_and_counts_outside_moves():
    # Small windows can hide every placement and leave only exchanges, so some games never
    # end (in the AEC env too): compare the first 1,500 steps.
    warnings.simplefilter("ignore")
    seen = play_side_by_side(40, 6000, max_steps=1500, window=13)
    assert seen["truncated"] > 0
    assert seen["outside"] > 0


def test_differential_from_crafted_games_endgames_and_dead_tables():
    """The simulator loaded from engine Games (empty bag, nearly empty bag, a table about to
    die, a forced opening) plays on exactly as the AEC env does from the same Games."""
    warnings.simplefilter("ignore")
    rng = random.Random(0)
    games = [greedy_until(Game(2 + k % 3, seed=k), k % 4, rng) for k in range(30)]
    games = [g for g in games if not g.over] + [nearly_dead_table()] * 4
    games += [Game(n, seed=100 + k) for k in range(4) for n in (2, 3, 4)]  # forced openings
    players = {g.num_players for g in games}
    for n in sorted(players):
        chosen = [g for g in games if g.num_players == n]
        seen = play_side_by_side(len(chosen), 7000 + n, games=chosen, num_players=n)
        assert seen["steps"] > 0
    dead = nearly_dead_table()
    vec = VectorQwirkle(1, autoreset=False)
    vec.reset(seed=0)
    vec.load(0, dead)
    env = raw_env()
    env.reset(options={"game": dead})
    assert env.game.bag_size > 0
    for _ in range(200):
        if env.game.over:
            break
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        action = int(legal[-1] if len(legal) == 1 else legal[0])
        env.step(action)
        vec.step(np.array([action]))
    assert env.game.over and env.game.bag_size > 0  # ended by the dead table, bag not empty
    assert vec.state.over[0] and vec.state.scores[0, :2].tolist() == env.game.scores


def test_loading_a_game_says_what_is_wrong():
    vec = VectorQwirkle(2)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before load"):
        vec.load(0, Game(2, seed=0))
    vec.reset(seed=0)
    with pytest.raises(ValueError, match="slot must be an int in 0..1"):
        vec.load(2, Game(2, seed=0))
    with pytest.raises(ValueError, match="3 players"):
        vec.load(0, Game(3, seed=0))
    with pytest.raises(TypeError, match="engine Game"):
        vec.load(0, "a game")
    over = greedy_until(Game(2, seed=1), -1, random.Random(1))
    with pytest.raises(ValueError, match="over"):
        vec.load(0, over)
    with pytest.raises(ValueError, match="over"):
        raw_env().reset(options={"game": over})


def test_differential_total_is_at_least_1000_games():
    assert sum(n for n, _, _ in DIFFERENTIAL) + 40 >= 1000


def test_autoreset_slot_continues_like_an_env_reset_without_seed():
    vec = VectorQwirkle(3, autoreset=True)
    vec.reset(seed=42)
    env = raw_env()
    env.reset(seed=43)  # slot 1
    first_scores = None
    rng = np.random.default_rng(0)
    for _ in range(5000):
        _, _, terminations, truncations, infos = vec.step(vec.sample_actions(rng))
        if terminations[1]:
            first_scores = infos["final_scores"][1].tolist()
            break
    assert first_scores is not None
    # The next game in slot 1 is the env's second game: same hands, same opener.
    env.reset()
    assert vec.state.current[1] == env.game.current
    for seat, hand in enumerate(env.game.hands):
        assert vec.state.hands[1, seat, :6].tolist() == hand
    assert vec.state.game_seed[1] == env.game.seed


def test_same_seed_same_games():
    runs = []
    for _ in range(2):
        vec = VectorQwirkle(8)
        obs, _ = vec.reset(seed=7)
        rng = np.random.default_rng(1)
        trace = []
        for _ in range(300):
            obs, rewards, term, trunc, _ = vec.step(vec.sample_actions(rng))
            trace.append((obs["board"].sum(), obs["action_mask"].sum(), rewards.sum(), term.sum()))
        runs.append(trace)
    assert runs[0] == runs[1]


def test_sample_actions_are_legal_and_cover_the_mask():
    vec = VectorQwirkle(16)
    obs, _ = vec.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(400):
        actions = vec.sample_actions(rng)
        dense = dense_mask(obs["action_mask"])
        assert dense[np.arange(16), actions].all()
        obs, *_ = vec.step(actions)
    # every legal action of a position is drawn eventually
    mask = dense_mask(obs["action_mask"][:1])[0]
    drawn = {int(vec.sample_actions(rng)[0]) for _ in range(3000)}
    assert drawn == set(np.flatnonzero(mask).tolist())


def test_copy_option():
    vec = VectorQwirkle(2, copy=True)
    obs, _ = vec.reset(seed=0)
    before = obs["action_mask"].copy()
    vec.step(vec.sample_actions(np.random.default_rng(0)))
    np.testing.assert_array_equal(obs["action_mask"], before)  # ours, not the simulator's
    views = VectorQwirkle(2, copy=False)
    obs, _ = views.reset(seed=0)
    assert obs["action_mask"] is views.state.mask


def test_dense_option_gives_the_aec_envs_observation():
    vec = VectorQwirkle(3, dense=True)
    obs, _ = vec.reset(seed=20)
    envs = [raw_env() for _ in range(3)]
    for i, env in enumerate(envs):
        env.reset(seed=20 + i)
    rng = np.random.default_rng(0)
    for _ in range(40):
        for i, env in enumerate(envs):
            expected = env.observe(env.agent_selection)
            np.testing.assert_array_equal(obs["observation"][i], expected["observation"])
            np.testing.assert_array_equal(obs["action_mask"][i], expected["action_mask"])
        assert vec.single_observation_space.contains({k: v[0] for k, v in obs.items()})
        actions = vec.sample_actions(rng)
        obs, *_ = vec.step(actions)
        for i, env in enumerate(envs):
            env.step(int(actions[i]))


def test_compact_observations_fit_their_space():
    vec = VectorQwirkle(2)
    obs, _ = vec.reset(seed=0)
    assert vec.single_observation_space.contains({k: v[1] for k, v in obs.items()})
    assert vec.single_action_space.n == vec.num_actions


def test_compact_helpers_match_dense_forms():
    vec = VectorQwirkle(4)
    obs, _ = vec.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(60):
        obs, *_ = vec.step(vec.sample_actions(rng))
    dense = dense_mask(obs["action_mask"])
    assert legal_count(obs["action_mask"]).tolist() == dense.sum(axis=1).tolist()
    torch_mask = torch_dense_mask(torch.from_numpy(obs["action_mask"]))
    assert torch.equal(torch_mask, torch.from_numpy(dense.astype(bool)))
    logits = torch.randn(4, vec.num_actions)
    masked = torch_masked_logits(logits, torch.from_numpy(obs["action_mask"]))
    assert torch.equal(masked > -1e7, torch_mask)
    entropy = torch.distributions.Categorical(logits=masked).entropy()
    assert torch.isfinite(entropy).all()
    planes = torch_planes(torch.from_numpy(obs["board"]))
    np.testing.assert_array_equal(planes.numpy(), dense_planes(obs["board"]))


# --- errors -------------------------------------------------------------------------------
def test_illegal_action_names_game_action_and_rule():
    vec = VectorQwirkle(2)
    obs, _ = vec.reset(seed=0)
    actions = vec.sample_actions(np.random.default_rng(0))
    illegal = int(np.flatnonzero(dense_mask(obs["action_mask"][1:2])[0] == 0)[0])
    actions[1] = illegal
    with pytest.raises(ValueError, match=r"game 1 .*not legal now"):
        vec.step(actions)


@pytest.mark.parametrize(
    "actions,message",
    [
        ([0], r"shape \(2,\)"),
        ([0.5, 1.0], "integers"),
        ([-1, -1], "only for finished games"),
        ([10**9, 0], "out of range"),
    ],
)
def test_bad_actions_are_rejected(actions, message):
    vec = VectorQwirkle(2)
    vec.reset(seed=0)
    with pytest.raises(ValueError, match=message):
        vec.step(np.array(actions))


def test_finished_game_without_autoreset_takes_only_minus_one():
    vec = VectorQwirkle(1, autoreset=False)
    vec.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(5000):
        _, _, term, trunc, _ = vec.step(vec.sample_actions(rng))
        if term[0] or trunc[0]:
            break
    assert vec.sample_actions(rng)[0] == -1
    with pytest.raises(ValueError, match="must be -1"):
        vec.step(np.array([0]))
    vec.step(np.array([-1]))  # accepted, nothing happens


def test_bad_options_and_order():
    with pytest.raises(ValueError, match="num_players"):
        VectorQwirkle(2, num_players=5)
    with pytest.raises(ValueError, match="num_envs"):
        VectorQwirkle(0)
    with pytest.raises(ValueError, match="window"):
        VectorQwirkle(2, window=5)
    with pytest.raises(ValueError, match="reward"):
        VectorQwirkle(2, reward="score")
    with pytest.raises(RuntimeError, match="reset"):
        VectorQwirkle(2).step(np.array([0, 0]))
    with pytest.raises(ValueError, match="list of 2 ints"):
        VectorQwirkle(2).reset(seed=[1])


# --- randomness -----------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 12345, 2**32, 2**63 - 5, -7, 2**70 + 3])
def test_mt19937_is_pythons_random(seed):
    state, pos = new_generators(1)
    seed_state(state, pos, 0, seed_key(seed))
    ours = random.Random(seed)
    assert [next_word(state, pos, 0) for _ in range(700)] == [
        ours.getrandbits(32) for _ in range(700)
    ]
    assert randrange63(state, pos, 0) == ours.randrange(2**63)
    assert randbelow(state, pos, 0, 3) == ours.choice(range(3))
    items = np.arange(108, dtype=np.int8)
    shuffle(state, pos, 0, items, 108)
    expected = list(range(108))
    ours.shuffle(expected)
    assert items.tolist() == expected


def test_pure_python_fallback_plays_the_same_game():
    """NUMBA_DISABLE_JIT runs the kernels as the plain Python a machine without numba gets."""
    code = (
        "import numpy as np; from qwirkle_env.vector import VectorQwirkle\n"
        "v = VectorQwirkle(1); v.reset(seed=5); rng = np.random.default_rng(0)\n"
        "for _ in range(120): o, r, *_ = v.step(v.sample_actions(rng))\n"
        "print(int(o['board'].sum()), int(o['action_mask'].sum()), o['features'].sum())\n"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    slow = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    fast = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert slow.returncode == 0, slow.stderr
    assert slow.stdout == fast.stdout


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_envs": 0}, "num_envs must be a positive int, got 0"),
        ({"num_players": 5}, "num_players must be 2, 3 or 4, got 5"),
        ({"num_players": True}, "num_players must be 2, 3 or 4, got True"),
        ({"window": 9}, "window must be an int >= 11, got 9"),
        ({"reward": "score"}, "reward must be one of .*got 'score'"),
        ({"grid": 16}, "grid must be an int >= 32, got 16"),
    ],
)
def test_bad_simulator_options_say_what_is_allowed(options, message):
    with pytest.raises(ValueError, match=message):
        VectorQwirkle(**{"num_envs": 2, **options})
