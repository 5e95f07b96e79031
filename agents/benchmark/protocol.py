"""The benchmark's protocol: what a result must have been played under to be comparable.

A protocol is frozen under a versioned name. It fixes, for 2, 3 and 4 players, the deals
(each env seed and the digest of the hands and bag it deals, stored in a file shipped with
the package), the reference agents of the ladder and their specs, the anchor of the rating
scale, the per-move limit a plugin plays under and how the bench spends its games. A
change in dealing or rules changes a digest, and every bench then refuses to run instead
of silently changing the numbers: such a change needs a new protocol version.
docs/benchmark.md writes it down.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from agents.evaluation.harness import deal_digest
from qwirkle_env import raw_env

NAME = "qwirkle-bench-v1"
PLAYERS = (2, 3, 4)
DEALS = {2: 32, 3: 16, 4: 12}  # frozen deals per seat count; each is played in every rotation
ANCHOR = ("greedy", 1000.0)  # the reference whose rating is fixed, on the Elo scale
MOVE_LIMIT = 1.0  # CPU seconds a plugin may think on one move (a whole turn)
PRIOR = 1.0  # virtual draws per pair of players that met (keeps ratings finite)
# The ladder: deterministic per move (a search by a fixed number of simulations, not a
# time budget), so a rating is the same on every run and machine.
REFERENCES = {
    2: [
        "random", "greedy", "heuristic", "search:sims=50", "search:sims=200", "learned",
        "learned-search:sims=20", "sb3-moves", "tianshou-moves", "rllib-moves",
    ],
    3: ["random", "greedy", "heuristic", "search:sims=50", "learned", "sb3-moves"],
    4: ["random", "greedy", "heuristic", "search:sims=50", "learned", "sb3-moves"],
}  # fmt: skip
# The bench: every reference on the first PROBE_DEALS deals, then BENCH_DEALS more deals
# spread over the references where the games tell most about the rating.
PROBE_DEALS = {2: 4, 3: 2, 4: 2}
BENCH_DEALS = {2: 120, 3: 36, 4: 24}


class ProtocolError(Exception):
    """The installed rules, deals or reference agents no longer match the frozen protocol."""


@dataclass(frozen=True)
class Deal:
    seed: int  # the env seed
    digest: str  # the harness's deal digest: hands, bag order and first player


def data_file(kind: str) -> Path:
    """The protocol's shipped file of ``kind`` (``deals`` or ``ratings``)."""
    return Path(str(resources.files("agents.benchmark") / "data" / f"{NAME}.{kind}.json"))


def deal_seeds(players: int) -> list[int]:
    """The env seeds of the protocol's deals, drawn from its name: the same everywhere."""
    rng = random.Random(f"{NAME}:{players}")
    return [rng.randrange(2**31) for _ in range(DEALS[players])]


def digest_of(seed: int, players: int) -> str:
    env = raw_env(num_players=players)
    env.reset(seed=seed)
    return deal_digest(env)


def freeze_deals(path: Path | None = None) -> Path:
    """Writes the deals file: every deal's seed and digest, for every seat count. Run once
    per protocol version; the file is then shipped and never rewritten."""
    path = path or data_file("deals")
    data = {
        "protocol": NAME,
        "deals": {
            str(n): [{"seed": s, "digest": digest_of(s, n)} for s in deal_seeds(n)] for n in PLAYERS
        },
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")
    return path


def check_players(players: int) -> None:
    if players not in PLAYERS:
        raise ValueError(
            f"{NAME} has games of {', '.join(map(str, PLAYERS))} players, got {players}"
        )


def deals(players: int, path: Path | None = None) -> list[Deal]:
    """The frozen deals of ``players``-seat games, each dealt again and checked against its
    stored digest: ProtocolError if any differs."""
    check_players(players)
    data = json.loads((path or data_file("deals")).read_text())
    if data.get("protocol") != NAME:
        raise ProtocolError(f"the deals file is for {data.get('protocol')!r}, not {NAME!r}")
    stored = [Deal(int(d["seed"]), str(d["digest"])) for d in data["deals"][str(players)]]
    for i, deal in enumerate(stored):
        now = digest_of(deal.seed, players)
        if now != deal.digest:
            raise ProtocolError(
                f"{NAME}, {players} players, deal {i} (seed {deal.seed}) deals other tiles now "
                f"(digest {now}, frozen {deal.digest}): the rules or the dealing changed, so "
                "results are no longer comparable; freeze a new protocol version"
            )
    return stored


def check_digests(records: list, frozen: list[Deal]) -> None:
    """ProtocolError if a played game's deal is not the frozen deal it was meant to be."""
    for rec in records:
        if rec.deal_digest != frozen[rec.deal].digest:
            raise ProtocolError(
                f"{NAME}: game on deal {rec.deal} was dealt {rec.deal_digest}, frozen "
                f"{frozen[rec.deal].digest}"
            )
