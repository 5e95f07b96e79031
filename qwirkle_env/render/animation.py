"""A whole game as an animation: an animated GIF, or an HTML page of SVG frames.

Frames are rebuilt from the game's history (no rules are re-run), one per move plus the
empty table, all over the final bounding box so the board never jumps. Every frame carries
a caption with the move number, so no two GIF frames are identical and Pillow keeps them
all (it merges identical consecutive frames).
"""

from __future__ import annotations

import html
import os
from collections.abc import Iterator
from typing import Any

from PIL import Image, ImageDraw

from ..engine.game import Game
from ..engine.moves import Placement
from ..engine.tiles import Tile
from .image import HIGHLIGHT_RGB, LABEL_RGB, TABLE_RGB, Extent, font, raster, svg

Cell = tuple[int, int]
Frame = tuple[dict[Cell, Tile], set[Cell], str]  # tiles, highlighted cells, caption


def _as_game(game_or_record: Game | dict[str, Any]) -> Game:
    if isinstance(game_or_record, Game):
        return game_or_record
    if isinstance(game_or_record, dict):
        if game_or_record.get("format") == "qwirkle-env/game":
            return Game.from_dict(game_or_record)
        return Game.from_record(game_or_record)
    raise TypeError(f"expected a Game or a record dict, got {type(game_or_record).__name__}")


def frames(game: Game) -> Iterator[Frame]:
    """(tiles, highlight, caption) after 0, 1, ... len(history) moves."""
    cells: dict[Cell, Tile] = {}
    scores = [0] * game.num_players
    total = len(game.history)

    def caption(i: int, what: str) -> str:
        return f"move {i}/{total}  {what}   " + "  ".join(
            f"P{s}: {p}" for s, p in enumerate(scores)
        )

    yield dict(cells), set(), caption(0, "start")
    for i, (seat, move, points) in enumerate(game.history, 1):
        scores[seat] += points
        if isinstance(move, Placement):
            cells.update(move.tiles)
            what = f"P{seat} places {len(move)} (+{points})"
            highlight = {cell for cell, _ in move.tiles}
        else:
            what = f"P{seat} exchanges {len(move)}"
            highlight = set()
        if i == total and game.over:
            winners = game.winners()
            what += "  game over: " + (
                f"P{winners[0]} wins"
                if len(winners) == 1
                else "shared win " + ",".join(map(str, winners))
            )
        yield dict(cells), highlight, caption(i, what)


def _final_extent(game: Game) -> Extent | None:
    b = game.board.bounds()
    return None if b is None else (b[0], b[2], b[1] - b[0] + 1, b[3] - b[2] + 1)


def save_animation(
    game_or_record: Game | dict[str, Any],
    path: str | os.PathLike,
    fps: float = 2,
    cell_px: int = 24,
) -> None:
    """Replays a game move by move into ``path``: ``.gif`` (Pillow) or ``.html`` (SVG
    frames with a slider and a play button, no external files). Raises ValueError for
    any other extension. The last frame is held four times as long."""
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in (".gif", ".html", ".htm"):
        raise ValueError(
            f"save_animation writes .gif or .html files, not {ext or 'no extension'!r}: {path}"
        )
    if fps <= 0:
        raise ValueError(f"fps must be positive, got {fps}")
    game = _as_game(game_or_record)
    ext_box = _final_extent(game) or (0, 0, 1, 1)
    ms = round(1000 / fps)
    if ext == ".gif":
        _save_gif(game, path, ext_box, ms, cell_px)
    else:
        _save_html(game, path, ext_box, ms, cell_px)


def _save_gif(game: Game, path, ext_box: Extent, ms: int, cell_px: int) -> None:
    f = font(max(10, round(cell_px * 0.5)))
    boards, captions = [], []
    for cells, highlight, cap in frames(game):
        boards.append(raster(cells, cell_px, highlight, ext_box, True))
        captions.append(cap)
    probe = ImageDraw.Draw(boards[0])
    cap_w = max(probe.textlength(c, font=f) for c in captions)
    x0, y0, x1, y1 = probe.textbbox((0, 0), "Mg0", font=f)
    strip = (y1 - y0) + cell_px // 2
    width = max(boards[0].width, round(cap_w) + cell_px // 2)
    images = []
    for board, cap in zip(boards, captions, strict=True):
        im = Image.new("RGB", (width, board.height + strip), TABLE_RGB)
        im.paste(board, ((width - board.width) // 2, strip))
        ImageDraw.Draw(im).text((cell_px // 4, cell_px // 4 - y0), cap, fill=LABEL_RGB, font=f)
        images.append(im)
    # One palette for all frames (the last holds every tile seen): unchanged pixels stay
    # identical between frames, so Pillow writes only what changed.
    reference = images[-1].copy()
    reference.paste(HIGHLIGHT_RGB, (0, 0, cell_px, cell_px))  # in case the last move placed none
    palette = reference.quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    images = [im.quantize(palette=palette, dither=Image.Dither.NONE) for im in images]
    durations = [ms] * (len(images) - 1) + [4 * ms]
    images[0].save(
        path, save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=False
    )


_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
body { font-family: sans-serif; background: #f4f1ea; color: #333; margin: 1em; }
.frame { display: none; } .frame.on { display: block; }
#controls { margin-bottom: .6em; } #slider { width: 22em; vertical-align: middle; }
#caption { font-family: monospace; margin-left: 1em; }
</style></head><body>
<h3>__TITLE__</h3>
<div id="controls"><button id="play">&#9654; play</button>
<input id="slider" type="range" min="0" max="__LAST__" value="0"><span id="caption"></span></div>
__FRAMES__
<script>
const frames = Array.from(document.querySelectorAll(".frame"));
const slider = document.getElementById("slider"), cap = document.getElementById("caption");
const btn = document.getElementById("play");
let cur = 0, timer = null;
function show(k) {
  frames[cur].classList.remove("on"); cur = k; frames[cur].classList.add("on");
  slider.value = cur; cap.textContent = frames[cur].dataset.caption;
}
function stop() { clearInterval(timer); timer = null; btn.innerHTML = "&#9654; play"; }
slider.oninput = () => { stop(); show(+slider.value); };
btn.onclick = () => {
  if (timer) { stop(); return; }
  if (cur === frames.length - 1) show(0);
  btn.innerHTML = "&#10074;&#10074; pause";
  timer = setInterval(() => { if (cur >= frames.length - 1) stop(); else show(cur + 1); }, __MS__);
};
document.onkeydown = (e) => {
  if (e.key === "ArrowRight" && cur < frames.length - 1) { stop(); show(cur + 1); }
  if (e.key === "ArrowLeft" && cur > 0) { stop(); show(cur - 1); }
};
show(0);
</script></body></html>
"""


def _save_html(game: Game, path, ext_box: Extent, ms: int, cell_px: int) -> None:
    parts = [
        f'<div class="frame" data-caption="{html.escape(cap)}">'
        + svg(cells, cell_px, hl, ext_box, True)
        + "</div>"
        for cells, hl, cap in frames(game)
    ]
    title = f"Qwirkle: {game.num_players} players, seed {game.seed}"
    page = (
        _PAGE.replace("__TITLE__", html.escape(title))
        .replace("__LAST__", str(len(parts) - 1))
        .replace("__MS__", str(ms))
        .replace("__FRAMES__", "\n".join(parts))
    )
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(page)
