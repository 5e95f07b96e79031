"""Qwirkle as a PettingZoo AEC environment: one tile per sub-step, or one whole move per step.

| | |
|---|---|
| Import | ``from qwirkle_env import qwirkle_v0``; ``qwirkle_v0.env()``, ``qwirkle_v0.raw_env()`` |
| Name | ``qwirkle_v0`` |
| Agents | ``player_0`` .. ``player_{N-1}``, N = ``num_players`` (2..4) |
| Action shape | ``Discrete(36*W*W + 37)``; W = ``window`` (default 39) |
| Action values | ``qwirkle_env.actions``: place type t at cell (r, c), exchange t, or end |
| Observation | ``{"observation": float32[13*W*W + 126], "action_mask": int8[36*W*W + 37]}`` |
| Rewards | ``"win"`` (default, at the end), ``"points"`` or ``"margin"`` (dense) |
| Whole moves | ``action_mode="moves"``: ``Discrete(K)``, K = ``max_moves`` (default 256) |
| Move observation | ``{"observation": float32[86 + K*28], "action_mask": int8[K]}`` |

**Two action modes.** ``action_mode="tiles"`` (the default, described below) builds a turn
one tile at a time over a fixed action space: the research formulation. ``"moves"`` makes
one step a whole turn, chosen as a row of a table that lists the legal moves with a feature
row each (``qwirkle_env.move_mode`` holds its layout and row order): the formulation RL
libraries learn strong play on. ``candidate_moves(agent)`` gives the engine moves behind
the rows, and ``step_move(move)`` plays any legal engine move (a scripted opponent's, or
one left out of the K rows). The window, the planes and the sub-steps below are the tile
mode's.

**Turns.** A turn is several steps of the same agent: place tiles one at a time (or add
tiles to the exchange set), then take "end". The mask is exact: a placement step is legal
iff the tiles placed so far this turn plus the new one form a legal placement by
themselves, so every legal move can be built and nothing illegal can. The env never
commits a turn by itself: "end" is always an explicit step (the only legal one once a
turn can't grow). A player who can neither place nor exchange is skipped by the engine,
so the agent to move always has a legal action. The first tile of the game goes to the
window centre.

**Window.** The engine's table is unbounded; the env shows the W x W window centred on the
table's bounding box, re-centred at the start of each turn and fixed within it. Placements
reach at most 5 cells past the box. The default W = 39 held every legal move of the games
measured for it (docs/environment.md, "The window", says how many and how far).
``infos[agent]["outside_window"]`` counts the legal moves that fell outside the window in
this game; a smaller ``window`` trades them for speed, and if every legal move of the
player to move falls outside, the episode is truncated
(``truncations`` all True, the reason in ``infos[agent]["truncated"]``).

**Observation** (from the observing agent's seat), a flat float32 vector:

| slice | content |
|---|---|
| ``[0, 6*W*W)`` | colour planes: ``planes[k, r, c] = 1`` if window cell (r, c) holds colour k |
| ``[6*W*W, 12*W*W)`` | shape planes, likewise |
| ``[12*W*W, 13*W*W)`` | tiles placed this turn |
| ``+0 .. +36`` | own hand: count of each tile type not yet used this turn (0..3) |
| ``+36 .. +72`` | this turn's exchange set, counts per type |
| ``+72 .. +108`` | unseen: 3 minus the copies on the table, in hand and set aside |
| ``+108`` | tiles in the bag |
| ``+109 .. +113`` | scores, in seat order starting with the observer (0 for absent seats) |
| ``+113 .. +117`` | hand sizes, same order |
| ``+117 .. +121`` | 1 for each seat in the game, same order |
| ``+121 .. +126`` | flags: to move, opening turn, placing, exchanging, may end |

``split_observation`` turns it (or a batch) into planes ``(13, W, W)`` and features
``(126,)``. Agents not to move get an all-zero mask.

**Rewards.** ``"win"``: zero until the end, then ``N/(N-1) * (1/|winners| - 1/N)`` to each
winner and ``-1/(N-1)`` to each loser: +1/-1 with two players, 0 to all on a shared
win of everyone, zero-sum always. ``"points"``: each step's change in the turn's score
(the end bonus at the final "end"), so an agent's rewards sum to its final score.
``"margin"``: the same change to the mover and minus it divided by N-1 to each opponent.

**Crafted positions.** ``reset(options={"game": game})`` plays on from a copy of an
engine ``Game`` in progress (its bag order and RNG included) instead of dealing a new one;
``VectorQwirkle.load`` does the same in the simulator.

**Version history.** v0: first release.
"""

