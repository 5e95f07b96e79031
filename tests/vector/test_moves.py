"""The batched move simulator plays exactly the move-mode env's games.

The differential test steps ``VectorMoves`` beside ``raw_env(action_mode="moves")`` envs
on the same seeds with the same random legal rows, and at every turn compares the
observation and mask bit for bit, the seat to move, the rewards, the rows cut, the game
ends and the final scores; with automatic reset it goes on into each slot's next games,
as the env's ``reset()`` without a seed. Random rows exchange often (most of a table's
rows are exchanges), so the games pass through exchanges, empty bags and endgames.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys

import numpy as np
import pytest

from qwirkle_env import Board, Color, Exchange, Game, Shape, Tile, raw_env
from qwirkle_env.engine.compiled import (
    REACH_CELLS,
    TABLE_SIZE,
    cell_hashes,
    opening_rows,
    set_order,
)
from qwirkle_env.engine.lines import mask_of
from qwirkle_env.engine.placements import opening_placements, rows_of
from qwirkle_env.vector.moves import VectorMoves
from qwirkle_env.vector.moves import table as move_table
from tests.conftest import greedy_until, nearly_dead_table


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal dtype, shape and bytes: bit for bit, -0.0 and NaN payloads included."""
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def play_side_by_side(seed, n_slots, turns, games=None, greedy=0.0, **options):
    """Steps ``n_slots`` envs and one simulator ``turns`` turns; asserts they agree at
    every turn. The rows are random, or row 0 (the highest score) with chance ``greedy``.
    With ``games`` (engine Games), both start from those positions instead of fresh deals.
    Returns what was seen (turns, games ended, exchanges, rows cut...)."""
    vec = VectorMoves(n_slots, **options)
    shared = ("num_players", "reward", "max_moves", "strict_opening")
    env_options = {k: v for k, v in options.items() if k in shared}
    envs = [raw_env(action_mode="moves", **env_options) for _ in range(n_slots)]
    obs, masks = vec.reset(seed=seed)
    for i, env in enumerate(envs):
        env.reset(seed=seed + i)
        if games is not None:
            env.reset(options={"game": games[i]})
            obs, masks = vec.load(i, games[i])
    rng = random.Random(seed)
    seen = {"turns": 0, "games": 0, "exchanges": 0, "cut": 0, "bonus": 0, "skips": 0, "dead": 0}
    for turn in range(turns):
        rows = np.empty(n_slots, np.int64)
        for i, env in enumerate(envs):
            agent = env.agent_selection
            mine = env.observe(agent)
            where = f"slot {i}, turn {turn}, {agent}"
            assert vec.seats[i] == env.agent_name_mapping[agent], where
            assert same_bits(mine["action_mask"], masks[i]), f"mask differs: {where}"
            if not same_bits(mine["observation"], obs[i]):
                diff = np.flatnonzero(mine["observation"] != obs[i])
                raise AssertionError(f"observation differs at {diff[:10]}: {where}")
            table = env.move_table()
            assert vec.state.cut[i] == table.cut, where
            seen["cut"] += table.cut
            rows[i] = 0 if rng.random() < greedy else rng.randrange(len(table))
            ours, theirs = vec.move(i, int(rows[i])), table.move(int(rows[i]))
            assert getattr(ours, "items", None) == getattr(theirs, "items", None), where
            assert ours == theirs, where
            seen["exchanges"] += isinstance(table.move(int(rows[i])), Exchange)
        obs, masks, rewards, dones, infos = vec.step(rows)
        for i, env in enumerate(envs):
            env.step(int(rows[i]))
            where = f"slot {i}, turn {turn}"
            expected = [env.rewards[a] for a in env.possible_agents]
            assert rewards[i].tolist() == expected, where
            assert dones[i] == env.game.over, where
            if env.game.over:
                assert infos["final_scores"][i].tolist() == env.game.scores, where
                seen["games"] += 1
                seen["bonus"] += env.game.bonus_seat is not None
                seen["skips"] += len(env.game.skips)
                seen["dead"] += env.game.bag_size > 0
                env.reset()
        seen["turns"] += n_slots
    vec.close()
    return seen


@pytest.mark.parametrize("players", [2, 3, 4])
def test_plays_the_env_games(players):
    seen = play_side_by_side(100 + players, 3, 150, num_players=players, reward="margin")
    assert seen["games"] >= 3 and seen["exchanges"] > 50, seen


