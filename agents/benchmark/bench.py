"""The bench: any agent plays the ladder and gets a rating on its fixed scale.

First every reference plays the agent on the protocol's first probe deals; a first rating
follows. The remaining deals go to the references in proportion to what a game against each
tells about that rating (p(1 - p), p the chance to finish above it), as whole deals, each in
every seat rotation. With three or four seats the agent plays against copies of one
reference. The rating is the maximum-likelihood Plackett-Luce rating with the references'
ratings held at the shipped ladder's, and its 95% interval; a deterministic agent gets the
same numbers on every run.
"""

from __future__ import annotations

import inspect
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.benchmark import protocol
from agents.benchmark.ladder import ladder
from agents.evaluation.harness import build_agent, run_tournament
from agents.evaluation.plackett_luce import expected_first, fit_one, rankings_of
from agents.evaluation.results import GameRecord
from agents.evaluation.stats import wilson
from agents.plugin import IN_PROCESS, PluginError, PolicyAgent
from agents.registry import register

NEW = 0  # the agent's index in the bench's lineups; the references follow


class BenchError(Exception):
    """The agent cannot be rated: it cannot be loaded, or it forfeited every game."""


@dataclass
class BenchResult:
    agent: str
    players: int
    rating: float
    rating_low: float
    rating_high: float
    forfeits: dict[str, int]
    cpu_ms_per_move: float
    matches: list[dict]
    wall_s: float
    ladder: dict[str, float] = field(default_factory=dict)  # the references' ratings
    deals: tuple[int, int] = (0, 0)  # (probe deals, deals spread after the probe)
    games: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "protocol": protocol.NAME,
            "agent": self.agent,
            "players": self.players,
            "rating": round(self.rating, 1),
            "rating_low": round(self.rating_low, 1),
            "rating_high": round(self.rating_high, 1),
            "forfeits": self.forfeits,
            "cpu_ms_per_move": round(self.cpu_ms_per_move, 3),
            "matches": self.matches,
            "wall_s": round(self.wall_s, 1),
            "probe_deals": self.deals[0],
            "extra_deals": self.deals[1],
            # the protocol's own settings: only then is the rating comparable with others
            "protocol_settings": self.deals
            == (protocol.PROBE_DEALS[self.players], protocol.BENCH_DEALS[self.players]),
            "ladder": self.ladder,
            "games": self.games,
        }


def allocate(rating: float, refs: list[float], deals: int, cap: int, players: int) -> list[int]:
    """Extra deals per reference, ``deals`` in all and at most ``cap`` each: in proportion
    to p(1 - p), the information a game holds about ``rating`` (largest remainders, ties to
    the earlier reference)."""
    info = []
    for r in refs:
        p = expected_first(rating, [r] * (players - 1))
        info.append(max(p * (1.0 - p), 1e-6))
    share = np.array(info)
    out = [0] * len(refs)
    left = min(deals, cap * len(refs))
    while left > 0:
        room = [i for i in range(len(refs)) if out[i] < cap]
        weights = share[room] / share[room].sum()
        exact = weights * left
        give = np.floor(exact).astype(int)
        for k, i in enumerate(room):
            give[k] = min(give[k], cap - out[i])
        if give.sum() == 0:  # hand out one by one by largest remainder
            order = sorted(range(len(room)), key=lambda k: (-(exact[k] - give[k]), room[k]))
            give[order[0]] = 1
        for k, i in enumerate(room):
            out[i] += int(give[k])
        left -= int(give.sum())
    return out


def _rate(records: list[GameRecord], fixed: dict[int, float]) -> tuple[float, float, float]:
    rankings = []
    for rec in records:
        rankings += rankings_of(list(rec.agents), rec.standing())
    return fit_one(rankings, fixed, NEW, prior=protocol.PRIOR)


def _load(spec: str, players: int) -> None:
    try:
        build_agent(spec).check_players(players)
    except PluginError as err:
        raise BenchError(str(err)) from None


