"""A finished sweep in one frame: the Table-1-style table with paired confidence
intervals (CSV and markdown), the cumulative-SR and memory-growth figures over seeds,
and the failures list.

The table has one row per (backbone, task set, method with its config fields): SR, #Steps,
#Calls (tool calls), Tokens and memory latency (seconds of memory operations per task) as
mean and sample standard deviation over the (seed, task order) cells that finished, with
the number of cells and of episodes behind them; then the SR difference to no-memory
(``dSR no-memory``, with ``low`` / ``high``: the within-cell bootstrap 95 % interval of
stats.py, seeded with `STATS_SEED`), paired by task, seed and order with the no-memory
cell of the same backbone, task set and config fields, and the same against a
`reference` method when one is given. Each cell's figures cover the evaluated part of
its run (the protocol in its ``run.json``). A cell that failed or is unfinished
contributes nothing: rows use finished cells only, and `failures.md` names the others.

Figures (``OUT/figures/``): per backbone and task set, the cumulative success rate of
every setting as the mean over its cells with a min-max band, and, per hypergraph
setting, the memory growth (each node type's mean over cells, with a band).

Not here: running the cells (execute.py), the grid (spec.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hyperskill_lite.plots.palette import COLORS, method_color
from hyperskill_lite.plots.runs import cumulative_sr
from hyperskill_lite.protocol import EvalProtocol
from hyperskill_lite.runner.files import read_records as _records
from hyperskill_lite.stats import DEFAULT_BOOT, outcome_map, pair_rng, paired_differences
from hyperskill_lite.sweep.execute import CellResult

__all__ = ["sweep_frame", "write_results", "COLUMNS", "STATS_SEED"]

COLUMNS = ("SR", "Steps", "Calls", "Tokens", "MemSeconds")
"""Per-cell figures, each averaged over the cell's episodes, then over cells."""
STATS_SEED = 0
"""Seed of the bootstrap's generator: the same sweep gives the same intervals."""
BASELINE = "no-memory"


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


def _protocol(run_dir: Path) -> EvalProtocol:
    """The protocol a cell ran under (its run.json; the paper's when it says none)."""
    try:
        info = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
        return EvalProtocol.from_dict(info.get("protocol"))
    except (OSError, ValueError):
        return EvalProtocol()


def _finished(results: Sequence[CellResult], out: Path) -> list[tuple[CellResult, list, int]]:
    """(result, evaluated records, order seed) of every finished cell with records."""
    got = []
    for r in results:
        if r.status not in ("done", "skipped"):
            continue
        run_dir = Path(out) / r.cell.key
        recs = _records(run_dir)
        if not recs:
            continue
        proto = _protocol(run_dir)
        got.append((r, proto.evaluated(recs), r.cell.order_seed))
    return got


def _group(cell) -> tuple[str, str]:
    return cell.backbone_name, cell.task_set


def _paired(done: list[tuple[CellResult, list, int]], reference: str | None
            ) -> dict[tuple[str, str, str, str], Any]:
    """(backbone, task set, setting, reference method) -> PairedDifference."""
    outcomes: dict[tuple, dict[str, dict]] = {}  # (group, config) -> setting -> cell -> map
    setting_of: dict[tuple, dict[str, str]] = {}  # (group, config) -> method -> setting
    for r, recs, order in done:
        c = r.cell
        key = (*_group(c), c.config)
        outcomes.setdefault(key, {}).setdefault(c.setting, {})[(c.seed, order)] = \
            outcome_map(recs)
        setting_of.setdefault(key, {})[c.method] = c.setting
    out: dict[tuple[str, str, str, str], Any] = {}
    for key in outcomes:
        for ref in dict.fromkeys(m for m in (BASELINE, reference) if m):
            ref_setting = setting_of[key].get(ref)
            if ref_setting is None:
                continue
            names = [s for m, s in setting_of[key].items()
                     if m != ref and (ref == BASELINE or m != BASELINE)]
            for name in names:  # each pair its own generator (stats.pair_rng)
                for d in paired_differences(outcomes[key], ref_setting,
                                            pair_rng(STATS_SEED, ref_setting, name), [name],
                                            n_boot=DEFAULT_BOOT):
                    out[(key[0], key[1], d.method, ref)] = d
    return out


