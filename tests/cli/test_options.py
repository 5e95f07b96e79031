"""The one way arguments become configs: every command's --help shows its defaults, and a
config's own checks are the command line's (the same message either way)."""

from __future__ import annotations

import argparse

import pytest

from agents.tile_ppo.network import NetConfig
from agents.tile_ppo.ppo import PPOConfig
from qwirkle_cli import commands as cli
from qwirkle_cli.options import HelpFormatter, parse_bool

COMMANDS = (
    "train",
    "ppo",
    "evaluate",
    "play",
    "serve",
    "distil",
    "rollout-values",
    "bench",
    "analyse",
)


def sub_parsers() -> dict[str, argparse.ArgumentParser]:
    parser = cli.build_parser()
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def test_every_command_is_registered_once_and_runs_its_own_function():
    parsers = sub_parsers()
    assert tuple(sorted(parsers)) == tuple(sorted(COMMANDS))
    runs = {name: p.get_default("run") for name, p in parsers.items()}
    assert all(callable(r) for r in runs.values())
    assert len({r.__name__ for r in runs.values()}) == len(COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_help_shows_every_default(name, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main([name, "--help"])
    assert exit_.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for action in sub_parsers()[name]._actions:
        if not action.option_strings or action.dest == "help":
            continue
        assert action.help, action.dest
        shown = HelpFormatter("x")._get_help_string(action)
        if action.default is None and not action.required:  # its text says what then
            assert "(default: " in action.help, action.dest
        elif action.default not in (False, [], None):  # flags and lists: off, empty
            assert "(default" in shown, action.dest
            expected = " ".join((shown % {"default": action.default}).split())
            assert expected in text, action.dest


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--num-players", "5"], "num_players must be 2, 3 or 4 (got 5)"),
        (["--window", "3"], "window must be an integer >= "),
        (["--gamma", "1.5"], "gamma must be in [0, 1] (got 1.5)"),
        (["--p-pool", "0.8", "--p-scripted", "0.5"], "p_pool + p_scripted must be <= 1"),
        (["--minibatch", "0"], "minibatch must be an integer >= 1 (got 0)"),
        (["--device", "tpu"], "device must be cpu or cuda[:N] (got 'tpu')"),
        (["--backend", "vector", "--scripted", "heuristic"], "vector backend has no scripted"),
        (["--channels", "0"], "channels must be an integer >= 1 (got 0)"),
    ],
)
def test_a_bad_ppo_value_gets_the_configs_message_on_the_command_line(argv, message):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["ppo", *argv])
    assert message in str(exit_.value)


def test_a_bad_td_value_gets_the_configs_message_on_the_command_line():
    with pytest.raises(SystemExit, match=r"lam must be in \[0, 1\] \(got 2.0\)"):
        cli.main(["train", "--lam", "2"])
    with pytest.raises(SystemExit, match="at least one hidden layer"):
        cli.main(["train", "--layers", "0"])


def test_a_true_false_option_refuses_other_words(capsys):
    assert parse_bool("Yes") is True and parse_bool("off") is False
    with pytest.raises(argparse.ArgumentTypeError, match="expected true/false"):
        parse_bool("maybe")
    with pytest.raises(SystemExit):
        cli.main(["ppo", "--anneal-lr", "maybe"])
    assert "expected true/false (or 1/0, yes/no, on/off), got 'maybe'" in capsys.readouterr().err


def test_valid_options_give_the_same_config_as_the_api():
    args = cli.build_parser().parse_args(["ppo", "--lr", "0.001", "--hidden", "64"])
    from qwirkle_cli.options import config_of

    assert config_of(PPOConfig, args) == PPOConfig(lr=0.001, net=NetConfig(hidden=64))
