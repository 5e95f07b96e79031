"""A human at the terminal against any agent, through the same AEC env agents use.

Commands on your turn (table coordinates, as labelled on the board):

    place red square 3 4      put one tile (repeat for more tiles in this turn)
    exchange red square       set a tile aside for exchange
    end                       finish the turn
    moves                     list every full legal move, numbered
    7                         play full move number 7 from that list
    help, quit

Several commands can go on one line separated by ";" (a full move at once).
"""

from __future__ import annotations

from collections.abc import Callable

from agents.registry import make_agent
from qwirkle_env import raw_env
from qwirkle_env.engine.moves import Placement
from qwirkle_env.engine.tiles import Tile

HELP = __doc__.split("\n\n", 1)[1]


def parse_command(text: str, env: raw_env, moves: list) -> list[int] | str:
    """The actions one command means, or a string saying why it is not understood."""
    view = env.player_view()
    codec, (r0, c0) = env.codec, view.origin
    words = text.lower().replace(",", " ").split()
    if not words:
        return "empty command; type help"
    head = words[0]
    try:
        if head.isdigit():
            k = int(head)
            if not moves:
                return "type moves first to list the full moves"
            if not 1 <= k <= len(moves):
                return f"move number must be 1..{len(moves)}"
            if view.turn_placed or view.turn_exchange:
                return "a full move needs a fresh turn; finish this one with end"
            return codec.move_to_actions(moves[k - 1], view.board, view.origin)
        if head == "end" and len(words) == 1:
            return [codec.end]
        if head == "place" and len(words) == 5:
            tile = Tile.parse(" ".join(words[1:3]))
            r, c = int(words[3]), int(words[4])
            if not (0 <= r - r0 < codec.window and 0 <= c - c0 < codec.window):
                return f"({r}, {c}) is outside the playable window"
            return [codec.place(tile.id, r - r0, c - c0)]
        if head == "exchange" and len(words) == 3:
            return [codec.exchange(Tile.parse(" ".join(words[1:3])).id)]
    except ValueError as err:
        return str(err)
    return f"not understood: {text!r}; type help"


def play_human(
    agent_spec: str,
    human_seat: int = 0,
    seed: int | None = None,
    color: bool = True,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> list[int]:
    """Plays one game; returns the final scores. ``read``/``write`` make it testable."""
    from qwirkle_env import render

    env = raw_env(num_players=2)
    env.reset(seed=seed)
    agent = make_agent(agent_spec)
    agent.reset(1 - human_seat, 2, seed)
    moves: list = []
    write(f"You are player {human_seat} against {agent_spec}. Type help for commands.")
    while not (env.game.over or any(env.truncations.values())):
        seat = env.agent_name_mapping[env.agent_selection]
        if seat != human_seat:
            action = agent.act(env.player_view())
            env.step(action)
            if action == env.codec.end and env.game.history:
                _, move, points = env.game.history[-1]
                write(f"{agent_spec} plays {move} for {points} points")
            continue
        board, placed = env.board_now()
        write(render.game_ansi(env.game, board=board, highlight=placed, color=color))
        text = read("your move> ").strip()
        if text in ("quit", "exit"):
            write("bye")
            return list(env.game.scores)
        if text == "help":
            write(HELP)
            continue
        if text == "moves":
            moves = env.player_view().legal_moves()
            for k, move in enumerate(moves, 1):
                extra = (
                    f" ({env.game.board.score(move.tiles)} pts)"
                    if isinstance(move, Placement)
                    else ""
                )
                write(f"{k:3d}. {move}{extra}")
            continue
        for part in filter(None, (p.strip() for p in text.split(";"))):
            actions = parse_command(part, env, moves)
            if isinstance(actions, str):
                write(f"invalid: {actions}")
                break
            failed = False
            for a in actions:
                if not env.observe(env.agent_selection)["action_mask"][a]:
                    write(f"invalid: {env.codec.describe(a, env.player_view().origin)}: "
                          f"{env.why_illegal(a)}")  # fmt: skip
                    failed = True
                    break
                env.step(a)
            if failed:
                break
        moves = []  # stale once anything was played
    write(render.game_ansi(env.game, color=color))
    return list(env.game.scores)
