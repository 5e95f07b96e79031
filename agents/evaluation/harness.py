"""A fair evaluation harness: duplicate deals through the AEC env, played in parallel.

Each deal (one env seed) is played once per seat rotation of the agents, so every agent
gets every seat and every starting hand of that deal: the luck of the draw cancels out of
the comparison. Games run through ``qwirkle_env.raw_env`` exactly as a learner would see
them (sub-step actions, masks, player views); an illegal action raises at once.
The command line is ``python train.py evaluate``.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
import time
from multiprocessing import Pool
from pathlib import Path

from tqdm import tqdm

from agents.base import Agent
from agents.evaluation.forfeit import Forfeit, refereed_act
from agents.evaluation.report import save_results
from agents.evaluation.results import GameRecord, Results
from agents.plugin import is_plugin_spec, is_refereed, load_plugin
from agents.registry import make_agent, parse_spec
from qwirkle_env import raw_env
from qwirkle_env.engine.board import Board
from qwirkle_env.engine.moves import Placement
from qwirkle_env.spec import MAX_TURNS


def count_qwirkles(history: list, num_players: int) -> list[int]:
    """Lines of six completed per seat, replaying the history's placements on a board."""
    board = Board()
    counts = [0] * num_players
    for seat, move, _ in history:
        if not isinstance(move, Placement):
            continue
        board.play(move.tiles)
        runs = board.runs_through(cell for cell, _ in move.tiles)
        counts[seat] += sum(n == 6 for _, _, _, n in runs)
    return counts


def deal_digest(env: raw_env) -> str:
    game = env.game
    data = repr((game.hands, game.bag.tiles, game.current)).encode()
    return hashlib.sha1(data).hexdigest()[:16]


_AGENTS: dict[tuple[str, int], Agent] = {}  # per worker: built once, reset every game


def build_agent(spec: str) -> Agent:
    """An agent from any spec the harness takes: the registry's, or a plugin's code
    (``agents.plugin``), which each worker process loads itself."""
    return load_plugin(spec) if is_plugin_spec(spec) else make_agent(spec)


def _agent(spec: str, seat: int) -> Agent:
    key = (spec, seat)
    if key not in _AGENTS:
        _AGENTS[key] = build_agent(spec)
    return _AGENTS[key]


def play_game(
    specs: list[str],
    env_seed: int,
    agent_seeds: list[int],
    window: int | None = None,
    max_turns: int = MAX_TURNS,
    move_limit: float | None = None,
) -> dict:
    """Plays one game, ``specs[seat]`` at each seat; returns the per-seat results.

    A plugin's moves are refereed (``agents.evaluation.forfeit``, ``move_limit`` CPU seconds
    a turn): what it does wrong forfeits the game, which it then loses to every other seat."""
    n = len(specs)
    env = raw_env(num_players=n) if window is None else raw_env(num_players=n, window=window)
    env.reset(seed=env_seed)
    digest = deal_digest(env)
    agents = [_agent(spec, seat) for seat, spec in enumerate(specs)]
    for seat, agent in enumerate(agents):
        agent.reset(seat, n, agent_seeds[seat])
    end = env.codec.end
    moves = [0] * n
    think = [0.0] * n
    think_cpu = [0.0] * n
    refereed = [is_refereed(spec) for spec in specs]
    forfeits = [""] * n
    turn_cpu = 0.0  # the mover's CPU seconds so far this turn
    why = "rules"
    while not env.game.over:
        if any(env.truncations.values()):  # a window too small for every legal move
            why = "truncated"
            break
        name = env.agent_selection
        seat = env.agent_name_mapping[name]
        view = env.player_view(name)
        if getattr(agents[seat], "sees_everything", False):  # the oracle, an instrument
            agents[seat].peek(env.game)
        start, cpu = time.perf_counter(), time.process_time()
        if refereed[seat]:
            try:
                action = refereed_act(agents[seat], view, turn_cpu, move_limit)
            except Forfeit as err:
                forfeits[seat] = str(err)
                why = "forfeit"
                break
        else:
            action = agents[seat].act(view)
        think[seat] += time.perf_counter() - start
        think_cpu[seat] += time.process_time() - cpu
        turn_cpu += time.process_time() - cpu
        env.step(action)
        if action == end:
            turn_cpu = 0.0
            moves[seat] += 1
            if sum(moves) >= max_turns:
                why = "turn_cap"
                break
    game = env.game
    if any(forfeits):
        standing = [seat for seat in range(n) if not forfeits[seat]]
        best = max(game.scores[seat] for seat in standing)
        winners = [seat for seat in standing if game.scores[seat] == best]
    else:
        winners = game.winners()
    return {
        "deal_digest": digest,
        "scores": list(game.scores),
        "winners": winners,
        "qwirkles": count_qwirkles(game.history, n),
        "moves": moves,
        "think": think,
        "think_cpu": think_cpu,
        "end": why,
        "fallbacks": [getattr(agent, "fallbacks", 0) for agent in agents],
        "forfeits": forfeits,
    }


