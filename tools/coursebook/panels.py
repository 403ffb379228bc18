"""Where a figure's panels are, so that a phone can show them one under another.

A notebook figure of several plots side by side (``plt.subplots(1, 3)``: 1,249 px wide in
notebook 07) shrinks to a phone's 358 px column and its labels cannot be read. The site
shows such a figure panel by panel on a narrow screen (docs/_static/course.js): each panel
as wide as the column, the figure's own title and legend above and below, reflowed. The
pieces are cut from the figure's PNG itself, so this holds for every figure, present and
future, whatever code drew it; `figure_pieces` finds them:

1. the plots: an axes frame is a dark horizontal line at least `MIN_FRAME` px long (the
   top or bottom spine); two or more frames side by side make columns of panels;
2. the cuts: between two neighbouring columns, the widest run of blank pixel columns
   (the gutter) over the rows of the frames; a cut never crosses ink there;
3. the panel rows: the band of rows that holds the frames, grown by each band of ink
   above and below that is blank at every cut and at most `MAX_GAP` px away (the panels'
   titles, tick labels, axis labels);
4. what spans the panels (the figure's title, a legend for all of them) stays whole, split
   only at wide blank runs into segments that can reflow (a legend's entries).

A figure with one plot, a drawing without axes (a hypergraph) or anything this cannot
cut cleanly gives no pieces; the site then offers it zoomable instead (course.js). Ours:
the paper has no course site.

Not here: showing the pieces (course.js, course.css), alt text (alt.py).
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass

import numpy as np

__all__ = ["Piece", "figure_pieces", "pieces_json", "png_size", "MIN_FRAME", "MAX_GAP", "SEGMENT_GAP"]

MIN_FRAME = 60
"""Shortest spine (px) that counts as an axes frame (a colour bar's is shorter)."""
MAX_GAP = 16
"""Largest blank gap (px, about 11 pt at 100 dpi) between a panel's frame band and its
own title or axis label; a legend further away belongs to the whole figure."""
SEGMENT_GAP = 16
"""Blank run (px) that separates two segments of a spanning strip (a legend's entries
are about 22 px apart at 8 pt; the marker and its label, and two words, much closer)."""
HANDLE = 32
"""A segment at most this wide (px) is a legend's marker or line sample: it joins the label
after it."""
INK = 40
"""A pixel differs from the background by more than this (0-255) in some channel."""
DARK = 110
"""A spine pixel: every channel below this."""
PAD = 4


@dataclass(frozen=True)
class Piece:
    """One piece of a figure: its box in the PNG's pixels and the row it is shown in
    (the pieces of one row, the segments of a title or legend, reflow side by side)."""

    x: int
    y: int
    w: int
    h: int
    row: int
    panel: bool


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) of each run of True in a 1-d array.

    >>> _runs(np.array([0, 1, 1, 0, 1], dtype=bool))
    [(1, 3), (4, 5)]
    """
    m = np.concatenate([[0], mask.astype(np.int8), [0]])
    d = np.diff(m)
    return [(int(a), int(b)) for a, b in zip(np.flatnonzero(d == 1), np.flatnonzero(d == -1))]


def _pixels(png: bytes) -> np.ndarray | None:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(png)) as im:
            return np.asarray(im.convert("RGB"), dtype=np.int16)
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        return None


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) of a PNG in pixels, (0, 0) when it is not one.

    >>> png_size(b"not a png")
    (0, 0)
    """
    px = _pixels(png)
    return (0, 0) if px is None else (px.shape[1], px.shape[0])


def _frames(dark: np.ndarray, rows: tuple[int, int]) -> list[tuple[int, int]]:
    """The x-extents of the axes frames in `rows`: dark horizontal runs of at least
    `MIN_FRAME` px, merged when they overlap (a top and a bottom spine)."""
    spans: list[tuple[int, int]] = []
    for y in range(*rows):
        spans += [(a, b) for a, b in _runs(dark[y]) if b - a >= MIN_FRAME]
    merged: list[list[int]] = []
    for a, b in sorted(spans):
        if merged and a < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return [(a, b) for a, b in merged]


