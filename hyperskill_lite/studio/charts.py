"""The studio's run charts as data, drawn in the page by its own script as inline SVG
(``templates/studio.js``, `chart`): the cumulative success rate with its 95% band,
memory growth, tokens and latency per episode, and the utility distribution.

Each chart is a small JSON object, {"kind": "line" | "bars", "title", "xlabel",
"ylabel", "series": [{"name", "color", "x", "y", ...}], ...}: the numbers, never a
picture, so writing the page costs no plotting library (matplotlib's import and four
drawings were seconds of every `inspect`) and the page draws them in milliseconds. The
SR band is the Wilson score interval of the cumulative success rate after each episode
(a binomial interval for the SR so far; our addition). Long runs are thinned to
`MAX_POINTS` points per line (evenly spaced, last included), so a chart is a few tens of
kB whatever the run's length; the page says so under the chart. Colours come from
plots/palette.py.

Not here: the figures `report` writes (plots/runs.py), drawing (the page's script).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from hyperskill_lite.plots.palette import COLORS, method_color

__all__ = ["run_charts", "sr_chart", "growth_chart", "cost_chart", "utility_chart",
           "wilson_band", "MAX_POINTS", "MAX_CYCLE_LINES"]

MAX_POINTS = 800
"""Points per drawn line at most."""
MAX_CYCLE_LINES = 60
"""Maintenance cycles marked on the growth chart at most (every k-th beyond)."""
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
    """Indices of at most `MAX_POINTS` evenly spaced points of `n`, the last included.

    >>> _thin(3).tolist(), len(_thin(10_000)), int(_thin(10_000)[-1])
    ([0, 1, 2], 800, 9999)
    """
    if n <= MAX_POINTS:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, MAX_POINTS).round().astype(int))


def _list(v: np.ndarray, digits: int) -> list[float | None]:
    """Rounded floats for the page's JSON (NaN as None)."""
    out = np.round(np.asarray(v, dtype=float), digits).tolist()
    return [None if isinstance(x, float) and not math.isfinite(x) else x for x in out]


def _note(n: int) -> str:
    return "" if n <= MAX_POINTS else f"{MAX_POINTS} of {n} episodes drawn (evenly spaced)."


