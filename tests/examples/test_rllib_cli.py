"""examples/rllib_cli.py: the RLlib example's options, and clear errors for impossible
combinations before Ray starts (no Ray needed here)."""

from __future__ import annotations

import re

import pytest

from tests.conftest import load_example

cli = load_example("rllib_cli")


def test_defaults_and_knobs():
    args = cli.parse_args([])
    assert (args.num_learners, args.envs_per_runner, args.runtime_env) == (0, 1, None)
    args = cli.parse_args(
        [
            "--num-learners=2",
            "--envs-per-runner=4",
            "--batch=4000",
            "--minibatch=500",
            '--runtime-env={"working_dir": "examples"}',
        ]
    )
    assert args.num_learners == 2 and args.envs_per_runner == 4
    assert args.runtime_env == {"working_dir": "examples"}
    assert cli.parse_args(["--smoke", "--minibatch=250"]).batch == 500
    assert cli.parse_args(["--batch=100"] + ["--minibatch=100"]).minibatch == 100


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--batch=200"], r"--minibatch 250 is larger than each learner's batch \(200 env steps"),
        (
            ["--batch=800", "--num-learners=4"],
            r"--minibatch 250 is larger than each learner's batch \(800 env steps / 4",
        ),
        (["--batch=1001", "--num-learners=2"], "must split evenly over --num-learners 2"),
        (["--envs-per-runner=0"], "--envs-per-runner must be >= 1, got 0"),
        (["--num-learners=-1"], "--num-learners must be >= 0, got -1"),
        (["--env-runners=-2"], "--env-runners must be >= 0, got -2"),
        (["--window=9"], "--window must be >= 11"),
        (["--gpus-per-learner=1"], "--gpus-per-learner needs --num-learners >= 1"),
        (["--runtime-env={oops"], "--runtime-env is not valid JSON"),
        (["--runtime-env=[1, 2]"], "--runtime-env must be a JSON object"),
        (["--iters=0", "--minibatch=0"], "--iters must be >= 1, got 0; --minibatch must be >= 1"),
    ],
)
def test_impossible_combinations_fail_with_what_is_wrong(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.parse_args(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "usage:" in err
    assert re.search(message, err), err


def test_each_run_type_has_its_own_default_out():
    assert cli.parse_args(["--smoke"]).out == "runs/rllib_selfplay_smoke"
    assert cli.parse_args([]).out == "runs/rllib_selfplay_local"
    assert cli.parse_args(["--address=auto"]).out == "runs/rllib_selfplay_cluster"
    assert cli.parse_args(["--smoke", "--out=elsewhere"]).out == "elsewhere"


def test_more_env_runners_than_cpus_is_refused_with_both_numbers():
    args = cli.parse_args(["--env-runners=16"])
    (problem,) = cli.resource_problems(args, cpus=2, gpus=0)
    assert "needs 16 CPUs (16 env runners, 1 CPU each) but the cluster has 2" in problem
    assert cli.resource_problems(cli.parse_args(["--env-runners=2"]), cpus=2, gpus=0) == []
    learners = cli.parse_args(["--env-runners=2", "--num-learners=2", "--batch=1000"])
    (problem,) = cli.resource_problems(learners, cpus=3, gpus=0)
    assert "needs 4 CPUs (2 env runners + 2 learners" in problem and "has 3" in problem
    on_gpus = cli.parse_args(["--num-learners=2", "--gpus-per-learner=1", "--batch=1000"])
    assert cli.resource_problems(on_gpus, cpus=2, gpus=2) == []  # GPU learners take no CPU
    (problem,) = cli.resource_problems(on_gpus, cpus=2, gpus=1)
    assert "needs 2 GPUs but the cluster has 1" in problem
