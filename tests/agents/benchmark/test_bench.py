"""agents.benchmark: the frozen protocol, the ladder's file and the bench of one agent."""

from __future__ import annotations

import json

import pytest
import torch

from agents import registry
from agents.benchmark import ladder, protocol
from agents.benchmark.bench import BenchError, allocate, bench, rating_text
from agents.benchmark.leaderboard import leaderboard, trained
from agents.benchmark.paired import paired
from agents.benchmark.report import save_bench
from agents.registry import checkpoint_path
from tests.conftest import ROOT, bot_file, small_ladder

QUICK = {"processes": 1, "probe_deals": 1, "extra_deals": 2, "progress": False}


def test_the_frozen_deals_deal_what_they_recorded():
    for n in protocol.PLAYERS:
        deals = protocol.deals(n)
        assert len(deals) == protocol.DEALS[n]
        assert [d.seed for d in deals] == protocol.deal_seeds(n)


def test_a_changed_deal_fails_loudly(tmp_path):
    data = json.loads(protocol.data_file("deals").read_text())
    data["deals"]["2"][3]["digest"] = "0" * 16
    path = tmp_path / "deals.json"
    path.write_text(json.dumps(data))
    with pytest.raises(protocol.ProtocolError, match="deal 3 .* deals other tiles now"):
        protocol.deals(2, path)
    with pytest.raises(ValueError, match="2, 3, 4 players, got 5"):
        protocol.deals(5)


def test_the_shipped_ladder_is_current_and_anchored():
    for n in protocol.PLAYERS:
        try:
            refs = ladder.ladder(n)
        except protocol.ProtocolError as err:  # only a ladder not yet played may be absent
            assert "holds no" in str(err) or "no ratings file" in str(err)
            continue
        assert set(refs) == set(protocol.REFERENCES[n])
        assert refs[protocol.ANCHOR[0]]["rating"] == pytest.approx(protocol.ANCHOR[1], abs=0.1)


def test_a_stale_reference_fails_loudly(tmp_path, monkeypatch):
    path = small_ladder(tmp_path / "ratings.json", monkeypatch)
    data = json.loads(path.read_text())
    data["players"]["2"]["references"][1]["version"] = "sha256:0123"
    path.write_text(json.dumps(data))
    with pytest.raises(protocol.ProtocolError, match="'greedy' was rated as sha256:0123.*stale"):
        ladder.ladder(2)


def test_the_games_go_where_they_tell_most():
    refs = [0.0, 1000.0, 1010.0, 2000.0]
    more = allocate(1000.0, refs, 20, 8, 2)
    assert sum(more) == 20 and max(more) <= 8
    assert more[1] >= more[0] and more[2] >= more[3] and more[1] > more[3]
    assert allocate(1000.0, refs, 100, 5, 2) == [5, 5, 5, 5]  # no more deals than exist


def test_a_plugin_gets_the_same_rating_and_a_complete_result_every_run(tmp_path, monkeypatch):
    small_ladder(tmp_path / "ratings.json", monkeypatch)
    spec = f"{bot_file(tmp_path)}:first_row"
    one = bench(spec, 2, **QUICK)
    two = bench(spec, 2, **{**QUICK, "processes": 2})  # the workers load the plugin
    assert (one.rating, one.rating_low, one.rating_high) == (
        two.rating,
        two.rating_low,
        two.rating_high,
    )
    assert one.rating_low < one.rating < one.rating_high
    data = one.to_dict()
    for key in (
        "protocol",
        "agent",
        "players",
        "rating",
        "rating_low",
        "rating_high",
        "forfeits",
        "cpu_ms_per_move",
        "matches",
    ):
        assert key in data
    assert data["protocol"] == protocol.NAME and data["forfeits"] == {"total": 0}
    assert data["protocol_settings"] is False  # a quick run says it is not comparable
    assert "not comparable" in rating_text(one)
    for match in data["matches"]:
        assert set(match) == {"opponent", "games", "win_rate", "ci_low", "ci_high", "margin"}
        assert match["ci_low"] <= match["win_rate"] <= match["ci_high"]
    assert sum(m["games"] for m in data["matches"]) == 2 * (2 * 1 + 2)
    paths = save_bench(one, tmp_path / "out")
    assert json.loads(paths["json"].read_text())["rating"] == data["rating"]
    assert paths["plot"].stat().st_size > 1000
    # the same agent against itself on the same games: no difference
    same = paired(data, two.to_dict())
    assert same["margin_difference"] == 0 and same["games"] == 8


def test_a_plugin_that_forfeits_every_game_is_stopped(tmp_path, monkeypatch):
    small_ladder(tmp_path / "ratings.json", monkeypatch)
    with pytest.raises(BenchError, match=r"bots.py:raises' forfeited all 4 games.*RuntimeError"):
        bench(f"{bot_file(tmp_path)}:raises", 2, **QUICK)


def test_a_plugin_that_cannot_load_is_stopped(tmp_path, monkeypatch):
    small_ladder(tmp_path / "ratings.json", monkeypatch)
    with pytest.raises(BenchError, match=r"bots.py:NotAnAgent'.*not an agents.base.Agent"):
        bench(f"{bot_file(tmp_path)}:NotAnAgent", 2, **QUICK)


def test_forfeits_are_counted_by_reason(tmp_path, monkeypatch):
    small_ladder(tmp_path / "ratings.json", monkeypatch)
    res = bench(f"{bot_file(tmp_path)}:sometimes_raises", 2, **{**QUICK, "extra_deals": 6})
    assert res.forfeits["total"] == res.forfeits["raised"] > 0
    assert sum(g["forfeit"] != "" for g in res.games) == res.forfeits["total"]


