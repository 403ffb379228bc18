"""Plots that compare methods or settings over seeds: sweeps with their spread, SR per
method (bars, or dots with intervals for many close methods), paired differences, and
the paper's cost figure (SR against tokens per task, and latency).

Not here: single runs (runs.py), matrices (matrices.py), drawings (drawing.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hyperskill_lite.plots.common import finish, new_axes
from hyperskill_lite.plots.labels import place_labels
from hyperskill_lite.plots.palette import method_color, method_style
from hyperskill_lite.plots.style import COLUMN_IN

__all__ = ["mean_spread", "plot_sweep", "plot_method_bars", "plot_method_dots", "BUBBLE_AREA",
           "bubble_areas",
           "plot_paired_differences", "plot_cost_bubbles", "plot_cost"]


def mean_spread(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean, sample std (0 with one seed), min and max over the last axis (seeds).

    >>> [a.tolist() for a in mean_spread(np.array([[40.0, 50.0], [60.0, 60.0]]))]
    [[45.0, 60.0], [7.0710678118654755, 0.0], [40.0, 60.0], [50.0, 60.0]]
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 2 or v.shape[1] == 0:
        raise ValueError(f"mean_spread: values must be (n_settings, n_seeds), got {v.shape}")
    std = v.std(axis=1, ddof=1) if v.shape[1] > 1 else np.zeros(v.shape[0])
    return v.mean(axis=1), std, v.min(axis=1), v.max(axis=1)


def plot_sweep(
    x: Sequence[float],
    values: np.ndarray,
    ax=None,
    label: str = "",
    xlabel: str = "",
    ylabel: str = "SR (%)",
    title: str = "",
):
    """Mean over seeds (line) with the min-max band shaded and each seed as a dot.
    values: (len(x), n_seeds)."""
    v = np.asarray(values, dtype=float)
    xs = np.asarray(x, dtype=float)
    mean, _, lo, hi = mean_spread(v)
    ax = new_axes(ax, (5, 3.5))
    line = ax.plot(xs, mean, marker="o", lw=2, label=label or None)[0]
    ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.15)
    for j in range(v.shape[1]):
        ax.scatter(xs, v[:, j], color=line.get_color(), s=10, alpha=0.6)
    ax.set_xticks(xs)
    return finish(ax, xlabel, ylabel, title, legend=bool(label))


def plot_method_bars(
    names: Sequence[str], values: np.ndarray, ax=None, ylabel: str = "SR (%)",
    title: str = "", highlight: str = "hyperskill", colors: Sequence[str] | None = None,
):
    """One bar per method: mean over seeds, error bar min-max, seeds as dots.
    values: (len(names), n_seeds). Bars take `colors`, else `method_color` of each
    name (HyperSkill's ablations also their hatch); the `highlight` method has a thick
    edge. Bars start at zero; for many methods whose SRs lie close together use
    `plot_method_dots`, which zooms to the data."""
    v = np.asarray(values, dtype=float)
    mean, _, lo, hi = mean_spread(v)
    ax = new_axes(ax, (max(5, 0.6 * len(names) + 2), 3.8))
    x = np.arange(len(names))
    bars = ax.bar(x, mean,
                  color=list(colors) if colors is not None else [method_color(n) for n in names],
                  edgecolor="black", lw=[2.0 if n == highlight else 0.5 for n in names])
    for bar, n in zip(bars, names):  # the ablations of HyperSkill: hatched, its family's hue
        if method_style(n)["hatch"]:
            bar.set_hatch(method_style(n)["hatch"])
    ax.errorbar(x, mean, yerr=[mean - lo, hi - mean], fmt="none", ecolor="black", capsize=3)
    for j in range(v.shape[1]):
        ax.scatter(x, v[:, j], color="black", s=8, zorder=3)
    ax.set_xticks(x, names, rotation=40, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    if title:
        ax.set_title(title)
    return ax


def plot_method_dots(
    names: Sequence[str], values: np.ndarray, ax=None, xlabel: str = "SR (%)",
    title: str = "", reference: str | None = "no-memory", highlight: str = "hyperskill",
):
    """One row per method, in the given order: the mean over seeds as a dot in the
    method's colour, the min-max over seeds as a line, each seed as a small black dot,
    and a dashed line at the `reference` method's mean. The axis spans the data (a dot
    needs no zero baseline, unlike a bar), so methods a few points apart stay apart.
    values: (len(names), n_seeds)."""
    v = np.asarray(values, dtype=float)
    if v.ndim != 2 or v.shape[0] != len(names):
        raise ValueError(f"plot_method_dots: values must be (len(names)={len(names)}, "
                         f"n_seeds), got {v.shape}")
    mean, _, lo, hi = mean_spread(v)
    ax = new_axes(ax, (6.5, 0.32 * len(names) + 1.4))
    y = np.arange(len(names))[::-1]
    ax.hlines(y, lo, hi, color="dimgrey", lw=1.2, zorder=1)
    for j in range(v.shape[1]):
        ax.scatter(v[:, j], y, color="black", s=9, zorder=3,
                   label="one seed" if j == 0 else None)
    for yi, m, n in zip(y, mean, names):
        hl = n == highlight
        ax.scatter([m], [yi], s=90 if hl else 55, color=method_color(n), zorder=4,
                   edgecolors="black", linewidths=1.6 if hl else 0.5)
    if reference in names:
        ref = mean[list(names).index(reference)]
        ax.axvline(ref, color="dimgrey", ls="--", lw=1, zorder=0,
                   label=f"{reference} (mean)")
    ax.scatter([], [], s=55, color="lightgrey", edgecolors="black", linewidths=0.5,
               label="mean over seeds (line: min-max)")
    ax.set_yticks(y, names, fontsize=8)
    for tick, n in zip(ax.get_yticklabels(), names):
        if n == highlight:
            tick.set_fontweight("bold")
    pad = 0.06 * (np.ptp(v) or 1.0)
    ax.set_xlim(v.min() - pad, v.max() + pad)
    ax.set_ylim(-0.7, len(names) - 0.3)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.08 - 1.0 / len(names)),
              ncol=3, frameon=False)
    if title:
        ax.set_title(title)
    return ax


def plot_paired_differences(
    labels: Sequence[str], diffs: np.ndarray, ax=None, xlabel: str = "SR difference (points)",
    title: str = "", colors: Sequence[str] | None = None,
):
    """Paired differences, one row per setting: each seed's difference as a dot, the
    mean as a bar, the min-max range as a line, and a zero line, so a reader sees at
    once whether every seed agrees on the sign. diffs: (len(labels), n_seeds), e.g.
    full model minus ablation on the same tasks and draws. Row colours: `colors`, else
    `method_color` of each label."""
    d = np.asarray(diffs, dtype=float)
    if d.ndim != 2 or d.shape[0] != len(labels):
        raise ValueError(f"plot_paired_differences: diffs must be (len(labels)={len(labels)}, "
                         f"n_seeds), got {d.shape}")
    mean, _, lo, hi = mean_spread(d)
    ax = new_axes(ax, (6, 0.5 * len(labels) + 1.5))
    y = np.arange(len(labels))[::-1]
    cols = list(colors) if colors is not None else [method_color(n) for n in labels]
    ax.barh(y, mean, color=cols, alpha=0.45, height=0.55, label="mean over seeds")
    ax.hlines(y, lo, hi, color="black", lw=1)
    for j in range(d.shape[1]):
        ax.scatter(d[:, j], y, color="black", s=14, zorder=3, label="one seed" if j == 0 else None)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
    if title:
        ax.set_title(title)
    return ax


BUBBLE_AREA = (40.0, 700.0)
"""Smallest and largest bubble area (points^2) of `plot_cost_bubbles`."""


def bubble_areas(ratio: np.ndarray, areas: tuple[float, float] = BUBBLE_AREA) -> np.ndarray:
    """Bubble areas for performance-to-token ratios: linear from the smallest ratio (the
    smallest area) to the largest (the largest area); all equal ratios get the middle.

    >>> bubble_areas(np.array([1.0, 1.5, 2.0]), (40.0, 440.0)).tolist()
    [40.0, 240.0, 440.0]
    """
    r = np.asarray(ratio, dtype=float)
    lo, hi = areas
    span = np.ptp(r)
    if span == 0:
        return np.full(r.shape, (lo + hi) / 2)
    return lo + (hi - lo) * (r - r.min()) / span


def plot_cost_bubbles(
    names: Sequence[str], sr: Sequence[float], tokens: Sequence[float], ax=None,
    title: str = "", highlight: str = "hyperskill", fontsize: float = 9,
):
    """The paper's cost figure (§4, "Performance vs. average tokens per task"): one
    bubble per method at (tokens per task in thousands, SR), colour `method_color`,
    labels placed without overlap (leader lines where a label had to move away), the
    `highlight` method with a black edge and a bold label.

    Bubble area encodes the performance-to-token ratio SR / tokens, as in the paper, but
    scaled from the smallest to the largest ratio present (`bubble_areas`), not in
    proportion to it: the ratios of methods that spend similar tokens differ by a few
    per cent, and areas proportional to them would all look the same (this differs from
    the paper's figure, which is what makes the encoding visible). The legend gives the
    ratio of the smallest, middle and largest bubble: beside the axes in a wide figure,
    below them in one drawn for the site's column (`COLUMN_IN`). Labels are `fontsize`
    points."""
    sr_a, tok = np.asarray(sr, dtype=float), np.asarray(tokens, dtype=float)
    if len(names) != len(sr_a) or len(sr_a) != len(tok):
        raise ValueError(f"plot_cost_bubbles: {len(names)} names, {len(sr_a)} SRs and "
                         f"{len(tok)} token counts; give one of each per method")
    if (tok <= 0).any():
        raise ValueError("plot_cost_bubbles: tokens per task must be > 0 (the bubble is SR / tokens)")
    ax = new_axes(ax, (9, 5))
    ratio = sr_a / (tok / 1000.0)  # SR points per thousand tokens
    sizes = bubble_areas(ratio)
    order = sorted(range(len(names)), key=lambda i: (names[i] == highlight, -sizes[i]))
    for i in order:  # big bubbles first, the highlighted method on top
        hl = names[i] == highlight
        ax.scatter(tok[i] / 1000.0, sr_a[i], s=sizes[i], color=method_color(names[i]),
                   alpha=0.8, edgecolors="black" if hl else "white",
                   linewidths=1.8 if hl else 0.6, zorder=4 if hl else 3)
    xpad = 0.06 * (np.ptp(tok) / 1000.0 or 1.0)
    ax.set_xlim(tok.min() / 1000.0 - xpad, tok.max() / 1000.0 + xpad)
    ypad = 0.1 * (np.ptp(sr_a) or 1.0)
    ax.set_ylim(sr_a.min() - ypad, sr_a.max() + ypad)
    texts = place_labels(ax, tok / 1000.0, sr_a, list(names), radii_pt=np.sqrt(sizes / np.pi),
                         fontsize=fontsize)
    for t, n in zip(texts, names):
        if t is not None and n == highlight:
            t.set_fontweight("bold")
    shown = sorted({ratio.min(), float(np.median(ratio)), ratio.max()})
    for r in shown:
        ax.scatter([], [], s=float(bubble_areas(np.array([ratio.min(), r, ratio.max()]))[1]),
                   color="lightgrey", edgecolors="grey", label=f"{r:.2f}")
    if ax.figure.get_size_inches()[0] > 1.4 * COLUMN_IN:
        ax.legend(fontsize=fontsize, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  labelspacing=1.6, borderpad=0.8, frameon=False, title_fontsize=fontsize,
                  title="bubble area:\nSR points per\n1K tokens\n(min-max scaled)")
    else:
        ax.legend(fontsize=fontsize, loc="upper center", bbox_to_anchor=(0.5, -0.16),
                  ncol=len(shown), frameon=False, title_fontsize=fontsize,
                  title="bubble area: SR points per 1K tokens (min-max scaled)")
    ax.set_xlabel("tokens per task (K): agent + memory model")
    ax.set_ylabel("SR (%)")
    ax.grid(alpha=0.3)
    if title:
        ax.set_title(title)
    return ax


def plot_cost(
    names: Sequence[str], sr: Sequence[float], tokens: Sequence[float],
    latency_ms: Sequence[float], title: str = "", highlight: str = "hyperskill",
):
    """The cost figure as one matplotlib Figure: the SR-vs-tokens bubble chart across the
    whole width (`plot_cost_bubbles`), and below it the wall-clock latency per task, one
    bar per method, sorted. Returns the figure."""
    import matplotlib.pyplot as plt

    lat = np.asarray(latency_ms, dtype=float)
    if len(lat) != len(names):
        raise ValueError(f"plot_cost: {len(names)} names and {len(lat)} latencies")
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(11.5, 9.5),
                                      gridspec_kw={"height_ratios": [1.45, 1]})
    plot_cost_bubbles(names, sr, tokens, ax=top, title=title, highlight=highlight)
    order = np.argsort(lat)
    y = np.arange(len(order))
    bottom.barh(y, lat[order], color=[method_color(names[i]) for i in order], height=0.7)
    bottom.set_yticks(y, [names[i] for i in order], fontsize=7.5)
    for tick in bottom.get_yticklabels():
        if tick.get_text() == highlight:
            tick.set_fontweight("bold")
    bottom.set_xlabel("wall-clock ms per task (agent simulator + memory; this machine)")
    bottom.set_title("latency per task")
    bottom.grid(axis="x", alpha=0.3)
    return fig
