"""What the wheel is made of: pyproject.toml's package list and the shipped names agree
with the checkout (the wheel itself is built and installed by .ci/run)."""

from __future__ import annotations

from pathlib import Path

import tomllib
from setuptools import find_packages

import qwirkle_env
from agents.registry import LEARNED_BY_SEATS, SHIPPED, VALUES_BY_SEATS, shipped_dir

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_package_list_names_every_package_of_the_checkout():
    found = find_packages(
        str(ROOT), include=["qwirkle_env*", "agents*", "showdown*", "qwirkle_cli*"]
    )
    listed = PROJECT["tool"]["setuptools"]["packages"]
    assert sorted(listed) == sorted([*found, "agents.shipped"])
    assert PROJECT["tool"]["setuptools"]["package-dir"] == {"agents.shipped": "checkpoints"}


def test_every_shipped_checkpoint_has_a_name_an_opponent_entry_and_fits():
    files = sorted(p.name for p in (ROOT / "checkpoints").glob("*.pt"))
    assert (
        sorted({*SHIPPED.values(), *LEARNED_BY_SEATS.values(), *VALUES_BY_SEATS.values()}) == files
    )
    assert shipped_dir() == ROOT / "checkpoints"
    assert all((ROOT / "checkpoints" / f).stat().st_size <= 2 * 2**20 for f in files)
    opponents = PROJECT["project"]["entry-points"]["qwirkle_env.opponents"]
    assert set(SHIPPED) | {"learned-search"} <= set(opponents)


def test_the_version_is_written_once():
    assert PROJECT["project"]["dynamic"] == ["version"]
    assert PROJECT["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "qwirkle_env.__version__"
    }
    assert f"## {qwirkle_env.__version__}" in (ROOT / "CHANGELOG.md").read_text()
    for package in ("qwirkle_env", "agents", "showdown", "qwirkle_cli"):
        assert (ROOT / package / "py.typed").is_file()
