"""train.py end to end on a tiny budget, checkpoints that refuse bad files, terminal play."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from agents.checkpoint import TILE_FORMAT, VERSION, _digest, load_checkpoint
from agents.tile_ppo.network import NetConfig, PolicyValueNet
from agents.tile_ppo.ppo import PPOConfig
from qwirkle_cli import commands as cli  # noqa: E402
from qwirkle_cli.options import field_docs

torch.set_num_threads(1)  # shared CI cores: one thread is much faster

SMOKE = [
    "ppo", "--total-steps", "120", "--num-envs", "3", "--rollout-steps", "64",
    "--minibatch", "32", "--bc-games", "1", "--bc-epochs", "1", "--eval-every", "120",
    "--eval-games", "2", "--eval-opponents", "random", "--final-games", "2",
    "--final-opponents", "random", "--processes", "1", "--window", "25",
    "--channels", "8", "--blocks", "1", "--hidden", "16", "--no-progress",
]  # fmt: skip


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    """A < 1 minute run through train.py's own code path."""
    out = tmp_path_factory.mktemp("runs")
    cli.main([*SMOKE, "--out", str(out), "--name", "smoke"])
    return out / "smoke"


def test_smoke_run_writes_outputs(smoke_run):
    ckpts = smoke_run / "checkpoints"
    assert (ckpts / "final.pt").is_file() and (ckpts / "latest.pt").is_file()
    assert (smoke_run / "metrics.csv").read_text().startswith("step,")
    assert (smoke_run / "learning_curve.png").stat().st_size > 1000
    assert (smoke_run / "config.json").is_file()


def test_checkpoint_is_a_loadable_agent(smoke_run):
    from agents.evaluation.harness import play_game
    from agents.registry import make_agent

    path = smoke_run / "checkpoints" / "final.pt"
    net, meta = load_checkpoint(path, kind=PolicyValueNet)
    assert meta["env"]["window"] == 25 and meta["net"]["channels"] == 8
    assert meta["train"]["total_steps"] == 120
    agent = make_agent(f"ckpt:{path}")
    agent.reset(0, 2, 0)
    # plays a whole legal game in the default window, too (the net is window-independent)
    out = play_game([f"ckpt:{path}", "random"], env_seed=3, agent_seeds=[1, 2])
    assert len(out["scores"]) == 2


def test_tampered_checkpoint_fails_cleanly(smoke_run, tmp_path):
    src = smoke_run / "checkpoints" / "final.pt"
    blob = torch.load(src, weights_only=True)
    key = next(iter(blob["state_dict"]))
    blob["state_dict"][key] = blob["state_dict"][key] + 0.01
    torch.save(blob, tmp_path / "weights.pt")
    with pytest.raises(ValueError, match="SHA-256"):
        load_checkpoint(tmp_path / "weights.pt", kind=PolicyValueNet)
    blob = torch.load(src, weights_only=True)
    blob["env"]["window"] = 31  # config edited by hand
    torch.save(blob, tmp_path / "config.pt")
    with pytest.raises(ValueError, match="SHA-256"):
        load_checkpoint(tmp_path / "config.pt", kind=PolicyValueNet)
    data = src.read_bytes()
    (tmp_path / "cut.pt").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="corrupt"):
        load_checkpoint(tmp_path / "cut.pt", kind=PolicyValueNet)
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint at all")
    with pytest.raises(ValueError, match="corrupt"):
        load_checkpoint(tmp_path / "junk.pt", kind=PolicyValueNet)
    torch.save({"format": "something else"}, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="not a qwirkle-env checkpoint"):
        load_checkpoint(tmp_path / "other.pt", kind=PolicyValueNet)
    with pytest.raises(ValueError, match="does not exist"):
        load_checkpoint(tmp_path / "missing.pt", kind=PolicyValueNet)


