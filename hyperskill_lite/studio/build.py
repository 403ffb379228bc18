"""Everything the studio page shows of one run, as JSON data: `run_view`.

It reads the run folder once (records, run.json, snapshots) and hands each concern to its
module: the run's figures and chart data (here and charts.py), the drawing (graph.py),
provenance and maintenance cycles (provenance.py), retrieval explanations (explain.py),
hygiene (hygiene.py) and co-occurrence significance (cooccurrence.py). `studio_data`
puts several runs together with the overlay chart. Nothing here writes HTML.

The page is bounded whatever the run's size: the tasks are a sample (explain.py), the
charts thinned (charts.py), the maintenance cycles the first and latest `MAX_CYCLES`,
the provenance kept for every skill only up to `PROVENANCE_ALL` skills (counted in the
snapshots and in the records); each bound that applies is a sentence of the run's
``bounds``, also shown under its success-rate chart.

The cyclic garbage collector is paused while the data is built (core/io/read.py gc_paused): the
views make hundreds of thousands of small acyclic containers, and every full collection
would walk all of them and the records again.

Not here: the page (render.py), the command (cli/inspect.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hyperskill_lite.core.io.read import gc_paused
from hyperskill_lite.protocol import EvalProtocol
from hyperskill_lite.runner.health import run_health
from hyperskill_lite.runner.summary import summarize
from hyperskill_lite.studio import charts
from hyperskill_lite.studio.cooccurrence import cooccurrence_significance
from hyperskill_lite.studio.explain import task_views
from hyperskill_lite.studio.graph import Budget, graph_data
from hyperskill_lite.studio.history import memory_history
from hyperskill_lite.studio.hygiene import hygiene
from hyperskill_lite.studio.provenance import cycles, edge_info, provenance
from hyperskill_lite.studio.records import evaluated
from hyperskill_lite.studio.render import json_safe
from hyperskill_lite.studio.runs import RunFolder, run_names
from hyperskill_lite.studio.table import RecordTable

__all__ = ["StudioOptions", "run_view", "studio_data", "PROVENANCE_ALL", "MAX_TESTED_INCIDENCES",
           "MAX_CYCLES"]

log = logging.getLogger("hyperskill_lite.studio")

PROVENANCE_ALL = 2000
"""Up to this many skill nodes, every one gets its provenance; beyond, the drawn ones and
those the page's tables name."""
MAX_CYCLES = 200
"""Maintenance cycles the page lists at most: the first `MAX_CYCLES` // 4 and the latest
ones (a run that maintained more often is said so on the page)."""
MAX_TESTED_INCIDENCES = 10_000
"""The co-occurrence test runs on memories with at most this many skill memberships
(its null samples cost a sort of all of them each); larger ones are skipped, and the
page says how to run it in Python."""
SUMMARY_KEYS = ("SR", "Steps", "Calls", "CtxTokens", "MemMs", "Tokens", "MemTokens",
                "TotalTokens", "Latency", "N")


@dataclass
class StudioOptions:
    """How the studio computes what it shows: `seed` (layout and the null samples),
    `samples` (null samples of the co-occurrence test; 0 skips it), `alpha` (its false
    discovery rate), `budget` (the drawing's)."""

    seed: int = 0
    samples: int = 1000
    alpha: float = 0.05
    budget: Budget | None = None
    """What the drawing holds at most (graph.py: the page's `Budget()` by default)."""


def _settings(info: dict[str, Any]) -> list[list[Any]]:
    """run.json as (key, value) rows, nested settings flattened with dots."""
    rows: list[list[Any]] = []

    def walk(prefix: str, v: Any) -> None:
        if isinstance(v, dict) and v:
            for k in sorted(v):
                walk(f"{prefix}.{k}" if prefix else str(k), v[k])
        else:
            rows.append([prefix, v if isinstance(v, (int, float, str, bool)) or v is None
                         else str(v)])

    walk("", {k: v for k, v in info.items() if k not in ("observed", "health")})
    return rows


