"""Plots of run records: cumulative success rate, memory growth, maintenance operations,
the demo's and `report`'s figure files, and `save_figure` (the one way figures are
written: deterministic bytes, a width cap).

Not here: comparisons over methods and seeds (comparisons.py), matrices and the utility
surface (matrices.py), hypergraph drawings (drawing.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from hyperskill_lite.plots.common import Records, finish, new_axes
from hyperskill_lite.plots.palette import (
    COLORS,
    OP_COLORS,
    drawing_order,
    method_color,
    method_style,
)
from hyperskill_lite.plots.style import describe_figure, one_line

__all__ = ["cumulative_sr", "plot_cumulative_sr", "plot_memory_growth", "maintenance_totals",
           "plot_maintenance_ops", "demo_figures", "report_figures", "save_figure",
           "figure_metadata", "MAX_FIGURE_PX"]

MAX_POINTS = 5000
"""A line over more episodes than this is drawn through this many of them, evenly spaced
(the first and last kept): a figure is a few hundred pixels wide, and a big run's
hundreds of thousands of points only slow the drawing (studio/table.py reads such runs)."""
MAX_MARKS = 500
"""More maintenance marks than this are drawn as one collection (same look, one artist)."""


def _thinned(n: int) -> np.ndarray:
    """The positions of a line of `n` points that are drawn (all up to `MAX_POINTS`)."""
    if n <= MAX_POINTS:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, MAX_POINTS).round().astype(int))


def cumulative_sr(records: Records) -> np.ndarray:
    """Cumulative success rate (%) after each episode, shape (n,).

    >>> cumulative_sr([{"success": True}, {"success": False}, {"success": True}]).round(1)
    array([100. ,  50. ,  66.7])
    """
    s = np.array([bool(r["success"]) for r in records], dtype=float)
    return 100.0 * np.cumsum(s) / np.arange(1, len(s) + 1)


def plot_cumulative_sr(runs: Mapping[str, Records], ax=None, title: str = ""):
    """One line per method: cumulative SR over episode index (paper Fig. self-evolving).
    Colours and line styles from the palette (`method_style`); HyperSkill is drawn last
    and thickest, so no other line hides it; the legend keeps the order of `runs`."""
    ax = new_axes(ax, (7, 4))
    lines = {}
    for name in drawing_order(runs):
        records = runs[name]
        style = method_style(name)
        keep = _thinned(len(records))
        (lines[name],) = ax.plot(keep + 1, cumulative_sr(records)[keep],
                                 label=name, color=method_color(name), ls=style["ls"],
                                 lw=style["lw"], zorder=style["zorder"])
    finish(ax, "episode", "cumulative SR (%)", title or "Cumulative success rate", legend=False)
    ax.legend([lines[n] for n in runs], list(runs), fontsize=8)
    return ax


def plot_memory_growth(records: Records, ax=None, title: str = ""):
    """Memory size by node type over episodes, with maintenance marked (paper Fig.
    growth). Lines take the node-type colours of the drawings (`COLORS`)."""
    ax = new_axes(ax, (7, 4))
    keep = _thinned(len(records))
    x = keep + 1
    marks = [r["index"] + 1 for r in records if r.get("maintenance")]
    if len(keep) < len(records):
        records = [records[i] for i in keep.tolist()]
    series = [("subtask_nodes", "subtask nodes", "subtask"),
              ("success_skills", "skills", "skill"),
              ("failure_skills", "mistakes", "mistake"),
              ("hyperedges", "hyperedges", "hyperedge")]
    keys = {k for r in records for k in r.get("sizes", {})} - {"incidences"}
    if not keys:  # no memory (or none reported)
        ax.text(0.5, 0.5, "this method keeps no memory", transform=ax.transAxes,
                ha="center", va="center", color="dimgrey")
        return finish(ax, "episode", "count", title or "Memory growth", legend=False)
    if not keys & {k for k, _, _ in series}:  # another memory: each size it reports
        for key in sorted(keys):
            ax.plot(x, [r["sizes"].get(key, 0) for r in records], label=key.replace("_", " "),
                    lw=1.5)
        series = []
    for key, label, role in series:
        ax.plot(x, [r["sizes"].get(key, 0) for r in records], label=label, color=COLORS[role],
                lw=2.0 if role == "subtask" else 1.5)
    if len(marks) > MAX_MARKS:  # one artist for all of them
        ax.vlines(marks, 0, 1, transform=ax.get_xaxis_transform(), color="grey", lw=0.6,
                  ls=":")
    else:
        for m in marks:
            ax.axvline(m, color="grey", lw=0.6, ls=":")
    return finish(ax, "episode", "count", title or "Memory growth (dotted: maintenance)")


def maintenance_totals(records: Records) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative pruned and merged node counts after each episode: two (n,) int arrays.

    >>> recs = [{}, {"maintenance": {"pruned": 2, "merged": 1}}, {},
    ...         {"maintenance": {"pruned": 0, "merged": 3}}]
    >>> [a.tolist() for a in maintenance_totals(recs)]
    [[0, 2, 2, 2], [0, 1, 1, 4]]
    """
    pruned = np.array([(r.get("maintenance") or {}).get("pruned", 0) for r in records], int)
    merged = np.array([(r.get("maintenance") or {}).get("merged", 0) for r in records], int)
    return np.cumsum(pruned), np.cumsum(merged)


