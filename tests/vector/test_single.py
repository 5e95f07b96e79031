"""One learning seat per batched game, its opponents moved inside (``VectorSingleAgent``),
and the ``wait`` argument of ``VectorMoves.step`` that it stands on."""

from __future__ import annotations

import numpy as np
import pytest

from qwirkle_env.vector.moves import VectorMoves
from qwirkle_env.vector.moves.single import VectorSingleAgent, greedy_rows


def finished_games(vec, steps: int) -> dict[int, list]:
    """Each slot's final scores, in order, with every seat playing row 0 (greedy)."""
    found: dict[int, list] = {i: [] for i in range(vec.num_envs)}
    rows = np.zeros(vec.num_envs, dtype=np.int64)
    for _ in range(steps):
        *_, dones, infos = vec.step(rows)
        for i in np.flatnonzero(dones):
            found[int(i)].append(infos["final_scores"][i].tolist())
    return found


@pytest.mark.parametrize("players", [2, 3, 4])
def test_learner_and_greedy_opponents_play_the_simulators_own_games(players):
    """Row 0 for the learner and greedy opponents is row 0 for every seat: the same
    games as VectorMoves alone on the same seed, whichever seats learn."""
    single = VectorSingleAgent(6, "greedy", num_players=players, reward="points")
    single.reset(seed=3)
    mine = finished_games(single, 300)
    plain = VectorMoves(6, players, reward="points")
    plain.reset(seed=3)
    theirs = finished_games(plain, 300 * players + 200)
    assert sum(map(len, mine.values())) >= 6
    for i, games in mine.items():
        assert theirs[i][: len(games)] == games


def test_a_learners_rewards_add_up_to_its_score_and_every_step_is_its_turn():
    single = VectorSingleAgent(8, "greedy", reward="points")
    _, masks = single.reset(seed=11)
    total = np.zeros(8)
    ended = 0
    seats = set()
    for _ in range(400):
        assert (single.games.seats == single.learner).all()
        assert masks.any(axis=1).all() and (masks == single.masks).all()
        _, masks, reward, dones, infos = single.step(np.zeros(8, dtype=np.int64))
        total += reward
        for i in np.flatnonzero(dones):
            seat = infos["learner_seat"][i]
            seats.add(int(seat))
            assert total[i] == infos["final_scores"][i][seat]
            total[i] = 0
            ended += 1
    assert ended >= 8 and seats == {0, 1}


def test_margin_rewards_add_up_to_the_final_margin():
    """What the opponent's opening move gives a learner that is second is dropped, as the
    gym view drops it; the rest adds up to the learner's score minus the best other's."""
    single = VectorSingleAgent(4, "greedy", reward="margin")
    single.reset(seed=2)
    opening = np.zeros(4)
    first = single.games.state.scores[:4, :2].copy()  # the opponents' opening points
    for i in range(4):
        seat = single.learner[i]
        opening[i] = first[i, seat] - first[i, 1 - seat]
    total = opening.copy()
    done_once = np.zeros(4, dtype=bool)
    for _ in range(200):
        _, _, reward, dones, infos = single.step(np.zeros(4, dtype=np.int64))
        total += np.where(done_once, 0, reward)
        for i in np.flatnonzero(dones & ~done_once):
            s = infos["final_scores"][i]
            seat = infos["learner_seat"][i]
            assert total[i] == pytest.approx(s[seat] - s[1 - seat])
            done_once[i] = True
    assert done_once.all()


def test_the_same_seed_gives_the_same_games_seats_and_sampled_opponent_rows():
    def run(seed):
        rng = np.random.default_rng(0)

        def opponent(obs, masks):
            return np.array([rng.integers(m.sum()) for m in masks])

        single = VectorSingleAgent(5, opponent)
        obs, _ = single.reset(seed=seed)
        seen = [obs]
        for _ in range(60):
            rows = np.zeros(5, dtype=np.int64)
            obs, _, reward, dones, _ = single.step(rows)
            seen += [obs, reward, dones, single.learner.copy()]
        return seen

    a, b, c = run(7), run(7), run(8)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_bad_opponents_and_steps_before_reset_are_refused():
    with pytest.raises(ValueError, match="'greedy' or a function"):
        VectorSingleAgent(2, "heuristic")
    with pytest.raises(TypeError, match=r"\(observations, masks\) -> rows"):
        VectorSingleAgent(2, 3)
    single = VectorSingleAgent(2)
    with pytest.raises(RuntimeError, match="reset"):
        single.step([0, 0])
    with pytest.raises(RuntimeError, match="reset"):
        _ = single.masks
    # an opponent's rows are checked as the learner's are
    single = VectorSingleAgent(2, lambda obs, masks: np.full(len(masks), 255))
    with pytest.raises(ValueError, match="masked"):
        single.reset(seed=0)  # the opponent moves here where it opens,
        single.step([0, 0])  # and here in every game


def test_waiting_games_keep_their_position_and_must_pass_minus_one():
    vec = VectorMoves(3, reward="points")
    obs, masks = vec.reset(seed=4)
    seats = vec.seats
    wait = np.array([False, True, False])
    obs2, masks2, rewards, dones, _ = vec.step(np.array([0, -1, 0]), wait)
    assert np.array_equal(obs2[1], obs[1]) and np.array_equal(masks2[1], masks[1])
    assert vec.seats[1] == seats[1] and rewards[1].sum() == 0 and not dones[1]
    assert not np.array_equal(obs2[0], obs[0])
    with pytest.raises(ValueError, match="game 1 waits this step, so its row must be -1"):
        vec.step(np.array([0, 0, 0]), wait)
    with pytest.raises(ValueError, match="bool array of shape"):
        vec.step(np.array([0, 0, 0]), [1, 0, 0])
    assert greedy_rows(obs, masks).tolist() == [0, 0, 0]