def test_three_players_play_copies_of_each_reference(tmp_path, monkeypatch):
    path = tmp_path / "ratings.json"
    monkeypatch.setitem(protocol.REFERENCES, 3, ["random", "greedy"])
    refs = [
        {
            "spec": s,
            "version": ladder.reference_version(s),
            "rating": r,
            "games": 1,
            "win_rate": 0.5,
            "cpu_ms_per_move": 0.1,
        }
        for s, r in (("random", 500.0), ("greedy", 1000.0))
    ]
    ladder.write_ladder({3: {"deals": 1, "games": 1, "wall_s": 1, "references": refs}}, path)
    res = bench("greedy", 3, ladder_path=path, **QUICK)
    assert res.forfeits == {"total": 0}
    assert all(len(g["scores"]) == 3 for g in res.games)
    assert sorted({g["seat"] for g in res.games}) == [0, 1, 2]  # every rotation
    assert sum(m["games"] for m in res.matches) == 3 * 4
    # greedy against copies of itself is greedy: near its own rating
    assert res.rating_low < 1000.0 < res.rating_high


def test_the_leaderboard_places_a_benched_agent(tmp_path, monkeypatch):
    path = small_ladder(tmp_path / "ratings.json", monkeypatch)
    result = {
        "protocol": protocol.NAME,
        "agent": "learned",
        "players": 2,
        "rating": 1100.0,
        "rating_low": 1050.0,
        "rating_high": 1150.0,
        "cpu_ms_per_move": 3.0,
        "matches": [{"games": 40}],
    }
    (tmp_path / "b.json").write_text(json.dumps(result))
    page = leaderboard([tmp_path / "b.json"], path)
    lines = [line for line in page.splitlines() if line.startswith("| ")]
    assert "`learned`" in lines[1] and "bench: 1050 to 1150" in lines[1]
    assert "rollout-values" in lines[1]
    assert "`greedy`" in lines[2] and "`random`" in lines[3]


def test_the_leaderboard_says_how_a_q_recipe_policy_was_trained():
    # the shipped checkpoint's own counts, whichever run it is
    record = torch.load(checkpoint_path("rllib-dqn-3p"), weights_only=True)["train"]
    assert record["win_bonus"] == 4.0 and record["average"] == 4  # run M (docs/integrations.md)
    assert trained("rllib-dqn-3p", 3) == (
        "ray rllib DQN (3-player self-play, win bonus 4, weights averaged over its last 4 "
        f"curve points), {record['env_steps']:,} env steps",
        f"{record['wall_s'] / 60:.0f} min",
    )
    assert record["wall_s"] < 3600  # the recipe's runs stop within the hour
    no_bonus = trained("tianshou-dqn")[0]  # run J: no bonus, no average
    assert no_bonus.startswith("tianshou DQN (against greedy, each row valued alone), ")
    sb3 = torch.load(checkpoint_path("sb3-dqn"), weights_only=True)["train"]
    assert sb3["row_only"] is True  # run J (docs/integrations.md)
    assert trained("sb3-dqn")[0].startswith(
        "stable-baselines3 DQN (against greedy, win bonus 2, weights averaged over its last 4 "
        "curve points, each row valued alone), "
    )


def test_the_leaderboard_says_when_a_policy_is_an_average_of_weights(tmp_path):
    from agents.move_policy.network import MovePolicyConfig, MovePolicyNet
    from agents.move_policy.training import export

    net = MovePolicyNet(MovePolicyConfig(max_moves=8, hidden=4))
    train = {"library": "tianshou DQN", "opponent": "greedy", "average": 4, "wall_s": 600,
             "averaged_points": [25_000, 50_000, 75_000, 90_000], "env_steps": 90_000}  # fmt: skip
    path = export(net, tmp_path / "avg.pt", "tianshou", train, 90_000)
    assert trained(f"ckpt:{path}") == (
        "tianshou DQN (against greedy, weights averaged over its last 4 curve points), "
        "90,000 env steps",
        "10 min",
    )


def test_the_leaderboard_page_is_what_its_kept_results_make():
    """docs/leaderboard.md is made, not edited: the ratings file and the bench results kept
    in docs/data/bench/ make it again, word for word (with the shipped checkpoints'
    training records)."""
    results = sorted((ROOT / "docs" / "data" / "bench").glob("*.json"))
    assert len(results) >= 6
    page = (ROOT / "docs" / "leaderboard.md").read_text()
    assert leaderboard(results) == page


def test_a_notebook_passes_its_function_itself(tmp_path, monkeypatch):
    small_ladder(tmp_path / "ratings.json", monkeypatch)
    # a bench registers the notebook's agents for the rest of its process: here, only for
    # this test (other tests compare the registry's names with the entry points)
    monkeypatch.setattr(registry, "AGENTS", dict(registry.AGENTS))

    def explodes(observation, action_mask):
        raise RuntimeError("inside the notebook")

    def best_row(observation, action_mask):
        return 0

    res = bench(best_row, 2, **{**QUICK, "processes": 2})  # played in this one process
    assert res.agent == "notebook-best_row" and res.forfeits == {"total": 0}
    with pytest.raises(BenchError, match="notebook-explodes' forfeited all 4 games"):
        bench(explodes, 2, **QUICK)
    with pytest.raises(BenchError, match="is not an Agent subclass or a function"):
        bench(42, 2, **QUICK)