def sweep_frame(results: Sequence[CellResult], out: Path, reference: str | None = None):
    """One row per (backbone, task set, setting) over the finished cells: mean and sd of
    each column over cells, and the paired SR differences with their intervals (pandas
    DataFrame)."""
    import pandas as pd

    done = _finished(results, out)
    rows = [{"backbone": r.cell.backbone_name, "tasks": r.cell.task_set,
             "setting": r.cell.setting, "seed": r.cell.seed, "order": order,
             "episodes": len(recs), **_cell_figures(recs)} for r, recs, order in done]
    cols = ["backbone", "tasks", "setting"]
    if not rows:
        return pd.DataFrame(columns=[*cols, "seeds", "episodes"])
    per_cell = pd.DataFrame(rows)
    order = {k: i for i, k in enumerate(dict.fromkeys(
        (r["backbone"], r["tasks"], r["setting"]) for r in rows))}
    g = per_cell.groupby(cols, sort=False)
    frame = g[list(COLUMNS)].mean()
    sd = g[list(COLUMNS)].std(ddof=1).fillna(0.0)
    for c in COLUMNS:
        frame[f"{c} sd"] = sd[c]
    frame["seeds"] = g["seed"].nunique()
    frame["orders"] = g["order"].nunique()
    frame["cells"] = g.size()
    frame["episodes"] = g["episodes"].sum()
    frame = frame.reset_index()
    paired = _paired(done, reference)
    for ref in dict.fromkeys(m for m in (BASELINE, reference) if m):
        for part, attr in (("", "diff"), (" low", "low"), (" high", "high")):
            frame[f"dSR {ref}{part}"] = [
                getattr(paired[(b, t, s, ref)], attr) if (b, t, s, ref) in paired else np.nan
                for b, t, s in zip(frame.backbone, frame.tasks, frame.setting)]
    frame["_o"] = [order[(b, t, s)] for b, t, s in zip(frame.backbone, frame.tasks, frame.setting)]
    return frame.sort_values("_o").drop(columns="_o").reset_index(drop=True)


def _ci(r, ref: str) -> str:
    d, lo, hi = r[f"dSR {ref}"], r[f"dSR {ref} low"], r[f"dSR {ref} high"]
    if np.isnan(d):
        return ""
    star = " *" if lo > 0 or hi < 0 else ""
    return f"{d:+.2f} [{lo:+.2f}, {hi:+.2f}]{star}"


