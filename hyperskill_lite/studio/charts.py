"""The studio's run charts, drawn by matplotlib as inline SVG text (no chart script in
the page): the cumulative success rate with its 95% band, memory growth, tokens and
latency per episode, and the utility distribution.

The SR band is the Wilson score interval of the cumulative success rate after each
episode (a binomial interval for the SR so far; our addition). Long runs are thinned to
`MAX_POINTS` points per line (evenly spaced, last included) before drawing, so a chart
stays a few tens of kB whatever the run's length. Colours come from plots/palette.py.
Each SVG is deterministic: a fixed hash salt, no date, text kept as text.

Not here: the figures `report` writes (plots/runs.py).
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from hyperskill_lite.plots.palette import COLORS, method_color

__all__ = ["sr_chart", "growth_chart", "cost_chart", "utility_chart", "wilson_band",
           "MAX_POINTS"]

MAX_POINTS = 800
"""Points per drawn line at most."""
Z95 = 1.959963984540054


def wilson_band(successes: np.ndarray, n: np.ndarray, z: float = Z95
                ) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval (lo, hi) in % of `successes` out of `n` (arrays).

    >>> lo, hi = wilson_band(np.array([5]), np.array([10]))
    >>> round(float(lo[0]), 1), round(float(hi[0]), 1)
    (23.7, 76.3)
    """
    n = np.asarray(n, dtype=float)
    p = np.asarray(successes, dtype=float) / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return 100 * (centre - half), 100 * (centre + half)


def _thin(n: int) -> np.ndarray:
    if n <= MAX_POINTS:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, MAX_POINTS).round().astype(int))


def _svg(fig: Any) -> str:
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": "hyperskill-studio", "svg.fonttype": "none"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]  # the element alone, for inline use


def _axes(w: float = 6.2, h: float = 3.0, right: float = 0.97) -> tuple[Any, Any]:
    """A figure without pyplot (no figure manager: nothing to close, and faster) and
    fixed margins (no tight bounding box: one draw per chart)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(w, h))
    fig.subplots_adjust(left=0.11, right=right, bottom=0.16, top=0.9)
    ax = fig.add_subplot()
    ax.grid(alpha=0.3)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig, ax


def sr_chart(runs: Mapping[str, Sequence[Mapping[str, Any]]], methods: Mapping[str, str]
             ) -> str:
    """Cumulative SR (%) of each run over its episodes with the 95% Wilson band (bands
    only for one or two runs); one colour per method (`methods`: run name -> method)."""
    fig, ax = _axes()
    for name, records in runs.items():
        s = np.cumsum([bool(r.get("success")) for r in records])
        n = np.arange(1, len(records) + 1)
        idx = _thin(len(records))
        lo, hi = wilson_band(s[idx], n[idx])
        color = method_color(methods.get(name, ""))
        if len(runs) <= 2:  # more bands than two hide each other
            ax.fill_between(n[idx], lo, hi, color=color, alpha=0.15, lw=0)
        ax.plot(n[idx], 100 * s[idx] / n[idx], color=color, lw=1.8, label=name)
    ax.set_xlabel("episode")
    ax.set_ylabel("cumulative SR (%)")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title("Success rate so far" + (" (band: 95% Wilson interval)" if len(runs) <= 2
                                          else ""), fontsize=9)
    return _svg(fig)


def growth_chart(records: Sequence[Mapping[str, Any]]) -> str:
    """Memory sizes over episodes by kind, maintenance cycles as dotted lines."""
    fig, ax = _axes()
    idx = _thin(len(records))
    x = idx + 1
    keys = sorted({k for r in records for k in (r.get("sizes") or {})} - {"incidences"})
    series = [("subtask_nodes", "subtask nodes", COLORS["subtask"]),
              ("success_skills", "skills", COLORS["skill"]),
              ("failure_skills", "mistakes", COLORS["mistake"]),
              ("hyperedges", "hyperedges", COLORS["hyperedge"])]
    if not keys:
        ax.text(0.5, 0.5, "this method keeps no memory", ha="center", va="center",
                transform=ax.transAxes, color="dimgrey")
    elif not set(keys) & {k for k, _, _ in series}:
        series = [(k, k.replace("_", " "), None) for k in keys]
    for key, label, color in series:
        if key in keys:
            y = [(records[i].get("sizes") or {}).get(key, 0) for i in idx.tolist()]
            ax.plot(x, y, label=label, color=color, lw=1.5)
    cycles = [r["index"] + 1 for r in records if r.get("maintenance")]
    for c in cycles[:: max(1, math.ceil(len(cycles) / 60))]:
        ax.axvline(c, color="grey", lw=0.5, ls=":")
    ax.set_xlabel("episode")
    ax.set_ylabel("count")
    if keys:
        ax.legend(fontsize=7, loc="upper left")
    ax.set_title("Memory growth (dotted: maintenance)", fontsize=9)
    return _svg(fig)


def cost_chart(records: Sequence[Mapping[str, Any]]) -> str:
    """Tokens per episode (agent and memory model) and latency per episode (s), each as
    a running mean over a window of a tenth of the run."""
    fig, ax = _axes(right=0.88)
    n = len(records)
    w = max(1, n // 10)
    kernel = np.ones(w) / w
    idx = _thin(n)

    def smooth(key: str) -> np.ndarray:
        v = np.array([float(r.get(key, 0) or 0) for r in records])
        return np.convolve(v, kernel, mode="full")[:n] / np.minimum(np.arange(1, n + 1) / w, 1)

    tokens = smooth("tokens") + smooth("memory_tokens")
    ax.plot(idx + 1, tokens[idx], color="#444444", lw=1.5, label="tokens / episode")
    ax.set_xlabel("episode")
    ax.set_ylabel("tokens")
    ax2 = ax.twinx()
    ax2.plot(idx + 1, smooth("seconds")[idx], color="#d95f02", lw=1.2, ls="--",
             label="seconds / episode")
    ax2.set_ylabel("seconds")
    lines = ax.get_lines() + ax2.get_lines()
    ax.legend(lines, [ln.get_label() for ln in lines], fontsize=7, loc="upper left")
    ax.set_title(f"Tokens and latency (running mean over {w} episodes)", fontsize=9)
    return _svg(fig)


def utility_chart(hist: Mapping[str, Sequence[int]]) -> str:
    """The gamma (Eq. 3) histogram of the final memory's nodes by kind (20 bins)."""
    fig, ax = _axes(6.2, 2.6)
    edges = np.linspace(0, 1, 21)
    centres, width = (edges[:-1] + edges[1:]) / 2, 0.05
    kinds = [k for k in ("skill", "mistake", "subtask") if sum(hist.get(k, []))]
    for i, k in enumerate(kinds):
        ax.bar(centres - width / 2 + (i + 0.5) * width / len(kinds), hist[k],
               width=width / max(len(kinds), 1), color=COLORS[k], label=k + "s")
    ax.set_xlabel("gamma (Eq. 3)")
    ax.set_ylabel("nodes")
    ax.set_xlim(0, 1)
    if kinds:
        ax.legend(fontsize=7)
    ax.set_title("Utility distribution of the final memory", fontsize=9)
    return _svg(fig)