def test_incompatible_config_fails_cleanly(smoke_run, tmp_path):
    path = smoke_run / "checkpoints" / "final.pt"
    with pytest.raises(ValueError, match="window: checkpoint 25 vs requested 39"):
        load_checkpoint(path, expect_env={"window": 39}, kind=PolicyValueNet)
    with pytest.raises(ValueError, match="channels"):
        load_checkpoint(path, expect_net={"channels": 32}, kind=PolicyValueNet)
    resume = [*SMOKE, "--out", str(tmp_path), "--resume", str(path), "--window", "31"]
    with pytest.raises(ValueError, match="incompatible env config"):
        cli.main(resume)
    # weights from another architecture under a valid checksum: still a clear ValueError
    other = PolicyValueNet(NetConfig(channels=8, blocks=2, hidden=16)).state_dict()
    meta = {"format": TILE_FORMAT, "version": VERSION, "net": {"channels": 8, "blocks": 1,
            "hidden": 16}, "env": {}, "train": {}, "step": 0}  # fmt: skip
    torch.save({**meta, "state_dict": other, "sha256": _digest(other, meta)}, tmp_path / "a.pt")
    with pytest.raises(ValueError, match="don't fit the architecture"):
        load_checkpoint(tmp_path / "a.pt", kind=PolicyValueNet)


def test_help_lists_every_option(capsys):
    with pytest.raises(SystemExit):
        cli.main(["ppo", "--help"])
    text = capsys.readouterr().out
    for f in dataclasses.fields(PPOConfig):
        if f.name != "net":
            assert "--" + f.name.replace("_", "-") in text
    for f in dataclasses.fields(NetConfig):
        assert f"--{f.name}" in text
    for option in ("--name", "--resume", "--final-games", "--device"):
        assert option in text


def test_ppo_command_takes_the_ppo_defaults():
    args = cli.build_parser().parse_args(["ppo"])
    assert args.command == "ppo" and args.total_steps == PPOConfig().total_steps


def test_cuda_request_without_cuda_is_a_clear_error():
    if torch.cuda.is_available():
        pytest.skip("CUDA is available here")
    with pytest.raises(SystemExit, match="CUDA is not available"):
        cli.main(["ppo", "--device", "cuda"])


def test_human_play_retries_bad_input():
    from agents.human import play_human

    lines = iter(
        ["help", "bogus", "place red square 999 999", "place blue nothing 0 0", "moves", "1",
         "end", "quit"]
    )  # fmt: skip
    out: list[str] = []
    scores = play_human("greedy", 0, seed=4, color=False,
                        read=lambda _: next(lines), write=out.append)  # fmt: skip
    text = "\n".join(out)
    assert "place red square 3 4" in text  # the help
    assert text.count("invalid:") >= 3
    assert "1." in text  # the move list
    assert len(scores) == 2


def test_evaluate_subcommand(smoke_run, capsys):
    ckpt = f"ckpt:{smoke_run / 'checkpoints' / 'final.pt'}"
    cli.main(["evaluate", "--fast", "--agents", ckpt, "random", "--games", "2"])
    cli.main(["evaluate", "--agents", ckpt, "random", "--games", "2", "--processes", "1"])
    out = capsys.readouterr().out
    assert "| random | 2 |" in out and "95% CI" in out


def test_every_option_is_documented_once_beside_its_field(capsys):
    from agents.move_value.distil import DistilConfig
    from agents.move_value.network import ValueNetConfig
    from agents.move_value.rollout_values import RolloutConfig
    from agents.move_value.td import TDConfig

    skipped = {"net", "features"}  # sub-configs; the feature count is not an option
    for cls in (PPOConfig, NetConfig, TDConfig, ValueNetConfig, RolloutConfig, DistilConfig):
        docs = field_docs(cls)
        assert set(docs) == {f.name for f in dataclasses.fields(cls)} - skipped, cls
        assert all(docs.values()), cls
    with pytest.raises(SystemExit):
        cli.main(["ppo", "--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps the lines
    assert f"{field_docs(PPOConfig)['total_steps']} (default: 2048)" in text
