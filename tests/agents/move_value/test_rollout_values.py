"""Fitting the 1-ply network to the search's simulated values (agents/move_value/
rollout_values.py): what a collected position holds, the fit's loss on differences only,
its regret, the settings it refuses, and the command end to end."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from agents.checkpoint import save_checkpoint
from agents.evaluation.harness import play_game
from agents.move_value.features import (
    NUM_BASE_FEATURES,
    NUM_MOVE_FEATURES,
    POINT_SCALE,
    candidates,
)
from agents.move_value.fit import fit, regret
from agents.move_value.network import MoveValueNet, ValueNetConfig
from agents.move_value.rollout_values import (
    RolloutConfig,
    collect,
    judged_closely,
    rollout_values,
    simulated,
    value_game,
)
from agents.move_value.run import env_options
from agents.move_value.search import leaf_value
from agents.move_value.valued import Valued, load_positions, save_positions
from agents.scripted.baselines import GreedyAgent
from agents.scripted.search import greedy_rollout
from qwirkle_cli import commands as cli
from qwirkle_env.engine.game import Game
from qwirkle_env.rows.look_ahead import LookAhead
from qwirkle_env.rows.position import Position
from qwirkle_env.view import PlayerView

torch.set_num_threads(1)
TINY = {"games": 1, "sims": 4, "shortlist": 4, "reply_samples": 2, "refill_samples": 2,
        "processes": 1, "epochs": 2, "hidden": 8, "encoder": 4}  # fmt: skip


def test_a_valued_position_holds_its_looked_at_moves_and_both_halves_of_the_sims():
    cfg = RolloutConfig(**TINY)
    found = value_game((MoveValueNet().numpy_layers(), None, 3, cfg))
    assert len(found) > 10
    for d in found:
        k = len(d.points)
        assert 2 <= k <= 4 and d.values.shape == (k, 2)
        assert d.rows.shape == (k, NUM_MOVE_FEATURES)
    looked = [d for d in found if d.rows[:, NUM_BASE_FEATURES:].any()]
    assert looked and all(0 <= d.bag <= 108 for d in found)
    again = value_game((MoveValueNet().numpy_layers(), None, 3, cfg))
    assert all(np.array_equal(a.values, b.values) for a, b in zip(found, again, strict=True))


def _position(bag_empty: bool) -> tuple[Game, object, np.ndarray]:
    """A 2-player game some greedy turns in (until the bag is empty, if asked), its moves,
    and the first five."""
    game, rng = Game(2, seed=8), random.Random(1)
    greedy_rollout(game, 10, rng)
    while bag_empty and game.bag_size > 0:
        greedy_rollout(game, 1, rng)
    cands = candidates(Position.of_game(game))
    return game, cands, np.arange(min(5, len(cands)))


def _leaf_halves(game: Game, cands, short: np.ndarray, sims: int, seed: int, judge) -> np.ndarray:
    """By hand: each move of ``short`` judged by ``leaf_value`` in ``sims`` deals drawn from
    ``random.Random(seed)`` (the same draws, in the same order), averaged over each half."""
    rng = random.Random(seed)
    moves = [cands.move(int(j)) for j in short]
    view = PlayerView.of(game, game.current)
    want = []
    for _ in range(sims):
        deal = view.sample_game(rng)
        want.append([leaf_value(deal, m, judge, rng) for m in moves])
    want = np.array(want)
    return np.stack([want[: sims // 2].mean(0), want[sims // 2 :].mean(0)], 1)


def test_with_leaf_a_move_is_worth_the_learned_search_s_leaf_values_in_fresh_deals():
    game, cands, short = _position(bag_empty=False)
    assert game.bag_size > 0
    judge = MoveValueNet().numpy_layers()
    cfg = RolloutConfig(sims=4, leaf=1)
    got = simulated(game, cands, short, cfg, random.Random(5), judge)
    assert got.shape == (len(short), 2)
    assert np.allclose(got, _leaf_halves(game, cands, short, 4, 5, judge), atol=1e-4)
    plain = simulated(game, cands, short, RolloutConfig(sims=4), random.Random(5), None)
    assert not np.allclose(plain, got)  # the greedy play-outs' margins are another judge


def test_with_leaf_the_endgame_is_still_played_out_to_the_end():
    """Once the bag is empty nothing is hidden: the play-outs to the end stay the targets."""
    game, cands, short = _position(bag_empty=True)
    assert game.bag_size == 0 and not game.over
    judge = MoveValueNet().numpy_layers()
    leaf = simulated(game, cands, short, RolloutConfig(sims=4, leaf=1), random.Random(2), judge)
    plain = simulated(game, cands, short, RolloutConfig(sims=4), random.Random(2), None)
    assert np.array_equal(leaf, plain)


def test_with_top_the_look_s_best_moves_are_leaf_judged_and_every_move_keeps_its_play_outs():
    game, cands, short = _position(bag_empty=False)
    judge = MoveValueNet().numpy_layers()
    cfg = RolloutConfig(sims=4, leaf=1, top=2, top_sims=6)
    plain = simulated(game, cands, short, RolloutConfig(sims=4), random.Random(5), None)
    assert np.array_equal(simulated(game, cands, short, cfg, random.Random(5), judge), plain)
    again = np.array([0.1, 0.9, 0.3, 0.8, 0.2])  # the looked-at worths: moves 1 and 3 lead
    got = judged_closely(game, cands, short, again, cfg, random.Random(7), judge)
    want = _leaf_halves(game, cands, short[[1, 3]], 6, 7, judge)
    assert np.allclose(got[[1, 3]], want, atol=1e-4)
    assert np.isnan(got[[0, 2, 4]]).all()
    end, end_cands, end_short = _position(bag_empty=True)
    empty = judged_closely(end, end_cands, end_short, again, cfg, random.Random(7), judge)
    assert np.isnan(empty).all()  # nothing hidden: the play-outs to the end judge alone


def test_a_game_valued_with_top_judges_at_most_top_moves_of_each_position_with_tiles_in_the_bag():
    cfg = RolloutConfig(**{**TINY, "leaf": 1, "top": 2, "top_sims": 2})
    found = value_game((MoveValueNet().numpy_layers(), MoveValueNet().numpy_layers(), 3, cfg))
    counts = [(d.bag, int(np.isfinite(d.judged).all(-1).sum())) for d in found]
    assert all(n == 2 for bag, n in counts if bag > 0)
    assert all(n == 0 for bag, n in counts if bag == 0) and any(bag == 0 for bag, _ in counts)


@pytest.mark.parametrize("seed", [3, 4])
def test_against_an_opponent_it_plays_its_seat_and_both_seats_positions_are_valued(
    seed, monkeypatch
):
    chosen, applied = [], []  # (seat, move) the opponent chose; (seat, move) apply applied
    greedy_choose, game_apply = GreedyAgent.choose, Game.apply

    def choose(agent, view):
        chosen.append((view.seat, greedy_choose(agent, view)))
        return chosen[-1][1]

    def apply(game, move, trusted=False):
        if not trusted:  # the network plays rows of its own move list, trusted
            applied.append((game.current, move))
        return game_apply(game, move, trusted=trusted)

    monkeypatch.setattr(GreedyAgent, "choose", choose)
    monkeypatch.setattr(Game, "apply", apply)
    cfg = RolloutConfig(**{**TINY, "opponent": "greedy"})
    found = value_game((MoveValueNet().numpy_layers(), None, seed, cfg))
    assert chosen and {seat for seat, _ in chosen} == {1 - seed % 2}
    assert applied == chosen  # each of its turns, and only those, played its choice
    assert len(found) > 1.5 * len(chosen)  # the network's turns are valued too
    again = value_game((MoveValueNet().numpy_layers(), None, seed, cfg))
    assert all(np.array_equal(a.values, b.values) for a, b in zip(found, again, strict=True))


def _synthetic(n: int, rng: np.random.Generator) -> list[Valued]:
    """Positions whose value is 10 points per unit of feature 40 (a type-block column,
    which only the look fills) and of feature 5 (an env column), plus a constant of their
    own that the fit must ignore."""
    out = []
    for _ in range(n):
        rows = np.zeros((6, NUM_MOVE_FEATURES), np.float32)
        rows[:, [5, 40]] = rng.random((6, 2))
        value = POINT_SCALE * (rows[:, 5] + rows[:, 40]) + rng.normal() * 50
        out.append(Valued(rows, np.zeros(6, np.float32),
                          np.stack([value, value], 1).astype(np.float32), 30))  # fmt: skip
    return out


def test_the_fit_learns_the_differences_between_moves_and_ignores_each_positions_level():
    data = _synthetic(600, np.random.default_rng(0))
    torch.manual_seed(0)
    net = MoveValueNet(ValueNetConfig(hidden=16, encoder=8))
    history = fit(net, data, RolloutConfig(epochs=15, lr=3e-3, lr_end=1e-3, batch=32))
    assert history[-1]["loss"] < history[0]["loss"] / 1.5
    assert history[-1]["regret"] < 0.2 and history[-1]["regret_first_half"] == 0.0


def test_the_fit_orders_the_closely_judged_moves_as_their_leaf_values_do():
    """The play-outs value feature 5, the leaf judge feature 40 on the first three moves:
    weighed in, the leaf judge decides among those three."""
    rng = np.random.default_rng(3)
    data = _synthetic(600, rng)
    for d in data:
        d.judged = np.full((6, 2), np.nan, np.float32)
        d.judged[:3] = (POINT_SCALE * 3 * d.rows[:3, [40]]).repeat(2, 1)
        d.values[:] = (POINT_SCALE * d.rows[:, [5]]).repeat(2, 1)
    torch.manual_seed(0)
    settings = {"epochs": 15, "lr": 3e-3, "lr_end": 1e-3, "batch": 32, "leaf": 1, "top": 3}
    history = {}
    for weight in (0.0, 4.0):
        torch.manual_seed(0)
        net = MoveValueNet(ValueNetConfig(hidden=16, encoder=8))
        cfg = RolloutConfig(**settings, top_weight=weight)
        history[weight] = fit(net, data, cfg)[-1]
    assert history[4.0]["regret_top_first_half"] == 0.0
    assert history[4.0]["regret_top"] < 0.5 < history[0.0]["regret_top"]


def test_regret_is_what_the_chosen_move_falls_short_of_the_best():
    worth = np.array([[3.0, 1.0, 9.0], [0.0, 2.0, 1.0]])
    judge = np.array([[5.0, 7.0, 4.0], [1.0, 1.0, 8.0]])
    mask = np.array([[1, 1, 1], [1, 1, 0]], np.float32)  # the last move of 2 is padding
    assert regret(worth, judge, mask) == pytest.approx(((7 - 4) + 0) / 2)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ({"sims": 5}, "sims must be an even integer"),
        ({"games": -1}, "games must be an integer >= 0"),
        ({"layers": 0}, "layers must be an integer >= 1"),
        ({"games": 0, "opponent": "greedy"}, "games 0 plays no game, so opponent would do"),
        ({"holdout": 0.9}, "holdout must be in"),
        ({"encoder": -1}, "encoder width must be >= 0"),
        ({"refill_samples": 0}, "refill_samples"),
        ({"fit_seed": -2}, "fit_seed must be an integer >= -1"),
        ({"leaf": 2}, "leaf must be 0 or 1"),
        ({"top": 6}, "top must be 0, or an integer >= 2 with leaf 1"),
        ({"top": 1, "leaf": 1}, "top must be 0, or an integer >= 2 with leaf 1"),
        ({"top_sims": 7}, "top_sims must be an even integer >= 2"),
        ({"top_weight": -1.0}, "top_weight must be >= 0"),
        ({"opponent": "nosuch"}, "unknown agent 'nosuch'"),
        ({"opponent": "random-action"}, "does not plan whole moves"),
    ],
)
def test_settings_that_cannot_work_are_refused(option, message):
    with pytest.raises(ValueError, match=message):
        RolloutConfig(**option)


def test_leaf_values_need_a_judge_network():
    with pytest.raises(ValueError, match="leaf=1 needs a judge network"):
        collect(MoveValueNet().numpy_layers(), RolloutConfig(leaf=1))


def test_the_command_writes_a_network_that_plays(tmp_path, value_ckpt, capsys):
    out = tmp_path / "net.pt"
    cli.main(["rollout-values", "--start", str(value_ckpt), "--to", str(out), "--games", "2",
              "--sims", "4", "--shortlist", "4", "--reply-samples", "2",
              "--refill-samples", "2", "--epochs", "1", "--hidden", "8", "--encoder", "4",
              "--processes", "1"])  # fmt: skip
    assert "regret" in capsys.readouterr().out
    result = play_game([f"ckpt:{out}", "greedy"], env_seed=4, agent_seeds=[1, 2])
    assert result["fallbacks"] == [0, 0] and result["end"] == "rules"
    with pytest.raises(SystemExit, match="sims must be an even integer"):
        cli.main(["rollout-values", "--to", str(out), "--sims", "3"])
    with pytest.raises(SystemExit, match="opponent 'tile-ppo' does not plan whole moves"):
        cli.main(["rollout-values", "--to", str(out), "--opponent", "tile-ppo"])


def test_the_command_plays_its_games_against_the_opponent_it_is_given(tmp_path, value_ckpt):
    out = tmp_path / "vs.pt"
    cli.main(["rollout-values", "--start", str(value_ckpt), "--to", str(out), "--games", "2",
              "--sims", "2", "--shortlist", "4", "--reply-samples", "2",
              "--refill-samples", "2", "--epochs", "1", "--hidden", "8", "--encoder", "4",
              "--processes", "1", "--opponent", "search:sims=2"])  # fmt: skip
    train = torch.load(out, weights_only=True)["train"]
    assert train["rollout_values"]["opponent"] == "search:sims=2"


def test_the_command_judges_leaves_by_the_network_it_is_given(tmp_path, value_ckpt):
    small = ["--games", "1", "--sims", "2", "--shortlist", "4", "--reply-samples", "2",
             "--refill-samples", "2", "--epochs", "1", "--hidden", "8", "--encoder", "4",
             "--processes", "1", "--leaf", "1"]  # fmt: skip
    out = tmp_path / "leaf.pt"
    cli.main(["rollout-values", "--start", str(value_ckpt), "--judge", str(value_ckpt),
              "--to", str(out), *small])  # fmt: skip
    meta = torch.load(out, weights_only=True)
    assert meta["train"]["leaves_judged_by"] == str(value_ckpt)
    assert meta["train"]["rollout_values"]["leaf"] == 1
    cli.main(["rollout-values", "--to", str(out), *small])  # the shipped networks, by default
    train = torch.load(out, weights_only=True)["train"]
    assert train["leaves_judged_by"] == train["rollout_values_from"] == "checkpoints/move_value.pt"
    notes = tmp_path / "notes.pt"
    notes.write_text("not a checkpoint")
    with pytest.raises(SystemExit, match="notes.pt"):
        cli.main(["rollout-values", "--start", str(value_ckpt), "--judge", str(notes),
                  "--to", str(out), *small])  # fmt: skip
    for_34 = save_checkpoint(tmp_path / "td34.pt", MoveValueNet(), env_options(LookAhead()),
                             {"players": "3,4"}, 5)  # fmt: skip
    for flag in ("--judge", "--start"):
        with pytest.raises(SystemExit, match="trained for 3, 4-player games, not 2"):
            cli.main(["rollout-values", "--start", str(value_ckpt), "--judge", str(value_ckpt),
                      flag, str(for_34), "--to", str(out), *small])  # fmt: skip
    with pytest.raises(SystemExit, match="--judge values the leaves of --leaf 1 only"):
        cli.main(["rollout-values", "--start", str(value_ckpt), "--judge", str(value_ckpt),
                  "--to", str(out), *small[:-2]])  # fmt: skip


def test_saved_positions_load_as_they_were(tmp_path):
    data = _synthetic(5, np.random.default_rng(1))
    data[2] = Valued(data[2].rows[:3], data[2].points[:3], data[2].values[:3], 0)
    back = load_positions(save_positions(tmp_path / "round1.npz", data))
    assert len(back) == 5 and [d.bag for d in back] == [d.bag for d in data]
    for a, b in zip(data, back, strict=True):
        for name in ("rows", "points", "values"):
            assert np.array_equal(getattr(a, name), getattr(b, name))


def test_leaf_values_of_the_top_moves_are_saved_beside_the_play_outs(tmp_path):
    data = _synthetic(3, np.random.default_rng(4))
    data[0].judged = np.full((6, 2), np.nan, np.float32)
    data[0].judged[:2] = 1.5
    back = load_positions(save_positions(tmp_path / "top.npz", data))
    assert np.array_equal(back[0].judged, data[0].judged, equal_nan=True)
    assert np.isnan(back[1].judged).all()  # a position without them: none judged
    plain = load_positions(
        save_positions(tmp_path / "plain.npz", _synthetic(2, np.random.default_rng(4)))
    )
    assert all(d.judged is None for d in plain)  # files of the rounds before keep loading
    with np.load(tmp_path / "top.npz") as f:
        parts = dict(f)
    inf = tmp_path / "inf.npz"
    np.savez(inf, **{**parts, "judged": np.full_like(parts["judged"], np.inf)})
    with pytest.raises(ValueError, match="not finite"):
        load_positions(inf)
    short = tmp_path / "short.npz"
    np.savez(short, **{**parts, "judged": parts["judged"][:-1]})
    with pytest.raises(ValueError, match="do not fit together"):
        load_positions(short)


def test_a_positions_file_of_another_kind_or_version_is_refused(tmp_path):
    not_npz = tmp_path / "notes.npz"
    not_npz.write_text("not an archive")
    with pytest.raises(ValueError, match="is not a positions file of rollout-values"):
        load_positions(not_npz)
    other = tmp_path / "other.npz"
    np.savez(other, weights=np.zeros(3))
    with pytest.raises(ValueError, match="is not a positions file of rollout-values"):
        load_positions(other)
    good = save_positions(tmp_path / "good.npz", _synthetic(2, np.random.default_rng(2)))
    with np.load(good) as f:
        parts = dict(f)
    older = tmp_path / "older.npz"
    np.savez(older, **{**parts, "features": parts["features"][:-2],
                       "rows": parts["rows"][:, :-2]})  # fmt: skip
    with pytest.raises(ValueError, match="collect its positions again with this version"):
        load_positions(older)
    cut = tmp_path / "cut.npz"
    np.savez(cut, **{**parts, "values": parts["values"][:-1]})
    with pytest.raises(ValueError, match="do not fit together"):
        load_positions(cut)
    nan = tmp_path / "nan.npz"
    np.savez(nan, **{**parts, "points": np.full_like(parts["points"], np.nan)})
    with pytest.raises(ValueError, match="not finite"):
        load_positions(nan)
    bare = tmp_path / "bare.npy"
    np.save(bare, parts["rows"])
    with pytest.raises(ValueError, match="one array, not an archive"):
        load_positions(bare)
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(good.read_bytes()[:200])
    with pytest.raises(ValueError, match="is not a positions file of rollout-values"):
        load_positions(truncated)


def test_a_second_round_fits_on_the_first_rounds_positions_too(tmp_path, value_ckpt, capsys):
    """Round 1 saves its positions; round 2, played by round 1's network, fits on both."""
    small = ["--games", "1", "--sims", "4", "--shortlist", "4", "--reply-samples", "2",
             "--refill-samples", "2", "--epochs", "1", "--hidden", "8", "--encoder", "4",
             "--processes", "1"]  # fmt: skip
    first, second = tmp_path / "round1.pt", tmp_path / "round2.pt"
    saved = tmp_path / "round1.npz"
    cli.main(["rollout-values", "--start", str(value_ckpt), "--to", str(first),
              "--save-positions", str(saved), *small])  # fmt: skip
    n = len(load_positions(saved))
    cli.main(["rollout-values", "--start", str(first), "--to", str(second), "--positions",
              str(saved), "--seed", "1", "--fit-seed", "0", *small])  # fmt: skip
    meta = torch.load(second, weights_only=True)
    assert meta["step"] > n  # the positions of both rounds
    assert meta["train"]["earlier_positions"] == [str(saved)]
    assert meta["train"]["rollout_values"]["fit_seed"] == 0
    with pytest.raises(SystemExit, match="not a positions file"):
        cli.main(["rollout-values", "--to", str(second), "--positions", str(first), *small])