def _significance(snap_memory: Any, opts: StudioOptions) -> dict[str, Any]:
    n_inc = len(snap_memory.memberships("skill")[0])
    if opts.samples <= 0:
        return {"rows": [], "note": "The co-occurrence test was not run (--samples 0).",
                "tested": 0}
    if n_inc > MAX_TESTED_INCIDENCES:
        return {"rows": [], "tested": 0, "note": (
            f"The co-occurrence test was skipped: {n_inc} skill memberships exceed the "
            f"page's budget ({MAX_TESTED_INCIDENCES}); run "
            "hyperskill_lite.cooccurrence_significance(memory) in Python.")}
    t = cooccurrence_significance(snap_memory, n_samples=opts.samples, alpha=opts.alpha,
                                  seed=opts.seed)
    S = snap_memory.columns("skill")
    name = {sid: S.text["name"][S.row[sid]] for sid in t.ids}
    rows = [[r["a"], name[r["a"]], r["b"], name[r["b"]], r["observed"], r["expected"],
             r["p"], round(r["q"], 6)] for r in t.rows(only_significant=True)[:500]]
    return {"rows": rows, "tested": int(len(t.i)), "samples": t.n_samples, "seed": t.seed,
            "alpha": t.alpha, "note": t.note}


def _skill_ids(records: Sequence[dict[str, Any]]) -> set[str]:
    """Every skill id the records' updates name (one pass; a table knows them)."""
    if isinstance(records, RecordTable):
        return records.skill_ids()
    out: set[str] = set()
    for r in records:
        upd = r.get("update")
        for sk in (upd.get("skills") or () if isinstance(upd, dict) else ()):
            if isinstance(sk, dict) and isinstance(sk.get("node"), str):
                out.add(sk["node"])
    return out


def _bounded_cycles(records: Sequence[dict[str, Any]], bounds: list[str]) -> list[dict]:
    """`cycles`, the first and latest `MAX_CYCLES` of them when there are more (said in
    `bounds`)."""
    cs = cycles(records)
    if len(cs) <= MAX_CYCLES:
        return cs
    head = MAX_CYCLES // 4
    bounds.append(f"The Maintenance tab lists {MAX_CYCLES} of the {len(cs):,} maintenance "
                  f"cycles: the first {head} and the latest {MAX_CYCLES - head}.")
    return cs[:head] + cs[-(MAX_CYCLES - head):]


def _fill_texts(run: RunFolder, prov: dict[str, dict[str, Any]]) -> None:
    """Names and contents of the shown skills a big run's records kept no text of (the
    table leaves them in the file): read back from the lines where they were born."""
    missing = {sid: p["born"]["episode"] for sid, p in prov.items()
               if not p.get("name") and p.get("born") and p["born"].get("how") == "extracted"
               and isinstance(p["born"].get("episode"), int)}
    if not missing:
        return
    whole = run.whole(set(missing.values()))
    for sid, pos in missing.items():
        upd = (whole.get(pos) or {}).get("update")
        for sk in (upd.get("skills") or () if isinstance(upd, dict) else ()):
            if isinstance(sk, dict) and sk.get("node") == sid:
                prov[sid]["name"] = str(sk.get("name", ""))[:200]
                prov[sid]["content"] = str(sk.get("content", ""))[:600]
                break


