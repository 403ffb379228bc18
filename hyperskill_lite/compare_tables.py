"""compare's tables: Table 1 (mean ± sample standard deviation over seeds per method,
with the difference of the means to no-memory) and the paired SR differences with their
bootstrap intervals (stats.py), from compare's rows, one per (method, seed, order); and
the paper's self-judge `retention` from two such sets of rows.

>>> rows = [{"method": "no-memory", "seed": 0, "SR": 40.0}, {"method": "no-memory", "seed": 1,
...          "SR": 50.0}, {"method": "awm", "seed": 0, "SR": 60.0}]
>>> aggregate(rows, keys=("SR",))["no-memory"]["SR"]
(45.0, 7.0710678118654755)

Not here: running the methods and the rows (compare.py), a sweep's tables
(sweep/results.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hyperskill_lite.protocol import PAPER_ORDER_SEED
from hyperskill_lite.stats import (
    DEFAULT_BOOT,
    PairedDifference,
    format_paired,
    pair_rng,
    paired_differences,
)

__all__ = ["aggregate", "format_table", "paired_table", "retention", "KEYS", "DELTA_KEYS"]

KEYS = ("SR", "Steps", "Calls", "Tokens", "MemCalls", "TotalTokens", "Latency")
"""Per-run figures aggregated over seeds (compare.py's module docstring)."""

DELTA_KEYS = ("SR", "Steps", "Calls", "Tokens")
"""The figures Table 1 shows with their difference to no-memory."""


def aggregate(
    rows: Sequence[dict[str, Any]], keys: Sequence[str] = KEYS
) -> dict[str, dict[str, tuple[float, float]]]:
    """Per method and key: (mean over seeds, sample standard deviation; 0 for one seed).
    Methods keep the order of their first row."""
    out: dict[str, dict[str, tuple[float, float]]] = {}
    for m in dict.fromkeys(r["method"] for r in rows):
        mine = [r for r in rows if r["method"] == m]
        out[m] = {}
        for k in keys:
            x = np.array([float(r[k]) for r in mine])
            sd = float(x.std(ddof=1)) if len(x) > 1 else 0.0
            out[m][k] = (float(x.mean()), sd)
    return out


def format_table(
    agg: dict[str, dict[str, tuple[float, float]]],
    baseline: str | None = "no-memory",
    title: str = "",
) -> str:
    """A Table-1-style text table: mean ± sd per key, (+delta) of the mean against
    `baseline` for SR, #Steps, #Calls and Tokens (the agent's); then the means of
    MemCalls, tokens/task (agent + memory model, "TotalTokens") and s/task ("Latency"),
    shown as "-" when `agg` lacks them.

    >>> agg = {"no-memory": {"SR": (40.0, 0.0), "Steps": (5.0, 0.5), "Calls": (5.0, 0.0),
    ...                      "Tokens": (20000.0, 0.0), "MemCalls": (0.0, 0.0),
    ...                      "TotalTokens": (20000.0, 0.0), "Latency": (0.02, 0.0)},
    ...        "awm": {"SR": (45.0, 5.0), "Steps": (4.5, 0.5), "Calls": (4.0, 0.0),
    ...                "Tokens": (21000.0, 0.0), "MemCalls": (0.5, 0.0),
    ...                "TotalTokens": (21900.0, 0.0), "Latency": (0.031, 0.0)}}
    >>> print(format_table(agg))
    method     SR (%)                #Steps               #Calls               Tokens             MemCalls  tokens/task  s/task
    no-memory  40.00 ± 0.00          5.00 ± 0.50          5.00 ± 0.00          20000 ± 0          0.00      20000        0.020
    awm        45.00 ± 5.00 (+5.00)  4.50 ± 0.50 (-0.50)  4.00 ± 0.00 (-1.00)  21000 ± 0 (+1000)  0.50      21900        0.031
    """
    base = agg.get(baseline) if baseline else None
    cols = [
        ("SR", "SR (%)", ".2f"),
        ("Steps", "#Steps", ".2f"),
        ("Calls", "#Calls", ".2f"),
        ("Tokens", "Tokens", ".0f"),
    ]
    means = (("MemCalls", "MemCalls", ".2f"), ("TotalTokens", "tokens/task", ".0f"),
             ("Latency", "s/task", ".3f"))
    table = [["method"] + [h for _, h, _ in cols] + [h for _, h, _ in means]]
    for m, vals in agg.items():
        row = [m]
        for key, _, fmt in cols:
            mean, sd = vals[key]
            s = f"{format(mean, fmt)} ± {format(sd, fmt)}"
            if base is not None and m != baseline and key in DELTA_KEYS:
                s += f" ({format(mean - base[key][0], '+' + fmt)})"
            row.append(s)
        table.append(row + [format(vals[k][0], fmt) if k in vals else "-"
                            for k, _, fmt in means])
    widths = [max(len(r[j]) for r in table) + 2 for j in range(len(table[0]))]
    lines = [title] if title else []
    lines += ["".join(f"{c:<{w}}" for c, w in zip(r, widths)).rstrip() for r in table]
    return "\n".join(lines)


def retention(
    gt_rows: Sequence[dict[str, Any]], self_rows: Sequence[dict[str, Any]],
    method: str = "hyperskill",
) -> dict[str, float]:
    """The paper's self-judge retention (Appendix "Robustness Analysis", Table
    "self-judge"): Self-judge SR / GT-judge SR x 100 %, for `method`, from the rows of a
    ``compare(..., judge="gt")`` and a ``compare(..., judge="self")`` over the same seeds.
    Both SRs are scored by the same judge (the world's truth in SkillWorld); only what the
    memory learned from differs. Returns {"GT-judge", "Self-judge" (mean SR over seeds,
    or over (seed, order) cells when the rows hold several task orders), "Retention" (%),
    "Delta" (self - GT, SR points), "seeds" (how many seeds or cells)}.

    >>> gt = [{"method": "hyperskill", "seed": s, "SR": v} for s, v in ((0, 50.0), (1, 40.0))]
    >>> sj = [{"method": "hyperskill", "seed": s, "SR": v} for s, v in ((0, 45.0), (1, 36.0))]
    >>> retention(gt, sj)
    {'GT-judge': 45.0, 'Self-judge': 40.5, 'Retention': 90.0, 'Delta': -4.5, 'seeds': 2}
    """
    def cell(r: dict[str, Any]) -> Any:
        return r["seed"] if r.get("order", PAPER_ORDER_SEED) == PAPER_ORDER_SEED \
            else (r["seed"], r["order"])

    g = {cell(r): float(r["SR"]) for r in gt_rows if r["method"] == method}
    s = {cell(r): float(r["SR"]) for r in self_rows if r["method"] == method}
    if not g or set(g) != set(s):
        raise ValueError(
            f"retention: {method!r} needs rows for the same seeds in both runs, got GT seeds "
            f"{sorted(g, key=str)} and self-judge seeds {sorted(s, key=str)}"
        )
    gt_sr, self_sr = float(np.mean(list(g.values()))), float(np.mean(list(s.values())))
    if gt_sr == 0:
        raise ValueError(f"retention: {method!r} has a GT-judge SR of 0; the ratio is undefined")
    return {"GT-judge": gt_sr, "Self-judge": self_sr, "Retention": 100.0 * self_sr / gt_sr,
            "Delta": self_sr - gt_sr, "seeds": len(g)}


def _cells(rows: Sequence[dict[str, Any]]) -> dict[str, dict[Any, dict[Any, float]]]:
    """method -> (seed, order) -> (index, task id) -> success, from compare's rows."""
    out: dict[str, dict[Any, dict[Any, float]]] = {}
    for r in rows:
        cell = (r["seed"], r.get("order", PAPER_ORDER_SEED))
        out.setdefault(r["method"], {})[cell] = {
            (int(i), str(t)): float(ok) for i, t, ok in r.get("outcomes", [])}
    return out


def paired_table(
    rows: Sequence[dict[str, Any]],
    baseline: str = "no-memory",
    reference: str | None = None,
    stats_seed: int = 0,
    n_boot: int = DEFAULT_BOOT,
    scheme: str = "within-cell",
) -> tuple[str, list[PairedDifference]]:
    """Each method's SR difference to `baseline` (and to `reference`), paired by task,
    seed and order, with a bootstrap 95 % interval (stats.py) drawn from a generator of
    its own, seeded by `stats_seed` and the pair's two names (so an interval is the same
    whichever other methods were compared): the text table and the differences.

    >>> rows = [{"method": m, "seed": 0, "outcomes": [[i, f"t{i}", int(i < k)] for i in range(20)]}
    ...         for m, k in (("no-memory", 5), ("x", 15))]
    >>> text, diffs = paired_table(rows)
    >>> diffs[0].diff, diffs[0].excludes_zero
    (50.0, True)
    """
    outcomes = _cells(rows)
    diffs: list[PairedDifference] = []
    for ref in dict.fromkeys(r for r in (baseline, reference) if r):
        if ref not in outcomes:
            raise ValueError(f"paired differences: no rows for {ref!r}; it must be one of the "
                             f"methods compared ({', '.join(outcomes)})")
        names = [m for m in outcomes if (ref == baseline or m != baseline) and m != ref]
        for m in names:  # each pair its own generator: an interval does not depend on
            # which other methods were compared, or in what order
            diffs += paired_differences(outcomes, ref, pair_rng(stats_seed, ref, m), [m],
                                        n_boot=n_boot, scheme=scheme)
    cells = len({c for per in outcomes.values() for c in per})
    title = (f"SR difference (points), paired by task over {cells} (seed, order) cell(s): "
             f"mean [{scheme} bootstrap 95% CI, {n_boot} resamples, stats seed "
             f"{stats_seed}]; * = the interval excludes 0")
    return format_paired(diffs, title), diffs