def _markdown(frame, refs: Sequence[str]) -> str:
    refs = [ref for ref in refs if f"dSR {ref}" in frame]
    head = ["backbone", "tasks", "setting", "SR (%)", *(f"ΔSR vs {ref}" for ref in refs),
            "#Steps", "#Calls", "Tokens", "mem s/task", "seeds", "orders", "episodes"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for _, r in frame.iterrows():
        def ms(c: str, f: str, r=r) -> str:
            return f"{format(r[c], f)} ± {format(r[c + ' sd'], f)}"

        lines.append("| " + " | ".join([
            str(r["backbone"]), str(r["tasks"]), str(r["setting"]), ms("SR", ".2f"),
            *(_ci(r, ref) for ref in refs),
            ms("Steps", ".2f"), ms("Calls", ".2f"), ms("Tokens", ".0f"),
            ms("MemSeconds", ".4f"), str(int(r["seeds"])), str(int(r.get("orders", 1))),
            str(int(r["episodes"])),
        ]) + " |")
    return "\n".join(lines) + "\n"


def write_results(results: Sequence[CellResult], out: Path,
                  reference: str | None = None) -> dict[str, Path]:
    """Write OUT/table.csv, OUT/table.md, OUT/failures.md, OUT/cells.json and the figures;
    returns their paths by name. `reference`: a method every setting is also paired with
    (besides no-memory)."""
    out = Path(out)
    frame = sweep_frame(results, out, reference)
    paths = {"csv": out / "table.csv", "markdown": out / "table.md",
             "failures": out / "failures.md", "cells": out / "cells.json"}
    frame.to_csv(paths["csv"], index=False, float_format="%.6g")
    refs = list(dict.fromkeys(m for m in (BASELINE, reference) if m))
    note = ("Mean ± sample sd over the (seed, task order) cells that finished. ΔSR: the SR "
            "difference in points, paired by task, seed and order, with its within-cell "
            f"bootstrap 95% interval ({DEFAULT_BOOT} resamples, seed {STATS_SEED}); * = the "
            "interval excludes 0. SkillWorld rows are an offline simulation, never the "
            "paper's numbers.\n\n")
    paths["markdown"].write_text(note + _markdown(frame, refs))
    failed = [r for r in results if r.status == "failed"]
    lines = ["# Failed cells", ""]
    lines += [f"- `{r.cell.key}`: {r.error}" for r in failed] or ["None."]
    errored = [r for r in results if r.status in ("done", "skipped") and r.error]
    if errored:  # finished, in the tables, with episodes recorded as failed
        lines += ["", "# Cells with errored episodes (counted as failures, not replayed)", ""]
        lines += [f"- `{r.cell.key}`: {r.error}" for r in errored]
    paths["failures"].write_text("\n".join(lines) + "\n")
    paths["cells"].write_text(json.dumps([
        {"key": r.cell.key, "status": r.status, "seconds": round(r.seconds, 3),
         "episodes": r.episodes, "error": r.error} for r in results], indent=1) + "\n")
    paths.update(_figures(_finished(results, out), out))
    return paths


def _band(ax, series: list[np.ndarray], label: str, color: str, lw: float = 1.4) -> None:
    """Mean over cells with a min-max band; series cut to the shortest."""
    n = min(len(s) for s in series)
    Y = np.stack([s[:n] for s in series])
    x = np.arange(1, n + 1)
    ax.plot(x, Y.mean(axis=0), color=color, lw=lw, label=f"{label} (n={len(series)})")
    if len(series) > 1:
        ax.fill_between(x, Y.min(axis=0), Y.max(axis=0), color=color, alpha=0.18, lw=0)


GROWTH = (("subtask_nodes", "subtask nodes", "subtask"), ("success_skills", "skills", "skill"),
          ("failure_skills", "mistakes", "mistake"), ("hyperedges", "hyperedges", "hyperedge"))


def _figures(done: list[tuple[CellResult, list, int]], out: Path) -> dict[str, Path]:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    groups: dict[tuple[str, str], dict[str, list[tuple[CellResult, list]]]] = {}
    for r, recs, _order in done:
        groups.setdefault(_group(r.cell), {}).setdefault(r.cell.setting, []).append((r, recs))
    figdir = out / "figures"
    if groups:
        figdir.mkdir(exist_ok=True)
    paths: dict[str, Path] = {}
    for (bb, ts), runs in groups.items():
        cells = max(len(v) for v in runs.values())
        sim = " (simulation)" if bb == "skillworld" else ""
        title = f"{bb} / {ts}{sim}"
        band = f"mean over {cells} (seed, order) cell(s), band: min-max"
        jobs = []

        def sr(ax, runs=runs, title=title, band=band) -> None:
            for setting, cell_runs in runs.items():
                method = cell_runs[0][0].cell.method
                _band(ax, [cumulative_sr(recs) for _, recs in cell_runs], setting,
                      method_color(method), lw=2.2 if method == "hyperskill" else 1.3)
            ax.set(xlabel="episode", ylabel="cumulative SR (%)",
                   title=f"{title}: cumulative SR\n{band}")
            ax.legend(fontsize=8)
            ax.grid(alpha=0.3)

        jobs.append((f"{bb}_{ts}_cumulative_sr", sr))
        for setting, cell_runs in runs.items():
            if not cell_runs[0][1][-1].get("sizes", {}).get("hyperedges"):
                continue  # growth figures for hypergraph memories only

            def growth(ax, cell_runs=cell_runs, setting=setting, title=title,
                       band=band) -> None:
                for key, label, role in GROWTH:
                    _band(ax, [np.array([rec.get("sizes", {}).get(key, 0) for rec in recs],
                                        dtype=float) for _, recs in cell_runs],
                          label, COLORS[role])
                ax.set(xlabel="episode", ylabel="count",
                       title=f"{title}: {setting} memory\n{band}")
                ax.legend(fontsize=8)
                ax.grid(alpha=0.3)

            slug = setting.replace(" ", "_").replace("=", "-")
            jobs.append((f"{bb}_{ts}_{slug}_growth", growth))
        for stem, draw in jobs:
            fig, ax = plt.subplots(figsize=(7.5, 4))
            draw(ax)
            fig.tight_layout()
            paths[stem] = figdir / f"{stem}.png"
            fig.savefig(paths[stem], dpi=100)
            plt.close(fig)
    return paths
