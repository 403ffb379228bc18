"""Benchmark: the memory studio (`inspect`) on run folders of 1k, 10k and 100k hyperedges.

For each size N it writes a synthetic run folder laid out as the runner lays one out
(synthetic.py's workload; the memory built in bulk from its columns, a skill text one
node; one record per episode with a retrieval record of the usual size, its update,
sizes and costs; a maintenance cycle and checkpoint after every quarter of the episodes;
the final state; run.json), then measures:

- the page's writing: ``python -m hyperskill_lite inspect RUN --out PAGE`` in a fresh
  process (wall seconds, imports included; its CPU seconds, user + system, and its peak
  RSS, from the child's own resource usage (os.wait4), so a machine that other work
  loads shows in the wall time and not in the CPU time; and the 1-minute load average
  when it started), and the page's size;
- its opening: the page loaded from disk in headless Chromium (Playwright, Debian's
  chromium; the network blocked) until the studio says it is ready, and the hypergraph
  tab until the drawing is on screen. Without a browser that is "not measured" and why.

With ``--baseline SRC`` (a folder holding another version's ``hyperskill_lite``
package, e.g. ``git archive main hyperskill_lite | tar -x -C SRC``) every size is also
written by that version, alternately with this one and under the same load, and the
result gives the ratios baseline / this (wall and CPU): a speed claim as a ratio in one
run. ``--repeat R`` writes each page R times and keeps the median.

The targets (issue 39): written in under 20 s, under 50 MB, open in under 5 s at 100k.
What the page cannot draw or list at that size it samples, and says so in the page.

Usage: python benchmarks/bench_studio.py [--sizes 1000 10000 100000] [--json PATH]
       [--keep DIR [--reuse]] [--baseline SRC] [--repeat R]
Not here: the memory's own timings (run_all.py), assertions (tests stay untimed).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
from synthetic import DIM, make_workload  # noqa: E402

from hyperskill_lite.core.config import HyperSkillConfig  # noqa: E402
from hyperskill_lite.core.embed import HashingEncoder  # noqa: E402
from hyperskill_lite.core.io import FORMAT, ROW_DTYPES, VERSION, from_state, save_memory  # noqa: E402
from hyperskill_lite.core.maintenance import maintain  # noqa: E402
from hyperskill_lite.core.records import skill_text  # noqa: E402
from hyperskill_lite.core.retrieval import Retrieval, format_context  # noqa: E402
from hyperskill_lite.core.template_merger import TemplateMerger  # noqa: E402
from hyperskill_lite.runner.health import maintenance_record, write_health  # noqa: E402

TARGETS = {"write_s": 20.0, "mb": 50.0, "open_s": 5.0}
CHROMIUM_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


def log(msg: str) -> None:
    print(f"[bench_studio] {msg}", file=sys.stderr, flush=True)


def _columns(w: Any, k: int, node_of: list[list[int]], n_skills: int, texts: dict[str, Any],
             rng: np.random.Generator) -> dict[str, Any]:
    """The memory after the first `k` episodes as `to_state` columns (io/state.py), built
    in bulk: a skill text is one node (dedup by identical text, as insertion does here:
    the workload's distinct texts are far under delta_dedup), 3 subtasks per episode."""
    s_k = 1 + max((max(row) for row in node_of[:k] if row), default=-1)
    rows = {kind: np.zeros(n, dtype=ROW_DTYPES[kind]) for kind, n in
            (("u", 3 * k), ("s", s_k), ("e", k))}
    for r in rows.values():
        r["num"] = np.arange(1, len(r) + 1)
        r["nu"] = rng.poisson(2.0, len(r))
        r["sigma"] = np.floor(r["nu"] * rng.random(len(r)))
        r["tbar"] = rng.uniform(2, 20, len(r))
    eps = w.episodes[:k]
    rows["s"]["polarity"] = [0 if p == "success" else 1 for p in texts["pol"][:s_k]]
    rows["e"]["success"] = [e.success for e in eps]
    rows["e"]["steps"] = rows["e"]["calls"] = [e.steps for e in eps]
    inc_s = np.array([(n, j) for j in range(k) for n in node_of[j]], dtype=np.int64).reshape(-1, 2)
    inc_u = np.stack([np.arange(3 * k), np.repeat(np.arange(k), 3)], axis=1).astype(np.int64)
    steps = [e.steps for e in eps]
    return {
        "manifest": {"format": FORMAT, "version": VERSION,
                     "encoder": {"name": w.encoder.name, "dim": DIM},
                     "config": HyperSkillConfig().to_dict(),
                     "counters": {"u": 3 * k + 1, "s": s_k + 1, "e": k + 1},
                     "t_range": [float(min(steps)), float(max(steps))], "dtype": "float32",
                     "counts": {"u": 3 * k, "s": s_k, "e": k, "inc_u": len(inc_u),
                                "inc_s": len(inc_s)}},
        "arrays": {"u_rows.npy": rows["u"], "s_rows.npy": rows["s"], "e_rows.npy": rows["e"],
                   "u_emb.npy": texts["u_emb"][: 3 * k], "s_emb.npy": texts["s_emb"][:s_k],
                   "e_emb.npy": texts["e_emb"][:k], "inc_u.npy": inc_u, "inc_s.npy": inc_s},
        "text": {"u": {"content": texts["u"][: 3 * k]},
                 "s": {"name": texts["s_name"][:s_k], "content": texts["s_content"][:s_k]},
                 "e": {"task": [e.task for e in eps], "lesson": [e.lesson for e in eps]},
                 "meta": {"u": {}, "s": {}, "e": {str(j): {"task_id": f"t{j}"} for j in range(k)}}},
    }


def _explain(w: Any, j: int, texts: dict[str, Any]) -> dict[str, Any]:
    """A retrieval record of the size a real one has: the episode's used elements."""
    e = w.episodes[j]
    used = e.used
    subtasks = [x for x in used if x[0] == "u"]
    edges = [x for x in used if x[0] == "e"]
    skills = [x for x in used if x[0] == "s" and int(x[1:]) <= len(texts["s_name"])]
    lessons = [(x, w.episodes[int(x[1:]) - 1].lesson, True) for x in edges]
    items = [(texts["s_name"][int(s[1:]) - 1], texts["s_content"][int(s[1:]) - 1]) for s in skills]
    r = Retrieval(task=e.task, plan=list(e.plan), subtask_ids=subtasks,
                  subtask_scores={x: 0.5 for x in subtasks},
                  trajectory_edge_ids=edges, edge_ids=edges, kappa={s: 1 for s in skills},
                  skill_ids=skills, lessons=lessons, edge_scores={x: 0.5 for x in edges},
                  skill_scores={s: 0.5 for s in skills},
                  context=format_context([(t, ok) for _, t, ok in lessons], items, []))
    return r.to_record()


def make_run(n: int, out: Path, seed: int = 0, checkpoints: int = 4) -> float:
    """A run folder of `n` episodes (module docstring), its memory built in bulk from
    the workload's columns (inserting 100k trajectories one by one takes minutes: that
    is run_all.py's measurement, not this one's); returns the seconds it took."""
    t0 = time.perf_counter()
    w = make_workload(n, 0, seed=seed, dim=DIM)
    rng = np.random.default_rng(seed)
    node: dict[str, int] = {}
    node_of: list[list[int]] = []
    texts: dict[str, Any] = {"s_name": [], "s_content": [], "pol": [], "s_text": []}
    for e in w.episodes:
        row = []
        for s in e.skills:
            t = skill_text(s.name, s.content)
            if t not in node:
                node[t] = len(node)
                texts["s_name"].append(s.name)
                texts["s_content"].append(s.content)
                texts["pol"].append(s.polarity)
                texts["s_text"].append(t)
            if node[t] not in row:
                row.append(node[t])
        node_of.append(row)
    texts["u"] = [p for e in w.episodes for p in e.plan]
    texts["u_emb"] = w.encoder.encode(texts["u"])
    texts["s_emb"] = w.encoder.encode(texts["s_text"])
    texts["e_emb"] = w.encoder.encode([f"{e.task}\n{e.lesson}" for e in w.episodes])
    out.mkdir(parents=True)
    every = max(1, -(-n // checkpoints))
    at = sorted({min(n, every * c) for c in range(1, checkpoints + 1)})
    maint: dict[int, dict[str, Any]] = {}
    sizes: dict[int, dict[str, int]] = {}
    for k in at:
        mem = from_state(_columns(w, k, node_of, n_skills=len(node), texts=texts, rng=rng),
                         HashingEncoder(dim=DIM))
        maint[k - 1] = maintenance_record(maintain(mem, TemplateMerger()))
        sizes[k - 1] = mem.stats()
        save_memory(mem, out / "checkpoints" / f"maint-{k:04d}")
    seen: set[int] = set()
    with open(out / "episodes.jsonl", "w", encoding="utf-8") as f:
        for j, e in enumerate(w.episodes):
            skills = []
            for s, nd in zip(e.skills, node_of[j]):
                skills.append({"content": s.content, "polarity": s.polarity, "name": s.name,
                               "node": f"s{nd + 1}", "dedup": nd in seen,
                               "cosine": 1.0 if nd in seen else None, "cross_polarity": False})
            dedup = sum(sk["dedup"] for sk in skills)
            seen.update(node_of[j])
            explain = _explain(w, j, texts)
            rec: dict[str, Any] = {
                "index": j, "task_id": f"t{j}", "success": e.success, "steps": e.steps,
                "calls": e.steps, "tokens": 900 + 40 * e.steps, "memory_tokens": 300,
                "context_tokens": len(explain["context"]) // 4,
                "injected": len(explain["skill_ids"]) + len(explain["lessons"]),
                "memory_seconds": 0.002, "seconds": 0.01, "retrieved": list(e.used),
                "explain": explain,
                "update": {"edge": f"e{j + 1}", "dedup": dedup, "skills": skills},
                "sizes": sizes.get(j) or {"subtask_nodes": 3 * (j + 1), "skill_nodes": len(seen),
                                          "hyperedges": j + 1},
            }
            if j in maint:
                rec["maintenance"] = maint[j]
            f.write(json.dumps(rec, sort_keys=True) + "\n")
    state = out / "state"
    state.mkdir()
    shutil.copytree(out / "checkpoints" / f"maint-{n:04d}", state / "memory",
                    copy_function=os.link)
    (state / "progress.json").write_text(json.dumps({"next_index": n}))
    (out / "run.json").write_text(json.dumps({
        "format": "hyperskill_lite.run/1", "method": "hyperskill", "world": "synthetic",
        "n_tasks": n, "seed": seed, "encoder": w.encoder.name,
        "config": HyperSkillConfig().to_dict()}, indent=1, sort_keys=True))
    records = [json.loads(line) for line in open(out / "episodes.jsonl", encoding="utf-8")]
    write_health(out, records)
    return time.perf_counter() - t0


def write_page(run: Path, page: Path, source: Path | None = None,
               cwd: Path | None = None) -> dict[str, Any]:
    """`inspect` in a fresh process (of the package in `source` when given; in `cwd`,
    an empty folder, so no package or module there shadows the one measured): wall
    seconds, CPU seconds (user + system), peak RSS (MB), the load average when it
    started, and the page's size."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source),
                                                          env.get("PYTHONPATH")]))
    load = os.getloadavg()[0]
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "hyperskill_lite", "inspect", str(run),
                                 "--out", str(page)], stdout=subprocess.DEVNULL, stderr=err,
                                env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own resource usage
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise RuntimeError(f"inspect failed:\n{err.read().decode(errors='replace')[-2000:]}")
    return {"write_s": round(wall, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "mb": round(page.stat().st_size / 1e6, 2),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1), "load": round(load, 2)}


def _median(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """The median of each figure over repeated writes (all samples kept)."""
    out = {k: float(np.median([s[k] for s in samples])) for k in samples[0]}
    return {k: round(v, 2) for k, v in out.items()} | (
        {"samples": samples} if len(samples) > 1 else {})


def package_of(source: Path | None, cwd: Path) -> str:
    """Where a fresh process in `cwd` with `source` first on its path imports
    hyperskill_lite from (to check that --baseline really measures that version)."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source),
                                                          env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-c", "import hyperskill_lite as h; print(h.__file__)"],
                          capture_output=True, text=True, env=env, check=True, cwd=cwd)
    return done.stdout.strip()


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


def _complete(run: Path) -> bool:
    """Whether `run` is a run folder `make_run` finished (run.json with its health)."""
    try:
        return "health" in json.loads((run / "run.json").read_text())
    except (OSError, ValueError):
        return False


def measure_all(sizes: list[int], keep: Path | None = None, seed: int = 0,
                log=log, baseline: Path | None = None, repeat: int = 1,
                reuse: bool = False) -> dict[str, Any]:
    """The figures of every size, with the targets checked at the largest; with a
    `baseline` source folder, that version's figures and the ratios baseline / this."""
    out: dict[str, Any] = {"sizes": {}, "targets": TARGETS}
    with tempfile.TemporaryDirectory(prefix="hyperskill-studio-") as tmp:
        root = keep or Path(tmp)
        cwd = Path(tmp) / "cwd"  # empty: `python -m` puts the working folder on the path
        cwd.mkdir()
        if baseline is not None:
            where = package_of(baseline, cwd)
            if not Path(where).resolve().is_relative_to(baseline.resolve()):
                raise SystemExit(f"--baseline {baseline}: a process with it on its path "
                                 f"imports hyperskill_lite from {where}, not from there")
            out["baseline"] = str(baseline)
        for n in sorted(sizes):
            run, page = root / f"run-{n}", root / f"studio-{n}.html"
            if reuse and _complete(run):
                built = 0.0
                log(f"N={n}: reusing {run}")
            else:
                if run.exists():
                    shutil.rmtree(run)
                built = make_run(n, run, seed=seed)
                log(f"N={n}: run folder written in {built:.1f} s")
            mine, theirs = [], []
            for _ in range(repeat):  # alternately, so both see the same load
                if baseline is not None:
                    theirs.append(write_page(run, root / f"studio-{n}-baseline.html", baseline,
                                              cwd))
                    log(f"N={n}: baseline page written in {theirs[-1]['write_s']} s "
                        f"({theirs[-1]['cpu_s']} s CPU, load {theirs[-1]['load']})")
                mine.append(write_page(run, page, cwd=cwd))
                log(f"N={n}: page written in {mine[-1]['write_s']} s ({mine[-1]['cpu_s']} s "
                    f"CPU, load {mine[-1]['load']}), {mine[-1]['mb']} MB")
            res = {"build_s": round(built, 1), **_median(mine)}
            res |= open_page(page)
            log(f"N={n}: opened in {res.get('open_s')} s, hypergraph drawn in {res.get('graph_s')} s")
            if baseline is not None:
                base = _median(theirs) | open_page(root / f"studio-{n}-baseline.html")
                res["baseline"] = base
                res["ratio"] = {k: round(base[f"{k}_s"] / max(res[f"{k}_s"], 1e-9), 2)
                                for k in ("write", "cpu")}
                log(f"N={n}: baseline / this: {res['ratio']}")
            out["sizes"][str(n)] = res
            if keep is None:
                shutil.rmtree(run, ignore_errors=True)
    big = out["sizes"][str(max(sizes))]
    out["met"] = {k: (big.get(k) is not None and big[k] < v) for k, v in TARGETS.items()}
    return out


def studio_targets(studio: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The issue's three targets at the largest size (report.py's target table)."""
    if not studio:
        return []
    n = max(studio["sizes"], key=int)
    r = studio["sizes"][n]
    at = f"at {int(n):,} hyperedges"
    opened = ("not measured: " + r.get("why", "?")) if r.get("open_s") is None else \
        f"{r['open_s']:.1f} s (hypergraph drawn in {r['graph_s']:.1f} s more)"
    return [
        {"target": f"studio written in under 20 s {at}", "measured": f"{r['write_s']:.1f} s",
         "ok": r["write_s"] < 20},
        {"target": f"studio page under 50 MB {at}", "measured": f"{r['mb']:.1f} MB",
         "ok": r["mb"] < 50},
        {"target": f"studio opens in Chromium in under 5 s {at}", "measured": opened,
         "ok": None if r.get("open_s") is None else r["open_s"] < 5},
    ]


def studio_markdown(studio: dict[str, Any] | None) -> list[str]:
    """The studio's section of perf.md."""
    if not studio:
        return []
    lines = ["", "## The memory studio (benchmarks/bench_studio.py)", "",
             "A synthetic run folder per size (one record per episode with its retrieval, a "
             "maintenance checkpoint every quarter); `inspect` in a fresh process (wall and "
             "CPU seconds, peak RSS, the load average when it started), the page opened from "
             "disk in headless Chromium with the network blocked.", "",
             "| hyperedges | write (s) | CPU (s) | load | page (MB) | peak RSS (MB) | "
             "open (s) | draw (s) |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n, r in sorted(studio["sizes"].items(), key=lambda kv: int(kv[0])):
        lines.append(f"| {int(n):,} | {r['write_s']:.1f} | {_fmt(r.get('cpu_s'))} | "
                     f"{_fmt(r.get('load'))} | {r['mb']:.1f} | {r['peak_rss_mb']:.0f} | "
                     f"{r.get('open_s') or '–'} | {r.get('graph_s') or '–'} |")
    return lines


def _fmt(v: Any) -> str:
    return "–" if v is None else f"{v:.1f}"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--keep", type=Path, default=None,
                    help="keep the run folders and pages in this folder")
    ap.add_argument("--reuse", action="store_true",
                    help="with --keep: use the run folders a previous run left there")
    ap.add_argument("--baseline", type=Path, default=None,
                    help="a folder holding another version's hyperskill_lite package: "
                    "measure it too, alternately, and give the ratios")
    ap.add_argument("--repeat", type=int, default=1,
                    help="writes per page and version (the median is kept)")
    args = ap.parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    res = measure_all(args.sizes, args.keep, args.seed, baseline=args.baseline,
                      repeat=max(1, args.repeat), reuse=args.reuse and args.keep is not None)
    print(json.dumps(res, indent=1))
    if args.json:
        args.json.write_text(json.dumps(res, indent=1) + "\n")
    return res


if __name__ == "__main__":
    main()
