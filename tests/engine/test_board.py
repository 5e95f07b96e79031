"""The table: RULES.md "Lines", "Place", "Scoring a placement" and the common mistakes.

Every position is built by hand. ``t("red square")`` is a tile, ``row(r, c, ...)`` and
``col(r, c, ...)`` lay named tiles out from ``(r, c)`` rightwards or downwards.
"""

from __future__ import annotations

import pytest

from qwirkle_env import Board, Color, IllegalMove, Shape, Tile

# Every placement list in these rule tests is checked against the Python generator too.
pytestmark = pytest.mark.usefixtures("generators_agree")


def t(name: str) -> Tile:
    return Tile.parse(name)


def row(r: int, c: int, *names: str) -> dict:
    return {(r, c + i): t(n) for i, n in enumerate(names)}


def col(r: int, c: int, *names: str) -> dict:
    return {(r + i, c): t(n) for i, n in enumerate(names)}


def placed(cells: dict) -> list:
    return list(cells.items())


def assert_illegal(board: Board, placement, *words: str) -> str:
    """The placement raises IllegalMove naming ``words``, in score and play alike."""
    before = dict(board)
    front = dict(board.frontier)
    with pytest.raises(IllegalMove) as info:
        board.score(placement)
    message = str(info.value)
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    with pytest.raises(IllegalMove, match=words[0] if words else None):
        board.play(placement)
    assert dict(board) == before, "play() changed the board although it raised"
    assert board.frontier == front
    return message


RED_LINE = ("red circle", "red star4", "red diamond", "red square", "red clover")


# --- Lines --------------------------------------------------------------------------------
def test_lines_all_one_colour_every_shape_different():
    board = Board(row(0, 0, "red circle", "red square"))
    assert board.score(placed(row(0, 2, "red diamond"))) == 3
    assert board.score(placed(row(0, 2, "red diamond", "red star8"))) == 4


def test_lines_all_one_shape_every_colour_different():
    board = Board(col(0, 0, "red square", "blue square"))
    assert board.score(placed(col(2, 0, "green square"))) == 3
    assert board.score(placed(col(-2, 0, "yellow square", "purple square"))) == 4


def test_lines_neither_one_colour_nor_one_shape_is_illegal():
    board = Board(row(0, 0, "red circle", "red square"))
    assert_illegal(board, placed(row(0, 2, "blue diamond")), "mixed line")
    # Each new tile matches its neighbour, yet the line is not one colour or one shape.
    assert_illegal(board, placed(row(0, 2, "blue square")), "mixed line")


def test_lines_two_identical_tiles_never_share_a_line():
    board = Board(row(0, 0, "red circle", "red square"))
    message = assert_illegal(board, placed(row(0, 2, "red square")), "duplicate in a line")
    assert "red square" in message
    # Also when the two copies are far apart in the same line.
    board = Board(row(0, 0, "blue circle", "green circle", "yellow circle"))
    assert_illegal(board, placed(row(0, 3, "red circle", "blue circle")), "duplicate in a line")


def test_lines_hold_at_most_six_tiles():
    board = Board(row(0, 0, *RED_LINE, "red star8"))
    assert_illegal(board, placed(row(0, 6, "red circle")), "line longer than 6")
    assert_illegal(board, placed(row(0, -1, "blue circle")), "line longer than 6")


def test_lines_single_tile_with_no_neighbour_in_a_direction_forms_no_line_there():
    board = Board(row(0, 0, "red circle"))
    # Only the row counts; the column through (0, 1) is that tile alone.
    assert board.score(placed(row(0, 1, "red square"))) == 2
    # A tile with no neighbour in a direction has no constraint in that direction.
    board = Board({(0, 0): t("red circle"), (2, 1): t("blue square")})
    assert board.score(placed(row(0, 1, "red square"))) == 2


