"""Labels for scatter plots and hypergraph drawings: their text (cut so that no two read
alike, wrapped onto two lines) and their placement without overlaps."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np

__all__ = ["place_labels", "short_labels", "wrap_label"]


def place_labels(
    ax, xs, ys, labels: Sequence[str], radii_pt: Sequence[float] | float = 3.0,
    fontsize: float = 8, pad_px: float = 2.0,
    avoid: Sequence[tuple[float, float, float]] = (), **text_kw: Any,
):
    """Annotate point i with labels[i] without overlaps. A point is a disc of radius
    radii_pt[i] (points; a scatter marker of size s has radius sqrt(s / pi)). Each label
    tries sixteen directions around its disc at growing distances and takes the first
    spot whose box, measured by the renderer, stays inside the axes and overlaps no label
    placed before it, no disc and no disc of `avoid` ((x, y, radius in points) in data
    coordinates: markers that carry no label here but must stay readable); labels placed
    away from their disc get a thin leader line. When no spot is free the one with the
    fewest overlaps is used; a spot without a leader line about as near another
    point as its own (within 8 px) counts half an overlap, so a label is not read as its neighbour's. Points are labelled from the most crowded outwards. Empty
    labels are skipped (None in their slot). `text_kw` goes to every annotation (e.g.
    colour). Returns the Annotations, in label order."""
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    n = len(labels)
    pts = ax.transData.transform(np.column_stack([xs, ys]).astype(float).reshape(-1, 2))
    r_pt = np.broadcast_to(np.asarray(radii_pt, dtype=float), (n,))
    r_px = r_pt * fig.dpi / 72.0
    discs = [(p[0] - r, p[1] - r, p[0] + r, p[1] + r) for p, r in zip(pts, r_px)]
    for x, y, r in avoid:
        (px, py), rp = ax.transData.transform((x, y)), r * fig.dpi / 72.0
        discs.append((px - rp, py - rp, px + rp, py + rp))
    inside = ax.get_window_extent(renderer)
    centres = np.array([((d[0] + d[2]) / 2, (d[1] + d[3]) / 2) for d in discs])
    dist = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=-1)
    crowd = (dist < 60.0).sum(axis=1)
    placed: list[Any] = []
    out: dict[int, Any] = {}
    for i in sorted(range(n), key=lambda j: (-crowd[j], pts[j, 0])):
        if not labels[i]:
            continue
        annotate = partial(ax.annotate, labels[i], (xs[i], ys[i]), textcoords="offset points",
                           fontsize=fontsize, **text_kw)  # takes xytext, ha, va
        gap, t, box = _best_spot(annotate, renderer, i, float(r_pt[i]), discs, centres, placed,
                                 inside, pad_px)
        if gap >= 18.0:
            t.arrow_patch = None
            t.remove()
            t = annotate(xytext=t.xyann, ha=t.get_ha(), va=t.get_va(),
                         arrowprops={"arrowstyle": "-", "lw": 0.5, "color": "grey",
                                     "shrinkA": 0, "shrinkB": r_pt[i]})
        placed.append(box)
        out[i] = t
    return [out.get(i) for i in range(n)]


# The sixteen directions a label tries around its disc, in order, and the gaps (points).
_DIRS = [(float(np.cos(t)), float(np.sin(t))) for t in np.deg2rad(
    [0, 180, 90, 270, 45, 135, 315, 225, 22.5, 157.5, 67.5, 112.5, 337.5, 202.5, 292.5, 247.5])]
_GAPS = (3.0, 9.0, 18.0, 30.0, 45.0, 65.0, 90.0, 120.0)


def _best_spot(annotate, renderer, i: int, r_pt: float, discs: list, centres: np.ndarray,
               placed: list, inside: Any, pad_px: float) -> tuple[float, Any, Any]:
    """`place_labels`' search for label i: the first free spot or else the one with the
    fewest overlaps, as (gap, annotation, padded box); every other try is removed."""
    best = None  # (overlaps, gap, text, box)
    for gap in _GAPS:
        for dx, dy in _DIRS:
            off = (dx * (r_pt + gap), dy * (r_pt + gap))
            ha = "left" if dx > 0.3 else "right" if dx < -0.3 else "center"
            va = "bottom" if dy > 0.3 else "top" if dy < -0.3 else "center"
            t = annotate(xytext=off, ha=ha, va=va)
            box = t.get_window_extent(renderer).padded(pad_px)
            bad = (sum(box.overlaps(b) for b in placed)
                   + sum(_hits(box.padded(3.0), d) for j, d in enumerate(discs) if j != i)
                   + 10 * (box.x0 < inside.x0 or box.x1 > inside.x1
                           or box.y0 < inside.y0 or box.y1 > inside.y1)
                   + 0.5 * (gap < 18.0 and _ambiguous(box, i, centres)))  # no leader line: read as a neighbour's
            if best is None or bad < best[0]:
                if best is not None:
                    best[2].remove()
                best = (bad, gap, t, box)
            else:
                t.remove()
            if bad == 0:
                break
        if best is not None and best[0] == 0:
            break
    _, gap, t, box = best  # type: ignore[misc]
    return gap, t, box


def _ambiguous(box, i: int, centres: np.ndarray) -> bool:
    """Another point is about as close to the label box as point i (within 8 px)."""
    dx = np.maximum(np.maximum(box.x0 - centres[:, 0], centres[:, 0] - box.x1), 0.0)
    dy = np.maximum(np.maximum(box.y0 - centres[:, 1], centres[:, 1] - box.y1), 0.0)
    d = np.hypot(dx, dy)
    own = d[i]
    d[i] = np.inf
    return bool(d.min() < own + 8.0)


def _hits(box, rect) -> bool:
    """The box overlaps the rectangle (x0, y0, x1, y1)."""
    return box.x0 < rect[2] and box.x1 > rect[0] and box.y0 < rect[3] and box.y1 > rect[1]


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def short_labels(texts: Sequence[str], width: int, ids: Sequence[str] | None = None) -> list[str]:
    """Each text cut to `width` characters (ending in "…"), so that no two labels read
    alike: texts whose cut labels would be equal are cut later, where they differ; texts
    equal in full get their id appended (when `ids` are given).

    >>> short_labels(["Query Specialised Data Sources", "Query Specialised Data Sites",
    ...               "Short"], 20)
    ['Query Specialised Data So…', 'Query Specialised Data Si…', 'Short']
    >>> short_labels(["Same Name", "Same Name"], 20, ids=["s1", "s7"])
    ['Same Name (s1)', 'Same Name (s7)']
    """
    out = [_short(t, width) for t in texts]
    groups: dict[str, list[int]] = {}
    for i, label in enumerate(out):
        groups.setdefault(label, []).append(i)
    for members in groups.values():
        if len(members) < 2:
            continue
        full = [texts[i] for i in members]
        longest = max(len(t) for t in full)
        w = width
        while w < longest and len({_short(t, w) for t in full}) < len(set(full)):
            w += 1
        for i in members:
            out[i] = _short(texts[i], w)
        if len(set(full)) < len(full) and ids is not None:  # equal in full: say which
            for i in members:
                if sum(texts[j] == texts[i] for j in members) > 1:
                    out[i] = f"{out[i]} ({ids[i]})"
    return out


def wrap_label(text: str, width: int) -> str:
    """`text` on at most two lines of about `width` characters, broken at spaces (a
    word longer than `width` stays whole).

    >>> wrap_label("Query Specialised Data Sources Ahead", 18)
    'Query Specialised\\nData Sources Ahead'
    >>> wrap_label("Short", 18)
    'Short'
    """
    import textwrap

    lines = textwrap.wrap(text, width, break_long_words=False) or [text]
    if len(lines) <= 2:
        return "\n".join(lines)
    half = len(text) // 2
    cut = min((i for i, ch in enumerate(text) if ch == " "), key=lambda i: abs(i - half),
              default=None)
    return text if cut is None else text[:cut] + "\n" + text[cut + 1:]
