"""Qwirkle as a PettingZoo AEC environment: one tile per sub-step, or one whole move per step.

| | |
|---|---|
| Import | ``from qwirkle_env import qwirkle_v0``; ``qwirkle_v0.env()``, ``qwirkle_v0.raw_env()`` |
| Name | ``qwirkle_v0`` |
| Agents | ``player_0`` .. ``player_{N-1}``, N = ``num_players`` (2..4) |
| Action modes | ``action_mode="tiles"`` (default; ``tiles.py``), ``"moves"`` (``moves.py``) |
| Rewards | ``"win"`` (default, at the end), ``"points"`` or ``"margin"`` (dense) |

**Two action modes.** ``"tiles"`` builds a turn one tile at a time over a fixed action
space: the research formulation. ``"moves"`` makes one step a whole turn, chosen as a row of
a table that lists the legal moves with a feature row each: the formulation RL libraries
learn strong play on. ``raw_env(...)`` returns the env of the mode asked for
(``TileEnv`` or ``MoveEnv``, both ``raw_env``); this module holds what both share: the
game, the agents, the turn order, rewards, views and rendering. Each mode's file has its
actions, observation and mask; the observations' offsets are ``qwirkle_env.spec``'s.

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
from typing import ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env import AECIterable, AgentID

from ..engine.board import Board
from ..engine.game import Game
from ..engine.moves import Move
from ..engine.turn import Turn
from ..rows.table import check_moves_options
from ..spec import DEFAULT_WINDOW, check_table_options, win_share
from ..view import PlayerView

__all__ = ["env", "raw_env"]


def env(**kwargs) -> AECEnv:
    """The env with PettingZoo's usual wrappers: an illegal action ends the game, -1 to its
    maker; out-of-range actions fail an assertion; order of calls is enforced."""
    wrapped = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    wrapped = wrappers.OrderEnforcingWrapper(wrapped)
    return wrapped


def _mode_of(args: tuple, kwargs: dict) -> str:
    """The ``action_mode`` of ``raw_env``'s arguments (sixth positional, or by name)."""
    return kwargs["action_mode"] if "action_mode" in kwargs else (args[5:6] or ("tiles",))[0]