def in_process(agent: Callable | type[Agent]) -> str:
    """A registry name for an agent defined in this process (a notebook's function or
    Agent subclass), for a bench in one process: worker processes could not load it."""
    name = IN_PROCESS + getattr(agent, "__name__", type(agent).__name__).lower()
    if inspect.isclass(agent) and issubclass(agent, Agent):
        register(name)(agent)
    elif callable(agent):
        register(name)(lambda: PolicyAgent(agent))
    else:
        raise BenchError(
            f"{agent!r} is not an Agent subclass or a function policy(observation, "
            "action_mask) -> row"
        )
    return name


def bench(
    spec: str | Callable | type[Agent],
    players: int = 2,
    processes: int = 2,
    probe_deals: int | None = None,
    extra_deals: int | None = None,
    progress: bool = True,
    ladder_path: Path | None = None,
    on_ray: bool = False,
) -> BenchResult:
    """Rates the agent ``spec`` (a registry spec or a plugin, ``agents.plugin``; in a
    notebook, the function or Agent subclass itself, played in this one process) on the
    protocol's ladder of ``players``-seat games. BenchError if it cannot be loaded or
    forfeits every game; ProtocolError if the deals or the ladder are stale. ``on_ray``:
    the games are tasks of the running Ray instance."""
    if not isinstance(spec, str):
        spec, processes = in_process(spec), 1
    protocol.check_players(players)
    _load(spec.strip(), players)  # a broken plugin is named before anything else runs
    probe = protocol.PROBE_DEALS[players] if probe_deals is None else probe_deals
    extra = protocol.BENCH_DEALS[players] if extra_deals is None else extra_deals
    frozen = protocol.deals(players)
    if not 1 <= probe <= len(frozen):
        raise ValueError(f"probe deals must be 1..{len(frozen)}, got {probe}")
    if extra < 0:
        raise ValueError(f"extra deals must be at least 0, got {extra}")
    refs = ladder(players, ladder_path)
    specs = [spec.strip(), *protocol.REFERENCES[players]]
    fixed = {i + 1: refs[s]["rating"] for i, s in enumerate(specs[1:])}
    seeds = [d.seed for d in frozen]
    start = time.perf_counter()

    def play(counts: list[tuple[int, list[int]]]) -> list[GameRecord]:
        plan = [([NEW] + [j] * (players - 1), ds) for j, ds in counts if ds]
        if not plan:
            return []
        res = run_tournament(
            specs, 0, players, processes=processes, progress=progress, deal_seeds=seeds,
            plan=plan, move_limit=protocol.MOVE_LIMIT, on_ray=on_ray,
        )  # fmt: skip
        protocol.check_digests(res.records, frozen)
        for rec in res.records:  # lineup numbers are the plan's: name the reference
            rec.lineup = plan[rec.lineup][0][1] - 1
        return res.records

    records = play([(j, list(range(probe))) for j in fixed])
    _check_forfeits(specs[0], records)
    first, _, _ = _rate(records, fixed)
    more = allocate(first, list(fixed.values()), extra, len(frozen) - probe, players)
    records += play([(j, list(range(probe, probe + k))) for j, k in zip(fixed, more, strict=True)])
    _check_forfeits(specs[0], records)
    rating, low, high = _rate(records, fixed)
    return BenchResult(
        agent=specs[0], players=players, rating=rating, rating_low=low, rating_high=high,
        forfeits=_forfeit_counts(records), cpu_ms_per_move=_cpu_ms(records),
        matches=_matches(records, specs), wall_s=time.perf_counter() - start,
        ladder={s: refs[s]["rating"] for s in specs[1:]}, deals=(probe, extra),
        games=[_game(rec, specs) for rec in records],
    )  # fmt: skip


def _seat(rec: GameRecord) -> int:
    return rec.agents.index(NEW)


def _forfeit_counts(records: list[GameRecord]) -> dict[str, int]:
    why = Counter(rec.forfeits[_seat(rec)].split(":", 1)[0] for rec in records if _lost(rec))
    return {"total": sum(why.values()), **dict(sorted(why.items()))}


