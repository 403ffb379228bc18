"""A finished sweep in one frame: the Table-1-style table (CSV and markdown), the
cumulative-SR and memory-growth figures, and the failures list.

The table has one row per (backbone, task set, method with its config fields): SR, #Steps,
#Calls (tool calls), Tokens and memory latency (seconds of memory operations per task) as
mean and sample standard deviation over the seeds that finished, with the number of seeds
and of episodes behind them. A cell that failed or is unfinished contributes the episodes
it recorded to nothing: rows use finished cells only, and `failures.md` names the others.

Figures (``OUT/figures/``): per backbone and task set, the cumulative success rate of
every method on the first seed of the grid, and the memory growth of each hypergraph
method there.

Not here: running the cells (execute.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hyperskill_lite.runner import read_records as _records
from hyperskill_lite.sweep.execute import CellResult

__all__ = ["sweep_frame", "write_results", "COLUMNS"]

COLUMNS = ("SR", "Steps", "Calls", "Tokens", "MemSeconds")
"""Per-cell figures, each averaged over the cell's episodes, then over seeds."""


def _cell_figures(records: list[dict[str, Any]]) -> dict[str, float]:
    def mean(key: str) -> float:
        return float(np.mean([float(r.get(key) or 0.0) for r in records]))

    return {
        "SR": 100.0 * float(np.mean([bool(r["success"]) for r in records])),
        "Steps": mean("steps"),
        "Calls": mean("calls"),
        "Tokens": mean("tokens"),
        "MemSeconds": mean("memory_seconds"),
    }


def sweep_frame(results: Sequence[CellResult], out: Path):
    """One row per (backbone, task set, setting) over the finished cells: mean and sd of
    each column over seeds (pandas DataFrame)."""
    import pandas as pd

    rows = []
    for r in results:
        if r.status not in ("done", "skipped"):
            continue
        recs = _records(Path(out) / r.cell.key)
        if not recs:
            continue
        rows.append({"backbone": r.cell.backbone_name, "tasks": r.cell.task_set,
                     "setting": r.cell.setting, "seed": r.cell.seed, "episodes": len(recs),
                     **_cell_figures(recs)})
    cols = ["backbone", "tasks", "setting"]
    if not rows:
        return pd.DataFrame(columns=[*cols, "seeds", "episodes"])
    per_seed = pd.DataFrame(rows)
    order = {k: i for i, k in enumerate(dict.fromkeys(
        (r["backbone"], r["tasks"], r["setting"]) for r in rows))}
    g = per_seed.groupby(cols, sort=False)
    frame = g[list(COLUMNS)].mean()
    sd = g[list(COLUMNS)].std(ddof=1).fillna(0.0)
    for c in COLUMNS:
        frame[f"{c} sd"] = sd[c]
    frame["seeds"] = g.size()
    frame["episodes"] = g["episodes"].sum()
    frame = frame.reset_index()
    frame["_o"] = [order[(b, t, s)] for b, t, s in zip(frame.backbone, frame.tasks, frame.setting)]
    return frame.sort_values("_o").drop(columns="_o").reset_index(drop=True)


def _markdown(frame) -> str:
    head = ["backbone", "tasks", "setting", "SR (%)", "#Steps", "#Calls", "Tokens",
            "mem s/task", "seeds", "episodes"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for _, r in frame.iterrows():
        def ms(c: str, f: str, r=r) -> str:
            return f"{format(r[c], f)} ± {format(r[c + ' sd'], f)}"

        lines.append("| " + " | ".join([
            str(r["backbone"]), str(r["tasks"]), str(r["setting"]), ms("SR", ".2f"),
            ms("Steps", ".2f"), ms("Calls", ".2f"), ms("Tokens", ".0f"),
            ms("MemSeconds", ".4f"), str(int(r["seeds"])), str(int(r["episodes"])),
        ]) + " |")
    return "\n".join(lines) + "\n"


def write_results(results: Sequence[CellResult], out: Path) -> dict[str, Path]:
    """Write OUT/table.csv, OUT/table.md, OUT/failures.md, OUT/cells.json and the figures;
    returns their paths by name."""
    out = Path(out)
    frame = sweep_frame(results, out)
    paths = {"csv": out / "table.csv", "markdown": out / "table.md",
             "failures": out / "failures.md", "cells": out / "cells.json"}
    frame.to_csv(paths["csv"], index=False, float_format="%.6g")
    note = ("Mean ± sample sd over seeds of finished cells. SkillWorld rows are an offline "
            "simulation, never the paper's numbers.\n\n")
    paths["markdown"].write_text(note + _markdown(frame))
    failed = [r for r in results if r.status == "failed"]
    lines = ["# Failed cells", ""]
    lines += [f"- `{r.cell.key}`: {r.error}" for r in failed] or ["None."]
    paths["failures"].write_text("\n".join(lines) + "\n")
    paths["cells"].write_text(json.dumps([
        {"key": r.cell.key, "status": r.status, "seconds": round(r.seconds, 3),
         "episodes": r.episodes, "error": r.error} for r in results], indent=1) + "\n")
    paths.update(_figures(results, out))
    return paths


def _figures(results: Sequence[CellResult], out: Path) -> dict[str, Path]:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    from hyperskill_lite.plots.viz import plot_cumulative_sr, plot_memory_growth

    ok = [r for r in results if r.status in ("done", "skipped")]
    if not ok:
        return {}
    first_seed = min(r.cell.seed for r in ok)
    groups: dict[tuple[str, str], dict[str, list[dict[str, Any]]]] = {}
    for r in ok:
        if r.cell.seed != first_seed:
            continue
        recs = _records(out / r.cell.key)
        if recs:
            groups.setdefault((r.cell.backbone_name, r.cell.task_set), {})[r.cell.setting] = recs
    figdir = out / "figures"
    figdir.mkdir(exist_ok=True)
    paths: dict[str, Path] = {}
    for (bb, ts), runs in groups.items():
        title = f"{bb} / {ts}, seed {first_seed}" + (" (simulation)" if bb == "skillworld" else "")
        jobs = [(f"{bb}_{ts}_cumulative_sr",
                 lambda ax, runs=runs, t=title: plot_cumulative_sr(runs, ax, title=f"{t}: cumulative SR"))]
        for setting, recs in runs.items():
            if recs[-1].get("sizes", {}).get("hyperedges"):  # a hypergraph memory
                slug = setting.replace(" ", "_").replace("=", "-")
                jobs.append((f"{bb}_{ts}_{slug}_growth",
                             lambda ax, recs=recs, t=f"{title}: {setting} memory growth":
                             plot_memory_growth(recs, ax, title=t)))
        for stem, draw in jobs:
            fig, ax = plt.subplots(figsize=(7, 4))
            draw(ax)
            fig.tight_layout()
            paths[stem] = figdir / f"{stem}.png"
            fig.savefig(paths[stem], dpi=100)
            plt.close(fig)
    return paths
