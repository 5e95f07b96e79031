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
from agents.evaluation.report import save_results
from agents.evaluation.results import GameRecord, Results
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


def _agent(spec: str, seat: int) -> Agent:
    key = (spec, seat)
    if key not in _AGENTS:
        _AGENTS[key] = make_agent(spec)
    return _AGENTS[key]


def play_game(
    specs: list[str],
    env_seed: int,
    agent_seeds: list[int],
    window: int | None = None,
    max_turns: int = MAX_TURNS,
) -> dict:
    """Plays one game, ``specs[seat]`` at each seat; returns the per-seat results."""
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
        action = agents[seat].act(view)
        think[seat] += time.perf_counter() - start
        think_cpu[seat] += time.process_time() - cpu
        env.step(action)
        if action == end:
            moves[seat] += 1
            if sum(moves) >= max_turns:
                why = "turn_cap"
                break
    game = env.game
    return {
        "deal_digest": digest,
        "scores": list(game.scores),
        "winners": game.winners(),
        "qwirkles": count_qwirkles(game.history, n),
        "moves": moves,
        "think": think,
        "think_cpu": think_cpu,
        "end": why,
        "fallbacks": [getattr(agent, "fallbacks", 0) for agent in agents],
    }


def _run_task(task: tuple) -> GameRecord:
    lineup_index, deal, rotation, env_seed, seats, specs, agent_seeds = task
    out = play_game([specs[i] for i in seats], env_seed, agent_seeds)
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
) -> Results:
    """Duplicate-deal matches between the agents; returns (and optionally saves) Results.

    With as many agents as seats this is one match of ``games`` games; with more, every
    combination of ``num_players`` agents plays ``games`` games (a round robin). Games come
    in whole deals: ``games`` is rounded up to a multiple of ``num_players`` rotations.
    Deal d uses the same env seed in every rotation and every lineup.
    """
    specs = [s.strip() for s in agent_specs]
    for spec in specs:
        if not spec.lower().startswith("ckpt:"):
            parse_spec(spec)  # fail here, not in a worker
    if not 2 <= num_players <= 4:
        raise ValueError(f"num_players must be 2, 3 or 4, got {num_players}")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    lineups = _lineups(len(specs), num_players)
    for spec in dict.fromkeys(specs):
        # unknown names, bad options and networks for other seat counts fail before any game
        make_agent(spec).check_players(num_players)
    deals = math.ceil(games / num_players)
    seeder = random.Random(seed)
    deal_seeds = [seeder.randrange(2**31) for _ in range(deals)]
    tasks = []
    for li, lineup in enumerate(lineups):
        for d, env_seed in enumerate(deal_seeds):
            for rot in range(num_players):
                seats = [lineup[(s - rot) % num_players] for s in range(num_players)]
                seeds = agent_seeds(seed, li, d, rot, num_players)
                tasks.append((li, d, rot, env_seed, seats, specs, seeds))
    results = Results(_names(specs), num_players, seed, lineups)
    start = time.perf_counter()
    bar = tqdm(total=len(tasks), desc="games", disable=not progress, smoothing=0.05)
    if processes <= 1:
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
