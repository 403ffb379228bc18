"""What a learner waits for: a SkillWorld run with a cold and a warm embedding cache, the
full `compare` with a warm cache, and every notebook under nbval.

- ``skillworld``: `run_episodes` of `hyperskill` on the first `episodes` gaia tasks with
  MiniLM, in this process, twice: once with an empty persistent cache (a fresh folder),
  once more with a fresh encoder (empty in-memory cache) reading that folder. The model
  is loaded before either clock starts, so the ratio is the embedding work the cache
  saves; the interpreter's imports (torch, sentence-transformers) are not in it.
- ``compare``: ``python -m hyperskill_lite compare --profile gaia --seeds 3 --methods``
  with every registered method (15: HyperSkill, its three ablations, no memory and the
  ten baselines; 40 episodes, ``--jobs`` = cores) as a user runs it, in a subprocess, first
  with an empty cache folder and then again with the same (now warm) folder, each into a
  fresh output directory (nothing resumed). Wall seconds include the imports.
- ``notebooks``: ``make notebooks``'s pytest command, timed with the user's cache as it is
  (``--notebooks``; the cache entries before and after are reported so a reader can tell
  warm from cold).

Usage: ``python benchmarks/bench_workflow.py [--episodes 60] [--no-compare]
[--notebooks] > workflow.json``; `run_all.py` calls `measure_all`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ENV = {
    "HF_HUB_OFFLINE": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


def _cache_entries(folder: Path) -> int:
    """Vectors stored in every cache file under `folder` (0 when there is none)."""
    n = 0
    for db in folder.glob("*.sqlite"):
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
                n += con.execute("SELECT COUNT(*) FROM vec").fetchone()[0]
        except sqlite3.Error:
            pass
    return n


def skillworld(episodes: int = 60, seed: int = 0) -> dict[str, Any]:
    """Seconds of one gaia `hyperskill` MiniLM run with a cold and with a warm cache."""
    from hyperskill_lite.core.config import HyperSkillConfig
    from hyperskill_lite.core.embed import MiniLMEncoder
    from hyperskill_lite.methods import make_method
    from hyperskill_lite.protocol import shuffled
    from hyperskill_lite.runner import run_episodes
    from hyperskill_lite.world import SimExecutor, SimLLM, make_tasks

    tasks = shuffled(make_tasks("gaia", seed=seed), seed=42)[:episodes]
    out: dict[str, Any] = {"episodes": len(tasks)}
    old = os.environ.get("HYPERSKILL_CACHE")
    with tempfile.TemporaryDirectory(prefix="hyperskill-cache-") as cache:
        os.environ["HYPERSKILL_CACHE"] = cache
        try:
            for label in ("cold", "warm"):
                enc = MiniLMEncoder()  # model loaded here, before the clock
                system = make_method("hyperskill", SimLLM(seed=seed), enc, HyperSkillConfig())
                with tempfile.TemporaryDirectory() as run_dir:
                    t = time.perf_counter()
                    run_episodes(system, tasks, SimExecutor(seed=seed), Path(run_dir),
                                 progress=False, durable=False)
                    out[f"{label}_s"] = time.perf_counter() - t
                info = enc.cache_info()
                out[f"{label}_encoded"] = info["encoded"]
                out[f"{label}_disk_hits"] = info["disk_hits"]
        finally:
            if old is None:
                os.environ.pop("HYPERSKILL_CACHE", None)
            else:
                os.environ["HYPERSKILL_CACHE"] = old
    out["speedup"] = out["cold_s"] / out["warm_s"]
    return out


def compare_timing(jobs: int | None = None) -> dict[str, Any]:
    """Wall seconds of the full `compare --profile gaia --seeds 3`, cold then warm cache."""
    from hyperskill_lite.methods import METHODS

    jobs = jobs or os.cpu_count() or 1
    out: dict[str, Any] = {"jobs": jobs, "methods": len(METHODS),
                           "command": "compare --profile gaia --seeds 3 --methods (all)"}
    with tempfile.TemporaryDirectory(prefix="hyperskill-cache-") as cache:
        env = {**os.environ, **ENV, "HYPERSKILL_CACHE": cache}
        for label in ("cold", "warm"):
            with tempfile.TemporaryDirectory() as run_dir:
                cmd = [sys.executable, "-m", "hyperskill_lite", "compare", "--profile", "gaia",
                       "--seeds", "3", "--jobs", str(jobs), "--out", run_dir,
                       "--methods", *METHODS]
                t = time.perf_counter()
                done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
                out[f"{label}_s"] = time.perf_counter() - t
                if done.returncode != 0:
                    raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
                out["table"] = done.stdout.strip().split("\n\n")[-1]
            out[f"{label}_cache_entries_after"] = _cache_entries(Path(cache))
    return out


def _pytest_summary(stdout: str) -> str:
    """pytest's closing counts ("16 passed in 80.1s"); under ``-qq`` (the project's ``-q``
    and this one) pytest prints none, so the count of cells checked, from the dots."""
    lines = stdout.strip().splitlines()
    for line in reversed(lines):
        if re.search(r"\d+ (passed|failed|error)", line):
            return line.strip("= ")
    progress = "".join(ln.split(" [")[0] for ln in lines if re.fullmatch(r"[.sFEx]+\s*(\[.*\])?", ln))
    return f"{progress.count('.')} cells passed, {progress.count('F') + progress.count('E')} failed"


def notebooks() -> dict[str, Any]:
    """Wall seconds of nbval over every notebook, one after the other (`make notebooks`
    runs the same check on two workers, beside the grading tests), with the user's cache
    as it is."""
    from hyperskill_lite.core.cache import cache_dir

    before = _cache_entries(cache_dir())
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
           "--nbval-current-env", "--nbval-sanitize-with", "tests/nbval_sanitize.cfg",
           "notebooks/"]
    t = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, env={**os.environ, **ENV}, capture_output=True,
                          text=True)
    seconds = time.perf_counter() - t
    return {
        "seconds": seconds,
        "passed": done.returncode == 0,
        "summary": _pytest_summary(done.stdout),
        "cache_entries_before": before,
        "cache_entries_after": _cache_entries(cache_dir()),
    }


def measure_all(episodes: int = 60, with_compare: bool = True,
                with_notebooks: bool = False, log: Any = print) -> dict[str, Any]:
    res: dict[str, Any] = {"skillworld": skillworld(episodes)}
    sw = res["skillworld"]
    log(f"SkillWorld run: cold {sw['cold_s']:.1f} s, warm {sw['warm_s']:.1f} s "
        f"({sw['speedup']:.0f}x)")
    if with_compare:
        res["compare"] = compare_timing()
        c = res["compare"]
        log(f"compare: cold {c['cold_s']:.0f} s, warm {c['warm_s']:.0f} s")
    if with_notebooks:
        res["notebooks"] = notebooks()
        log(f"notebooks: {res['notebooks']['seconds']:.0f} s ({res['notebooks']['summary']})")
    return res


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=60)
    ap.add_argument("--no-compare", action="store_true")
    ap.add_argument("--notebooks", action="store_true")
    a = ap.parse_args()
    print(json.dumps(measure_all(a.episodes, not a.no_compare, a.notebooks,
                                 log=lambda m: print(m, file=sys.stderr)), indent=1))