from __future__ import annotations

import random

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env import AECIterable, AgentID

from .actions import ActionCodec, outside_window
from .engine.board import Board
from .engine.game import Game
from .engine.lines import ids_of, mask_of
from .engine.moves import Exchange, Move, Placement
from .engine.tiles import Tile
from .engine.turn import Turn
from .move_mode import (
    DEFAULT_MAX_MOVES,
    HIGH,
    LOW,
    check_moves_options,
    move_table,
    observation_size,
)
from .move_mode import observation as moves_observation
from .observation import (
    Observer,
    observation_high,
)
from .position import Position
from .spec import (
    DEFAULT_WINDOW,
    REACH,
    check_table_options,
    win_share,
)
from .view import PlayerView

__all__ = ["env", "raw_env"]


def _set(array: np.ndarray, index: list[int], value: int) -> None:
    """array[index] = value; element by element for a few entries, where numpy's fancy
    indexing costs more than the work."""
    if len(index) > 24:
        array[np.array(index, dtype=np.intp)] = value
    else:
        for i in index:
            array[i] = value


class _TypeOffsets(dict):
    """tile mask -> [t * W * W for each type t in it], filled on first use."""

    def __init__(self, cells: int) -> None:
        super().__init__()
        self.cells = cells

    def __missing__(self, types: int) -> list[int]:
        offsets = self[types] = [t * self.cells for t in ids_of(types)]
        return offsets


def env(**kwargs) -> AECEnv:
    """The env with PettingZoo's usual wrappers: an illegal action ends the game, -1 to its
    maker; out-of-range actions fail an assertion; order of calls is enforced."""
    wrapped = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    wrapped = wrappers.OrderEnforcingWrapper(wrapped)
    return wrapped