def test_lines_every_line_on_the_table_must_be_valid():
    with pytest.raises(IllegalMove, match="mixed line.*row"):
        Board(row(0, 0, "red circle", "blue square"))
    with pytest.raises(IllegalMove, match="duplicate in a line.*column"):
        Board(col(5, -3, "red circle", "blue circle", "red circle"))
    with pytest.raises(IllegalMove, match="line longer than 6"):
        Board(row(0, 0, *RED_LINE, "red star8", "blue star8"))
    # Connectedness is not required of a table given to the constructor.
    board = Board({(0, 0): t("red circle"), (10, 10): t("red circle")})
    assert len(board) == 2


def test_lines_placement_joining_two_lines_makes_one_line_that_must_be_valid():
    board = Board({**row(0, 0, "red circle", "red square"), **row(0, 3, "red clover")})
    assert board.score(placed(row(0, 2, "red diamond"))) == 4
    assert_illegal(board, placed(row(0, 2, "blue diamond")), "mixed line")
    board = Board({**row(0, 0, "red circle", "red square"), **row(0, 3, "red circle")})
    assert_illegal(board, placed(row(0, 2, "red diamond")), "duplicate in a line")


# --- Place ----------------------------------------------------------------------------------
def test_place_tiles_in_one_row_or_one_column():
    board = Board(row(0, 0, "red circle"))
    assert board.score(placed(row(0, 1, "red square", "red diamond"))) == 3
    assert board.score(placed(col(1, 0, "blue circle", "green circle"))) == 3
    assert_illegal(board, [((0, 1), t("red square")), ((1, 0), t("blue circle"))], "two directions")


def test_place_unbroken_run_no_empty_cell_between_placed_tiles():
    board = Board(row(0, 0, "red circle"))
    message = assert_illegal(board, [((0, 1), t("red square")), ((0, 3), t("red diamond"))], "gap")
    assert "(0, 2)" in message


def test_place_placed_tiles_need_not_touch_each_other_when_table_tiles_fill_the_run():
    board = Board(row(0, 1, "red square", "red clover"))
    placement = [((0, 0), t("red circle")), ((0, 3), t("red diamond"))]
    assert board.score(placement) == 4
    assert board.play(placement) == 4
    assert len(board) == 4


def test_place_must_touch_a_tile_already_on_the_table():
    board = Board(row(0, 0, "red circle"))
    assert_illegal(board, placed(row(0, 2, "red square")), "not touching")
    assert_illegal(board, placed(row(5, 5, "red square", "red diamond")), "not touching")
    # Corners do not count as touching: tiles touch edge to edge.
    assert_illegal(board, placed(row(1, 1, "red square")), "not touching")


def test_place_first_tiles_of_the_game_need_not_touch_anything():
    board = Board()
    assert board.score(placed(row(7, -3, "red square", "red diamond"))) == 2
    assert board.score(placed(row(-4, 9, "red square"))) == 1


def test_place_every_line_with_a_placed_tile_is_valid_in_both_directions():
    # Rows 0 and 1 are valid lines; columns 0 and 1 must be valid too.
    board = Board(row(0, 0, "red circle", "red square"))
    assert board.score(placed(row(1, 0, "blue circle", "blue square"))) == 6
    assert_illegal(board, placed(row(1, 0, "blue circle", "blue diamond")), "mixed line")
    assert_illegal(board, placed(row(1, 0, "red circle", "blue circle")), "duplicate in a line")


def test_place_a_cell_can_hold_one_tile():
    board = Board(row(0, 0, "red circle"))
    message = assert_illegal(board, placed(row(0, 0, "red square")), "occupied cell")
    assert "(0, 0)" in message
    assert_illegal(board, [((0, 1), t("red square")), ((0, 1), t("red diamond"))], "occupied cell")


def test_place_at_least_one_tile():
    assert_illegal(Board(row(0, 0, "red circle")), [], "empty placement")
    assert_illegal(Board(), [], "empty placement")


# --- Scoring a placement ----------------------------------------------------------------------
def test_scoring_each_line_scores_its_full_length():
    board = Board(row(0, 0, "red circle", "red square", "red diamond"))
    assert board.score(placed(row(0, 3, "red clover"))) == 4
    assert board.score(placed(row(0, -1, "red star4"))) == 4


