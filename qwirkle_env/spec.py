"""Each rule fact once: the numbers both rule implementations, the env and the trainers read.

The engine (``qwirkle_env.engine``) and the batched simulator (``qwirkle_env.vector``) are
two implementations of docs/RULES.md; whatever they must agree on is written here, and
this module imports nothing, so every layer may read it.
"""

from __future__ import annotations

from collections.abc import Sequence

# The tiles (RULES.md, "Components").
NUM_COLORS = 6
NUM_SHAPES = 6
NUM_TYPES = NUM_COLORS * NUM_SHAPES  # tile types; a type's id is color * 6 + shape
ALL = (1 << NUM_TYPES) - 1  # the mask of every tile type (bit t: type t)
COPIES = 3  # copies of each type in the bag
NUM_TILES = NUM_TYPES * COPIES
HAND_SIZE = 6
MAX_LINE = 6  # a line this long is a Qwirkle
MIN_PLAYERS, MAX_PLAYERS = 2, 4

# Scoring.
QWIRKLE_BONUS = 6  # on top of the line's length
END_BONUS = 6  # to the player who empties their hand while the bag is empty

# The env's window (docs/environment.md).
REACH = 5  # a placement reaches at most this many cells past the table's bounding box
DEFAULT_WINDOW = 39  # docs/environment.md, "The window": how it was measured
MIN_WINDOW = 2 * REACH + 1

# The single-agent view's gymnasium id, registered on ``import qwirkle_env``.
ENV_ID = "qwirkle_env/Qwirkle-v0"

# Rewards (env docstring): "win" at the end only, "points" and "margin" dense.
REWARD_MODES = ("win", "points", "margin")


def check_num_players(num_players: object) -> None:
    """ValueError unless ``num_players`` is an int from MIN_PLAYERS to MAX_PLAYERS."""
    if (
        not isinstance(num_players, int)
        or isinstance(num_players, bool)
        or not MIN_PLAYERS <= num_players <= MAX_PLAYERS
    ):
        raise ValueError(f"num_players must be 2, 3 or 4, got {num_players!r}")


def check_table_options(num_players: object, window: object, reward: object) -> None:
    """The options the AEC env and the simulator share: a ValueError names the bad one."""
    check_num_players(num_players)
    if not isinstance(window, int) or isinstance(window, bool) or window < MIN_WINDOW:
        raise ValueError(f"window must be an int >= {MIN_WINDOW}, got {window!r}")
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")


def win_share(num_players: int, winners: int, won: bool) -> float:
    """One seat's "win" reward: ``N/(N-1) * (1/|winners| - 1/N)`` to a winner and
    ``-1/(N-1)`` to a loser; +1/-1 with two players, zero-sum always. Plain arithmetic, so
    that the simulator compiles this very function."""
    n = num_players
    share = 1.0 / winners if won else 0.0
    return n / (n - 1) * (share - 1.0 / n)


def win_reward(scores: Sequence[int], seat: int) -> float:
    """The "win" reward of ``seat`` for these final scores (equal highest totals share)."""
    top = max(scores)
    winners = sum(1 for s in scores if s == top)
    return win_share(len(scores), winners, scores[seat] == top)


def margin(scores: Sequence[int], seat: int) -> float:
    """Own score minus the mean of the opponents' (the "margin" reward's running total)."""
    others = (sum(scores) - scores[seat]) / (len(scores) - 1)
    return scores[seat] - others


# A safety net for every loop that plays a game to its end (harness, trainers, playouts):
# exchanges on a blocked table could otherwise go on for ever; real games take ~50 turns.
MAX_TURNS = 1000

# What a policy puts on the logit of an illegal action: finite, so that a masked
# Categorical's entropy stays a number (0 * -inf is NaN).
MASKED_LOGIT = -1e8

# The observations' layouts: each offset is written here once; the env docstrings
# (qwirkle_env.aec) and docs/environment.md point here.

# The tile mode's observation (action_mode="tiles"), a flat float32 vector: the planes
# (NUM_PLANES of W x W window cells: plane k of cell (r, c) is 1 if it holds colour k,
# then shape k, then a tile placed this turn), then NUM_FEATURES features.
NUM_PLANES = 13  # 6 colours, 6 shapes, placed this turn
COLOR_PLANES = 0
SHAPE_PLANES = NUM_COLORS
PLACED_PLANE = NUM_COLORS + NUM_SHAPES
# Offsets into the features that follow the planes.
HAND = 0  # NUM_TYPES counts: own hand not yet used this turn
EXCHANGE = HAND + NUM_TYPES  # NUM_TYPES counts: this turn's exchange set
UNSEEN = EXCHANGE + NUM_TYPES  # NUM_TYPES counts: copies the observer has not seen
BAG = UNSEEN + NUM_TYPES  # tiles in the bag
SCORES = BAG + 1  # MAX_PLAYERS, seat order starting with the observer
HAND_SIZES = SCORES + MAX_PLAYERS  # MAX_PLAYERS, same order
SEATS = HAND_SIZES + MAX_PLAYERS  # MAX_PLAYERS: 1 for each seat in the game
FLAGS = SEATS + MAX_PLAYERS  # the five flags below
TO_MOVE, OPENING, PLACING, EXCHANGING, MAY_END = range(FLAGS, FLAGS + 5)
NUM_FEATURES = FLAGS + 5

# The move mode's observation (action_mode="moves"), a flat float32 vector: the position
# (NUM_POSITION_FEATURES), then K rows of qwirkle_env.rows.columns.NUM_ROW_FEATURES.
# Offsets into the position:
POS_HAND = 0  # NUM_TYPES: own hand, copies of each type / COPIES
POS_UNSEEN = POS_HAND + NUM_TYPES  # NUM_TYPES: copies not on the table or in hand / COPIES
POS_BAG = POS_UNSEEN + NUM_TYPES  # tiles in the bag / NUM_TILES
POS_SCORES = POS_BAG + 1  # MAX_PLAYERS: scores / SCORE_SCALE, seat order from the observer
POS_HAND_SIZES = POS_SCORES + MAX_PLAYERS  # MAX_PLAYERS: hand sizes / HAND_SIZE, same order
POS_SEATS = POS_HAND_SIZES + MAX_PLAYERS  # MAX_PLAYERS: 1 for each seat in the game
POS_OPENING = POS_SEATS + MAX_PLAYERS  # 1 on the opening turn (the table is empty)
NUM_POSITION_FEATURES = POS_OPENING + 1
SCORE_SCALE = 100.0  # points: scores are divided by this wherever a network reads them
