"""Running a sweep's cells: each one `python -m hyperskill_lite run ...` in its own process,
on a local pool or on Ray, with a per-backbone concurrency limit and progress lines.

- A cell whose folder holds ``sweep-done.json`` (written after its run exited 0 with the
  same command line) is skipped; any other cell is started, and `run` itself resumes an
  unfinished one after the last finished episode (runs survive SIGKILL). A rerun of the
  sweep therefore completes what is missing and redoes nothing.
- ``local``: at most `jobs` cells at once, each a child process of this one.
- ``ray``: each cell is a Ray task (1 CPU) that starts the same child process on whichever
  node runs it; ``address`` joins an existing cluster (``"auto"`` or ``ray://...``),
  otherwise a local Ray starts with `jobs` CPUs. The nodes need this package installed and
  the sweep's output folder on a shared file system. A task whose worker dies is retried
  by Ray; one that still fails is recorded as failed.
- The child process is killed with its parent on Linux (``PR_SET_PDEATHSIG``), so a killed
  worker never leaves a run writing into a folder a retry is about to use.
- A failed cell never stops the others: its error (the last lines of its output) is kept
  in the result and in ``OUT/failures.md``.

Not here: the grid (spec.py), tables and figures (results.py).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyperskill_lite.sweep.spec import Cell, SweepSpec

__all__ = ["CellResult", "run_cells", "EXECUTORS", "DONE_FILE"]

EXECUTORS = ("local", "ray")
DONE_FILE = "sweep-done.json"
ERROR_TAIL = 1500


@dataclass
class CellResult:
    """What became of one cell: "done", "skipped" (finished by an earlier sweep) or
    "failed" (with `error`), its seconds and episodes."""

    cell: Cell
    status: str
    seconds: float = 0.0
    episodes: int = 0
    error: str | None = None


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def run_cell_process(argv: list[str], env: dict[str, str], cwd: str) -> tuple[int, str, float]:
    """Run one cell's `run` command in a child process; (exit code, output tail, seconds).
    Used by both executors (on a Ray node it runs inside the Ray task)."""
    t = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "hyperskill_lite", *argv], cwd=cwd, env=env,
        capture_output=True, text=True,
        preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
    )
    tail = (done.stdout + done.stderr)[-ERROR_TAIL:]
    return done.returncode, tail, time.perf_counter() - t


def _episodes(run_dir: Path) -> int:
    path = run_dir / "episodes.jsonl"
    if not path.is_file():
        return 0
    with open(path, "rb") as f:
        return sum(1 for line in f if line.strip())


def _env_for(cell: Cell) -> dict[str, str]:
    env = {**os.environ, "HF_HUB_DISABLE_PROGRESS_BARS": "1", "TOKENIZERS_PARALLELISM": "false"}
    if cell.backbone is not None and cell.backbone.key_env:
        key = os.environ.get(cell.backbone.key_env)
        if key is None:
            raise RuntimeError(
                f"backbone {cell.backbone.name!r}: environment variable "
                f"{cell.backbone.key_env} (key_env) is not set"
            )
        env["OPENAI_API_KEY"] = key
    return env


def _done_marker(run_dir: Path, argv: list[str]) -> bool:
    try:
        doc = json.loads((run_dir / DONE_FILE).read_text())
    except (OSError, ValueError):
        return False
    return doc.get("argv") == argv


class _Local:
    def __init__(self, jobs: int) -> None:
        self.pool = ThreadPoolExecutor(jobs)

    def submit(self, argv: list[str], env: dict[str, str], cwd: str) -> Future:
        return self.pool.submit(run_cell_process, argv, env, cwd)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class _Ray:
    def __init__(self, jobs: int, address: str | None) -> None:
        try:
            import ray
        except ImportError:
            raise RuntimeError(
                "the ray executor needs Ray: pip install 'hyperskill-lite[scale]' "
                "(or pip install ray)"
            ) from None
        self.ray = ray
        self.started = not ray.is_initialized()
        if self.started:
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if address:
                ray.init(address=address, **kwargs)
            else:
                ray.init(num_cpus=jobs, **kwargs)
        self.remote = ray.remote(num_cpus=1, max_retries=2)(run_cell_process)
        self.pool = ThreadPoolExecutor(max(jobs, 1))  # waits on Ray refs without blocking

    def submit(self, argv: list[str], env: dict[str, str], cwd: str) -> Future:
        ref = self.remote.remote(argv, env, cwd)
        return self.pool.submit(self.ray.get, ref)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
        if self.started:
            self.ray.shutdown()


def run_cells(
    spec: SweepSpec,
    out: Path,
    executor: str = "local",
    jobs: int | None = None,
    address: str | None = None,
    log: Callable[[str], None] | None = print,
) -> list[CellResult]:
    """Run every cell of `spec` under `out` (see the module docstring); one CellResult per
    cell, in the grid's order. `jobs`: cells at once (default: the number of cores)."""
    if executor not in EXECUTORS:
        raise ValueError(f"sweep: executor must be one of {EXECUTORS}, got {executor!r}")
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    jobs = max(1, int(jobs or os.cpu_count() or 1))
    cells = list(spec.cells())
    results: dict[int, CellResult] = {}
    todo: list[int] = []
    for i, cell in enumerate(cells):
        argv = cell.argv(out)
        if _done_marker(out / cell.key, argv):
            results[i] = CellResult(cell, "skipped", episodes=_episodes(out / cell.key))
        else:
            todo.append(i)
    t0 = time.perf_counter()
    episodes_before = sum(_episodes(out / cells[i].key) for i in todo)

    def progress(extra: str = "") -> None:
        if log is None:
            return
        done = sum(r.status in ("done", "skipped") for r in results.values())
        failed = sum(r.status == "failed" for r in results.values())
        eps = sum(_episodes(out / cells[i].key) for i in todo) - episodes_before
        rate = eps / max(time.perf_counter() - t0, 1e-9)
        log(f"[sweep] {done}/{len(cells)} done, {len(running)} running, {failed} failed, "
            f"{rate:.2f} episodes/s{extra}")

    runner: _Local | _Ray = _Local(jobs) if executor == "local" else _Ray(jobs, address)
    running: dict[Future, int] = {}
    per_backbone: dict[str, int] = {}
    pending = list(todo)
    try:
        while pending or running:
            # start what the global and per-backbone limits allow, in grid order
            for i in list(pending):
                if len(running) >= jobs:
                    break
                cell = cells[i]
                limit = cell.backbone.max_concurrent if cell.backbone else jobs
                if per_backbone.get(cell.backbone_name, 0) >= limit:
                    continue
                pending.remove(i)
                try:
                    env = _env_for(cell)
                except RuntimeError as exc:
                    results[i] = CellResult(cell, "failed", error=str(exc))
                    progress(f" | {cell.key}: failed ({exc})")
                    continue
                fut = runner.submit(cell.argv(out), env, str(Path.cwd()))
                running[fut] = i
                per_backbone[cell.backbone_name] = per_backbone.get(cell.backbone_name, 0) + 1
            if not running:
                continue
            finished, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for fut in finished:
                i = running.pop(fut)
                cell = cells[i]
                per_backbone[cell.backbone_name] -= 1
                run_dir = out / cell.key
                try:
                    rc, tail, seconds = fut.result()
                except Exception as exc:  # a Ray task that failed after its retries
                    rc, tail, seconds = -1, f"{type(exc).__name__}: {exc}"[-ERROR_TAIL:], 0.0
                if rc == 0:
                    (run_dir / DONE_FILE).write_text(
                        json.dumps({"argv": cell.argv(out), "seconds": seconds}) + "\n")
                    results[i] = CellResult(cell, "done", seconds, _episodes(run_dir))
                else:
                    last = [ln for ln in tail.strip().splitlines() if ln.strip()]
                    error = f"{last[-1] if last else 'no output'} (exit code {rc})"
                    results[i] = CellResult(cell, "failed", seconds, _episodes(run_dir), error)
                    (out / "logs").mkdir(exist_ok=True)
                    (out / "logs" / (cell.key.replace("/", "__") + ".log")).write_text(tail)
                progress(f" | {cell.key}: {results[i].status}")
    finally:
        runner.close()
    return [results[i] for i in range(len(cells))]