def _columns(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What the run charts read of every record, in one pass: "success" (n,) bool,
    "tokens" (n,) (agent and memory model), "seconds" (n,), "cycles" (the episode
    counts after which maintenance ran)."""
    rows = [(bool(r.get("success")), float(r.get("tokens", 0) or 0)
             + float(r.get("memory_tokens", 0) or 0), float(r.get("seconds", 0) or 0))
            for r in records]
    arr = np.array(rows, dtype=float).reshape(-1, 3)
    return {"success": arr[:, 0] > 0, "tokens": arr[:, 1], "seconds": arr[:, 2],
            "cycles": [int(r.get("index", 0)) + 1 for r in records if r.get("maintenance")]}


def run_charts(records: Sequence[Mapping[str, Any]], name: str, method: str
               ) -> dict[str, dict[str, Any]]:
    """The run tab's three charts ({"sr", "growth", "cost"}) from one pass over the
    records."""
    cols = _columns(records)
    return {"sr": _sr({name: cols["success"]}, {name: method}),
            "growth": growth_chart(records, cols["cycles"]),
            "cost": _cost(cols["tokens"], cols["seconds"])}


def sr_chart(runs: Mapping[str, Sequence[Mapping[str, Any]]], methods: Mapping[str, str]
             ) -> dict[str, Any]:
    """Cumulative SR (%) of each run over its episodes with the 95% Wilson band (bands
    only for one or two runs: more hide each other); one colour per method (`methods`:
    run name -> method)."""
    return _sr({name: np.array([bool(r.get("success")) for r in records], dtype=bool)
                for name, records in runs.items()}, methods)


def _sr(runs: Mapping[str, np.ndarray], methods: Mapping[str, str]) -> dict[str, Any]:
    series = []
    longest = 0
    for name, ok in runs.items():
        s = np.cumsum(ok)
        n = np.arange(1, len(ok) + 1)
        idx = _thin(len(ok))
        longest = max(longest, len(ok))
        line: dict[str, Any] = {"name": name, "color": method_color(methods.get(name, "")),
                                "x": (idx + 1).tolist(), "y": _list(100 * s[idx] / n[idx], 2)}
        if len(runs) <= 2 and len(ok):
            lo, hi = wilson_band(s[idx], n[idx])
            line |= {"lo": _list(lo, 2), "hi": _list(hi, 2)}
        series.append(line)
    return {"kind": "line", "xlabel": "episode", "ylabel": "cumulative SR (%)",
            "ymin": 0, "ymax": 100, "series": series, "legend": "lower right",
            "title": "Success rate so far" + (" (band: 95% Wilson interval)"
                                              if len(runs) <= 2 else ""),
            "note": _note(longest)}


GROWTH = (("subtask_nodes", "subtask nodes", COLORS["subtask"]),
          ("success_skills", "skills", COLORS["skill"]),
          ("failure_skills", "mistakes", COLORS["mistake"]),
          ("hyperedges", "hyperedges", COLORS["hyperedge"]))
"""The memory sizes the growth chart draws, with their labels and colours."""


def growth_chart(records: Sequence[Mapping[str, Any]], cycles: list[int] | None = None
                 ) -> dict[str, Any]:
    """Memory sizes over episodes by kind (read at the drawn points only), maintenance
    cycles (`cycles`: episode counts; default read from the records) as dotted lines."""
    idx = _thin(len(records))
    sizes = [records[i].get("sizes") for i in idx.tolist()]
    sizes = [s if isinstance(s, dict) else {} for s in sizes]
    keys = sorted({k for s in sizes for k in s} - {"incidences"})
    series = list(GROWTH)
    if keys and not set(keys) & {k for k, _, _ in series}:  # a baseline's own sizes
        series = [(k, k.replace("_", " "), None) for k in keys]
    lines = [{"name": label, "color": color, "x": (idx + 1).tolist(),
              "y": [s.get(key, 0) for s in sizes]} for key, label, color in series if key in keys]
    if cycles is None:
        cycles = [int(r.get("index", 0)) + 1 for r in records if r.get("maintenance")]
    return {"kind": "line", "xlabel": "episode", "ylabel": "count", "ymin": 0,
            "series": lines, "legend": "upper left",
            "vlines": cycles[:: max(1, math.ceil(len(cycles) / MAX_CYCLE_LINES))],
            "empty": "" if keys else "this method keeps no memory",
            "title": "Memory growth (dotted: maintenance)", "note": _note(len(records))}


def cost_chart(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Tokens per episode (agent and memory model) and latency per episode (s, on a
    second axis), each as a running mean over a window of a tenth of the run."""
    cols = _columns(records)
    return _cost(cols["tokens"], cols["seconds"])


def _cost(tokens: np.ndarray, seconds: np.ndarray) -> dict[str, Any]:
    n = len(tokens)
    w = max(1, n // 10)
    kernel = np.ones(w) / w
    idx = _thin(n)
    scale = np.minimum(np.arange(1, n + 1) / w, 1)

    def smooth(v: np.ndarray) -> np.ndarray:
        return np.convolve(v, kernel, mode="full")[:n] / scale

    x = (idx + 1).tolist()
    return {"kind": "line", "xlabel": "episode", "ylabel": "tokens", "y2label": "seconds",
            "ymin": 0, "legend": "upper left", "series": [
                {"name": "tokens / episode", "color": "#444444", "x": x,
                 "y": _list(smooth(tokens)[idx], 1)},
                {"name": "seconds / episode", "color": "#d95f02", "x": x,
                 "y": _list(smooth(seconds)[idx], 4), "axis": 2, "dash": True}],
            "title": f"Tokens and latency (running mean over {w} episodes)",
            "note": _note(n)}


def utility_chart(hist: Mapping[str, Sequence[int]]) -> dict[str, Any]:
    """The gamma (Eq. 3) histogram of the final memory's nodes by kind (20 bins in
    [0, 1])."""
    kinds = [k for k in ("skill", "mistake", "subtask") if sum(hist.get(k, []))]
    return {"kind": "bars", "xlabel": "gamma (Eq. 3)", "ylabel": "nodes", "xmin": 0,
            "xmax": 1, "bins": np.linspace(0, 1, 21).round(2).tolist(), "legend": "upper right",
            "series": [{"name": k + "s", "color": COLORS[k], "y": list(hist[k])} for k in kinds],
            "title": "Utility distribution of the final memory", "note": ""}
