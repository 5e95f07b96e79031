"""The columns of a move row: what each number of a row means, written once.

Every row describes a move's *afterstate* from the mover's seat: the points it scores, the
lines it leaves (a line of five is a Qwirkle for whoever holds its sixth tile), the tiles
kept in hand (the "leave"), the bag and the scores. They are invariant to the colour/shape
naming and cheap: read off the table as it is, without copying the board. The compiled
kernels (``kernels.py``) and the Python reference (``reference.py``) write them; the env's
move mode, the batched simulator and the move-value agent read them.

| column | feature | meaning |
|---|---|---|
| 0 | ``bag_share`` | tiles in the bag / 108 (the same for every row of a turn, as are 1-7) |
| 1 | ``bag_empty`` | 1 once the bag is empty |
| 2 | ``bag_low`` | min(bag, 6) / 6 |
| 3 | ``lead_mean`` | (own score - the opponents' mean) / 50 |
| 4 | ``lead_max`` | (own score - the best opponent's) / 50 |
| 5 | ``opp_tiles`` | tiles the opponents hold / (6 per opponent) |
| 6, 7 | ``three_players``, ``four_players`` | the seat count |
| 8 | ``points`` | points the move scores now, end bonus included, / 10 |
| 9 | ``exchange`` | 1 for an exchange |
| 10 | ``placed`` | tiles placed / 6 |
| 11 | ``goes_out`` | 1 if the move empties the hand with the bag empty (the game ends) |
| 12 | ``qwirkles`` | lines of six made |
| 13-15 | ``lines_2`` .. ``lines_4`` | lines of 2, 3 and 4 through the placed tiles |
| 16 | ``open_fives`` | lines of five left open whose sixth tile is unseen or kept |
| 17 | ``five_risk`` | summed chance that the opponents hold such a sixth tile |
| 18 | ``own_fives`` | such lines whose sixth tile we keep |
| 19 | ``own_safe`` | summed chance that they don't hold it, for those |
| 20 | ``kept`` | tiles kept in hand / 6 |
| 21, 22 | ``kept_distinct``, ``kept_duplicates`` | distinct types kept, extra copies kept, / 6 |
| 23, 24 | ``kept_colour_group``, ``kept_shape_group`` | largest colour / shape group kept / 6 |
| 25 | ``kept_synergy`` | kept tiles sharing a colour or shape with another, / 10 |
| 26 | ``kept_playable`` | kept tiles that fit somewhere on the table now / 6 |
| 27 | ``kept_live`` | unseen copies of the kept types / 18 |

**The look two moves ahead** (the move mode's ``look_ahead=N``, ``qwirkle_env.rows.table``):
seven more columns, filled for the first N rows of the table (the highest-scoring
placements) and zero in the others. A look costs a few move generations (``look_ahead.py``,
compiled in ``afterstate.py``), which is why it is an option and covers a shortlist only.
The opponent's hand is unknown while the bag holds tiles: "dealt" columns deal it at random
from the unseen tiles (the env's seeded generator), "expected" ones weigh each type by the
chance that they hold it, without dealing.

| column | feature | meaning |
|---|---|---|
| 28 | ``reply_points`` | the next opponent's best reply, dealt, / 10 |
| 29 | ``reply_goes_out`` | the chance that reply ends the game, dealt |
| 30 | ``next_points`` | our best next move from the kept tiles topped up by a draw, / 10 |
| 31 | ``reply_expected`` | the opponent's expected best single tile, / 10 |
| 32 | ``next_kept`` | our best next move from the kept tiles alone, / 10 |
| 33 | ``next_expected`` | our expected best next move over the draw, / 10 |
| 34 | ``looked`` | 1 where the row was looked at (a move that goes out: 1, nothing follows) |
"""

from __future__ import annotations

# Points are divided by this in the rows; a learned value is in the same unit.
POINT_SCALE = 10.0

ROW_FEATURES = (
    # the position, the same for every move of a turn
    "bag_share", "bag_empty", "bag_low", "lead_mean", "lead_max", "opp_tiles",
    "three_players", "four_players",
    # the move
    "points", "exchange", "placed", "goes_out", "qwirkles",
    # the lines through the placed tiles, after the move
    "lines_2", "lines_3", "lines_4", "open_fives", "five_risk", "own_fives", "own_safe",
    # the leave: the tiles kept in hand
    "kept", "kept_distinct", "kept_duplicates", "kept_colour_group", "kept_shape_group",
    "kept_synergy", "kept_playable", "kept_live",
)  # fmt: skip
NUM_ROW_FEATURES = len(ROW_FEATURES)
# The look's columns, after ROW_FEATURES when the move mode's look_ahead is on.
LOOK_AHEAD_COLUMNS = (
    "reply_points", "reply_goes_out", "next_points",  # dealt
    "reply_expected", "next_kept", "next_expected",  # without dealing
    "looked",
)  # fmt: skip
NUM_LOOK_AHEAD_COLUMNS = len(LOOK_AHEAD_COLUMNS)


def row_columns(look_ahead: int) -> tuple[str, ...]:
    """The columns of a row: ROW_FEATURES, then the look's when ``look_ahead`` > 0."""
    return (*ROW_FEATURES, *LOOK_AHEAD_COLUMNS) if look_ahead else ROW_FEATURES


NUM_CONTEXT = ROW_FEATURES.index("points")  # the position's columns come first
COL_POINTS = ROW_FEATURES.index("points")
COL_EXCHANGE = ROW_FEATURES.index("exchange")
COL_PLACED = ROW_FEATURES.index("placed")
COL_GOES_OUT = ROW_FEATURES.index("goes_out")
COL_QWIRKLES = ROW_FEATURES.index("qwirkles")
COL_LINES_2 = ROW_FEATURES.index("lines_2")  # lines_2 .. lines_4 follow each other
COL_OPEN_FIVES = ROW_FEATURES.index("open_fives")
COL_FIVE_RISK = ROW_FEATURES.index("five_risk")
COL_OWN_FIVES = ROW_FEATURES.index("own_fives")
COL_OWN_SAFE = ROW_FEATURES.index("own_safe")
COL_KEPT = ROW_FEATURES.index("kept")  # the eight leave columns, in the order of the table
