"""Fixtures and helpers shared by several test modules (no test module imports another)."""

from __future__ import annotations

import importlib.util
import os
import random
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from qwirkle_env import Color, Game, Shape, Tile
from qwirkle_env.engine.board import Board
from qwirkle_env.engine.placements import grown_placements, opening_placements, rows_of
from qwirkle_env.engine.tiles import full_set

if os.environ.get("PYTEST_XDIST_WORKER"):
    # each of the -n workers has a core of its own; torch's own threads would share them
    import torch

    torch.set_num_threads(1)


def reference_placements(board: Board, hand: int) -> list:
    """What the Python generator (placements.py) lists for this table and hand mask."""
    if not len(board):
        return opening_placements(hand)
    return grown_placements(board.frontier, hand)


@pytest.fixture(scope="module")
def generators_agree():
    """Every placement list the test asks for is checked against the Python generator:
    the same placements, points and order, and the same rows from ``placement_rows``."""
    listed = Board.placements_with_points
    rows = Board.placement_rows

    def checked(board: Board, hand: int) -> list:
        found = listed(board, hand)
        expected = reference_placements(board, hand)
        assert found == expected, "the compiled and the Python generators disagree"
        if all(abs(x) < 2**62 for cell in board.tile_ids for x in cell):  # int64 rows
            assert np.array_equal(rows(board, hand), rows_of(expected))
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Board, "placements_with_points", checked)
        yield


POLICIES = ("random", "greedy", "heuristic")


def choose_move(game: Game, policy: str, rng: random.Random, found: list, p_place: float):
    """A move of a seeded test game: the heuristic's first or a random greedy placement;
    for ``random``, a random placement (with chance ``p_place`` once the opening is past and
    the bag holds tiles), else the exchange rule's exchange. Returns (kind, data)."""
    from agents.scripted.baselines import exchange_rule
    from agents.scripted.heuristic import Evaluator, Weights
    from qwirkle_env.view import PlayerView

    if policy == "heuristic" and found:
        ranked = Evaluator(PlayerView.of(game, game.current), Weights()).ranked(found)
        return "place", ranked[0][1]
    if policy == "greedy" and found:
        top = max(p for _, p in found)
        return "place", rng.choice([items for items, p in found if p == top])
    if found and (game.is_opening or not game.bag_size or rng.random() < p_place):
        return "place", rng.choice(found)[0]
    return "exchange", exchange_rule(game.hands[game.current], game.bag_size, rng)


def play_seeded(seed: int, check: Callable[[Game, int], list], p_place: float) -> int:
    """One seeded game (2 + seed % 3 players, ``POLICIES[seed % 3]``, a relaxed opening
    every 7th seed); ``check(game, n)`` checks the n-th position and returns its
    placements. Returns the positions checked."""
    rng = random.Random(seed)
    policy = POLICIES[seed % 3]
    game = Game(2 + seed % 3, seed=seed, strict_opening=seed % 7 != 0)
    positions = 0
    while not game.over:
        found = check(game, positions)
        positions += 1
        kind, data = choose_move(game, policy, rng, found, p_place)
        if kind == "place":
            game.apply_placement(list(data), trusted=True)
        else:
            game.apply_exchange(data)
    return positions


def play_endgame(
    seed: int,
    check: Callable[[Game, int], list],
    check_before: Callable[[Game], list],
    bag_left: Callable[[random.Random], int] = lambda rng: 0,
) -> int:
    """An endgame: a few random moves in (``check_before`` checks each position), then the
    bag cut to ``bag_left(rng)`` tiles and small random hands dealt; ``check(game, n)``
    checks the n-th position from there to the end. Returns the positions of the end."""
    rng = random.Random(seed)
    n = 2 + seed % 3
    game = Game(n, seed=seed)
    for _ in range(rng.randint(3, 25)):
        found = check_before(game)
        if found:
            game.apply_placement(list(rng.choice(found)[0]))
        else:
            game.apply_exchange(game.hands[game.current][:1])
    game.bag.tiles = rng.sample(game.bag.tiles, bag_left(rng))
    game.hands = [sorted(rng.choices(range(36), k=rng.randint(1, 6))) for _ in range(n)]
    if not game.can_move(game.current):
        game._advance()
    positions = 0
    while not game.over:
        found = check(game, positions)
        positions += 1
        if found:
            game.apply_placement(list(rng.choice(found)[0]))
        else:  # the bag still holds tiles (with an empty one a mover always has a placement)
            game.apply_exchange(game.hands[game.current][:1])
    return positions