def test_with_no_games_it_fits_another_network_on_saved_positions_alone(tmp_path, value_ckpt):
    """The same positions, a deeper network: nothing is played, so nothing else is spent."""
    saved = save_positions(tmp_path / "round1.npz", _synthetic(40, np.random.default_rng(5)))
    out = tmp_path / "deeper.pt"
    cli.main(["rollout-values", "--to", str(out), "--games", "0",
              "--positions", str(saved), "--epochs", "1", "--hidden", "8", "--layers", "3",
              "--encoder", "4"])  # fmt: skip
    meta = torch.load(out, weights_only=True)
    assert meta["step"] == 40  # the saved positions, no new ones
    assert meta["net"]["layers"] == 3
    assert meta["train"]["rollout_values_from"] is None  # no network played a game
    assert "leaves_judged_by" not in meta["train"]  # nor judged one
    assert meta["train"]["earlier_positions"] == [str(saved)]
    result = play_game([f"ckpt:{out}", "greedy"], env_seed=4, agent_seeds=[1, 2])
    assert result["fallbacks"] == [0, 0] and result["end"] == "rules"
    with pytest.raises(SystemExit, match="--games 0 fits on saved positions alone"):
        cli.main(["rollout-values", "--to", str(out), "--games", "0"])
    for flag, value in (("--save-positions", str(tmp_path / "again.npz")),
                        ("--start", str(value_ckpt)), ("--judge", str(value_ckpt))):  # fmt: skip
        with pytest.raises(SystemExit, match=f"{flag} with --games 0: no game is played"):
            cli.main(["rollout-values", "--to", str(out), "--games", "0", "--positions",
                      str(saved), flag, value])  # fmt: skip
    with pytest.raises(SystemExit, match="games 0 plays no game, so sims, leaf would do nothing"):
        cli.main(["rollout-values", "--to", str(out), "--games", "0", "--positions", str(saved),
                  "--sims", "8", "--leaf", "1"])  # fmt: skip
    with pytest.raises(ValueError, match="no positions to fit"):
        rollout_values(MoveValueNet().numpy_layers(), out, RolloutConfig(games=0), {})
    with pytest.raises(ValueError, match="games 0 plays no game, so there is nothing new to save"):
        rollout_values(MoveValueNet().numpy_layers(), out, RolloutConfig(games=0), {},
                       _synthetic(2, np.random.default_rng(1)), tmp_path / "none.npz")  # fmt: skip
