"""The rated ladder: the reference agents on one fixed scale, computed once and shipped.

One command (``qwirkle bench --ladder``) plays each seat count's round robin of the
protocol's references on its frozen deals, fits Plackett-Luce ratings (Bradley-Terry with
two seats), moves the scale so that the anchor is rated ``ANCHOR``, and writes the ratings
file. The file records each reference's version (the digest of its checkpoint files, or
the package version of a scripted agent), so a retrained checkpoint makes the old ratings
refuse to be used until the ladder is played again.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from agents.benchmark import protocol
from agents.evaluation.harness import run_tournament
from agents.evaluation.plackett_luce import fit, fit_one, rankings_of
from agents.evaluation.results import Results
from agents.registry import (
    SHIPPED,
    checkpoint_path,
    learned_paths,
    parse_spec,
    shipped_dir,
    value_paths,
)
from qwirkle_env import __version__


def _files_digest(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for path in paths:
        h.update(path.name.encode())
        h.update(Path(path).read_bytes())
    return h.hexdigest()[:16]


def reference_version(spec: str) -> str:
    """What a reference's rating depends on besides the rules: its checkpoints' bytes, or,
    for a scripted agent, the package's version."""
    path = checkpoint_path(spec)
    if path is not None:
        learned = path == shipped_dir() / SHIPPED["learned"]
        files = sorted(set(learned_paths().values())) if learned else [path]
        return "sha256:" + _files_digest(files)
    name, _ = parse_spec(spec)
    if name in ("learned-search", "learned-oracle"):
        return "sha256:" + _files_digest(sorted(set(value_paths().values())))
    return "qwirkle-env " + __version__


def _rankings(results: Results) -> list:
    rankings = []
    for rec in results.records:
        rankings += rankings_of(list(rec.agents), rec.standing())
    return rankings


def rate(results: Results, anchor: str = protocol.ANCHOR[0]) -> list[float]:
    """Each agent's Plackett-Luce rating in ``results``, the anchor's fixed at ``ANCHOR``."""
    ratings = fit(_rankings(results), len(results.names), prior=protocol.PRIOR)
    shift = protocol.ANCHOR[1] - ratings[results.names.index(anchor)]
    return [float(r + shift) for r in ratings]


def intervals(results: Results, ratings: list[float]) -> list[tuple[float, float]]:
    """Each agent's 95% interval with every other rating held at its estimate: narrower
    than the joint uncertainty, as a bench's interval is."""
    rankings = _rankings(results)
    out = []
    for i in range(len(ratings)):
        fixed = {j: r for j, r in enumerate(ratings) if j != i}
        _, low, high = fit_one(rankings, fixed, i, prior=protocol.PRIOR)
        out.append((low, high))
    return out


def play_ladder(players: int, processes: int = 2, progress: bool = True,
                out_dir: str | Path | None = None, on_ray: bool = False) -> dict:  # fmt: skip
    """Plays one seat count's round robin on the frozen deals and rates it: the ratings
    file's entry for ``players``. ``on_ray``: the games are tasks of the running Ray
    instance (``agents.evaluation.ray_games``), the same games as on one machine."""
    frozen = protocol.deals(players)
    specs = protocol.REFERENCES[players]
    start = time.perf_counter()
    results = run_tournament(
        specs, len(frozen) * players, players, seed=0, processes=processes,
        out_dir=out_dir, progress=progress, deal_seeds=[d.seed for d in frozen], on_ray=on_ray,
    )  # fmt: skip
    protocol.check_digests(results.records, frozen)
    ratings = rate(results)
    bounds = intervals(results, ratings)
    rows = {row["agent"]: row for row in results.summary()}
    return {
        "deals": len(frozen),
        "games": len(results.records),
        "wall_s": round(time.perf_counter() - start, 1),
        "references": [
            {
                "spec": spec,
                "version": reference_version(spec),
                "rating": round(rating, 1),
                "rating_low": round(low, 1),
                "rating_high": round(high, 1),
                "games": rows[spec]["games"],
                "win_rate": round(rows[spec]["win_rate"], 4),
                "cpu_ms_per_move": round(rows[spec]["cpu_ms_per_move"], 2),
            }
            for spec, rating, (low, high) in zip(specs, ratings, bounds, strict=True)
        ],
    }


def write_ladder(entries: dict[int, dict], path: Path | None = None, command: str = "") -> Path:
    """Writes (or updates, seat count by seat count) the ratings file."""
    path = path or protocol.data_file("ratings")
    data = json.loads(path.read_text()) if path.is_file() else {}
    data.update(
        {
            "protocol": protocol.NAME,
            "anchor": {"spec": protocol.ANCHOR[0], "rating": protocol.ANCHOR[1]},
            "model": "Plackett-Luce maximum likelihood on the Elo scale (Bradley-Terry with "
            f"2 players), {protocol.PRIOR:g} virtual draw per pair that met",
        }
    )
    players = data.setdefault("players", {})
    for n, entry in entries.items():
        players[str(n)] = {**entry, "made_by": command}
    path.write_text(json.dumps(data, indent=1) + "\n")
    return path


def ladder(players: int, path: Path | None = None, check: bool = True) -> dict[str, dict]:
    """The shipped ladder of ``players``-seat games, by spec. With ``check``, ProtocolError
    if a reference changed since it was rated (its version differs) or is missing."""
    protocol.check_players(players)
    path = path or protocol.data_file("ratings")
    if not path.is_file():
        raise protocol.ProtocolError(
            f"no ratings file for {protocol.NAME} ({path}): rate the ladder with "
            "`qwirkle bench --ladder`"
        )
    data = json.loads(path.read_text())
    entry = data.get("players", {}).get(str(players))
    if data.get("protocol") != protocol.NAME or entry is None:
        raise protocol.ProtocolError(
            f"{path} holds no {protocol.NAME} ladder for {players} players: rate it with "
            f"`qwirkle bench --ladder --players {players}`"
        )
    refs = {r["spec"]: r for r in entry["references"]}
    if check:
        for spec in protocol.REFERENCES[players]:
            if spec not in refs:
                raise protocol.ProtocolError(
                    f"reference {spec!r} is not rated in {path}: re-rate with `qwirkle bench "
                    f"--ladder --players {players}`"
                )
            now = reference_version(spec)
            if refs[spec]["version"] != now:
                raise protocol.ProtocolError(
                    f"reference {spec!r} was rated as {refs[spec]['version']}, the installed "
                    f"one is {now}: its rating is stale; re-rate with `qwirkle bench --ladder "
                    f"--players {players}`"
                )
    return refs