def run_view(run: RunFolder, name: str, opts: StudioOptions) -> dict[str, Any]:
    """The page's data for one run (module docstring)."""
    t0 = time.perf_counter()
    info, records = run.info, run.records
    big = isinstance(records, RecordTable)
    protocol = EvalProtocol.from_dict(info.get("protocol"))
    summary = summarize(evaluated(protocol, records))
    health = info.get("health") or run_health(records)
    snaps = memory_history(run.path, len(records))
    bounds: list[str] = []
    if big:
        bounds.append(f"This run has {len(records):,} episodes: its records were read in "
                      "bounded memory (the page keeps what each view shows; retrievals, "
                      "usage and texts stay in episodes.jsonl).")
    view: dict[str, Any] = {
        "name": name, "folder": str(run.path), "method": info.get("method"),
        "world": info.get("world"), "protocol": protocol.describe(),
        "summary": {k: summary.get(k) for k in SUMMARY_KEYS}, "health": health,
        "settings": _settings(info), "cycles": _bounded_cycles(records, bounds),
        "charts": charts.run_charts(records, name, str(info.get("method", ""))),
        "hypergraph": bool(snaps),
    }
    tv = task_views(records, run.explanations)
    view |= {"tasks": tv["tasks"], "tasks_note": tv["note"]}
    if tv["note"] and big:
        bounds.append(tv["note"])
    if snaps:
        final = snaps[-1].memory
        graph = graph_data(snaps, seed=opts.seed, budget=opts.budget)
        born = {}
        hyg = hygiene(final)
        sig = _significance(final, opts)
        n_skills = max(graph["totals"]["skills_ever"], len(_skill_ids(records)))
        wanted = None
        if n_skills > PROVENANCE_ALL:
            wanted = {n[0] for n in graph["nodes"] if n[1] == "s"}
            for key in ("near_duplicates", "contradictions"):
                wanted |= {r[0] for r in hyg[key]} | {r[3] for r in hyg[key]}
            wanted |= {r[0] for r in hyg["never_retrieved"]} | {r[0] for r in sig["rows"]}
            wanted |= {r[2] for r in sig["rows"]}
            wanted |= {s for t in view["tasks"] for s in t["S_q"]}
        edge_pos: dict[str, int] = {}
        prov = provenance(records, snaps, wanted, edge_pos)
        if big:
            _fill_texts(run, prov)
        for sid, p in prov.items():
            if p["born"]:
                born[sid] = p["born"]["episode"]
        for row in hyg["never_retrieved"]:
            row[3] = born.get(row[0])
        edges = {e for p in prov.values() for e in p["trajectories"]}
        edges |= {p["born"]["edge"] for p in prov.values()
                  if p["born"] and p["born"].get("edge")}
        edges |= {e for t in view["tasks"] for e in t["E_star"]}
        view |= {"graph": graph, "provenance": prov, "edges": edge_info(records, snaps, edges, edge_pos),
                 "hygiene": hyg, "significance": sig,
                 "provenance_note": "" if wanted is None else (
                     f"Provenance is kept for {len(prov)} of {n_skills} skill nodes: the "
                     "drawn ones and those the tables name.")}
        view["charts"]["utility"] = charts.utility_chart(hyg["histogram"])
        if wanted is not None:
            bounds.append(view["provenance_note"])
    view["bounds"] = bounds
    if bounds:  # shown under the run tab's first chart, where the page already says it
        sr = view["charts"].get("sr") or {}
        sr["note"] = " ".join(x for x in (sr.get("note", ""), *bounds) if x)
    for key in ("summary", "health", "settings", "cycles"):  # where NaN or numpy can hide
        view[key] = json_safe(view[key])
    log.info("studio: %s in %.2f s", name, time.perf_counter() - t0)
    return view


def studio_data(runs: Sequence[RunFolder], opts: StudioOptions | None = None,
                title: str = "") -> dict[str, Any]:
    """The page's data for several runs: {"title", "runs": [run_view ...], "overlay":
    the SR chart of all runs (None for one run), "skillworld": True when any run is a
    SkillWorld one}."""
    opts = opts or StudioOptions()
    names = run_names([r.info for r in runs])
    with gc_paused():
        views = [run_view(r, n, opts) for r, n in zip(runs, names)]
        overlay = None if len(runs) < 2 else charts.sr_chart(
            {n: r.records for n, r in zip(names, runs)},
            {n: str(r.info.get("method", "")) for n, r in zip(names, runs)})
    return {"title": title or "Memory studio: " + ", ".join(names),
            "runs": views, "overlay": overlay,
            "skillworld": any(r.info.get("world") == "skillworld" for r in runs),
            "options": {"seed": opts.seed, "samples": opts.samples, "alpha": opts.alpha}}