def assert_same_rows(found, expected) -> None:
    """Two MoveRows are the same: the features and points bit for bit (float32 bit
    patterns, not a tolerance), the moves, their order and the hand."""
    assert found.features.dtype == expected.features.dtype == np.float32
    assert found.features.shape == expected.features.shape
    bits, want = found.features.view(np.uint32), expected.features.view(np.uint32)
    if not np.array_equal(bits, want):
        at = tuple(np.argwhere(bits != want)[0])
        raise AssertionError(
            f"rows differ first at {at}: {found.features[at]!r} against {expected.features[at]!r}"
        )
    assert found.points.dtype == np.float32
    assert np.array_equal(found.points.view(np.uint32), expected.points.view(np.uint32))
    assert len(found) == len(expected)
    if len(found):  # one move made alone before the lists, then the lists
        assert found.move(len(found) - 1) == expected.move(len(expected) - 1)
        assert found.move(0) == expected.move(0)
    assert found.num_placements == expected.num_placements
    assert found.placements == expected.placements
    assert found.exchanges == expected.exchanges
    assert found.hand == expected.hand


@pytest.fixture
def rows_agree(request):
    """Every move-row table the test asks for is checked against the Python reference
    (``qwirkle_env.rows.reference``): the same rows, bit for bit."""
    import qwirkle_env.rows
    from agents.move_value import features as move_features
    from qwirkle_env.rows import kernels, reference, table

    compiled = kernels.move_rows

    def checked(pos, extra=0):
        found = compiled(pos, extra)
        assert_same_rows(found, reference.reference_move_rows(pos, extra))
        return found

    with pytest.MonkeyPatch.context() as patch:
        for module in (kernels, table, qwirkle_env.rows, move_features, request.module):
            if getattr(module, "move_rows", None) is compiled:
                patch.setattr(module, "move_rows", checked)
        yield


ROOT = Path(__file__).resolve().parent.parent  # the repository
EXAMPLES = ROOT / "examples"


def game_at(seed: int, turns: int) -> Game:
    game = Game(2, seed=seed)
    rng = random.Random(seed)
    for _ in range(turns):
        moves = game.legal_moves()
        game.apply(moves[rng.randrange(len(moves))])
    return game


def greedy_until(game: Game, bag_left: int, rng: random.Random) -> Game:
    """Plays a highest-scoring placement (else exchanges one tile) until the bag holds at
    most ``bag_left`` tiles or the game is over."""
    while not game.over and len(game.bag) > bag_left:
        found = game.placements_with_points()
        if found:
            top = max(points for _, points in found)
            game.apply_placement(list(rng.choice([p for p, pts in found if pts == top])))
        else:
            game.apply_exchange(game.hands[game.current][:1])
    return game


