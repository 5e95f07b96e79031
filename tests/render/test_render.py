"""Rendering: text, images, SVG and animations on empty, small and negative-coordinate boards."""

import random
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image

from qwirkle_env import Board, Color, Game, Shape, Tile
from qwirkle_env.render import (
    COLOR_RGB,
    board_ansi,
    board_image,
    board_svg,
    game_ansi,
    hand_ansi,
    hand_image,
    hand_svg,
    save_animation,
)

SVG_NS = "{http://www.w3.org/2000/svg}"
RED_SQUARE = Tile(Color.RED, Shape.SQUARE)
RED_CIRCLE = Tile(Color.RED, Shape.CIRCLE)
BLUE_SQUARE = Tile(Color.BLUE, Shape.SQUARE)


def small_board() -> Board:
    return Board({(0, 0): RED_SQUARE, (0, 1): RED_CIRCLE, (1, 0): BLUE_SQUARE})


def negative_board() -> Board:
    return Board({(-3, -5): RED_SQUARE, (-3, -4): RED_CIRCLE})


def random_game(moves: int, seed: int = 1) -> Game:
    """A game of uniformly random full moves (exchanges included), cut after ``moves``."""
    game = Game(2, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.over:
            break
        game.apply(rng.choice(game.legal_moves()))
    return game


# --- text --------------------------------------------------------------------------------
def test_ansi_empty_board_is_blank_with_legend():
    text = board_ansi(Board(), color=False)
    assert "circle" in text and "red" in text
    assert "\x1b" not in text
    assert board_ansi(Board())  # colour version does not fail either


def test_ansi_plain_small_board():
    text = board_ansi(small_board(), color=False)
    lines = text.splitlines()
    assert "R■" in text and "R●" in text and "B■" in text
    assert len(lines) == 1 + 4 + 1  # header, rows -1..2, legend
    assert lines[0].split() == ["-1", "0", "1", "2"]
    assert "[R■]" in board_ansi(small_board(), highlight={(0, 0)}, color=False)


def test_ansi_colour_uses_escapes_per_colour():
    text = board_ansi(small_board())
    assert "\x1b[" in text
    assert "38;5;196m" in text and "38;5;33m" in text  # red and blue tiles
    assert "R■" not in text  # letters only in plain text


def test_ansi_negative_coordinates_and_window():
    text = board_ansi(negative_board(), color=False)
    assert "-5" in text.splitlines()[0]
    assert text.splitlines()[2].lstrip().startswith("-3")
    windowed = board_ansi(negative_board(), window=(-4, -6, 5), color=False).splitlines()
    assert len(windowed) == 1 + 5 + 1
    assert windowed[0].split() == ["-6", "-5", "-4", "-3", "-2"]
    assert "R■" in windowed[2]
    outside = board_ansi(negative_board(), window=(0, 0, 3), color=False)
    assert "R■" not in outside


def test_game_and_hand_ansi():
    game = random_game(4)
    text = game_ansi(game, color=False)
    assert "bag" in text and f"hand of player {game.current}" in text
    for seat, score in enumerate(game.scores):
        assert f"P{seat}" in text and str(score) in text
    assert game_ansi(Game(2, seed=0))  # before the first move
    assert hand_ansi([RED_SQUARE, BLUE_SQUARE.id], color=False) == "R■ B■"


# --- images ------------------------------------------------------------------------------
def test_image_empty_board_is_small_and_blank():
    img = board_image(Board(), cell_px=16, labels=False)
    assert img.dtype == np.uint8 and img.shape == (48, 48, 3)
    assert img.min() > 150  # table and grid lines only, no tile


def test_image_shape_follows_extent_and_window():
    img = board_image(small_board(), cell_px=20, labels=False)
    assert img.shape == (4 * 20, 4 * 20, 3)  # rows -1..2, cols -1..2
    img = board_image(negative_board(), cell_px=10, window=(-4, -6, 7), labels=False)
    assert img.shape == (70, 70, 3)
    labelled = board_image(negative_board(), cell_px=24)
    assert labelled.dtype == np.uint8 and labelled.shape[0] > 3 * 24 and labelled.shape[1] > 4 * 24


def test_image_draws_tiles_at_their_cells():
    cp = 20
    img = board_image(negative_board(), cell_px=cp, window=(-3, -5, 1, 3), labels=False)
    cells = [img[:, j * cp : (j + 1) * cp] for j in range(3)]
    assert cells[0].mean() < 100 and cells[1].mean() < 100  # black tiles
    assert cells[2].mean() > 150  # empty table


def _colour_mask(tile: Tile, cp: int = 32) -> np.ndarray:
    img = hand_image([tile], cell_px=cp).astype(int)
    return np.abs(img - COLOR_RGB[tile.color]).sum(axis=2) < 90


def test_six_shapes_are_pairwise_different():
    masks = [_colour_mask(Tile(Color.GREEN, s)) for s in Shape]
    for m in masks:
        assert 0.08 < m.mean() < 0.4  # a shape of sensible size in every cell
    for i in range(6):
        for j in range(i + 1, 6):
            differ = (masks[i] ^ masks[j]).mean()
            assert differ > 0.03, f"{Shape(i).name} and {Shape(j).name} look alike"


def test_colours_are_the_intended_rgb():
    for c in Color:
        img = hand_image([Tile(c, Shape.SQUARE)], cell_px=32)
        assert tuple(img[16, 16]) == COLOR_RGB[c]
    assert len(set(COLOR_RGB.values())) == 6


def test_highlight_changes_only_that_cell():
    cp = 20
    plain = board_image(small_board(), cell_px=cp, labels=False)
    marked = board_image(small_board(), cell_px=cp, highlight=[(0, 0)], labels=False)
    diff = np.argwhere((plain != marked).any(axis=2))
    assert len(diff) > 0
    assert diff[:, 0].min() >= cp and diff[:, 0].max() < 2 * cp  # row 0 is the 2nd row
    assert diff[:, 1].min() >= cp and diff[:, 1].max() < 2 * cp


def test_hand_image_row():
    img = hand_image([RED_SQUARE, RED_SQUARE, BLUE_SQUARE], cell_px=16)  # duplicates are fine
    assert img.shape == (16, 48, 3) and img.dtype == np.uint8
    assert hand_image([], cell_px=16).shape == (16, 16, 3)


# --- SVG ---------------------------------------------------------------------------------
def _tile_groups(svg: str) -> list:
    root = ET.fromstring(svg)
    assert root.tag == SVG_NS + "svg"
    return [g for g in root.iter(SVG_NS + "g") if "translate" in g.get("transform", "")]


def test_svg_parses_on_every_board():
    assert _tile_groups(board_svg(Board())) == []
    assert len(_tile_groups(board_svg(small_board()))) == 3
    svg = board_svg(negative_board(), highlight={(-3, -5)})
    assert len(_tile_groups(svg)) == 2
    texts = [t.text for t in ET.fromstring(svg).iter(SVG_NS + "text")]
    assert "-5" in texts and "-3" in texts
    assert "#{:02x}{:02x}{:02x}".format(*COLOR_RGB[Color.RED]) in svg
    assert len(_tile_groups(board_svg(negative_board(), window=(0, 0, 3)))) == 0


def test_hand_svg_parses():
    assert len(_tile_groups(hand_svg([RED_SQUARE, BLUE_SQUARE]))) == 2
    ET.fromstring(hand_svg([]))


# --- animations --------------------------------------------------------------------------
def test_gif_has_one_frame_per_move(tmp_path):
    game = random_game(10)
    path = tmp_path / "game.gif"
    save_animation(game, path, fps=4, cell_px=8)
    with Image.open(path) as gif:
        assert gif.n_frames == len(game.history) + 1
        sizes = set()
        for k in range(gif.n_frames):
            gif.seek(k)
            sizes.add(gif.size)
        assert len(sizes) == 1  # fixed extent: the board does not jump


def test_finished_game_gif_from_record(tmp_path):
    game = Game(2, seed=5)
    while not game.over:  # greedy-ish: longest placement, so the game ends quickly
        moves = game.legal_placements() or game.legal_moves()
        game.apply(max(moves, key=len))
    path = tmp_path / "done.gif"
    save_animation(game.record(), str(path), cell_px=4)
    with Image.open(path) as gif:
        assert gif.n_frames == len(game.history) + 1


def test_html_holds_every_frame(tmp_path):
    game = random_game(6, seed=2)
    path = tmp_path / "game.html"
    save_animation(game.record(), path)
    page = path.read_text(encoding="utf-8")
    assert page.count("<svg") == len(game.history) + 1
    assert 'type="range"' in page and "<script>" in page
    assert "http" not in page.replace("http://www.w3.org/2000/svg", "")  # self-contained


@pytest.mark.parametrize("name", ["game.png", "game", "game.svg"])
def test_bad_extension_raises(tmp_path, name):
    with pytest.raises(ValueError, match="gif"):
        save_animation(random_game(1), tmp_path / name)
