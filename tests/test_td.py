"""The learned move-value agent: its move features, TD targets, self-play, checkpoints and
train.py's default command."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import game_at

from agents.checkpoint import load_checkpoint, save_checkpoint
from agents.evaluation.harness import play_game as play_env_game
from agents.move_value.agent import ValueAgent, move_values, pick, select
from agents.move_value.features import FEATURES, NUM_MOVE_FEATURES, POINT_SCALE, candidates
from agents.move_value.look_ahead import LookAhead
from agents.move_value.network import MoveValueNet, ValueNetConfig
from agents.move_value.run import env_options
from agents.move_value.td import TDConfig, Trajectory, lambda_returns, play_game, targets
from agents.registry import make_agent
from agents.tile_ppo.network import NetConfig, PolicyValueNet
from qwirkle_cli import commands as cli
from qwirkle_env import Board, Color, Shape, Tile
from qwirkle_env.engine.lines import mask_of
from qwirkle_env.position import Position, chance_opponent_holds
from qwirkle_env.spec import margin, win_reward
from qwirkle_env.view import PlayerView

torch.set_num_threads(1)
F = {name: i for i, name in enumerate(FEATURES)}


def _crafted(board: Board, hand: list[Tile], bag: int = 50, hand_sizes=(6, 6)) -> Position:
    ids = sorted(t.id for t in hand)

    return Position(board, ids, 0, [10, 4], list(hand_sizes), bag,
                    board.placements_with_points(mask_of(ids)), bag > 0)  # fmt: skip


# --- features ---------------------------------------------------------------------------
@pytest.mark.usefixtures("rows_agree")  # compiled rows = the Python reference
def test_every_legal_move_is_a_candidate_once():
    for seed in range(5):
        game = game_at(seed, 6)
        cands = candidates(Position.of_game(game))
        assert len(cands) == len(game.legal_moves())
        assert cands.features.shape == (len(cands), NUM_MOVE_FEATURES)
        assert np.isfinite(cands.features).all()
        assert len(cands.exchanges) == len(game.legal_exchanges())


@pytest.mark.usefixtures("rows_agree")  # compiled rows = the Python reference
def test_features_are_the_same_from_a_view_and_from_the_game():
    game = game_at(3, 8)
    a = candidates(Position.of_game(game))
    b = candidates(Position.of_view(PlayerView.of(game, game.current)))
    assert np.array_equal(a.features, b.features) and np.array_equal(a.points, b.points)


@pytest.mark.usefixtures("rows_agree")  # compiled rows = the Python reference
def test_a_line_of_five_left_open_is_a_risk_feature():
    red = [Tile(Color.RED, s) for s in list(Shape)[:4]]
    board = Board({(0, i): t for i, t in enumerate(red)})
    fifth = Tile(Color.RED, Shape.CLOVER)
    pos = _crafted(board, [fifth, Tile(Color.BLUE, Shape.CIRCLE)])
    cands = candidates(pos)
    row = next(i for i, items in enumerate(cands.placements) if items == (((0, 4), fifth.id),))
    f = cands.features[row]
    unseen = pos.unseen()
    star8 = Tile(Color.RED, Shape.STAR8).id
    expected = chance_opponent_holds(unseen[star8], sum(unseen), 6)
    assert f[F["open_fives"]] == 1 and f[F["own_fives"]] == 0
    assert f[F["five_risk"]] == pytest.approx(expected)
    assert f[F["points"]] == pytest.approx(5 / POINT_SCALE)


@pytest.mark.usefixtures("rows_agree")  # compiled rows = the Python reference
def test_keeping_the_sixth_tile_is_an_own_five():
    red = [Tile(Color.RED, s) for s in list(Shape)[:4]]
    board = Board({(0, i): t for i, t in enumerate(red)})
    fifth, sixth = Tile(Color.RED, Shape.CLOVER), Tile(Color.RED, Shape.STAR8)
    cands = candidates(_crafted(board, [fifth, sixth]))
    row = next(i for i, items in enumerate(cands.placements) if items == (((0, 4), fifth.id),))
    f = cands.features[row]
    assert f[F["own_fives"]] == 1 and f[F["kept"]] == pytest.approx(1 / 6)
    qwirkle = [i for i, items in enumerate(cands.placements) if len(items) == 2]
    assert any(cands.features[i][F["qwirkles"]] == 1 for i in qwirkle)


@pytest.mark.usefixtures("rows_agree")  # compiled rows = the Python reference
def test_going_out_with_the_bag_empty_adds_the_bonus_and_the_reply_is_checked():
    board = Board({(0, 0): Tile(Color.RED, Shape.CIRCLE)})
    last = Tile(Color.RED, Shape.SQUARE)
    cands = candidates(_crafted(board, [last], bag=0))
    assert not cands.exchanges  # nothing to exchange with an empty bag
    f = cands.features[0]
    assert f[F["goes_out"]] == 1 and cands.points[0] == 2 + 6
    two = candidates(_crafted(board, [last, Tile(Color.BLUE, Shape.STAR8)], bag=0))
    assert two.features[0][F["reply_points"]] == 0  # looked at only for a shortlist
    two.look_ahead([0], random.Random(0))
    kept = two.features[0]
    assert kept[F["goes_out"]] == 0 and kept[F["reply_points"]] > 0
    assert kept[F["next_points"]] == 0  # the blue star fits nowhere next to two red tiles


@pytest.mark.usefixtures("rows_agree")  # compiled rows = the Python reference
def test_the_kept_tiles_best_next_move_is_looked_at():
    board = Board({(0, 0): Tile(Color.RED, Shape.CIRCLE)})
    square, diamond = Tile(Color.RED, Shape.SQUARE), Tile(Color.RED, Shape.DIAMOND)
    cands = candidates(_crafted(board, [square, diamond]))
    row = next(i for i, items in enumerate(cands.placements) if items == (((0, 1), square.id),))
    cands.look_ahead([row], random.Random(0))
    assert cands.features[row][F["next_points"]] == pytest.approx(3 / POINT_SCALE)
    assert cands.kept(row) == [diamond.id]


@pytest.mark.usefixtures("rows_agree")  # compiled rows = the Python reference
def test_the_unknown_reply_is_dealt_from_the_unseen_tiles_reproducibly():
    game = game_at(4, 6)
    rows = []
    for _ in range(2):
        cands = candidates(Position.of_game(game))
        cands.look_ahead(range(len(cands)), random.Random(9))
        rows.append(cands.features[:, F["reply_points"]].copy())
    assert np.array_equal(rows[0], rows[1]) and rows[0].max() > 0


@pytest.mark.usefixtures("rows_agree")  # compiled rows = the Python reference
def test_late_in_the_game_the_choice_is_made_among_moves_whose_reply_was_checked():
    game = game_at(2, 0)
    layers = MoveValueNet().numpy_layers()
    while game.bag_size or game.over:
        if game.over:
            pytest.fail("the game ended before the bag emptied")
        cands = candidates(Position.of_game(game))
        kind, what = cands.move(select(layers, cands, 0.0, random.Random(0)))
        if kind == "place":
            game.apply_placement(list(what))
        else:
            game.apply_exchange(list(what))
    cands = candidates(Position.of_game(game))
    assert cands.position is not None
    i = select(layers, cands, 0.0, random.Random(0))
    row = cands.features[i]
    assert (
        row[F["reply_points"]] > 0
        or row[F["goes_out"]] == 1
        or not game.board.can_place(
            sum(1 << t for t, k in enumerate(Position.of_game(game).unseen()) if k)
        )
    )


@pytest.mark.usefixtures("rows_agree")  # compiled rows = the Python reference
def test_exchange_rows_describe_the_leave():
    game = game_at(1, 4)
    cands = candidates(Position.of_game(game))
    n = len(cands.placements)
    for i, ids in enumerate(cands.exchanges):
        f = cands.features[n + i]
        assert f[F["exchange"]] == 1 and cands.points[n + i] == 0
        assert f[F["kept"]] == pytest.approx((6 - len(ids)) / 6)


# --- the agent --------------------------------------------------------------------------
def test_an_untrained_network_plays_like_greedy():
    layers = MoveValueNet().numpy_layers()
    for seed in range(5):
        cands = candidates(Position.of_game(game_at(seed, 5)))
        i = pick(move_values(layers, cands), 0.0, random.Random(0))
        assert cands.points[i] == cands.points.max() > 0


def test_softmax_sampling_is_seeded_and_prefers_better_moves():
    worth = np.array([0.0, 1.0, 3.0])
    a = [pick(worth, 0.5, random.Random(7)) for _ in range(3)]
    assert a == [pick(worth, 0.5, random.Random(7)) for _ in range(3)]
    counts = np.bincount([pick(worth, 0.5, r) for r in [random.Random(i) for i in range(400)]],
                         minlength=3)  # fmt: skip
    assert counts[2] > counts[1] > counts[0]


def test_value_agent_rejects_a_bad_temperature():
    with pytest.raises(ValueError, match="temperature must be"):
        ValueAgent(MoveValueNet(), temperature=-1)
    with pytest.raises(ValueError, match="finite"):
        ValueAgent(MoveValueNet(), temperature=float("nan"))


def test_network_config_must_match_the_features():
    with pytest.raises(ValueError, match=f"{NUM_MOVE_FEATURES} features"):
        MoveValueNet(ValueNetConfig(features=NUM_MOVE_FEATURES + 1))
    with pytest.raises(ValueError, match="hidden layer"):
        MoveValueNet(ValueNetConfig(layers=0))


def test_numpy_and_torch_forward_agree():
    torch.manual_seed(0)
    net = MoveValueNet()
    torch.nn.init.normal_(net.out.weight)
    x = np.random.default_rng(0).normal(size=(50, NUM_MOVE_FEATURES)).astype(np.float32)
    from agents.move_value.network import values

    expected = net(torch.from_numpy(x)).detach().numpy()
    assert np.allclose(values(net.numpy_layers(), x), expected, atol=1e-5)


# --- TD targets and self-play ----------------------------------------------------------
def test_lambda_returns_span_td0_to_monte_carlo():
    rewards = np.array([1.0, -2.0, 4.0], np.float32)
    traj = Trajectory(np.zeros((3, NUM_MOVE_FEATURES), np.float32), rewards)
    nxt = np.array([10.0, 20.0, 0.0], np.float32)
    assert lambda_returns(traj, nxt, 1.0).tolist() == [3.0, 2.0, 4.0]
    assert lambda_returns(traj, nxt, 0.0).tolist() == [11.0, 18.0, 4.0]
    half = lambda_returns(traj, nxt, 0.5)
    assert half[2] == 4.0 and half[1] == pytest.approx(-2 + 0.5 * 20 + 0.5 * 4)


def test_targets_read_the_next_afterstate_of_the_same_trajectory():
    torch.manual_seed(1)
    net = MoveValueNet()
    torch.nn.init.normal_(net.out.weight)
    rng = np.random.default_rng(1)
    a = Trajectory(
        rng.normal(size=(2, NUM_MOVE_FEATURES)).astype(np.float32), np.ones(2, np.float32)
    )
    b = Trajectory(
        rng.normal(size=(1, NUM_MOVE_FEATURES)).astype(np.float32), np.ones(1, np.float32)
    )
    x, y = targets(net, [a, b], 0.0)
    v = net(torch.from_numpy(x)).detach().numpy()
    assert y.tolist() == pytest.approx([1 + v[1], 1.0, 1.0])


@pytest.mark.parametrize("players", [2, 3])
def test_self_play_returns_are_the_margin_after_the_first_move_plus_the_result(players):
    layers = MoveValueNet().numpy_layers()
    trajs, decisions, game = play_game(layers, 5, players, 0.2, None, 2.0)
    assert len(trajs) == players and decisions == sum(len(t.rewards) for t in trajs)
    scores, first = [0] * players, {}
    for seat, _, points in game.history:  # the margin right after each seat's first move
        scores[seat] += points
        if seat not in first:
            first[seat] = scores[seat] - (sum(scores) - scores[seat]) / (players - 1)
    for seat, traj in enumerate(trajs):
        final = margin(game.scores, seat)
        expected = (final - first[seat]) / POINT_SCALE + 2.0 * win_reward(game.scores, seat)
        assert float(traj.rewards.sum()) == pytest.approx(expected, abs=1e-4)
    one, _, _ = play_game(layers, 6, 3, 0.2, "greedy", 2.0)
    assert len(one) == 1  # only the learner's seat is recorded against scripted agents


def test_self_play_is_reproducible():
    layers = MoveValueNet().numpy_layers()
    a, _, _ = play_game(layers, 11, 2, 0.3, None, 2.0)
    b, _, _ = play_game(layers, 11, 2, 0.3, None, 2.0)
    assert all(np.array_equal(x.features, y.features) for x, y in zip(a, b, strict=True))


def test_bad_training_config_says_what_is_wrong():
    with pytest.raises(ValueError, match="lam must be in"):
        TDConfig(lam=1.5)
    with pytest.raises(ValueError, match="players must list"):
        TDConfig(players="2,5")
    with pytest.raises(ValueError, match="comma-separated integers"):
        TDConfig(players="two")
    with pytest.raises(ValueError, match="needs at least one --scripted"):
        TDConfig(scripted="", p_scripted=0.5)


# --- checkpoints ------------------------------------------------------------------------
@pytest.fixture()
def value_ckpt(tmp_path):
    net = MoveValueNet()
    return save_checkpoint(tmp_path / "v.pt", net, env_options(LookAhead()), {"x": 1}, 5)


def test_value_checkpoint_is_an_agent_that_plays_through_the_env(value_ckpt):
    agent = make_agent(f"ckpt:{value_ckpt}")
    assert isinstance(agent, ValueAgent)
    out = play_env_game([f"ckpt:{value_ckpt}", "greedy"], env_seed=3, agent_seeds=[1, 2])
    assert out["fallbacks"] == [0, 0] and out["end"] == "rules"


def test_each_loader_refuses_the_other_kind_by_name(value_ckpt, tmp_path):
    with pytest.raises(ValueError, match="holds a move-value network.*tile-level"):
        load_checkpoint(value_ckpt, kind=PolicyValueNet)
    ppo = save_checkpoint(tmp_path / "p.pt", PolicyValueNet(NetConfig(8, 1, 16)), {}, {}, 0)
    with pytest.raises(ValueError, match="holds a tile-level masked-PPO policy"):
        load_checkpoint(ppo, kind=MoveValueNet)
    torch.save({"format": "qwirkle-ppo-v0"}, tmp_path / "old.pt")
    with pytest.raises(ValueError, match="not a qwirkle-env checkpoint"):
        make_agent(f"ckpt:{tmp_path / 'old.pt'}")


def test_edited_value_checkpoint_fails_its_checksum(value_ckpt, tmp_path):
    blob = torch.load(value_ckpt, weights_only=True)
    blob["state_dict"]["out.bias"] += 1.0
    torch.save(blob, tmp_path / "edited.pt")
    with pytest.raises(ValueError, match="SHA-256"):
        make_agent(f"ckpt:{tmp_path / 'edited.pt'}")


def test_checkpoint_from_another_feature_set_is_refused(tmp_path):
    path = save_checkpoint(tmp_path / "f.pt", MoveValueNet(), {"features": ["points"]}, {}, 0)
    with pytest.raises(ValueError, match="trained on move features"):
        make_agent(f"ckpt:{path}")


# --- train.py ---------------------------------------------------------------------------
TINY = [
    "train", "--total-games", "6", "--games-per-batch", "3", "--eval-every", "6",
    "--eval-games", "2", "--eval-opponents", "greedy", "--final-games", "2",
    "--final-opponents", "greedy", "--processes", "1", "--hidden", "8", "--no-progress",
]  # fmt: skip


def test_default_command_trains_and_prints_a_table(tmp_path, capsys):
    cli.main([*TINY, "--out", str(tmp_path), "--name", "tiny"])
    run = tmp_path / "tiny"
    assert (run / "learning_curve.png").stat().st_size > 1000
    assert (run / "metrics.csv").read_text().startswith("games,")
    assert "eval_win_greedy" in (run / "evals.csv").read_text()
    net, meta = load_checkpoint(run / "checkpoints" / "final.pt", kind=MoveValueNet)
    assert meta["train"]["total_games"] == 6 and net.config.hidden == 8
    out = capsys.readouterr().out
    assert "| greedy" in out and "95% CI" in out


def test_no_subcommand_means_td_training():
    args = cli.build_parser().parse_args(["train"])
    assert args.total_games == TDConfig().total_games


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--lam", "2"], "lam must be in"),
        (["--players", "2,7"], "players must list"),
        (["--final-opponents", "bogus"], "unknown agent 'bogus'"),
        (["--final-opponents", "ckpt:nowhere.pt"], "does not exist"),
        (["--final-games", "-1"], "--final-games must be >= 0"),
        (["--total-games", "0"], "total_games must be >= 1"),
        (["--play-shortlist", "-1"], "play_shortlist must be >= 0"),
    ],
)
def test_options_that_cannot_work_fail_before_training(tmp_path, option, message):
    with pytest.raises(SystemExit, match=message):
        cli.main([*TINY, "--out", str(tmp_path), *option])
    assert not (tmp_path / "checkpoints").exists()


def test_the_saved_agent_plays_with_the_play_shortlist(tmp_path):
    cli.main([*TINY, "--out", str(tmp_path), "--name", "wide", "--play-shortlist", "9",
                "--final-games", "0"])  # fmt: skip
    for name in ("final.pt", "latest.pt"):
        agent = make_agent(f"ckpt:{tmp_path / 'wide' / 'checkpoints' / name}")
        assert agent.look_ahead.shortlist == 9
    assert TDConfig(shortlist=4).play_look_ahead().shortlist == 4


def test_resume_refuses_a_tile_policy(tmp_path):
    ppo = save_checkpoint(tmp_path / "p.pt", PolicyValueNet(NetConfig(8, 1, 16)), {}, {}, 0)
    with pytest.raises(SystemExit, match="--resume: .*tile-level"):
        cli.main([*TINY, "--out", str(tmp_path), "--resume", str(ppo)])


def test_fast_evaluate_refuses_a_value_checkpoint(value_ckpt):
    with pytest.raises(SystemExit, match="--fast batches tile-level PPO policies only"):
        cli.main(["evaluate", "--fast", "--agents", f"ckpt:{value_ckpt}", "greedy"])


def test_look_ahead_settings_are_checked_and_stored():
    with pytest.raises(ValueError, match="shortlist and reply_samples must be >= 1"):
        LookAhead(shortlist=0)
    with pytest.raises(ValueError, match="shortlist and reply_samples"):
        TDConfig(reply_samples=0)
    assert env_options(LookAhead(8, 2, True))["look_ahead"] == {
        "shortlist": 8, "reply_samples": 2, "refill": True,
    }  # fmt: skip


def test_a_refill_only_adds_to_what_the_next_move_can_score():
    game = game_at(5, 6)
    plain = candidates(Position.of_game(game))
    fuller = candidates(Position.of_game(game))
    rows = range(len(plain))
    plain.look_ahead(rows, random.Random(3), LookAhead())
    fuller.look_ahead(rows, random.Random(3), LookAhead(reply_samples=3, refill=True))
    col = F["next_points"]
    assert (fuller.features[:, col] >= plain.features[:, col]).all()
    assert (fuller.features[:, col] > plain.features[:, col]).any()


def test_checkpoint_without_look_ahead_settings_is_refused(tmp_path):
    env = {"features": list(FEATURES)}
    path = save_checkpoint(tmp_path / "n.pt", MoveValueNet(), env, {}, 0)
    with pytest.raises(ValueError, match="no usable look-ahead settings"):
        make_agent(f"ckpt:{path}")


def test_the_agent_plays_with_the_look_ahead_it_was_trained_with(tmp_path):
    env = env_options(LookAhead(shortlist=3, reply_samples=2, refill=True))
    path = save_checkpoint(tmp_path / "l.pt", MoveValueNet(), env, {}, 0)
    assert make_agent(f"ckpt:{path}").look_ahead == LookAhead(3, 2, True)


FORKED_MATCH = """
import sys, torch
from agents.checkpoint import save_checkpoint
from agents.evaluation.harness import run_tournament
from agents.move_value.look_ahead import LookAhead
from agents.move_value.run import env_options
from agents.move_value.network import MoveValueNet, ValueNetConfig
torch.set_num_threads(2)
torch.ones(512, 512) @ torch.ones(512, 512)  # the parent's OpenMP pool is running
path = save_checkpoint(sys.argv[1], MoveValueNet(ValueNetConfig(hidden=256)),
                       env_options(LookAhead()))
res = run_tournament([f"ckpt:{path}", "greedy"], 2, seed=0, processes=2, progress=False)
print(len(res.records))
"""


def test_a_wide_checkpoint_plays_in_forked_evaluation_workers(tmp_path):
    # Regression: workers forked from a parent with a running OpenMP pool hung for ever
    # at the first large tensor copy of loading the checkpoint.
    script = tmp_path / "match.py"
    script.write_text(FORKED_MATCH)
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "wide.pt")],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "2"


def test_chained_runs_make_one_learning_curve(tmp_path):
    from scripts.plot_curves import chained

    first, second = tmp_path / "D", tmp_path / "G"
    for run, text in ((first, "0,0.5\n400,0.6\n"), (second, "0,0.6\n100,0.7\n")):
        run.mkdir()
        (run / "evals.csv").write_text("step,eval_win_greedy\n" + text)
    steps = [(row["step"], row["eval_win_greedy"]) for row in chained([first, second])]
    assert steps == [(0, 0.5), (400, 0.6), (500, 0.7)]
    with pytest.raises(SystemExit, match="evals.csv does not exist"):
        chained([tmp_path / "nowhere"])