def test_plays_the_env_games_cut_and_win_rewards():
    """A small K cuts rows (the cut is counted as the env counts it); "win" rewards."""
    seen = play_side_by_side(7, 2, 120, max_moves=24, reward="win")
    assert seen["games"] >= 2 and seen["cut"] > 0, seen


def test_plays_the_env_games_relaxed_opening_on_two_threads():
    """Any opening line (not only a largest group), 4 slots stepped by two threads."""
    seen = play_side_by_side(31, 4, 80, strict_opening=False, threads=2, num_players=3)
    assert seen["turns"] == 320 and seen["cut"] > 0, seen


def skipping_game() -> Game:
    """Bag empty, player 1 holds a green star4 that fits nowhere: skipped every round."""

    def tile(name: str) -> int:
        colour, shape = name.split()
        return Tile(Color[colour.upper()], Shape[shape.upper()]).id

    hands = [
        sorted(tile(x) for x in ("red diamond", "red clover", "red star8")),
        [tile("green star4")],
        sorted(tile(x) for x in ("blue square", "blue circle")),
    ]
    board = Board(
        {(0, 0): Tile.from_id(tile("red circle")), (0, 1): Tile.from_id(tile("red square"))}
    )
    return Game.from_parts(
        num_players=3, seed=9, strict_opening=True, rng=random.Random(9), board=board, bag=[],
        hands=hands, scores=[10, 12, 9], history=[], skips=[], bonus_seat=None, over=False,
        current=0, opening_size=None,
    )  # fmt: skip


@pytest.mark.parametrize("players", [2, 3, 4])
def test_plays_the_env_games_from_crafted_positions(players):
    """Endgames (a bag of 0 to 3 tiles), a table about to die (its game ends with tiles
    in the bag) and a seat skipped for want of a move, loaded into both."""
    rng = random.Random(players)
    games = [greedy_until(Game(players, seed=k), k % 4, rng) for k in range(12)]
    games = [g for g in games if not g.over]
    games += [nearly_dead_table()] if players == 2 else []
    games += [skipping_game()] if players == 3 else []
    seen = play_side_by_side(
        50 + players, len(games), 80, games=games, greedy=0.8, num_players=players
    )
    assert seen["games"] >= len(games) - 2, seen  # a few may exchange on for a while
    assert seen["dead"] >= (players == 2) and seen["skips"] >= (players == 3), seen


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("reward", ["win", "points", "margin"])
def test_plays_the_env_games_long(players, reward):
    """Random play (it exchanges often) and mostly greedy play (larger tables)."""
    seed = 1000 + 10 * players + ("win", "points", "margin").index(reward)
    greedy = {"win": 0.0, "points": 0.5, "margin": 0.9}[reward]
    seen = play_side_by_side(seed, 8, 700, greedy=greedy, num_players=players, reward=reward)
    assert seen["games"] >= 30 and seen["bonus"] > 0, seen


def test_the_comparison_is_bit_exact():
    """One ulp in one feature is a difference: the check above is not approximate."""
    env = raw_env(action_mode="moves")
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)["observation"]
    nudged = obs.copy()
    nudged[100] = np.nextafter(nudged[100], np.float32(np.inf))
    assert same_bits(obs, obs.copy()) and not same_bits(obs, nudged)


def test_a_table_longer_than_the_scratch_gets_a_longer_one():
    """The kernels allocate nothing: a table that does not fit their scratch is not shown
    (it says what it needs) and is shown again, the same, with a longer scratch."""
    vec = VectorMoves(4, copy=False)
    vec.reset(seed=3)
    for _ in range(6):
        vec.step(np.zeros(4, np.int64))  # the highest-scoring rows: the tables grow
    s = vec.state
    obs, masks, moves = s.obs.copy(), s.mask.copy(), s.moves.copy()
    need = np.zeros(2, np.int64)
    short = move_table.make_scratch(1, 1)
    for i in range(4):
        assert not move_table.show(s, i, short, need)
        assert need[0] > 1 and need[1] >= need[0]
        s.obs[i], s.mask[i] = 0, 0  # shown again below
        longer = move_table.show_in_full(s, i, short, need)
        assert len(longer.rows) >= need[0] and len(longer.features) >= need[1]
    assert same_bits(s.obs, obs) and same_bits(s.mask, masks) and same_bits(s.moves, moves)