def _lost(rec: GameRecord) -> bool:
    return bool(rec.forfeits and rec.forfeits[_seat(rec)])


def _check_forfeits(spec: str, records: list[GameRecord]) -> None:
    if records and all(_lost(rec) for rec in records):
        reasons = Counter(rec.forfeits[_seat(rec)] for rec in records).most_common(1)[0][0]
        raise BenchError(
            f"plugin {spec!r} forfeited all {len(records)} games it played; first reason: {reasons}"
        )


def _cpu_ms(records: list[GameRecord]) -> float:
    cpu = sum(rec.think_cpu[_seat(rec)] for rec in records)
    moves = sum(rec.moves[_seat(rec)] for rec in records)
    return 1000.0 * cpu / max(moves, 1)


def _matches(records: list[GameRecord], specs: list[str]) -> list[dict]:
    out = []
    for j, opponent in enumerate(specs[1:], start=1):
        games = [rec for rec in records if rec.lineup == j - 1]
        if not games:
            continue
        wins, margin = 0.0, 0.0
        for rec in games:
            seat = _seat(rec)
            if seat in rec.winners:
                wins += 1.0 / len(rec.winners)
            others = [s for k, s in enumerate(rec.scores) if k != seat]
            margin += rec.scores[seat] - sum(others) / len(others)
        lo, hi = wilson(wins, len(games))
        out.append(
            {
                "opponent": opponent,
                "games": len(games),
                "win_rate": round(wins / len(games), 4),
                "ci_low": round(lo, 4),
                "ci_high": round(hi, 4),
                "margin": round(margin / len(games), 2),
            }
        )
    return out


def _game(rec: GameRecord, specs: list[str]) -> dict:
    """What a paired comparison reads of one game: which deal, rotation and opponent, the
    agent's seat and its margin."""
    seat = _seat(rec)
    others = [s for k, s in enumerate(rec.scores) if k != seat]
    return {
        "opponent": specs[rec.lineup + 1],
        "deal": rec.deal,
        "rotation": rec.rotation,
        "seat": seat,
        "scores": rec.scores,
        "margin": rec.scores[seat] - sum(others) / len(others),
        "won": seat in rec.winners and not _lost(rec),
        "forfeit": rec.forfeits[seat] if rec.forfeits else "",
    }


def rating_text(result: BenchResult) -> str:
    """The table the command prints."""
    lines = [
        f"{protocol.NAME}, {result.players} players: {result.agent}",
        f"rating {result.rating:.0f} (95% interval {result.rating_low:.0f} to "
        f"{result.rating_high:.0f}; greedy = {protocol.ANCHOR[1]:.0f})",
        "",
        "| opponent | its rating | games | win % | 95% CI | margin |",
        "|---|---|---|---|---|---|",
    ]
    for m in result.matches:
        lines.append(
            f"| {m['opponent']} | {result.ladder[m['opponent']]:.0f} | {m['games']} | "
            f"{m['win_rate']:.1%} | {m['ci_low']:.1%}–{m['ci_high']:.1%} | {m['margin']:+.1f} |"
        )
    total = result.forfeits.get("total", 0)
    why = ", ".join(f"{k} {v}" for k, v in result.forfeits.items() if k != "total")
    lines.append(
        f"\n{sum(m['games'] for m in result.matches)} games, {result.wall_s:.0f} s wall, "
        f"{result.cpu_ms_per_move:.2f} CPU ms per move; forfeits: {total}"
        + (f" ({why})" if why else "")
    )
    default = (protocol.PROBE_DEALS[result.players], protocol.BENCH_DEALS[result.players])
    if result.deals != default:
        lines.append(
            f"Not the protocol's settings (probe {result.deals[0]} and {result.deals[1]} more "
            f"deals; it says {default[0]} and {default[1]}): not comparable with its results."
        )
    return "\n".join(lines)
