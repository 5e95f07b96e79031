"""Pictures of the table: RGB arrays (Pillow) and SVG, drawn from one shape geometry.

The six shapes are defined once, in unit-cell coordinates (``SHAPE_GEOMETRY``); the raster
and the SVG drawings both read them, so a PNG, a GIF frame and the Jupyter view agree.
Tiles are rasterised once per (type, size) at 4x and downsampled, then pasted: a board
image costs one array copy per tile.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..engine.board import Board
from ..engine.tiles import Color, Shape, Tile

Cell = tuple[int, int]
# (row0, col0, size) for a square window, or (row0, col0, height, width).
Window = tuple[int, int, int] | tuple[int, int, int, int]
Extent = tuple[int, int, int, int]  # row0, col0, height, width

COLOR_RGB: dict[Color, tuple[int, int, int]] = {
    Color.RED: (232, 36, 36),
    Color.ORANGE: (255, 138, 0),
    Color.YELLOW: (255, 224, 0),
    Color.GREEN: (40, 196, 64),
    Color.BLUE: (40, 124, 255),
    Color.PURPLE: (176, 72, 236),
}
TILE_RGB = (14, 14, 14)
TABLE_RGB = (216, 210, 198)
GRID_RGB = (190, 183, 170)
HIGHLIGHT_RGB = (255, 255, 255)  # ring inside a tile placed this turn
EMPTY_HIGHLIGHT_RGB = (60, 56, 50)  # ring around a highlighted empty cell
LABEL_RGB = (70, 66, 60)
TARGET_RGB = (40, 160, 120)  # board_svg's ``targets``: cells offered as choices

_SS = 4  # supersampling factor for antialiased sprites
_TILE_INSET, _TILE_RADIUS = 0.04, 0.14
_RING_INSET, _RING_WIDTH = 0.10, 0.045


def _star(points: int, outer: float, inner: float, phase: float) -> tuple:
    return tuple(
        (
            0.5 + (outer if k % 2 == 0 else inner) * math.cos(phase + k * math.pi / points),
            0.5 + (outer if k % 2 == 0 else inner) * math.sin(phase + k * math.pi / points),
        )
        for k in range(2 * points)
    )


# Each shape: ("circle", cx, cy, r) and ("poly", ((x, y), ...)) primitives in a unit cell.
SHAPE_GEOMETRY: dict[Shape, tuple] = {
    Shape.CIRCLE: (("circle", 0.5, 0.5, 0.30),),
    Shape.STAR4: (("poly", _star(4, 0.42, 0.14, math.pi / 4)),),  # criss-cross: an X
    Shape.DIAMOND: (("poly", ((0.5, 0.12), (0.81, 0.5), (0.5, 0.88), (0.19, 0.5))),),
    Shape.SQUARE: (("poly", ((0.23, 0.23), (0.77, 0.23), (0.77, 0.77), (0.23, 0.77))),),
    Shape.CLOVER: tuple(
        ("circle", 0.5 + dx, 0.5 + dy, 0.155)
        for dx, dy in ((0, -0.18), (0.18, 0), (0, 0.18), (-0.18, 0), (0, 0))
    ),
    Shape.STAR8: (("poly", _star(8, 0.42, 0.23, -math.pi / 2)),),
}


# --- shared geometry of a drawing --------------------------------------------------------
def cells_of(board: Board | Mapping[Cell, Tile]) -> dict[Cell, Tile]:
    """Board or plain {cell: Tile} mapping -> dict; hands are not valid boards."""
    return {
        tuple(cell): _tile(t)
        for cell, t in (board.items() if isinstance(board, Mapping) else board)
    }


def _tile(t: Tile | int) -> Tile:
    return t if isinstance(t, Tile) else Tile.from_id(int(t))


def extent(cells: Mapping[Cell, Tile], window: Window | None = None, margin: int = 1) -> Extent:
    """(row0, col0, height, width) to draw: the window, or the tiles' box plus a margin."""
    if window is not None:
        if len(window) == 3:
            r0, c0, h = window
            w = h
        elif len(window) == 4:
            r0, c0, h, w = window
        else:
            raise ValueError(
                f"window must be (row0, col0, size) or (row0, col0, h, w), got {window!r}"
            )
        if h < 1 or w < 1:
            raise ValueError(f"window size must be at least 1, got {window!r}")
        return int(r0), int(c0), int(h), int(w)
    if not cells:
        return -margin, -margin, 2 * margin + 1, 2 * margin + 1
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    r0, c0 = min(rows) - margin, min(cols) - margin
    return r0, c0, max(rows) + margin - r0 + 1, max(cols) + margin - c0 + 1


