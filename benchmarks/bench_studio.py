"""Benchmark: the memory studio (`inspect`) on run folders of 1k, 10k and 100k hyperedges.

For each size N it writes a synthetic run folder the way the runner does (synthetic.py's
workload inserted with `add_trajectory`, one record per episode with its retrieval,
update, sizes and costs, a maintenance cycle with a checkpoint after every quarter of
the episodes, the final state, run.json), then measures:

- the page's writing: ``python -m hyperskill_lite inspect RUN --out PAGE`` in a fresh
  process (wall seconds, imports included, and its peak RSS), and the page's size;
- its opening: the page loaded from disk in headless Chromium (Playwright, Debian's
  chromium; the network blocked) until the studio says it is ready, and the hypergraph
  tab until the drawing is on screen. Without a browser that is "not measured" and why.

The targets (issue 39): written in under 20 s, under 50 MB, open in under 5 s at 100k.
What the page cannot draw or list at that size it samples, and says so in the page.

Usage: python benchmarks/bench_studio.py [--sizes 1000 10000 100000] [--json PATH]
       [--keep DIR]
Not here: the memory's own timings (run_all.py), assertions (tests stay untimed).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from synthetic import DIM, make_workload  # noqa: E402

from hyperskill_lite.core.config import HyperSkillConfig  # noqa: E402
from hyperskill_lite.core.io import save_memory  # noqa: E402
from hyperskill_lite.core.maintenance import TemplateMerger, maintain  # noqa: E402
from hyperskill_lite.core.memory import HypergraphMemory  # noqa: E402
from hyperskill_lite.core.retrieval import Retrieval, format_context  # noqa: E402
from hyperskill_lite.runner.health import maintenance_record, write_health  # noqa: E402

TARGETS = {"write_s": 20.0, "mb": 50.0, "open_s": 5.0}
CHROMIUM_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


def log(msg: str) -> None:
    print(f"[bench_studio] {msg}", file=sys.stderr, flush=True)


def _explain(mem: HypergraphMemory, e: Any, used: list[str]) -> dict[str, Any]:
    """A retrieval record of the size a real one has: the episode's used elements."""
    edges = [x for x in used if x[0] == "e" and x in mem._edg.row]
    skills = [x for x in used if x[0] == "s" and x in mem._skl.row]
    lessons = [(x, mem._edg.text["lesson"][mem._edg.row[x]], True) for x in edges]
    items = [(mem._skl.text["name"][mem._skl.row[s]], mem._skl.text["content"][mem._skl.row[s]])
             for s in skills]
    subtasks = [x for x in used if x[0] == "u"]
    r = Retrieval(task=e.task, plan=list(e.plan), subtask_ids=subtasks,
                  subtask_scores={x: 0.5 for x in subtasks},
                  trajectory_edge_ids=edges, edge_ids=edges, kappa={s: 1 for s in skills},
                  skill_ids=skills, lessons=lessons, edge_scores={x: 0.5 for x in edges},
                  skill_scores={s: 0.5 for s in skills},
                  context=format_context([(t, ok) for _, t, ok in lessons], items, []))
    return r.to_record()