def _cuts(ink: np.ndarray, rows: tuple[int, int], frames: list[tuple[int, int]]) -> list[int] | None:
    """One cut column between each pair of neighbouring frames: the middle of the widest
    blank run there over `rows`; None when some pair has no blank column between them."""
    blank = ~ink[rows[0]:rows[1]].any(axis=0)
    cuts = []
    for (_, right), (left, _) in zip(frames, frames[1:]):
        gaps = _runs(blank[right:left])
        if not gaps:
            return None
        a, b = max(gaps, key=lambda g: g[1] - g[0])
        cuts.append(right + (a + b) // 2)
    return cuts


def _box(ink: np.ndarray, x0: int, x1: int, y0: int, y1: int) -> tuple[int, int, int, int] | None:
    """The box (x, y, w, h) around the ink of a region, padded, or None when it is blank."""
    region = ink[y0:y1, x0:x1]
    ys, xs = np.flatnonzero(region.any(axis=1)), np.flatnonzero(region.any(axis=0))
    if not len(ys):
        return None
    h, w = ink.shape
    a, b = max(0, x0 + xs[0] - PAD), min(w, x0 + xs[-1] + 1 + PAD)
    c, d = max(0, y0 + ys[0] - PAD), min(h, y0 + ys[-1] + 1 + PAD)
    return int(a), int(c), int(b - a), int(d - c)


def figure_pieces(png: bytes) -> list[Piece]:
    """The pieces of a figure of several panels side by side, in reading order (module
    docstring), or [] when it is not one.

    >>> figure_pieces(b"not a png")
    []
    """
    px = _pixels(png)
    if px is None or px.shape[0] < 40 or px.shape[1] < 2 * MIN_FRAME:
        return []
    border = np.concatenate([px[0], px[-1], px[:, 0], px[:, -1]])
    colours, counts = np.unique(border, axis=0, return_counts=True)
    background = colours[counts.argmax()]
    ink = np.abs(px - background).max(axis=2) > INK
    dark = px.max(axis=2) < DARK
    bands = _runs(ink.any(axis=1))
    framed = [i for i, rows in enumerate(bands) if len(_frames(dark, rows)) >= 2]
    if len(framed) != 1:  # one row of panels (a grid, or a single plot: not cut)
        return []
    core = framed[0]
    frames = _frames(dark, bands[core])
    cuts = _cuts(ink, bands[core], frames)
    if cuts is None:
        return []

    def local(i: int, neighbour: int) -> bool:
        """Band i belongs to the panels: close to its neighbour and blank at every cut."""
        (a, b), (c, d) = bands[i], bands[neighbour]
        gap = c - b if i < neighbour else a - d
        return gap <= MAX_GAP and not ink[a:b, cuts].any()

    first = last = core
    while first > 0 and local(first - 1, first):
        first -= 1
    while last + 1 < len(bands) and local(last + 1, last):
        last += 1
    top, bottom = bands[first][0], bands[last][1]
    width = ink.shape[1]
    pieces: list[Piece] = []
    row = 0

    def strip(rows: tuple[int, int]) -> None:
        """A band that spans the panels, as its segments in one row."""
        nonlocal row
        blank = ~ink[rows[0]:rows[1]].any(axis=0)
        inked = _runs(~blank)
        segments: list[list[int]] = []
        for a, b in inked:
            if segments and a - segments[-1][1] < SEGMENT_GAP:
                segments[-1][1] = b
            else:
                segments.append([a, b])
        joined: list[list[int]] = []  # a legend's marker stays with its label
        for seg in segments:
            if joined and joined[-1][1] - joined[-1][0] <= HANDLE \
                    and seg[0] - joined[-1][1] < 2 * SEGMENT_GAP:
                joined[-1][1] = seg[1]
            else:
                joined.append(seg)
        segments = joined
        for a, b in segments:
            box = _box(ink, a, b, *rows)
            if box:
                pieces.append(Piece(*box, row=row, panel=False))
        row += 1

    for rows in bands[:first]:
        strip(rows)
    edges = [0, *cuts, width]
    for x0, x1 in zip(edges, edges[1:]):
        box = _box(ink, x0, x1, top, bottom)
        if box is None:
            return []
        pieces.append(Piece(*box, row=row, panel=True))
        row += 1
    for rows in bands[last + 1:]:
        strip(rows)
    return pieces


def pieces_json(pieces: list[Piece]) -> str:
    """The pieces as the site's script reads them: ``[[x, y, w, h, row, panel], ...]``.

    >>> pieces_json([Piece(0, 1, 2, 3, 0, True)])
    '[[0,1,2,3,0,1]]'
    """
    return json.dumps([[p.x, p.y, p.w, p.h, p.row, int(p.panel)] for p in pieces],
                      separators=(",", ":"))