def rewards_of_a_random_game(e, rng) -> dict:
    """Each agent's rewards summed over a random game, as ``last()`` hands them out."""
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        totals[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        legal = obs["action_mask"].view(bool).nonzero()[0]
        e.step(int(legal[rng.integers(len(legal))]))
    return totals


# A game with an exported RLlib checkpoint in a Python where any import of Ray fails: the
# checkpoint plays as ckpt:PATH without the library (python -c PLAY_WITHOUT_RAY PATH).
PLAY_WITHOUT_RAY = """
import sys
sys.modules["ray"] = None  # any import of Ray now fails
from agents.evaluation.harness import play_game
result = play_game(["ckpt:" + sys.argv[1], "greedy"], env_seed=3, agent_seeds=[0, 1])
assert result["end"] == "rules", result
assert not any(m == "ray" or m.startswith("ray.") for m in sys.modules if sys.modules[m])
print("played", result["scores"])
"""


def load_example(name: str) -> ModuleType:
    """Imports examples/NAME.py (not a package) as module NAME, as running it there would."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def nearly_dead_table() -> Game:
    """Every diamond on the table but the orange one, which the player to move holds: once
    it is placed no tile can ever fit, and the game ends with tiles still in the bag."""
    diamonds = {(r, c): Tile(Color((c + r) % 6), Shape.DIAMOND) for r in range(3) for c in range(6)}
    last = diamonds.pop((2, 5))
    rest = [t.id for t in full_set()]
    for t in [*diamonds.values(), last]:
        rest.remove(t.id)
    rng = random.Random(5)
    rng.shuffle(rest)
    hands = [sorted([last.id, *rest[:5]]), sorted(rest[5:11])]
    return Game.from_parts(
        num_players=2, seed=5, strict_opening=True, rng=rng, board=Board(diamonds),
        bag=rest[11:], hands=hands, scores=[40, 38], history=[], skips=[], bonus_seat=None,
        over=False, current=0, opening_size=None,
    )  # fmt: skip


@pytest.fixture()
def value_ckpt(tmp_path):
    """An untrained move-value network saved as a checkpoint."""
    from agents.checkpoint import save_checkpoint
    from agents.move_value.network import MoveValueNet
    from agents.move_value.run import env_options
    from qwirkle_env.rows.look_ahead import LookAhead

    net = MoveValueNet()
    return save_checkpoint(tmp_path / "v.pt", net, env_options(LookAhead()), {"x": 1}, 5)


SHOWDOWN_URL = "http://127.0.0.1:8000"  # the page's own origin, as the server checks it


def showdown_client(scope: str):
    """A ``client`` fixture of this scope: a Starlette TestClient of a fresh showdown app at
    ``SHOWDOWN_URL``. The endpoint tests share one per module; the attack tests take a
    fresh app per test, since each checks that an attack changed nothing."""

    @pytest.fixture(scope=scope, name="client")
    def client():
        from starlette.testclient import TestClient

        from showdown.app import create_app

        with TestClient(create_app(), base_url=SHOWDOWN_URL) as c:
            yield c

    return client


def assert_error(response, status: int, *words: str) -> str:
    """The response is a JSON error of this status whose message holds every word."""
    assert response.status_code == status, response.text
    message = response.json()["error"]
    for word in words:
        assert word in message, message
    return message


BOTS = """
import time

import numpy as np

from agents.base import Agent
from agents.scripted.baselines import GreedyAgent


def first_row(observation, action_mask):  # the table's first row: its best-scoring move
    return 0


def raises(observation, action_mask):
    raise RuntimeError("boom")


def masked(observation, action_mask):
    return int(np.flatnonzero(~action_mask)[0])


def not_a_move(observation, action_mask):
    return "e4"


def slow(observation, action_mask):
    end = time.process_time() + 0.05
    while time.process_time() < end:
        pass
    return 0


def sometimes_raises(observation, action_mask):
    if observation[0] > 0.3:  # the hand's first tile type held twice or more
        raise ValueError("not today")
    return 0


class Greedy(GreedyAgent):
    pass


class NotAnAgent:
    pass
"""


def bot_file(folder: Path) -> Path:
    """A plugin file with good and bad policies (BOTS), written into ``folder``."""
    path = folder / "bots.py"
    path.write_text(BOTS)
    return path


def small_ladder(path: Path, monkeypatch) -> Path:
    """A two-reference ladder (random 600, greedy 1000) written to ``path`` and made the
    protocol's 2-player references and ratings file for the test."""
    from agents.benchmark import ladder, protocol

    monkeypatch.setitem(protocol.REFERENCES, 2, ["random", "greedy"])
    refs = [
        {"spec": s, "version": ladder.reference_version(s), "rating": r, "games": 8,
         "win_rate": 0.5, "cpu_ms_per_move": 0.1}
        for s, r in (("random", 600.0), ("greedy", 1000.0))
    ]  # fmt: skip
    entry = {"deals": 4, "games": 8, "wall_s": 1.0, "references": refs}
    ladder.write_ladder({2: entry}, path, command="test")
    real = protocol.data_file
    monkeypatch.setattr(
        protocol, "data_file", lambda kind: path if kind == "ratings" else real(kind)
    )
    return path


def play_record(specs: list[str], seed: int) -> dict:
    """A whole game of these agents on the engine (each choosing from its own view); its
    record: what the analysis tests analyse."""
    from agents.registry import make_agent
    from qwirkle_env.view import PlayerView

    game = Game(len(specs), seed)
    agents = [make_agent(s) for s in specs]
    for seat, agent in enumerate(agents):
        agent.reset(seat, len(specs), random.Random(f"{seed}:{seat}").randrange(2**31))
    while not game.over:
        game.apply(agents[game.current].choose(PlayerView.of(game, game.current)))
    return game.record()