def test_scoring_line_along_placement_counts_once_each_perpendicular_line_separately():
    board = Board(row(0, 0, "red circle", "red square", "red diamond"))
    # Row 1 (3 tiles, once) + columns 0, 1 and 2 (2 tiles each).
    assert board.score(placed(row(1, 0, "blue circle", "blue square", "blue diamond"))) == 9
    # Only column 0 touches the table: row 1 (2) + column 0 (2); column 1 is one tile.
    board = Board(row(0, 0, "red circle"))
    assert board.score(placed(row(1, 0, "blue circle", "blue square"))) == 4


def test_qwirkle_scores_twelve():
    board = Board(row(0, 0, *RED_LINE))
    assert board.score(placed(row(0, 5, "red star8"))) == 12
    assert board.score(placed(row(0, -1, "red star8"))) == 12
    board = Board(row(0, 0, "red circle", "red star4"))
    assert (
        board.score(placed(row(0, 2, "red diamond", "red square", "red clover", "red star8"))) == 12
    )


def test_two_qwirkles_in_one_move():
    others = ("orange star8", "yellow star8", "green star8", "blue star8", "purple star8")
    board = Board({**row(0, 0, *RED_LINE), **col(1, 5, *others)})
    assert board.score(placed(row(0, 5, "red star8"))) == 24
    assert board.play(placed(row(0, 5, "red star8"))) == 24


def test_qwirkle_bonus_also_for_a_perpendicular_line():
    column = ("orange circle", "yellow circle", "green circle", "blue circle", "purple circle")
    board = Board(col(1, 0, *column))
    # Row 0: red circle + red square (2); column 0 becomes a line of six (12).
    assert board.score(placed(row(0, 0, "red circle", "red square"))) == 14


def test_single_tile_opening_scores_one():
    assert Board().score([((0, 0), t("green clover"))]) == 1
    board = Board()
    assert board.play([((3, -8), t("green clover"))]) == 1
    assert board[(3, -8)] is t("green clover")


def test_scoring_opening_line_scores_its_length():
    assert Board().score(placed(row(0, 0, "red circle", "blue circle", "green circle"))) == 3
    assert Board().score(placed(col(0, 0, *RED_LINE, "red star8"))) == 12


# --- Common mistakes -----------------------------------------------------------------------
def test_common_mistake_l_shape_is_illegal():
    board = Board(row(0, 0, "red circle", "red square"))
    l_shape = [
        ((0, 2), t("red diamond")),
        ((1, 2), t("blue diamond")),
        ((2, 2), t("green diamond")),
    ]
    assert board.score(l_shape) == 3 + 3  # the column alone is fine
    l_shape.append(((0, 3), t("red clover")))
    assert_illegal(board, l_shape, "two directions")


def test_common_mistake_repeated_tile_in_a_line_is_illegal():
    board = Board(row(0, 0, "red circle", "red square", "red diamond"))
    assert_illegal(board, placed(row(0, 3, "red square")), "duplicate in a line", "red square")


def test_common_mistake_gap_between_placed_tiles_is_illegal():
    board = Board(row(0, 0, "red circle"))
    assert_illegal(board, [((0, 1), t("red square")), ((0, 3), t("red clover"))], "gap")
    assert_illegal(board, [((1, 0), t("blue circle")), ((3, 0), t("green circle"))], "gap")


def test_common_mistake_second_line_must_be_valid():
    # The red diamond extends row 0 correctly but starts a mixed column with a blue circle.
    board = Board({**row(0, 0, "red circle", "red square"), (1, 2): t("blue circle")})
    assert_illegal(board, placed(row(0, 2, "red diamond")), "mixed line")


def test_common_mistake_second_line_scores_too():
    board = Board({**row(0, 0, "red circle", "red square"), (1, 2): t("blue diamond")})
    assert board.score(placed(row(0, 2, "red diamond"))) == 3 + 2


def test_common_mistake_line_scores_whole_length():
    board = Board(row(0, 0, "red circle", "red square", "red diamond", "red clover"))
    # One added tile, but the line it completes is five long.
    assert board.score(placed(row(0, 4, "red star8"))) == 5