def plot_maintenance_ops(runs: Mapping[str, Records], ax=None, title: str = ""):
    """Cumulative maintenance operations over episodes (paper Fig. memory growth, bottom
    row): colour = operation (`OP_COLORS`: pruned, merged), line style = run (solid,
    dashed, dotted, ...). A series that stays at zero throughout is not drawn (it would
    hide under the others); a note in the corner names it."""
    ax = new_axes(ax, (7, 4))
    styles = ["-", "--", ":", "-."]
    silent = []
    for k, (name, records) in enumerate(runs.items()):
        pruned, merged = maintenance_totals(records)
        keep = _thinned(len(records))
        for op, y in (("pruned", pruned), ("merged", merged)):
            if len(y) == 0 or y[-1] == 0:
                silent.append(f"{name}: {op}")
                continue
            ax.step(keep + 1, y[keep], where="post", color=OP_COLORS[op],
                    ls=styles[k % len(styles)], lw=1.6, label=f"{name}: {op}")
    if silent:
        ax.text(0.99, 0.02, "zero throughout (not drawn):\n" + "\n".join(silent),
                transform=ax.transAxes, ha="right", va="bottom", fontsize=7, color="dimgrey")
    ax.set_ylim(bottom=0)
    return finish(ax, "episode", "cumulative operations", title or "Maintenance operations over time",
                   legend=len(silent) < 2 * len(runs))


def demo_figures(runs: Mapping[str, Records], figdir: Path, title: str = "") -> list[Path]:
    """Write demo_cumulative_sr.png and demo_memory_growth.png into `figdir`."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    figdir = Path(figdir)
    jobs = [("demo_cumulative_sr.png", lambda ax: plot_cumulative_sr(
        runs, ax, title=f"{title}: cumulative SR (offline simulation)"))]
    if "hyperskill" in runs:
        jobs.append(("demo_memory_growth.png", lambda ax: plot_memory_growth(
            runs["hyperskill"], ax, title=f"{title}: HyperSkill memory growth")))
    paths = []
    for name, draw in jobs:
        fig, ax = plt.subplots(figsize=(7, 4))
        draw(ax)
        paths.append(figdir / name)
        fig.tight_layout()
        save_figure(fig, paths[-1])
        plt.close(fig)
    return paths


def report_figures(runs: Mapping[str, Records], figdir: Path, title: str = "") -> list[Path]:
    """Figures of finished runs (``python -m hyperskill_lite report``), written into
    `figdir`: cumulative_sr.png (a line per run), memory_growth.png (a panel per run,
    at most three across) and maintenance.png (cumulative pruned and merged). Returns the
    paths written."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    figdir = Path(figdir)
    prefix = f"{title}: " if title else ""
    paths = []
    fig, ax = plt.subplots(figsize=(8, 4.2))
    plot_cumulative_sr(runs, ax, title=f"{prefix}cumulative success rate")
    paths.append(figdir / "cumulative_sr.png")
    fig.tight_layout()
    save_figure(fig, paths[-1])
    plt.close(fig)
    cols = min(3, len(runs))
    rows = -(-len(runs) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.1 * cols, 3.2 * rows), squeeze=False)
    for ax, (name, records) in zip(axes.flat, runs.items()):
        plot_memory_growth(records, ax, title=f"{prefix}{name}")
    for ax in list(axes.flat)[len(runs):]:
        ax.set_visible(False)
    paths.append(figdir / "memory_growth.png")
    fig.tight_layout()
    save_figure(fig, paths[-1])
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(8, 4.2))
    plot_maintenance_ops(runs, ax, title=f"{prefix}maintenance operations over time")
    paths.append(figdir / "maintenance.png")
    fig.tight_layout()
    save_figure(fig, paths[-1])
    plt.close(fig)
    return paths


MAX_FIGURE_PX = 1400
"""Widest PNG `save_figure` writes: wider figures are shrunk to fit a notebook column
or a GitHub page, where their text becomes unreadable."""


def save_figure(fig, path: str | Path, dpi: int = 110, max_px: int = MAX_FIGURE_PX) -> None:
    """Save `fig` as PNG at `path` (parents created), tight, with fixed metadata so that
    re-running a notebook rewrites byte-identical files when the drawing is unchanged: no
    software tag or date, a ``Title`` (the figure's or first panel's title) and a
    ``Description`` (`describe_figure`: what the figure shows, the site's alt text).

    Refuses (ValueError, nothing written) a figure whose saved width would exceed
    `max_px` pixels: draw it narrower (a smaller figsize, more rows) rather than let
    a viewer shrink its text."""
    path = Path(path)
    fig.canvas.draw()
    width_px = fig.get_tightbbox(fig.canvas.get_renderer()).width * dpi
    if width_px > max_px + 0.5:
        raise ValueError(f"save_figure: {path.name} would be {width_px:.0f} px wide at dpi {dpi}, "
                         f"over the {max_px} px cap; use a figure at most "
                         f"{max_px / dpi:.1f} in wide (or more rows)")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, bbox_inches="tight", metadata=figure_metadata(fig))


def figure_metadata(fig) -> dict[str, str | None]:
    """The PNG text chunks `save_figure` writes: no ``Software`` tag (it names the
    matplotlib version), the title and the description of `fig`."""
    head = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) else ""
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    title = one_line(head or (titles[0] if titles else ""))
    meta: dict[str, str | None] = {"Software": None, "Description": describe_figure(fig)}
    if title:
        meta["Title"] = title
    return meta