def _run_task(task: tuple) -> GameRecord:
    lineup_index, deal, rotation, env_seed, seats, specs, agent_seeds, move_limit = task
    out = play_game([specs[i] for i in seats], env_seed, agent_seeds, move_limit=move_limit)
    return GameRecord(lineup_index, deal, rotation, env_seed, agents=list(seats), **out)


def _lineups(count: int, num_players: int) -> list[list[int]]:
    if count < 2:
        raise ValueError(f"a match needs at least 2 agents, got {count}")
    if count < num_players:
        raise ValueError(
            f"{count} agents for {num_players}-player games: give at least one agent per "
            "seat (repeat a spec to seat it twice)"
        )
    return [list(c) for c in itertools.combinations(range(count), num_players)]


def _names(specs: list[str]) -> list[str]:
    names, seen = [], {}
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        names.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return names


def spec_of_name(name: str) -> str:
    """The spec behind a results name: a repeated spec is named ``spec#2``, and a spec
    itself has no ``#``."""
    return name.rsplit("#", 1)[0] if "#" in name else name


def agent_seeds(seed: int, lineup: int, deal: int, rotation: int, num_players: int) -> list[int]:
    """Each seat's agent seed in one game of a tournament: a replay derives them the same way."""
    rs = random.Random(f"{seed}:{lineup}:{deal}:{rotation}")
    return [rs.randrange(2**31) for _ in range(num_players)]


def run_tournament(
    agent_specs: list[str],
    games: int,
    num_players: int = 2,
    seed: int = 0,
    processes: int = 2,
    out_dir: str | Path | None = None,
    progress: bool = True,
    deal_seeds: list[int] | None = None,
    plan: list[tuple[list[int], list[int]]] | None = None,
    move_limit: float | None = None,
    on_ray: bool = False,
) -> Results:
    """Duplicate-deal matches between the agents; returns (and optionally saves) Results.

    With as many agents as seats this is one match of ``games`` games; with more, every
    combination of ``num_players`` agents plays ``games`` games (a round robin). Games come
    in whole deals: ``games`` is rounded up to a multiple of ``num_players`` rotations.
    Deal d uses the same env seed in every rotation and every lineup: ``deal_seeds[d]``
    when given (a benchmark's frozen deals), else drawn from ``seed``. ``plan`` replaces
    the round robin: (lineup of agent indices, the deals it plays) pairs, ``games`` then
    unused. ``move_limit``: a plugin's CPU seconds a turn (``agents.evaluation.forfeit``).
    ``on_ray``: the games are tasks of the running Ray instance (``ray_games``), not of
    ``processes`` local workers; the results are the same.
    """
    specs = [s.strip() for s in agent_specs]
    for spec in specs:
        if not spec.lower().startswith("ckpt:") and not is_plugin_spec(spec):
            parse_spec(spec)  # fail here, not in a worker
    if not 2 <= num_players <= 4:
        raise ValueError(f"num_players must be 2, 3 or 4, got {num_players}")
    if plan is None:
        if games < 1:
            raise ValueError(f"games must be at least 1, got {games}")
        lineups = _lineups(len(specs), num_players)
        deals = math.ceil(games / num_players)
        plan = [(lineup, list(range(deals))) for lineup in lineups]
    else:
        lineups = [list(lineup) for lineup, _ in plan]
        for lineup in lineups:
            if len(lineup) != num_players or not all(0 <= i < len(specs) for i in lineup):
                raise ValueError(
                    f"a planned lineup seats {num_players} of agents 0..{len(specs) - 1}, "
                    f"got {lineup}"
                )
    for spec in dict.fromkeys(specs):
        # unknown names, bad options and networks for other seat counts fail before any game
        build_agent(spec).check_players(num_players)
    needed = 1 + max((d for _, ds in plan for d in ds), default=-1)
    if deal_seeds is None:
        seeder = random.Random(seed)
        deal_seeds = [seeder.randrange(2**31) for _ in range(needed)]
    elif needed > len(deal_seeds):
        raise ValueError(f"the plan plays deal {needed - 1}; only {len(deal_seeds)} deals given")
    tasks = []
    for li, (lineup, deals_played) in enumerate(plan):
        for d in deals_played:
            for rot in range(num_players):
                seats = [lineup[(s - rot) % num_players] for s in range(num_players)]
                seeds = agent_seeds(seed, li, d, rot, num_players)
                tasks.append((li, d, rot, deal_seeds[d], seats, specs, seeds, move_limit))
    results = Results(_names(specs), num_players, seed, lineups)
    start = time.perf_counter()
    bar = tqdm(total=len(tasks), desc="games", disable=not progress, smoothing=0.05)
    if on_ray:
        from agents.evaluation.ray_games import ray_map

        for record in ray_map(_run_task, tasks):
            results.records.append(record)
            bar.update()
    elif processes <= 1:
        for task in tasks:
            results.records.append(_run_task(task))
            bar.update()
    else:
        with Pool(processes) as pool:
            for record in pool.imap_unordered(_run_task, tasks, chunksize=1):
                results.records.append(record)
                bar.update()
    bar.close()
    results.wall_s = time.perf_counter() - start
    results.records.sort(key=lambda r: (r.lineup, r.deal, r.rotation))
    if out_dir is not None:
        save_results(results, out_dir)
    return results