def test_set_order_is_pythons():
    """Cells leave the set in the order CPython iterates them (the frontier's order)."""
    hashes = cell_hashes()
    rng = random.Random(5)
    slots = np.empty(TABLE_SIZE, np.int64)
    scratch = np.empty(TABLE_SIZE, np.int64)
    out = np.empty(TABLE_SIZE, np.int64)
    old = np.empty((2, TABLE_SIZE), np.int64)
    for _ in range(3000):
        span = rng.choice([2, 6, 40, REACH_CELLS - 1])
        cells = [
            (rng.randint(-span, span), rng.randint(-span, span)) for _ in range(rng.randint(1, 30))
        ]
        keys = np.array([(r + REACH_CELLS) * 256 + c + REACH_CELLS for r, c in cells], np.int64)
        key_hashes = np.array([hashes[r + REACH_CELLS, c + REACH_CELLS] for r, c in cells])
        m = set_order(keys, key_hashes, len(cells), slots, scratch, out, old)
        got = [(int(k) // 256 - REACH_CELLS, int(k) % 256 - REACH_CELLS) for k in out[:m]]
        assert got == list(set(cells)), cells


@pytest.mark.parametrize("size", [0, 1, 2, 3, 6])
def test_opening_rows_are_the_engines(size):
    rng = random.Random(size)
    out = np.zeros((4096, 20), np.int64)
    hands = [
        mask_of(range(6)),
        mask_of(range(0, 36, 6)),
        *(mask_of(rng.sample(range(36), 6)) for _ in range(30)),
    ]
    for hand in hands:
        expected = rows_of([p for p in opening_placements(hand) if not size or len(p[0]) == size])
        n = opening_rows(hand, size, out)
        assert np.array_equal(out[:n], expected), hand


def test_bad_rows_are_refused_with_what_is_allowed():
    vec = VectorMoves(2, autoreset=False)
    with pytest.raises(RuntimeError, match="reset"):
        vec.step([0, 0])
    _, masks = vec.reset(seed=1)
    shown = masks.sum(axis=1)
    with pytest.raises(ValueError, match="shape"):
        vec.step([0])
    with pytest.raises(ValueError, match="integers"):
        vec.step([0.0, 0.0])
    with pytest.raises(ValueError, match=f"masked.*rows 0..{shown[0] - 1}"):
        vec.step([int(shown[0]), 0])
    with pytest.raises(ValueError, match="out of range: rows are 0..255"):
        vec.step([0, 256])
    with pytest.raises(ValueError, match="out of range"):
        vec.step([-1, 0])
    for bad in ({"num_envs": 0}, {"num_players": 5}, {"reward": "x"}, {"max_moves": 0},
                {"threads": 0}):  # fmt: skip
        options = {"num_envs": 1, **bad}
        with pytest.raises(ValueError):
            VectorMoves(**options)
    with pytest.raises(ValueError, match="list of 2 ints"):
        vec.reset(seed="x")


def test_without_autoreset_a_finished_game_waits():
    vec = VectorMoves(2, autoreset=False, reward="points")
    vec.reset(seed=11)
    rng = np.random.default_rng(0)
    scores = np.zeros((2, 2))
    for _ in range(400):
        rows = vec.sample_rows(rng)
        _, masks, rewards, dones, infos = vec.step(rows)
        scores += rewards
        over = vec.state.over
        assert not masks[over].any()
        if over.all():
            break
    assert vec.state.over.all()
    # "points" rewards sum to each seat's final score
    assert scores.tolist() == infos["final_scores"].tolist()
    with pytest.raises(ValueError, match="must be -1"):
        vec.step([0, 0])
    _, masks = vec.reset_done()
    assert masks.any(axis=1).all() and not vec.state.over.any()


def test_pure_python_fallback_plays_the_same_game():
    """NUMBA_DISABLE_JIT runs the kernels as the plain Python a machine without numba gets."""
    code = (
        "import hashlib, numpy as np; from qwirkle_env.vector.moves import VectorMoves\n"
        "v = VectorMoves(1, reward='margin'); o, m = v.reset(seed=5)\n"
        "rng = np.random.default_rng(0); h = hashlib.sha256()\n"
        "for _ in range(40):\n"
        "    o, m, r, d, i = v.step(v.sample_rows(rng)); h.update(o.tobytes() + r.tobytes())\n"
        "print(h.hexdigest(), int(m.sum()), v.state.scores[0].tolist())\n"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    slow = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    fast = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert slow.returncode == 0, slow.stderr
    assert fast.returncode == 0, fast.stderr
    assert slow.stdout == fast.stdout
