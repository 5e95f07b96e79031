"""The move mode's reference policy: what it scores, how it is saved, and how it plays."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.checkpoint import load_checkpoint, save_checkpoint
from agents.evaluation.harness import play_game
from agents.move_policy.network import (
    POINTS,
    MovePolicyAgent,
    MovePolicyConfig,
    MovePolicyNet,
    layout,
)
from agents.move_policy.training import export, quick_match, start_weights
from agents.registry import make_agent
from agents.tile_ppo.network import PolicyValueNet
from qwirkle_env import raw_env
from qwirkle_env.rows.columns import POINT_SCALE
from qwirkle_env.rows.table import NUM_POSITION_FEATURES, split_observation
from qwirkle_env.spec import MASKED_LOGIT


@pytest.fixture(scope="module")
def observations() -> tuple[torch.Tensor, torch.Tensor]:
    rng = np.random.default_rng(0)
    obs, masks = [], []
    for seed in range(2):
        e = raw_env(action_mode="moves", num_players=2 + seed)
        e.reset(seed=seed)
        while not e.game.over:
            o = e.observe(e.agent_selection)
            obs.append(o["observation"])
            masks.append(o["action_mask"])
            e.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return torch.from_numpy(np.stack(obs)), torch.from_numpy(np.stack(masks))


def test_rows_that_hold_no_move_are_masked_and_the_mask_is_read_from_the_rows(observations):
    obs, masks = observations
    net = MovePolicyNet()
    logits, value = net(obs, masks)
    again, value_again = net(obs)  # without the mask: found in the observation
    assert torch.equal(logits, again) and torch.allclose(value, value_again)
    assert ((logits == MASKED_LOGIT) == ~masks.bool()).all()
    assert value.shape == (len(obs),)


def test_the_packed_network_equals_an_mlp_over_position_and_row(observations):
    obs, masks = observations
    net = MovePolicyNet(MovePolicyConfig(hidden=16, layers=2))
    logits, _ = net(obs[:5], masks[:5])
    position, rows = split_observation(obs[:5], net.config.max_moves)
    weight = torch.cat([net.position_in.weight, net.row_in.weight], dim=1)
    for b in range(5):
        for r in np.flatnonzero(masks[b].numpy())[:10]:
            x = torch.cat([position[b], rows[b, r]])
            h = torch.relu(weight @ x + net.position_in.bias)
            h = torch.relu(net.rows[0](h))
            assert net.logit(h).item() == pytest.approx(logits[b, r].item(), abs=1e-5)


def test_a_row_only_network_scores_each_row_without_the_position(observations, tmp_path):
    """``row_only``: a row's logit is an MLP over the row alone, so the same row scores the
    same in any position; the checkpoint says so and loads as the same network."""
    obs, masks = observations
    torch.manual_seed(0)
    net = MovePolicyNet(MovePolicyConfig(hidden=16, layers=2, row_only=True))
    assert net.position_in is None and net.row_in.bias is not None
    logits, _ = net(obs[:5], masks[:5])
    _, rows = split_observation(obs[:5], net.config.max_moves)
    for b in range(5):
        for r in np.flatnonzero(masks[b].numpy())[:10]:
            h = torch.relu(net.rows[0](torch.relu(net.row_in(rows[b, r]))))
            assert net.logit(h).item() == pytest.approx(logits[b, r].item(), abs=1e-5)
    moved = obs[:1].clone()
    moved[0, :NUM_POSITION_FEATURES] = torch.rand(NUM_POSITION_FEATURES)
    assert torch.allclose(net(moved, masks[:1])[0], logits[:1])
    path = export(net, tmp_path / "row_only.pt", "test", {}, 0)
    loaded, meta = load_checkpoint(path, kind=MovePolicyNet)
    assert meta["net"]["row_only"] is True
    assert torch.equal(loaded(obs[:5], masks[:5])[0], logits)


def test_row_only_must_be_true_or_false():
    with pytest.raises(ValueError, match="row_only must be True or False, got 'yes'"):
        MovePolicyNet(MovePolicyConfig(row_only="yes"))


def test_an_untrained_policy_with_a_points_prior_plays_the_move_that_scores_most(observations):
    obs, masks = observations
    torch.manual_seed(0)
    net = MovePolicyNet(MovePolicyConfig(points_prior=1.0))
    logits, _ = net(obs, masks)
    points = split_observation(obs, net.config.max_moves)[1][..., POINTS] * POINT_SCALE
    best = points.masked_fill(~masks.bool(), -1).amax(dim=1)
    chosen = points.gather(1, logits.argmax(dim=1, keepdim=True)).squeeze(1)
    assert torch.equal(chosen, best)
    # one more point is worth one more logit, up to the network's small start
    picked = masks.bool() & (points > 0)
    assert torch.allclose(logits[picked], points[picked], atol=0.5)
    plain = MovePolicyNet(MovePolicyConfig())
    assert plain.points_prior is None and "points_prior" not in plain.state_dict()


def test_an_afterstate_critic_is_the_policys_mean_of_the_rows_values(observations):
    obs, masks = observations
    net = MovePolicyNet(MovePolicyConfig(points_prior=1.0, value_per_logit=0.1))
    logits, value = net(obs, masks)
    chance = torch.softmax(logits, dim=1)
    each = torch.where(masks.bool(), chance * logits * 0.1, torch.zeros_like(logits))
    assert torch.allclose(value, each.sum(dim=1), atol=1e-5)
    assert net.value is None  # no head of its own
    # the critic's loss reaches the row network: it learns what each move is worth
    value.sum().backward()
    assert net.row_in.weight.grad.abs().sum() > 0


@pytest.mark.parametrize("prior", [-1.0, float("nan"), float("inf")])
def test_a_points_prior_must_be_finite_and_not_negative(prior):
    with pytest.raises(ValueError, match="points_prior must be a finite number >= 0"):
        MovePolicyNet(MovePolicyConfig(points_prior=prior))
    with pytest.raises(ValueError, match="value_per_logit must be a finite number >= 0"):
        MovePolicyNet(MovePolicyConfig(value_per_logit=prior))


def test_training_can_start_only_from_weights_with_the_same_prior(tmp_path):
    path = export(MovePolicyNet(MovePolicyConfig(hidden=8, points_prior=1.0)), tmp_path / "p.pt",
                  "test", {}, 0)  # fmt: skip
    options = {"hidden": 8, "points_prior": 2.0, "value_per_logit": 0.0}
    assert "points_prior" in start_weights(path, options)  # the learned value is kept
    with pytest.raises(ValueError, match="both must be 0 or both above 0"):
        start_weights(path, {**options, "points_prior": 0.0})
    with pytest.raises(ValueError, match="value_per_logit: checkpoint 0.0 vs requested 0.1"):
        start_weights(path, {**options, "value_per_logit": 0.1})


def test_a_saved_policy_loads_as_ckpt_and_plays_in_the_tile_mode_harness(tmp_path):
    torch.manual_seed(0)
    net = MovePolicyNet(MovePolicyConfig(hidden=16))
    path = export(net, tmp_path / "p.pt", "test", {"steps": 0}, 0)
    loaded, meta = load_checkpoint(path, kind=MovePolicyNet)
    assert meta["env"]["row_features"] == layout()["row_features"]
    agent = make_agent(f"ckpt:{path}")
    assert isinstance(agent, MovePolicyAgent)
    result = play_game([f"ckpt:{path}", "greedy"], env_seed=3, agent_seeds=[1, 2])
    assert len(result["scores"]) == 2
    assert path.stat().st_size < 2 * 1024 * 1024


def test_the_agent_chooses_the_row_the_env_would_score_highest(tmp_path):
    """The agent rebuilds the env's rows from its view: its choice is the env's argmax."""
    torch.manual_seed(1)
    net = MovePolicyNet(MovePolicyConfig(hidden=16)).eval()
    agent = MovePolicyAgent(net)
    e = raw_env(action_mode="moves")
    e.reset(seed=9)
    for _ in range(12):
        obs = e.observe(e.agent_selection)
        with torch.no_grad():
            logits, _ = net(torch.from_numpy(obs["observation"])[None])
        row = int(logits.argmax())
        assert agent.choose(e.player_view(observe=False)) == e.candidate_moves()[row]
        e.step(row)


def test_a_checkpoint_of_another_feature_layout_is_refused(tmp_path):
    net = MovePolicyNet(MovePolicyConfig(hidden=8))
    old = {**layout(), "row_features": layout()["row_features"][:-1], "max_moves": 256}
    save_checkpoint(tmp_path / "old.pt", net, old)
    with pytest.raises(ValueError, match="trained on a move-mode observation laid out as"):
        make_agent(f"ckpt:{tmp_path / 'old.pt'}")


def test_a_move_policy_checkpoint_is_refused_where_another_kind_is_asked_for(tmp_path):
    path = export(MovePolicyNet(MovePolicyConfig(hidden=8)), tmp_path / "p.pt", "t", {}, 0)
    with pytest.raises(ValueError, match="whole-move policy"):
        load_checkpoint(path, kind=PolicyValueNet)


def test_quick_match_plays_duplicate_deals():
    net = MovePolicyNet(MovePolicyConfig(hidden=8))
    found = quick_match(net, "greedy", games=2, seed=3)
    assert found["games"] == 2 and 0.0 <= found["win_rate"] <= 1.0
