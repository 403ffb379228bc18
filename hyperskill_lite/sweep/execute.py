"""Running a sweep's cells: SkillWorld cells as `python -m hyperskill_lite run ...` processes,
live cells as threads of this process, on a local pool or on Ray, with a per-backbone
concurrency limit and progress lines.

- A cell whose folder holds ``sweep-done.json`` (written after its run exited 0 with the
  same command line) is skipped; any other cell is started, and `run` itself resumes an
  unfinished one after the last finished episode (runs survive SIGKILL). A rerun of the
  sweep therefore completes what is missing and redoes nothing.
- ``local``: at most `jobs` cells at once. A SkillWorld cell (CPU-bound) is a child
  process of this one. A live cell (network-bound: it waits for its model server almost
  all the time) is a thread of this process that runs the same `run` in-process
  (`launch.prepare`, the preflight, `launch.execute`), so dozens of streams (``--jobs 64``)
  can keep one vLLM server busy without dozens of interpreters. Each stream runs its
  episodes, and so its memory operations, strictly in order (the paper's online
  protocol); streams share only the encoder (built once, before the threads start, and
  used in threads only when `encoder_thread_safe` says so; otherwise live cells fall
  back to processes) and the process: each has its own model clients, no progress bar,
  no environment changes (keys are read from the variable `key_env` names), and its
  own ``run.log`` (logs.py). A cell whose every episode failed counts as failed.
- ``ray``: each cell is a Ray task (1 CPU) that starts the same child process on whichever
  node runs it; ``address`` joins an existing cluster (``"auto"`` or ``ray://...``),
  otherwise a local Ray starts with `jobs` CPUs. The nodes need this package installed and
  the sweep's output folder on a shared file system. A task whose worker dies is retried
  by Ray; one that still fails is recorded as failed.
- The child process is killed with its parent on Linux (``PR_SET_PDEATHSIG``, pools.py).
- A failed cell never stops the others: its error (the last lines of its output, or the
  one-line error of an in-process cell, with the exit code the `run` command would
  have given) is kept in the result and in ``OUT/failures.md``.

Not here: the grid (spec.py), the process, thread and Ray pools themselves (pools.py),
tables and figures (results.py).
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyperskill_lite import launch
from hyperskill_lite.agent.tools.settings import ToolSettings
from hyperskill_lite.core.embed import encoder_by_name
from hyperskill_lite.errors import CassetteMiss, LLMError
from hyperskill_lite.launch import RunSpec
from hyperskill_lite.llm.settings import ENV_JUDGE_API_KEY
from hyperskill_lite.logs import run_log
from hyperskill_lite.runner.files import RunError
from hyperskill_lite.sweep.pools import (
    ERROR_TAIL,
    _Local,
    _Ray,
    _stop,
)
from hyperskill_lite.sweep.spec import Cell, SweepSpec
from hyperskill_lite.types import ThreadSafe

__all__ = ["CellResult", "run_cells", "run_cell_inprocess", "spec_of", "encoder_thread_safe",
           "every_episode_failed", "EXECUTORS", "DONE_FILE"]

EXECUTORS = ("local", "ray")
WORLD_MODES = ("process", "thread", "pool")
DONE_FILE = "sweep-done.json"
EXIT_ERRORED = 3
"""The `run` command's exit code for a run that finished with errored episodes: the cell
is done (its records, errored ones counted as failures, go into the tables) and its
note says how many (``OUT/failures.md``)."""
logger = logging.getLogger(__name__)


@dataclass
class CellResult:
    """What became of one cell: "done", "skipped" (finished by an earlier sweep) or
    "failed" (with `error`), its seconds and episodes; a done cell whose run finished
    with errored episodes says so in `error`."""

    cell: Cell
    status: str
    seconds: float = 0.0
    episodes: int = 0
    error: str | None = None


def _episodes(run_dir: Path) -> int:
    path = run_dir / "episodes.jsonl"
    if not path.is_file():
        return 0
    with open(path, "rb") as f:
        return sum(1 for line in f if line.strip())


def _check_keys(cell: Cell) -> None:
    """A backbone whose key_env / judge_key_env names an unset variable cannot run."""
    bb = cell.backbone
    if bb is None:
        return
    for name, what in ((bb.key_env, "key_env"), (bb.judge_key_env, "judge_key_env")):
        if name and os.environ.get(name) is None:
            raise RuntimeError(f"backbone {bb.name!r}: environment variable {name} ({what}) "
                               "is not set")


def _env_for(cell: Cell) -> dict[str, str]:
    """The environment of a cell's child process (a copy: this process's is untouched)."""
    _check_keys(cell)
    env = {**os.environ, "HF_HUB_DISABLE_PROGRESS_BARS": "1", "TOKENIZERS_PARALLELISM": "false"}
    bb = cell.backbone
    if bb is not None and bb.key_env:
        env["OPENAI_API_KEY"] = os.environ[bb.key_env]
    if bb is not None and bb.judge_key_env:
        env[ENV_JUDGE_API_KEY] = os.environ[bb.judge_key_env]
    return env


def every_episode_failed(records: list[dict[str, Any]]) -> bool:
    """True when a run has episodes and each recorded an error (a server that refused
    every call, ...): such a run exits non-zero.

    >>> every_episode_failed([{"error": "HTTP 401"}]), every_episode_failed([])
    (True, False)
    """
    return bool(records) and all(r.get("error") for r in records)


def spec_of(cell: Cell, out_root: Path, encoder: Any = None) -> Any:
    """The `launch.RunSpec` of a cell: what its `run` command line (`Cell.argv`) means.
    `encoder`: an encoder instance to run with instead of building ``cell.encoder`` by
    name (an in-process cell of compare.py; its name is what run.json records)."""
    config = dict(cell.config)
    common: dict[str, Any] = dict(
        out=Path(out_root) / cell.key, method=cell.method, seed=cell.seed,
        episodes=cell.episodes, encoder=cell.encoder if encoder is None else encoder,
        k=config.get("k"), prune_mode=config.get("prune_mode"), rho=config.get("rho"),
        progress=False, evaluation=cell.protocol)
    if cell.backbone is None:
        return RunSpec(**common, profile=str(cell.profile), phrasing=cell.phrasing,
                       judge=cell.judge)
    b, bb = cell.benchmark, cell.backbone
    assert b is not None
    return RunSpec(**common, backend="openai", model=bb.model, base_url=bb.base_url,
                   benchmark=b.name, data=Path(b.data), judge=b.judge, split=b.split,
                   settings=bb.model_settings(), tools=ToolSettings(sandbox=cell.sandbox))


def run_cell_inprocess(cell: Cell, out_root: Path, encoder: Any = None,
                       ) -> tuple[int, str, float]:
    """Run one cell in this thread (a live cell, or a SkillWorld cell of a one-job
    comparison), as its `run` command would (preflight before the
    folder exists, then the resumable run, with the cell's own ``run.log``); (exit code,
    one-line error or "", seconds). Exit codes as the command's: 2 for an error the user
    can fix (bad data, a refused key, ...), 1 when every episode failed, `EXIT_ERRORED`
    (3) when the run finished with errored episodes (an unexpected exception, or a
    process that died in one twice)."""
    t = time.perf_counter()
    try:
        _check_keys(cell)
        spec = spec_of(cell, out_root, encoder)
        parts = launch.prepare(spec)
        observed = launch.check_server(parts)  # before the folder exists
        with run_log(spec.out):
            logger.info("cell %s: %s on %d task(s)", cell.key, parts.system.name, len(parts.tasks))
            records = launch.execute(parts, observed=observed)
    except (ValueError, RunError, LLMError, CassetteMiss, RuntimeError, OSError) as exc:
        return 2, "error: " + (" ".join(str(exc).split()) or type(exc).__name__), \
            time.perf_counter() - t
    seconds = time.perf_counter() - t
    if every_episode_failed(records):
        return 1, (f"error: every episode of {cell.key} failed; the last: "
                   f"{' '.join(str(records[-1]['error']).split())[:300]}"), seconds
    errored = [r for r in records if r.get("errored")]
    if errored:  # as the `run` command: complete, the errored episodes recorded as failed
        return EXIT_ERRORED, (f"{len(errored)} of {len(records)} episode(s) errored; the "
                              f"first: {str(errored[0]['error']).split('; ')[0][:300]}"), \
            seconds
    return 0, "", seconds


def encoder_thread_safe(name: str) -> bool:
    """Whether the encoder `name` may be shared by cells running in threads: the hashing
    encoder (numpy only, no files) is; another only when its class says so
    (``thread_safe = True``: a lock around model calls and the disk cache)."""
    enc = encoder_by_name(name)  # built here, in the calling thread, once
    return type(enc).__name__ == "HashingEncoder" or (isinstance(enc, ThreadSafe)
                                                      and bool(enc.thread_safe))


def _done_marker(run_dir: Path, argv: list[str]) -> dict[str, Any] | None:
    """The cell's done marker when an earlier sweep finished it with this command line
    (its "note" says when the run had errored episodes), else None."""
    try:
        doc = json.loads((run_dir / DONE_FILE).read_text())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("argv") == argv else None


def run_cells(
    spec: SweepSpec | Sequence[Cell],
    out: Path,
    executor: str = "local",
    jobs: int | None = None,
    address: str | None = None,
    log: Callable[[str], None] | None = None,
    in_process: bool = True,
    *,
    worlds: str = "process",
    encoder: Any = None,
    on_result: Callable[[CellResult], None] | None = None,
) -> list[CellResult]:
    """Run every cell of `spec` (a sweep file's grid, or a preset list of cells such as
    compare.py's) under `out` (see the module docstring); one CellResult per cell, in
    the grid's order. `jobs`: cells at once (default: the number of cores, or, for a
    sweep of live cells only, the sum of the backbones' max_concurrent).
    `in_process=False` runs live cells as processes too. `worlds` says how SkillWorld
    cells run: "process" (default) each as its `run` command in a child process;
    "thread" in this process (a one-job comparison: no interpreter to start per cell),
    with `encoder` (an instance) when given; "pool" in `jobs` worker processes started
    once, each running cells in-process one after another (compare.py). Progress
    lines go to `log` (e.g. ``print``), else to the ``hyperskill_lite.sweep.execute``
    logger at INFO; `on_result` is called with each cell's result as it finishes
    (skipped cells first)."""
    if executor not in EXECUTORS:
        raise ValueError(f"sweep: executor must be one of {EXECUTORS}, got {executor!r}")
    if worlds not in WORLD_MODES:
        raise ValueError(f"sweep: worlds must be one of {WORLD_MODES}, got {worlds!r}")
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    cells = list(spec.cells()) if isinstance(spec, SweepSpec) else list(spec)
    backbones = {c.backbone.name: c.backbone for c in cells if c.backbone is not None}
    live_only = bool(cells) and len(backbones) > 0 and all(c.backbone for c in cells)
    default_jobs = (sum(b.max_concurrent for b in backbones.values()) if live_only
                    else os.cpu_count() or 1)
    jobs = max(1, int(jobs or default_jobs))
    threads = (executor == "local" and in_process and bool(backbones)
               and encoder_thread_safe(cells[0].encoder))
    runs = _Runs(cells, out, jobs, log if log is not None else log_info, on_result)
    local = executor == "local"
    runner: _Local | _Ray = (_Local(jobs, pool_worlds=worlds == "pool") if local
                             else _Ray(jobs, address))

    def submit(cell: Cell, env: dict[str, str]) -> Future:
        if local and cell.backbone is None and worlds == "pool":
            return runner.submit_pooled(run_cell_inprocess, cell, out)  # type: ignore[union-attr]
        if local and ((threads and cell.backbone is not None)
                      or (worlds == "thread" and cell.backbone is None)):
            return runner.submit_call(  # type: ignore[union-attr]
                run_cell_inprocess, cell, out, encoder)
        return runner.submit(cell.argv(out), env, str(Path.cwd()))

    try:
        runs.loop(submit)
    except KeyboardInterrupt:
        # child processes got the Ctrl-C too and end at once: wait for them; live cells
        # in threads would finish their episodes first: leave them to the command, which
        # exits as a kill would (their folders resume from their last episode)
        wait_for = not (threads and any(cells[i].backbone for i in runs.running.values()))
        _stop(runner, wait_for)
        raise
    except BaseException:
        _stop(runner, True)
        raise
    runner.close()
    return [runs.results[i] for i in range(len(cells))]



class _Runs:
    """The bookkeeping of one `run_cells`: which cells are done, running and pending, the
    per-backbone limits, the done markers and the progress lines."""

    def __init__(self, cells: list[Cell], out: Path, jobs: int, say: Callable[[str], None],
                 on_result: Callable[[CellResult], None] | None) -> None:
        self.cells, self.out, self.jobs, self.say = cells, out, jobs, say
        self.on_result = on_result
        self.results: dict[int, CellResult] = {}
        self.running: dict[Future, int] = {}
        self.per_backbone: dict[str, int] = {}
        self.todo: list[int] = []
        for i, cell in enumerate(cells):
            marker = _done_marker(out / cell.key, cell.argv(out))
            if marker is None:
                self.todo.append(i)
            else:
                self._result(i, CellResult(cell, "skipped", episodes=_episodes(out / cell.key),
                                           error=marker.get("note")))
        self.t0 = time.perf_counter()
        self.episodes_before = sum(_episodes(out / cells[i].key) for i in self.todo)
        self.counted: dict[int, int] = {}  # episodes of the running cells at the last count
        self.last_count = 0.0

    def _result(self, i: int, result: CellResult) -> None:
        self.results[i] = result
        if self.on_result is not None:
            self.on_result(result)

    def progress(self, extra: str = "") -> None:
        results = self.results
        done = sum(r.status in ("done", "skipped") for r in results.values())
        failed = sum(r.status == "failed" for r in results.values())
        # finished cells from their results; running cells' files read at most once a
        # second (re-reading every cell's file on every finish was O(cells^2) reads that
        # 64 threaded streams paid for under the GIL)
        now = time.perf_counter()
        if now - self.last_count >= 1.0:
            self.counted = {i: _episodes(self.out / self.cells[i].key)
                            for i in self.running.values()}
            self.last_count = now
        eps = (sum(results[i].episodes for i in self.todo if i in results)
               + sum(self.counted.get(i, 0) for i in self.running.values())
               - self.episodes_before)
        rate = eps / max(time.perf_counter() - self.t0, 1e-9)
        self.say(f"[sweep] {done}/{len(self.cells)} done, {len(self.running)} running, "
                 f"{failed} failed, {rate:.2f} episodes/s{extra}")

    def loop(self, submit: Callable[[Cell, dict[str, str]], Future]) -> None:
        """Start cells as the limits allow and record each as it finishes."""
        pending = list(self.todo)
        while pending or self.running:
            self._start(pending, submit)
            if not self.running:
                continue
            finished, _ = wait(list(self.running), return_when=FIRST_COMPLETED)
            for fut in finished:
                self._finish(fut)

    def _start(self, pending: list[int], submit: Callable[[Cell, dict[str, str]], Future],
               ) -> None:
        """Start what the global and per-backbone limits allow, in grid order."""
        for i in list(pending):
            if len(self.running) >= self.jobs:
                break
            cell = self.cells[i]
            limit = cell.backbone.max_concurrent if cell.backbone else self.jobs
            if self.per_backbone.get(cell.backbone_name, 0) >= limit:
                continue
            pending.remove(i)
            try:
                env = _env_for(cell)
            except RuntimeError as exc:
                self._result(i, CellResult(cell, "failed", error=str(exc)))
                self.progress(f" | {cell.key}: failed ({exc})")
                continue
            self.running[submit(cell, env)] = i
            self.per_backbone[cell.backbone_name] = self.per_backbone.get(cell.backbone_name,
                                                                          0) + 1

    def _finish(self, fut: Future) -> None:
        """Record a finished cell: its done marker, or its failure and output's tail."""
        i = self.running.pop(fut)
        cell = self.cells[i]
        self.per_backbone[cell.backbone_name] -= 1
        run_dir = self.out / cell.key
        try:
            rc, tail, seconds = fut.result()
        except Exception as exc:  # a Ray task that failed after its retries
            rc, tail, seconds = -1, f"{type(exc).__name__}: {exc}"[-ERROR_TAIL:], 0.0
        if rc in (0, EXIT_ERRORED):
            note = _last_line(tail) if rc == EXIT_ERRORED else None
            (run_dir / DONE_FILE).write_text(json.dumps(
                {"argv": cell.argv(self.out), "seconds": seconds, "note": note}) + "\n")
            result = CellResult(cell, "done", seconds, _episodes(run_dir), note)
        else:
            error = f"{_last_line(tail)} (exit code {rc})"
            result = CellResult(cell, "failed", seconds, _episodes(run_dir), error)
            (self.out / "logs").mkdir(exist_ok=True)
            (self.out / "logs" / (cell.key.replace("/", "__") + ".log")).write_text(tail)
        self._result(i, result)
        self.progress(f" | {cell.key}: {result.status}")


def _last_line(tail: str) -> str:
    last = [ln for ln in tail.strip().splitlines() if ln.strip()]
    return last[-1] if last else "no output"


def log_info(line: str) -> None:
    """The default progress sink: the module's logger at INFO."""
    logger.info("%s", line)
