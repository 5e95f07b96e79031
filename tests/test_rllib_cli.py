"""examples/rllib_cli.py: the RLlib example's options, and clear errors for impossible
combinations before Ray starts (no Ray needed here)."""

from __future__ import annotations

import re

import pytest

from tests.test_integrations import load_example

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