class raw_env(AECEnv, EzPickle):
    metadata = {
        "name": "qwirkle_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        num_players: int = 2,
        window: int | None = None,
        reward: str = "win",
        strict_opening: bool = True,
        render_mode: str | None = None,
        action_mode: str = "tiles",
        max_moves: int | None = None,
    ) -> None:
        EzPickle.__init__(
            self, num_players, window, reward, strict_opening, render_mode, action_mode, max_moves
        )
        super().__init__()
        check_moves_options(action_mode, max_moves)
        if window is not None and action_mode == "moves":
            raise ValueError('window applies to action_mode="tiles" only: the move mode has none')
        window = DEFAULT_WINDOW if window is None else window
        check_table_options(num_players, window, reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        self.num_players = num_players
        self.window = window
        self.reward_mode = reward
        self.strict_opening = strict_opening
        self.render_mode = render_mode
        self.action_mode = action_mode
        self.moves_mode = action_mode == "moves"
        self.max_moves = 0  # rows of the move mode's table; none in the tile mode
        if self.moves_mode:
            self.max_moves = DEFAULT_MAX_MOVES if max_moves is None else int(max_moves)
        self._window = None  # the pygame window of render_mode="human", opened on first use
        if render_mode == "human":
            from .render.window import import_pygame

            import_pygame()  # fails here, naming the extra, rather than mid-game
        self.codec = ActionCodec(window)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        if self.moves_mode:
            n_actions = self.max_moves
            size = (observation_size(self.max_moves),)
            observation = spaces.Box(LOW, HIGH, size, dtype=np.float32)
        else:
            n_actions = self.codec.num_actions
            observation = spaces.Box(0.0, observation_high(window), dtype=np.float32)
        obs_space = spaces.Dict(
            {
                "observation": observation,
                "action_mask": spaces.Box(0, 1, (n_actions,), dtype=np.int8),
            }
        )
        act_space = spaces.Discrete(n_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._seeder: random.Random | None = None
        self.game: Game | None = None
        self._mask_array = np.zeros(n_actions, dtype=np.int8)
        self._table = None  # the move mode's rows of this turn (move_mode.MoveTable)
        self._mask_index: list[int] = []  # the entries _mask set last
        self._type_offsets = _TypeOffsets(self.codec.cells)
        self._front_inside = False  # the window holds every cell next to the table
        self._observer = Observer(window, num_players)

    def observation_space(self, agent: AgentID) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: AgentID) -> spaces.Space:
        return self.action_spaces[agent]

    # --- reset and step ---------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int | np.integer)):
            raise TypeError(f"seed must be an int or None, got {seed!r}")
        if seed is not None or self._seeder is None:
            self._seeder = random.Random(
                seed if seed is not None else random.SystemRandom().random()
            )
        game = (options or {}).get("game")
        if game is None:
            self.game = Game(self.num_players, self._seeder.randrange(2**63), self.strict_opening)
        else:
            self.game = self._crafted(game)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.outside_window = 0
        self.moves_cut = 0
        self._observer.reset()
        first = {"moves_cut": 0, "moves_cut_total": 0} if self.moves_mode else {"outside_window": 0}
        self.infos = {a: dict(first) for a in self.agents}
        self._new_turn()
        if self.render_mode == "human":
            self.render()

    def _crafted(self, game: Game) -> Game:
        """``reset(options={"game": game})``: a copy of an engine game in progress, for
        crafted positions (the simulator's ``load`` plays the same game)."""
        if not isinstance(game, Game):
            raise TypeError(f'options["game"] must be an engine Game, got {game!r}')
        if game.over:
            raise ValueError('options["game"] is over: give a game that has a move to play')
        if (game.num_players, game.strict_opening) != (self.num_players, self.strict_opening):
            raise ValueError(
                f'options["game"] has {game.num_players} players, strict_opening='
                f"{game.strict_opening}; this env plays {self.num_players}, "
                f"strict_opening={self.strict_opening}"
            )
        return game.clone()

    def _require_reset(self, what: str) -> None:
        if self.game is None:
            raise RuntimeError(f"call reset() before {what}(): there is no game yet")

    def last(self, observe: bool = True) -> tuple:
        self._require_reset("last")
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        self._require_reset("agent_iter")
        return super().agent_iter(max_iter)

    def step(self, action: int | None) -> None:
        self._require_reset("step")
        if not self.agents:
            raise RuntimeError(
                "the game is over and every agent has been removed: call reset() for a new game"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(
                    f"the game is over: {agent} is done, so the only valid action is None "
                    "(step(None) removes it); call reset() for a new game"
                )
            self._was_dead_step(action)
            return
        if self.moves_mode:
            self._play_row(action)
            return
        a = self.codec.check(action)
        if not self.mover_mask()[a]:
            raise ValueError(
                f"illegal action {a} for {agent}: {self.codec.describe(a, self._origin)}: "
                f"{self.why_illegal(a)}"
            )
        turn = self.turn
        kind = self.codec.decode_checked(a)
        gained = 0
        if kind[0] == "place":
            _, t, r, c = kind
            turn.place((self._origin[0] + r, self._origin[1] + c), t, trusted=True)
            self._observer.place(r, c, t)
            self._observer.took(turn, t, exchanged=False)
            if self.reward_mode != "win":
                points = turn.points_so_far()
                gained, self._turn_points = points - self._turn_points, points
        elif kind[0] == "exchange":
            turn.add_exchange(kind[1])
            self._observer.took(turn, kind[1], exchanged=True)
        else:
            gained = turn.commit() - self._turn_points
        self._after_move(self.agent_name_mapping[agent], gained, kind[0] == "end")

    # --- the move mode ------------------------------------------------------------------
    def candidate_moves(self, agent: AgentID | None = None) -> list[Move]:
        """The engine moves behind the rows of ``agent``'s table (default: the agent to
        move), in row order; empty for an agent not to move. Move mode only."""
        self._require_moves("candidate_moves")
        self._require_reset("candidate_moves")
        agent = self.agent_selection if agent is None else agent
        if agent not in self.agent_name_mapping:
            raise ValueError(f"unknown agent {agent!r}; agents: {self.possible_agents}")
        if agent != self.agent_selection or not self.mover_mask().any():
            return []
        return [_engine_move(kind, what) for kind, what in self._table_now().moves]

    def step_move(self, move: Move) -> None:
        """Plays a whole engine move (``Placement`` or ``Exchange``) for the agent to move,
        whether or not it is among the K rows; IllegalMove if the rules forbid it. Move
        mode only: scripted opponents play this way."""
        self._require_moves("step_move")
        self._require_reset("step_move")
        if not self.agents or self.game.over or any(self.truncations.values()):
            raise RuntimeError("the game is over: call reset() for a new game")
        if not isinstance(move, Placement | Exchange):
            raise TypeError(f"a move is a Placement or an Exchange, got {move!r}")
        seat = self.game.current
        gained = self.game.apply(move)
        self._after_move(seat, gained)

    def move_table(self):
        """The rows of this turn (``move_mode.MoveTable``: the moves, their rows and points,
        the count cut). Move mode only."""
        self._require_moves("move_table")
        self._require_reset("move_table")
        return self._table_now()

    def _table_now(self):
        """This turn's rows, built on first use; counts the legal moves they leave out."""
        if self._table is None:
            self._table = move_table(Position.of_game(self.game), self.max_moves)
            self.moves_cut += self._table.cut
            self.infos[self.agent_selection]["moves_cut"] = self._table.cut
            for a in self.agents:
                self.infos[a]["moves_cut_total"] = self.moves_cut
        return self._table

    def _require_moves(self, what: str) -> None:
        if not self.moves_mode:
            raise RuntimeError(f'{what}() is for action_mode="moves"; this env plays "tiles"')

    def _play_row(self, action) -> None:
        agent = self.agent_selection
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise ValueError(f"an action is a row index, an int in 0..{self.max_moves - 1}")
        table = self._table_now()
        n = len(table)
        if not 0 <= action < self.max_moves:
            raise ValueError(
                f"action {action} is out of range: rows are 0..{self.max_moves - 1}, and "
                f"{agent} has moves in rows 0..{n - 1}"
            )
        if action >= n:
            raise ValueError(
                f"row {action} is masked: {agent} has {n} legal moves this turn, in rows 0..{n - 1}"
            )
        kind, what = table.move(int(action))
        seat = self.game.current
        if kind == "place":
            gained = self.game.apply_placement(list(what), trusted=True)
        else:
            gained = self.game.apply_exchange(list(what))
        self._after_move(seat, gained)

    def _after_move(self, seat: int, gained: int, turn_over: bool = True) -> None:
        """Pays ``seat``'s gain; a finished turn ends the game or starts the next turn."""
        self._cumulative_rewards[self.possible_agents[seat]] = 0.0
        self.rewards = {x: 0.0 for x in self.agents}
        self._give(seat, gained)
        self._mask_cache = None
        if turn_over and self.game.over:
            self._finish()
        elif turn_over:
            self._new_turn()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _give(self, seat: int, gained: int) -> None:
        if not gained or self.reward_mode == "win":
            return
        self.rewards[self.possible_agents[seat]] += float(gained)
        if self.reward_mode == "margin":
            share = gained / (self.num_players - 1)
            for other, name in enumerate(self.possible_agents):
                if other != seat:
                    self.rewards[name] -= share

    def _finish(self) -> None:
        self.turn = Turn(self.game)  # the last turn is committed: nothing is in progress
        for a in self.agents:
            self.terminations[a] = True
            self.infos[a] = {"scores": list(self.game.scores)}
            if self.moves_mode:
                self.infos[a].update(moves_cut=0, moves_cut_total=self.moves_cut)
            else:
                self.infos[a]["outside_window"] = self.outside_window
        if self.reward_mode == "win":
            winners = set(self.game.winners())
            for seat, a in enumerate(self.possible_agents):
                self.rewards[a] = win_share(self.num_players, len(winners), seat in winners)

    def _new_turn(self) -> None:
        game = self.game
        w = self.window
        box = game.board.bounds()
        if box is None:
            centre = (0, 0)
        else:
            centre = ((box[0] + box[1]) // 2, (box[2] + box[3]) // 2)
        self._origin = (centre[0] - w // 2, centre[1] - w // 2)
        self.turn = Turn(game, centre=(0, 0))
        self._turn_points = 0
        self.agent_selection = self.possible_agents[game.current]
        self._mask_cache = None
        if self.moves_mode:
            self._table = None  # built when first asked for: step_move needs none
            for a in self.agents:
                self.infos[a]["moves_cut"] = 0
            return
        self._observer.new_turn(self.game, self._origin, box)
        self._front_inside = False
        if box is not None:
            r0, c0 = self._origin
            self._front_inside = (
                box[0] > r0 and box[2] > c0 and box[1] + 1 < r0 + w and box[3] + 1 < c0 + w
            )
            if (
                box[0] - REACH < r0
                or box[2] - REACH < c0
                or box[1] + REACH >= r0 + w
                or box[3] + REACH >= c0 + w
            ):
                self._count_outside()

    def _count_outside(self) -> None:
        w = self.window
        missed = outside_window(self.game.placements_with_points(), self._origin, w)
        if missed:
            self.outside_window += missed
            for a in self.agents:
                self.infos[a]["outside_window"] = self.outside_window
            if not self.mover_mask().any():
                self._truncate(
                    f"window {w} is too small: every legal move of {self.agent_selection} lies "
                    f"outside it; use a larger window (docs/environment.md, 'The window', says "
                    f"how the default {DEFAULT_WINDOW} was measured)"
                )

    def _truncate(self, reason: str) -> None:
        """Ends the episode without a result: the env cannot show the game any further."""
        gymnasium.logger.warn(reason)
        for a in self.agents:
            self.truncations[a] = True
            self.infos[a]["truncated"] = reason
        self._mask_cache = None

    # --- observation and mask ---------------------------------------------------------
    def observe(self, agent: AgentID) -> dict:
        self._require_reset("observe")
        to_move = (
            agent == self.agent_selection
            and not self.terminations.get(agent, True)
            and not self.truncations.get(agent, True)
        )
        if to_move:
            mask = self.mover_mask().copy()
        else:
            mask = np.zeros(len(self._mask_array), dtype=np.int8)
        seat = self.agent_name_mapping[agent]
        if self.moves_mode:
            return {"observation": self._moves_observation(seat, to_move), "action_mask": mask}
        obs = self._observer.observation(self.game, self.turn, seat, to_move)
        return {"observation": obs, "action_mask": mask}

    def _moves_observation(self, seat: int, to_move: bool) -> np.ndarray:
        if to_move:
            table = self._table_now()
            return moves_observation(table.position, table, self.max_moves)
        return moves_observation(Position.of_game(self.game, seat), None, self.max_moves)

    @property
    def origin(self) -> tuple[int, int]:
        """The table cell shown at window cell (0, 0) this turn (fixed within a turn)."""
        return self._origin

    def mover_mask(self) -> np.ndarray:
        """The mask of the agent to move (the env's own array: copy it to keep it),
        recomputed once per sub-step.

        One array is kept and only the entries set last time are cleared, so a sub-step
        costs in proportion to its legal actions, not to the whole action space (36·W² + 37).
        """
        if self._mask_cache is not None:
            return self._mask_cache
        if self.moves_mode:
            mask = self._mask_array
            mask[:] = 0
            if not self.game.over and not any(self.truncations.values()):
                mask[: len(self._table_now())] = 1
            self._mask_cache = mask
            return mask
        codec = self.codec
        w = self.window
        mask = self._mask_array
        _set(mask, self._mask_index, 0)
        index: list[int] = []
        game = self.game
        if not game.over and not any(self.truncations.values()):
            r0, c0 = self._origin
            offsets = self._type_offsets
            turn = self.turn
            if (
                self._front_inside
                and not turn.placed
                and not turn.exchange
                and game.opening_size is None
            ):
                # A turn's first tile after the opening: Turn.placement_options' scan of the
                # frontier, written out for speed (every frontier cell is in the window).
                hand = mask_of(turn.hand_left)
                shift = r0 * w + c0
                index = [
                    at + offset
                    for (r, c), fit in game.board.fit_masks.items()
                    if (types := fit & hand)
                    for at in (r * w + c - shift,)
                    for offset in offsets[types]
                ]
            else:
                for (r, c), types in turn.placement_options():
                    r -= r0
                    c -= c0
                    if 0 <= r < w and 0 <= c < w:
                        index.extend(map((r * w + c).__add__, offsets[types]))
            types = self.turn.exchange_options()
            if types:
                index.extend(map(codec.exchange_base.__add__, ids_of(types)))
            if self.turn.can_end():
                index.append(codec.end)
        self._mask_index = index
        _set(mask, index, 1)
        self._mask_cache = mask
        return mask

    def why_illegal(self, action: int) -> str:
        """The rule ``action`` breaks now, in words (for error messages and the human UI).
        Tile mode only."""
        if self.moves_mode:
            raise RuntimeError('why_illegal() is for action_mode="tiles"')
        kind = self.codec.decode(action)
        if kind[0] == "place":
            _, t, r, c = kind
            reason = self.turn.place_fault((self._origin[0] + r, self._origin[1] + c), t)
        elif kind[0] == "exchange":
            reason = self.turn.exchange_fault(kind[1])
        else:
            reason = self.turn.end_fault()
        return reason or "not legal at this point of the turn"

    def player_view(self, agent: AgentID | None = None, observe: bool = True) -> PlayerView:
        """What ``agent`` (default: the one to move) may know, for scripted agents;
        ``observe=False`` leaves out the observation and mask (an agent that plans whole
        moves from the table and its hand needs neither)."""
        self._require_reset("player_view")
        agent = self.agent_selection if agent is None else agent
        seat = self.agent_name_mapping[agent]
        turn = {} if self.moves_mode else {"origin": self._origin, "window": self.window}
        if seat == self.game.current:
            turn["turn_placed"] = list(self.turn.placed)
            turn["turn_exchange"] = list(self.turn.exchange)
        if observe:
            obs = self.observe(agent)
            turn["observation"] = obs["observation"]
            turn["action_mask"] = obs["action_mask"]
        return PlayerView.of(self.game, seat, **turn)

    # --- rendering and saving ---------------------------------------------------------
    def render(self):
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=...")
            return None
        self._require_reset("render")
        from . import render

        board, placed = self.board_now()
        if self.render_mode == "rgb_array":
            return render.board_image(board, highlight=placed)
        if self.render_mode == "human":
            self.human_window().show(self.human_frame())
            return None
        return render.game_ansi(self.game, board=board, highlight=placed)

    def human_frame(self) -> np.ndarray:
        """The picture the human window shows: table, every hand, scores (RGB array)."""
        self._require_reset("human_frame")
        from .render.window import table_image

        board, placed = self.board_now()
        truncated = next((i["truncated"] for i in self.infos.values() if "truncated" in i), "")
        return table_image(
            self.game,
            board,
            placed,
            hand_now=self.turn.hand_left,
            exchange_now=self.turn.exchange,
            note="truncated: the window is too small" if truncated else "",
        )

    def human_window(self):
        """The human-mode window (``human_window().save(path)`` takes a screenshot)."""
        if self.render_mode != "human":
            raise RuntimeError(f'only render_mode="human" has a window, not {self.render_mode!r}')
        if self._window is None:
            from .render.window import Window

            self._window = Window(self.metadata["render_fps"])
        return self._window

    def render_svg(self) -> str:
        self._require_reset("render_svg")
        from . import render

        board, placed = self.board_now()
        return render.board_svg(board, highlight=placed)

    def board_now(self) -> tuple[Board, list[tuple[int, int]]]:
        """The table with this turn's tiles on it, and their cells (for highlighting)."""
        board = self.game.board
        if self.turn.placed:
            board = board.copy()
            board.place_legal(list(self.turn.placed))
        return board, [cell for cell, _ in self.turn.placed]

    def _repr_svg_(self) -> str | None:
        return None if self.game is None else self.render_svg()  # None: Jupyter shows repr

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None

    def __getstate__(self) -> dict:
        return dict(self.__dict__, _window=None)  # a window can't travel; a copy opens its own

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)


def _engine_move(kind: str, what: tuple) -> Move:
    if kind == "place":
        return Placement.of_ids(what)  # the generator's placements are legal already
    return Exchange(Tile.from_id(t) for t in what)