# --- Every IllegalMove names its rule ------------------------------------------------------
@pytest.mark.parametrize(
    "table, placement, words",
    [
        ({}, [], ["empty placement"]),
        (row(0, 0, "red circle"), [((0, 0), "red square")], ["occupied cell"]),
        (row(0, 0, "red circle"), [((0, 1), "red square"), ((1, 0), "blue circle")], ["two dir"]),
        (row(0, 0, "red circle"), [((0, 1), "red square"), ((0, 3), "red star8")], ["gap"]),
        (row(0, 0, "red circle"), [((2, 2), "red square")], ["not touching"]),
        (row(0, 0, "red circle"), [((0, 1), "red circle")], ["duplicate in a line"]),
        (row(0, 0, "red circle"), [((0, 1), "blue square")], ["mixed line"]),
        (row(0, 0, *RED_LINE, "red star8"), [((0, 6), "blue star8")], ["line longer than 6"]),
    ],
)  # fmt: skip
def test_illegal_move_message_names_the_broken_rule(table, placement, words):
    board = Board(table)
    assert_illegal(board, [(cell, t(name)) for cell, name in placement], *words)
    assert issubclass(IllegalMove, ValueError)


def test_play_leaves_the_board_unchanged_when_it_raises_and_score_never_changes_it():
    board = Board(row(0, 0, "red circle", "red square"))
    before, front = dict(board), dict(board.frontier)
    good = placed(row(0, 2, "red diamond", "red clover"))
    assert board.score(good) == 4
    assert dict(board) == before and board.frontier == front
    # A partly valid move: the first tile is fine, the second breaks the column rule.
    board2 = Board({**row(0, 0, "red circle", "red square"), (1, 3): t("blue circle")})
    snapshot = dict(board2)
    with pytest.raises(IllegalMove):
        board2.play(good)
    assert dict(board2) == snapshot


# --- Unbounded table -----------------------------------------------------------------------
@pytest.mark.parametrize("origin", [(0, 0), (-7, -3), (-(10**12), 10**15), (10**30, -(10**30))])
def test_unbounded_table_negative_and_huge_coordinates(origin):
    r0, c0 = origin
    base = {**row(0, 0, "red circle", "red square"), **col(1, 1, "blue square")}
    board = Board({(r + r0, c + c0): x for (r, c), x in base.items()})
    plain = Board(base)
    hand = [t(n) for n in ("red diamond", "green square", "red clover", "blue circle", "red star8")]
    moved = [tuple(((r + r0, c + c0), x) for (r, c), x in p) for p in plain.legal_placements(hand)]
    assert board.legal_placements(hand) == moved
    move = [((r0, c0 + 2), t("red diamond")), ((r0, c0 + 3), t("red clover"))]
    assert board.score(move) == 4
    assert board.play(move) == 4
    assert board[(r0, c0 + 3)] is t("red clover")
    assert board.bounds() == (r0, r0 + 1, c0, c0 + 3)
    # Growing far up-left of the start is just as exact.
    up = [((r0 - 1, c0), t("blue circle")), ((r0 - 2, c0), t("green circle"))]
    assert board.score(up) == 3


def test_unbounded_table_grows_in_any_direction_without_limit():
    # A staircase of red circles and red squares, 300 steps down-right and 300 up-left.
    board = Board(row(0, 0, "red circle"))
    for k in range(300):
        board.play([((k, k + 1), t("red square"))])  # right of (k, k)
        board.play([((k + 1, k + 1), t("red circle"))])  # below it
        board.play([((-k - 1, -k), t("red square"))])  # above (-k, -k)
        board.play([((-k - 1, -k - 1), t("red circle"))])  # left of it
    assert len(board) == 1 + 4 * 300
    assert board.bounds() == (-300, 300, -300, 300)
    assert board.score([((300, 301), t("red square"))]) == 2
    assert board.score([((-301, -300), t("red square"))]) == 2