def make_run(n: int, out: Path, seed: int = 0, checkpoints: int = 4) -> float:
    """A run folder of `n` episodes (module docstring); returns the seconds it took."""
    t0 = time.perf_counter()
    w = make_workload(n, 0, seed=seed, dim=DIM)
    mem = HypergraphMemory(w.encoder, HyperSkillConfig())
    out.mkdir(parents=True)
    every = max(1, -(-n // checkpoints))
    rng_ok = [e.success for e in w.episodes]
    with open(out / "episodes.jsonl", "w", encoding="utf-8") as f:
        for i, e in enumerate(w.episodes):
            explain = _explain(mem, e, e.used)
            mem.add_trajectory(e.task, e.plan, e.skills, e.lesson, e.success, e.steps,
                               retrieval=Retrieval(edge_ids=list(e.used)),
                               meta={"task_id": f"t{i}"})
            upd = mem.last_update
            rec: dict[str, Any] = {
                "index": i, "task_id": f"t{i}", "success": rng_ok[i], "steps": e.steps,
                "calls": e.steps, "tokens": 900 + 40 * e.steps, "memory_tokens": 300,
                "context_tokens": len(explain["context"]) // 4,
                "injected": len(explain["skill_ids"]) + len(explain["lessons"]),
                "memory_seconds": 0.002, "seconds": 0.01, "retrieved": list(e.used),
                "explain": explain,
                "update": {"edge": upd["edge"], "dedup": upd["dedup"], "skills": [
                    {"content": s.content, "polarity": s.polarity, **p}
                    for s, p in zip(e.skills, upd["skills"])]},
            }
            if (i + 1) % every == 0 or i + 1 == n:
                rec["maintenance"] = maintenance_record(maintain(mem, TemplateMerger()))
                save_memory(mem, out / "checkpoints" / f"maint-{i + 1:04d}")
            rec["sizes"] = mem.stats()
            f.write(json.dumps(rec, sort_keys=True) + "\n")
    state = out / "state"
    state.mkdir()
    shutil.copytree(out / "checkpoints" / f"maint-{n:04d}", state / "memory",
                    copy_function=os.link)
    (state / "progress.json").write_text(json.dumps({"next_index": n}))
    (out / "run.json").write_text(json.dumps({
        "format": "hyperskill_lite.run/1", "method": "hyperskill", "world": "synthetic",
        "n_tasks": n, "seed": seed, "encoder": w.encoder.name,
        "config": mem.config.to_dict()}, indent=1, sort_keys=True))
    records = [json.loads(line) for line in open(out / "episodes.jsonl", encoding="utf-8")]
    write_health(out, records)
    return time.perf_counter() - t0


def write_page(run: Path, page: Path) -> dict[str, Any]:
    """`inspect` in a fresh process: wall seconds, peak RSS (MB) and the page's size."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "hyperskill_lite", "inspect", str(run),
                           "--out", str(page)], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(f"inspect failed:\n{done.stderr[-2000:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"write_s": round(wall, 2), "mb": round(page.stat().st_size / 1e6, 2),
            "peak_rss_mb": round(max(peak, before) / 1024, 1)}


def open_page(page: Path) -> dict[str, Any]:
    """Seconds until the page is ready in headless Chromium, and until the hypergraph tab
    is drawn; requests other than the file itself are blocked and counted."""
    exe = os.environ.get("HYPERSKILL_CHROMIUM", "/usr/bin/chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {"open_s": None, "why": "the playwright package is not installed"}
    if not Path(exe).is_file():
        return {"open_s": None, "why": f"no Chromium at {exe}"}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_FLAGS)
        pg = browser.new_page(viewport={"width": 1400, "height": 1000})
        other: list[str] = []
        pg.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:")
                 else (other.append(r.request.url), r.abort()))
        t0 = time.perf_counter()
        pg.goto(page.as_uri(), timeout=120_000)
        pg.wait_for_selector("body[data-ready='1']", timeout=120_000)
        ready = time.perf_counter() - t0
        t1 = time.perf_counter()
        pg.click("#tabs button[data-tab=graph]")
        pg.wait_for_selector(".network[data-visible-nodes] canvas", timeout=120_000)
        pg.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        graph = time.perf_counter() - t1
        browser.close()
    return {"open_s": round(ready, 2), "graph_s": round(graph, 2), "requests": len(other)}


def measure_all(sizes: list[int], keep: Path | None = None, seed: int = 0,
                log=log) -> dict[str, Any]:
    """The figures of every size, with the targets checked at the largest."""
    out: dict[str, Any] = {"sizes": {}, "targets": TARGETS}
    with tempfile.TemporaryDirectory(prefix="hyperskill-studio-") as tmp:
        root = keep or Path(tmp)
        for n in sorted(sizes):
            run, page = root / f"run-{n}", root / f"studio-{n}.html"
            if run.exists():
                shutil.rmtree(run)
            built = make_run(n, run, seed=seed)
            log(f"N={n}: run folder written in {built:.1f} s")
            res = {"build_s": round(built, 1), **write_page(run, page)}
            log(f"N={n}: page written in {res['write_s']} s, {res['mb']} MB")
            res |= open_page(page)
            log(f"N={n}: opened in {res.get('open_s')} s, hypergraph drawn in {res.get('graph_s')} s")
            out["sizes"][str(n)] = res
            if keep is None:
                shutil.rmtree(run, ignore_errors=True)
    big = out["sizes"][str(max(sizes))]
    out["met"] = {k: (big.get(k) is not None and big[k] < v) for k, v in TARGETS.items()}
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--keep", type=Path, default=None,
                    help="keep the run folders and pages in this folder")
    args = ap.parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    res = measure_all(args.sizes, args.keep, args.seed)
    print(json.dumps(res, indent=1))
    if args.json:
        args.json.write_text(json.dumps(res, indent=1) + "\n")
    return res


if __name__ == "__main__":
    main()