def font(size: int) -> ImageFont.ImageFont:
    """Pillow's built-in font at ``size`` (bitmap fallback on Pillow < 10.1)."""
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # pragma: no cover - old Pillow
        return ImageFont.load_default()


def _label_size(cell_px: int) -> int:
    return max(9, round(cell_px * 0.4))


# --- raster -------------------------------------------------------------------------------
@lru_cache(maxsize=256)
def _sprite(tile_id: int, cell_px: int, highlight: bool) -> np.ndarray:
    """One cell, table background included; tile_id -1 is an empty cell."""
    big = cell_px * _SS
    im = Image.new("RGB", (big, big), TABLE_RGB)
    d = ImageDraw.Draw(im)
    d.rectangle([0, 0, big - 1, big - 1], outline=GRID_RGB, width=_SS // 2)
    if tile_id < 0:
        if highlight:
            i = _RING_INSET * big
            d.rectangle(
                [i, i, big - i, big - i],
                outline=EMPTY_HIGHLIGHT_RGB,
                width=round(_RING_WIDTH * big),
            )
    else:
        tile = Tile.from_id(tile_id)
        i = _TILE_INSET * big
        d.rounded_rectangle([i, i, big - i, big - i], radius=_TILE_RADIUS * big, fill=TILE_RGB)
        if highlight:
            i = _RING_INSET * big
            d.rounded_rectangle(
                [i, i, big - i, big - i],
                radius=(_TILE_RADIUS - _RING_INSET + _TILE_INSET) * big,
                outline=HIGHLIGHT_RGB,
                width=round(_RING_WIDTH * big),
            )
        rgb = COLOR_RGB[tile.color]
        for prim in SHAPE_GEOMETRY[tile.shape]:
            if prim[0] == "circle":
                _, cx, cy, r = prim
                d.ellipse(
                    [(cx - r) * big, (cy - r) * big, (cx + r) * big, (cy + r) * big], fill=rgb
                )
            else:
                d.polygon([(x * big, y * big) for x, y in prim[1]], fill=rgb)
    small = im.resize((cell_px, cell_px), Image.Resampling.BOX)
    arr = np.asarray(small, dtype=np.uint8)
    arr.setflags(write=False)
    return arr


def raster(
    cells: Mapping[Cell, Tile], cell_px: int, highlight: Iterable[Cell], ext: Extent, labels: bool
) -> Image.Image:
    """The drawing as a Pillow image; labels add row/column numbers in a margin."""
    if cell_px < 4:
        raise ValueError(f"cell_px must be at least 4, got {cell_px}")
    r0, c0, h, w = ext
    hl = {tuple(c) for c in highlight}
    cp = cell_px
    arr = np.tile(_sprite(-1, cp, False), (h, w, 1))
    for r, c in hl - set(cells):
        if 0 <= r - r0 < h and 0 <= c - c0 < w:
            arr[(r - r0) * cp : (r - r0 + 1) * cp, (c - c0) * cp : (c - c0 + 1) * cp] = _sprite(
                -1, cp, True
            )
    for (r, c), t in cells.items():
        i, j = r - r0, c - c0
        if 0 <= i < h and 0 <= j < w:
            arr[i * cp : (i + 1) * cp, j * cp : (j + 1) * cp] = _sprite(t.id, cp, (r, c) in hl)
    board = Image.fromarray(arr)
    if not labels or cp < 16:
        return board
    f = font(_label_size(cp))
    probe = ImageDraw.Draw(board)
    width = max(probe.textlength(str(r), font=f) for r in (r0, r0 + h - 1))
    left, top = math.ceil(width) + cp // 4, _label_size(cp) + cp // 4
    im = Image.new("RGB", (board.width + left + cp // 8, board.height + top + cp // 8), TABLE_RGB)
    im.paste(board, (left, top))
    d = ImageDraw.Draw(im)
    for j in range(w):
        _centred(d, str(c0 + j), left + j * cp + cp / 2, top / 2, f)
    for i in range(h):
        _centred(d, str(r0 + i), left / 2, top + i * cp + cp / 2, f)
    return im


def _centred(d: ImageDraw.ImageDraw, text: str, x: float, y: float, f) -> None:
    x0, y0, x1, y1 = d.textbbox((0, 0), text, font=f)
    d.text((x - (x0 + x1) / 2, y - (y0 + y1) / 2), text, fill=LABEL_RGB, font=f)


def board_image(
    board: Board | Mapping[Cell, Tile],
    cell_px: int = 32,
    highlight: Iterable[Cell] = (),
    window: Window | None = None,
    labels: bool = True,
) -> np.ndarray:
    """uint8 RGB array (H, W, 3) of the board; without labels H, W = rows, cols * cell_px.

    ``window`` picks the cells drawn (default: the tiles' box plus one empty cell around);
    ``highlight`` rings cells, e.g. the tiles placed this turn. Labels need cell_px >= 16.
    """
    cells = cells_of(board)
    return np.asarray(raster(cells, cell_px, highlight, extent(cells, window), labels))


def hand_image(tiles: Iterable[Tile | int], cell_px: int = 32) -> np.ndarray:
    """uint8 RGB array of tiles side by side (a hand); an empty hand is one blank cell."""
    cells = {(0, i): _tile(t) for i, t in enumerate(tiles)}
    return np.asarray(raster(cells, cell_px, (), (0, 0, 1, max(1, len(cells))), False))


# --- SVG ----------------------------------------------------------------------------------
def _rgb(c: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*c)


@lru_cache(maxsize=128)
def _tile_svg(tile_id: int, highlight: bool) -> str:
    """A tile's elements in unit-cell coordinates (placed with translate/scale)."""
    tile = Tile.from_id(tile_id)
    s = 1 - 2 * _TILE_INSET
    out = [
        f'<rect x="{_TILE_INSET}" y="{_TILE_INSET}" width="{s:.3f}" height="{s:.3f}" '
        f'rx="{_TILE_RADIUS}" fill="{_rgb(TILE_RGB)}"/>'
    ]
    if highlight:
        i = _RING_INSET + _RING_WIDTH / 2
        out.append(
            f'<rect x="{i:.4f}" y="{i:.4f}" width="{1 - 2 * i:.4f}" height="{1 - 2 * i:.4f}" '
            f'rx="{_TILE_RADIUS - _RING_INSET:.3f}" fill="none" stroke="{_rgb(HIGHLIGHT_RGB)}" '
            f'stroke-width="{_RING_WIDTH}"/>'
        )
    g = [f'<g fill="{_rgb(COLOR_RGB[tile.color])}">']
    for prim in SHAPE_GEOMETRY[tile.shape]:
        if prim[0] == "circle":
            g.append(f'<circle cx="{prim[1]:.3f}" cy="{prim[2]:.3f}" r="{prim[3]:.3f}"/>')
        else:
            pts = " ".join(f"{x:.3f},{y:.3f}" for x, y in prim[1])
            g.append(f'<polygon points="{pts}"/>')
    return "".join(out + g + ["</g>"])


def svg(
    cells: Mapping[Cell, Tile],
    cell_px: int,
    highlight: Iterable[Cell],
    ext: Extent,
    labels: bool,
    targets: Iterable[Cell] = (),
) -> str:
    """Standalone SVG document of the same drawing as :func:`raster`; ``targets`` as in
    :func:`board_svg`."""
    r0, c0, h, w = ext
    cp = cell_px
    hl = {tuple(c) for c in highlight}
    fs = _label_size(cp)
    labels = labels and cp >= 16
    left = (max(len(str(r0)), len(str(r0 + h - 1))) * 0.6 * fs + cp / 4) if labels else 0
    top = (fs + cp / 4) if labels else 0
    pad = cp / 8 if labels else 0
    width, height = left + w * cp + pad, top + h * cp + pad
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.1f} {height:.1f}">',
        f'<rect width="100%" height="100%" fill="{_rgb(TABLE_RGB)}"/>',
        f'<g stroke="{_rgb(GRID_RGB)}" stroke-width="1">',
    ]
    out += [
        f'<line x1="{left}" y1="{top + i * cp}" x2="{left + w * cp}" y2="{top + i * cp}"/>'
        for i in range(h + 1)
    ]
    out += [
        f'<line x1="{left + j * cp}" y1="{top}" x2="{left + j * cp}" y2="{top + h * cp}"/>'
        for j in range(w + 1)
    ]
    out.append("</g>")
    for (r, c), t in sorted(cells.items()):
        if 0 <= r - r0 < h and 0 <= c - c0 < w:
            x, y = left + (c - c0) * cp, top + (r - r0) * cp
            body = _tile_svg(t.id, (r, c) in hl)
            out.append(f'<g transform="translate({x:.1f},{y:.1f}) scale({cp})">{body}</g>')
    for r, c in sorted(hl - set(cells)):
        if 0 <= r - r0 < h and 0 <= c - c0 < w:
            i = _RING_INSET * cp
            out.append(
                f'<rect x="{left + (c - c0) * cp + i:.1f}" y="{top + (r - r0) * cp + i:.1f}" '
                f'width="{cp - 2 * i:.1f}" height="{cp - 2 * i:.1f}" fill="none" '
                f'stroke="{_rgb(EMPTY_HIGHLIGHT_RGB)}" stroke-width="{_RING_WIDTH * cp:.1f}"/>'
            )
    for r, c in sorted({tuple(t) for t in targets}):
        if 0 <= r - r0 < h and 0 <= c - c0 < w:
            i = _RING_INSET * cp / 2
            out.append(
                f'<rect class="target" data-row="{r}" data-col="{c}" '
                f'x="{left + (c - c0) * cp + i:.1f}" y="{top + (r - r0) * cp + i:.1f}" '
                f'width="{cp - 2 * i:.1f}" height="{cp - 2 * i:.1f}" rx="{cp / 8:.1f}" '
                f'fill="{_rgb(TARGET_RGB)}" fill-opacity="0.45" stroke="{_rgb(TARGET_RGB)}" '
                f'stroke-width="{_RING_WIDTH * cp:.1f}"/>'
            )
    if labels:
        out.append(
            f'<g font-family="sans-serif" font-size="{fs}" fill="{_rgb(LABEL_RGB)}" '
            'text-anchor="middle" dominant-baseline="central">'
        )
        out += [
            f'<text x="{left + j * cp + cp / 2:.1f}" y="{top / 2:.1f}">{c0 + j}</text>'
            for j in range(w)
        ]
        out += [
            f'<text x="{left / 2:.1f}" y="{top + i * cp + cp / 2:.1f}">{r0 + i}</text>'
            for i in range(h)
        ]
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)


def board_svg(
    board: Board | Mapping[Cell, Tile],
    cell_px: int = 32,
    highlight: Iterable[Cell] = (),
    window: Window | None = None,
    labels: bool = True,
    targets: Iterable[Cell] = (),
) -> str:
    """Standalone SVG of :func:`board_image`'s drawing (Jupyter: ``_repr_svg_``).

    ``targets`` marks empty cells as choices (e.g. where a chosen tile may go): each is a
    ``<rect class="target" data-row=R data-col=C>``, so a web page can make them clickable.
    The default extent grows to show them.
    """
    cells = cells_of(board)
    targets = [tuple(t) for t in targets]
    if window is None and targets:
        ext = extent({**dict.fromkeys(targets, None), **cells})
    else:
        ext = extent(cells, window)
    return svg(cells, cell_px, highlight, ext, labels, targets)


def hand_svg(tiles: Iterable[Tile | int], cell_px: int = 32) -> str:
    """SVG of tiles side by side (a hand)."""
    cells = {(0, i): _tile(t) for i, t in enumerate(tiles)}
    return svg(cells, cell_px, (), (0, 0, 1, max(1, len(cells))), False)