# --- Board API -------------------------------------------------------------------------------
def test_board_reading_api():
    cells = {**row(0, 0, "red circle", "red square"), (-1, 0): t("blue circle")}
    board = Board(cells)
    assert len(board) == 3
    assert board[(0, 1)] is t("red square") and board[(5, 5)] is None
    assert board[[0, 0]] is t("red circle")  # any (row, col) pair
    assert list(board) == sorted(cells.items())
    assert (0, 0) in board and (9, 9) not in board
    assert board == Board(cells) and board != Board()
    assert "Tile(Color.RED, Shape.SQUARE)" in repr(board)
    assert board.bounds() == (-1, 0, 0, 1) and Board().bounds() is None
    copy = board.copy()
    copy.play(placed(row(0, 2, "red diamond")))
    assert len(board) == 3 and len(copy) == 4


def test_board_fits_lists_tiles_that_could_go_on_a_cell():
    board = Board(row(0, 0, "red circle", "red square"))
    assert set(board.fits((0, 2))) == {Tile(Color.RED, s) for s in Shape} - {
        t("red circle"),
        t("red square"),
    }
    below = {Tile(c, Shape.CIRCLE) for c in Color} | {Tile(Color.RED, s) for s in Shape}
    assert set(board.fits((1, 0))) == below - {t("red circle")}
    assert board.fits((5, 5)) == [] and board.fits((0, 0)) == []
    assert len(Board().fits((3, 3))) == 36


def test_board_rejects_malformed_cells_and_tiles():
    with pytest.raises(TypeError, match="a cell is a"):
        Board().score([((0,), t("red circle"))])
    with pytest.raises(TypeError, match="a cell is a"):
        Board().score([((0.5, 0), t("red circle"))])
    with pytest.raises(TypeError, match="expected a Tile"):
        Board().score([((0, 0), "red circle")])
    with pytest.raises(TypeError, match="a placement is a list"):
        Board().score([t("red circle")])
    with pytest.raises(TypeError, match="expected a Tile"):
        Board({(0, 0): 3})


def test_empty_board_legal_placements_are_lines_from_the_origin_right_or_down():
    hand = [t(n) for n in ("red circle", "red square", "blue square", "red circle")]
    found = Board().legal_placements(hand)
    singles = [p for p in found if len(p) == 1]
    assert {p[0][1] for p in singles} == {t("red circle"), t("red square"), t("blue square")}
    for p in found:
        cells = [cell for cell, _ in p]
        assert (0, 0) in cells
        assert all(r == 0 for r, _ in cells) or all(c == 0 for _, c in cells)
        assert all(r >= 0 and c >= 0 for r, c in cells)
    # Pairs: red circle+red square, red square+blue square, both orders, both directions.
    assert len(found) == 3 + 2 * 2 * 2


def test_legal_placements_are_sorted_distinct_and_all_score():
    board = Board({**row(0, 0, "red circle", "red square"), **col(1, 1, "blue square")})
    hand = [
        t(n) for n in ("red diamond", "red diamond", "blue circle", "green square", "red clover")
    ]
    found = board.legal_placements(hand)
    assert found == sorted(found) and len(found) == len(set(found))
    assert found, "this hand has moves"
    for p in found:
        assert board.score(p) > 0
    # A hand with a tile twice lists the same moves as with it once.
    assert found == board.legal_placements(sorted(set(hand)))
    assert board.legal_placements([]) == []


def test_runs_through_lists_each_line_of_the_cells_once():
    board = Board({(0, c): Tile(Color.RED, c) for c in range(3)} | {(1, 0): Tile(Color.ORANGE, 0)})
    runs = board.runs_through([(0, 0), (0, 1), (1, 0)])
    assert ((0, 0), (0, 2), (0, 1), 3) in runs  # the row, once for two of its cells
    assert ((0, 0), (1, 0), (1, 0), 2) in runs  # the column through (0, 0) and (1, 0)
    assert ((0, 1), (0, 1), (1, 0), 1) in runs  # a lone tile in its column
    assert len(runs) == 4  # plus (1, 0) alone in its row