class raw_env(AECEnv, EzPickle):
    """The Qwirkle AEC env; ``raw_env(action_mode=...)`` makes the mode's subclass."""

    metadata = {
        "name": "qwirkle_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 2,
    }
    _modes: ClassVar[dict[str, type]] = {}  # action_mode -> its subclass (tiles.py, moves.py)
    moves_mode: bool

    def __init_subclass__(cls, mode: str | None = None, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if mode is not None:
            raw_env._modes[mode] = cls

    def __new__(cls, *args, **kwargs):
        if cls is raw_env:
            mode = _mode_of(args, kwargs)
            check_moves_options(mode, None)  # an unknown mode, refused with what exists
            cls = raw_env._modes[mode]
        return super().__new__(cls)

    def __init__(
        self,
        num_players: int = 2,
        window: int | None = None,
        reward: str = "win",
        strict_opening: bool = True,
        render_mode: str | None = None,
        action_mode: str = "tiles",
        max_moves: int | None = None,
        look_ahead: int = 0,
    ) -> None:
        EzPickle.__init__(
            self,
            num_players,
            window,
            reward,
            strict_opening,
            render_mode,
            action_mode,
            max_moves,
            look_ahead,
        )
        super().__init__()
        check_moves_options(action_mode, max_moves, look_ahead)
        self.look_ahead = int(look_ahead)
        if not isinstance(self, raw_env._modes[action_mode]):
            raise ValueError(f"{type(self).__name__} plays its own mode, not {action_mode!r}")
        self._check_window(window)
        table_window = DEFAULT_WINDOW if window is None else window
        check_table_options(num_players, table_window, reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        self.num_players = num_players
        self.window = table_window
        self.reward_mode = reward
        self.strict_opening = strict_opening
        self.render_mode = render_mode
        self.action_mode = action_mode
        self._window = None  # the pygame window of render_mode="human", opened on first use
        if render_mode == "human":
            from ..render.window import import_pygame

            import_pygame()  # fails here, naming the extra, rather than mid-game
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        n_actions, observation = self._setup(window, max_moves)
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
        self._mask_cache: np.ndarray | None = None

    # --- what each mode fills in ----------------------------------------------------------
    def _check_window(self, window: int | None) -> None:
        """Refuses a ``window`` the mode has no use for (the table's checks follow)."""

    def _setup(self, window: int | None, max_moves: int | None) -> tuple[int, spaces.Space]:
        """The mode's own state; returns (number of actions, the observation's Box)."""
        raise NotImplementedError

    def check_action(self, action: object) -> int:
        """The action as an int inside the action space, or a ValueError that says what the
        action space is (legality is the mask's: ``step`` says why an action is illegal)."""
        raise NotImplementedError

    def _reset_counts(self) -> dict:
        """Zeroes the mode's per-game counts; returns the first infos of each agent."""
        raise NotImplementedError

    def _play(self, action) -> None:
        """Plays one action of the agent to move (not done), ending with ``_after_move``."""
        raise NotImplementedError

    def _final_info(self) -> dict:
        """The mode's counts, for each agent's infos at the end beside the scores."""
        raise NotImplementedError

    def _start_turn(self) -> None:
        """The mode's state for the new turn of the agent now selected."""
        raise NotImplementedError

    def _observation(self, seat: int, to_move: bool) -> np.ndarray:
        raise NotImplementedError

    def _fill_mask(self) -> np.ndarray:
        """The mover's mask, in ``self._mask_array``."""
        raise NotImplementedError

    def _view_fields(self) -> dict:
        """The mode's own fields of a ``PlayerView``."""
        raise NotImplementedError

    def candidate_moves(self, agent: AgentID | None = None) -> list[Move]:
        raise RuntimeError(f'candidate_moves() is for action_mode="moves"; {self._plays()}')

    def step_move(self, move: Move) -> None:
        raise RuntimeError(f'step_move() is for action_mode="moves"; {self._plays()}')

    def move_table(self):
        raise RuntimeError(f'move_table() is for action_mode="moves"; {self._plays()}')

    def why_illegal(self, action: int) -> str:
        raise RuntimeError(f'why_illegal() is for action_mode="tiles"; {self._plays()}')

    def _plays(self) -> str:
        return f"this env plays {self.action_mode!r}"

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
        first = self._reset_counts()
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
        self._play(action)

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
            self.infos[a] = {"scores": list(self.game.scores), **self._final_info()}
        if self.reward_mode == "win":
            winners = set(self.game.winners())
            for seat, a in enumerate(self.possible_agents):
                self.rewards[a] = win_share(self.num_players, len(winners), seat in winners)

    def _new_turn(self) -> None:
        self.turn = Turn(self.game, centre=(0, 0))
        self._turn_points = 0
        self.agent_selection = self.possible_agents[self.game.current]
        self._mask_cache = None
        self._start_turn()

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
        return {"observation": self._observation(seat, to_move), "action_mask": mask}

    def mover_mask(self) -> np.ndarray:
        """The mask of the agent to move (the env's own array: copy it to keep it),
        computed once per step."""
        if self._mask_cache is None:
            self._mask_cache = self._fill_mask()
        return self._mask_cache

    def player_view(self, agent: AgentID | None = None, observe: bool = True) -> PlayerView:
        """What ``agent`` (default: the one to move) may know, for scripted agents;
        ``observe=False`` leaves out the observation and mask (an agent that plans whole
        moves from the table and its hand needs neither)."""
        self._require_reset("player_view")
        agent = self.agent_selection if agent is None else agent
        seat = self.agent_name_mapping[agent]
        turn = self._view_fields()
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
        from .. import render

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
        from ..render.window import table_image

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
            from ..render.window import Window

            self._window = Window(self.metadata["render_fps"])
        return self._window

    def render_svg(self) -> str:
        self._require_reset("render_svg")
        from .. import render

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
