"""Table-1 figures of a run from its records, and the plain-text table of several runs.

`summarize` gives the paper's figures (SR, #Steps, #Calls), its per-task cost measures
(tokens, latency) and the memory's health (health.py); `summary_table` lays runs out
like the paper's Table 1, with deltas against a baseline row and, on request, a line of
memory health per run.

Not here: the loop (loop.py), comparisons over seeds with confidence intervals
(compare.py, stats.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from hyperskill_lite.runner.health import HEALTH_KEYS, memory_health

__all__ = ["summarize", "summary_table", "health_line", "maintenance_seconds"]


def maintenance_seconds(records: Sequence[dict[str, Any]]) -> float:
    """Seconds all maintenance cycles of a run took (recorded on the episode they followed)."""
    return float(sum((r.get("maintenance") or {}).get("seconds", 0.0) for r in records))


def _values(records: Sequence[dict[str, Any]], key: str) -> list[Any]:
    """`key` of every record (0 where absent): a big run's table gives the column at
    once (studio/table.py `column`) instead of building every record."""
    column = getattr(records, "column", None)
    if column is not None:
        return column(key, 0)
    return [r.get(key, 0) for r in records]


def summarize(records: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Table-1 figures of one run: SR (%), mean #Steps, mean #Calls, mean context tokens,
    mean memory-operation milliseconds per episode, and the episode count; the paper's
    per-task cost measures: "Tokens" (the agent's), "MemTokens" (memory-model calls:
    decompose, extract, merge, baseline operations), "TotalTokens" (both) and "Latency"
    (wall-clock seconds per task of the whole episode, agent and memory, with maintenance
    spread over the run's tasks; a lazily loaded encoder's one-off load is the record's
    "setup_seconds", not latency); and the memory health of `memory_health` (Inserted,
    Dedup, Merged, Pruned, NonEmpty, Injected, EmptyStore, NothingShown). Records written
    before a field existed count it as 0. For a run with a learn/eval split, pass the
    evaluated records (`EvalProtocol.evaluated`) for the evaluated figures."""
    if not records:
        return {k: float("nan") for k in ("SR", "Steps", "Calls", "CtxTokens", "MemMs", "Tokens",
                                           "MemTokens", "TotalTokens", "Latency",
                                           *HEALTH_KEYS)} | {"N": 0}
    arr = lambda key: np.array(_values(records, key), dtype=float)  # noqa: E731
    tokens, mem_tokens = arr("tokens").mean(), arr("memory_tokens").mean()
    return {
        "SR": 100.0 * arr("success").mean(),
        "Steps": arr("steps").mean(),
        "Calls": arr("calls").mean(),
        "CtxTokens": arr("context_tokens").mean(),
        "MemMs": 1000.0 * arr("memory_seconds").mean(),
        "Tokens": tokens,
        "MemTokens": mem_tokens,
        "TotalTokens": tokens + mem_tokens,
        "Latency": arr("seconds").mean() + maintenance_seconds(records) / len(records),
        "N": len(records),
        **memory_health(records),
    }


def health_line(name: str, summary: dict[str, float]) -> str:
    """One line of memory health from a `summarize` dict.

    >>> print(health_line("flat", {"Inserted": 12.0, "Dedup": 3.0, "Merged": 0.0, "Pruned": 1.0,
    ...                            "NonEmpty": 95.0, "Injected": 2.0, "EmptyStore": 0.0}))
    flat memory: 12 inserted, 3 deduplicated, 0 merged, 1 pruned; retrieval non-empty in 95.0% of episodes, 2.00 items injected per episode
    """
    def n(key: str) -> str:
        v = summary.get(key, float("nan"))
        return "-" if v is None or math.isnan(v) else f"{v:.0f}"

    line = (f"{name} memory: {n('Inserted')} inserted, {n('Dedup')} deduplicated, "
            f"{n('Merged')} merged, {n('Pruned')} pruned; retrieval non-empty in "
            f"{summary.get('NonEmpty', float('nan')):.1f}% of episodes, "
            f"{summary.get('Injected', float('nan')):.2f} items injected per episode")
    if summary.get("EmptyStore"):
        line += " -- WARNING: it stored nothing after the first 10% of the tasks"
    elif summary.get("NothingShown"):
        line += " -- WARNING: it showed the agent nothing in the first 10% of the tasks"
    return line


def summary_table(rows: dict[str, dict[str, float]], baseline: str | None = "no-memory",
                  health: bool = False) -> str:
    """A plain-text table like the paper's Table 1, with deltas against `baseline`, and
    the paper's cost measures: tokens per task (agent + memory calls) and latency per
    task (seconds). `health` adds one `health_line` per run below the table.

    >>> print(summary_table({"no-memory": {"SR": 40.0, "Steps": 5.0, "Calls": 4.0,
    ...     "CtxTokens": 0.0, "MemMs": 0.0, "TotalTokens": 900.0, "Latency": 0.01, "N": 10}}))
    method     SR (%)        #Steps       #Calls       ctx tokens  mem ms  tokens/task  s/task  N
    no-memory  40.00         5.00         4.00                  0    0.00          900   0.010  10
    """
    base = rows.get(baseline) if baseline else None

    def cell(name: str, key: str, fmt: str) -> str:
        v = rows[name][key]
        s = format(v, fmt)
        if base is not None and name != baseline and key in ("SR", "Steps", "Calls"):
            s += f" ({v - base[key]:+.2f})"
        return s

    header = (f"{'method':<26}{'SR (%)':<14}{'#Steps':<13}{'#Calls':<13}{'ctx tokens':>10}"
              f"{'mem ms':>8}{'tokens/task':>13}{'s/task':>8}  N")
    width = max([len(k) for k in rows] + [6]) + 2
    header = f"{'method':<{width}}" + header[26:]
    lines = [header]
    for name in rows:
        r = rows[name]
        lines.append(
            f"{name:<{width}}{cell(name, 'SR', '.2f'):<14}{cell(name, 'Steps', '.2f'):<13}"
            f"{cell(name, 'Calls', '.2f'):<13}{r['CtxTokens']:>10.0f}"
            f"{r['MemMs']:>8.2f}{r.get('TotalTokens', float('nan')):>13.0f}"
            f"{r.get('Latency', float('nan')):>8.3f}  {r['N']}"
        )
    if health:
        lines += [health_line(name, r) for name, r in rows.items() if "NonEmpty" in r]
    return "\n".join(lines)
