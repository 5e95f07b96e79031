"""render_mode="human": a pygame window through a whole game, headless (SDL's dummy video
driver); the error without pygame; the picture it shows."""

from __future__ import annotations

import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.error import DependencyNotInstalled

from qwirkle_env import ENV_ID, qwirkle_v0, raw_env
from qwirkle_env.render.window import SIZE, table_image


@pytest.fixture
def headless(monkeypatch):
    pygame = pytest.importorskip("pygame")  # the [human] extra; CI installs it
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    return pygame


def test_human_window_shows_every_step_of_a_whole_game_and_closes(headless, monkeypatch):
    pygame = headless
    e = qwirkle_v0.env(render_mode="human")
    raw = e.unwrapped
    raw.metadata = {**raw.metadata, "render_fps": 10_000}  # 2 a second is for people
    shown = []
    e.reset(seed=3)
    window = raw.human_window()
    show = window.show
    monkeypatch.setattr(window, "show", lambda frame: (shown.append(frame), show(frame)))
    assert pygame.display.get_init() and window.is_open
    assert pygame.display.get_surface().get_size() == SIZE
    rng = np.random.default_rng(0)
    steps = 0
    for _agent in e.agent_iter():
        obs, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
        # the window holds exactly the frame of this step
        on_screen = pygame.surfarray.array3d(pygame.display.get_surface()).transpose(1, 0, 2)
        assert np.array_equal(on_screen, shown[-1])
    assert raw.game.over and len(shown) == steps
    assert not np.array_equal(shown[0], shown[-1])
    e.close()
    assert not window.is_open and not pygame.display.get_init()
    e.close()  # twice is harmless


def test_human_mode_without_pygame_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygame", None)  # import pygame now raises ImportError
    with pytest.raises(DependencyNotInstalled, match=r'pip install "qwirkle-env\[human\]"'):
        raw_env(render_mode="human")
    with pytest.raises(DependencyNotInstalled, match=r"qwirkle-env\[human\]"):
        gymnasium.make(ENV_ID, render_mode="human")
    assert isinstance(raw_env(render_mode="ansi"), raw_env)  # other modes don't need it


def test_ansi_keeps_coloured_text_and_rgb_array_the_image():
    text = raw_env(render_mode="ansi")
    text.reset(seed=1)
    assert "\x1b[" in text.render() and "player" in text.render()
    image = raw_env(render_mode="rgb_array")
    image.reset(seed=1)
    frame = image.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3


def test_window_exists_only_in_human_mode():
    with pytest.raises(RuntimeError, match='only render_mode="human" has a window'):
        raw_env(render_mode="ansi").human_window()


def test_table_image_shows_the_turn_in_progress():
    e = raw_env()
    e.reset(seed=5)
    before = e.human_frame()
    assert before.shape == (SIZE[1], SIZE[0], 3) and before.dtype == np.uint8
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    during = e.human_frame()  # one tile on the table, one fewer in the hand
    assert not np.array_equal(before, during)
    assert np.array_equal(table_image(e.game), table_image(e.game))
