"""The pools a sweep's cells run on (execute.py decides which cell goes where):

- `run_cell_process`: one cell's `run` command as a child process of this one, killed
  with its parent on Linux (``PR_SET_PDEATHSIG``), so a killed worker never leaves a run
  writing into a folder a retry is about to use; both executors use it.
- ``local`` (`_Local`): a thread pool that starts those child processes or runs cells
  in-process (live cells: threads of this process), and, for SkillWorld cells of a
  comparison, worker processes started once that run cells in-process one after
  another, with Ctrl-C handled by the parent alone (`_sigint_held`, `_stop_pool`).
- ``ray`` (`_Ray`): each cell a Ray task (1 CPU) that runs `run_cell_process` on whichever
  node runs it; `start_ray` starts or joins the cluster, trying again when a loaded
  machine's node is slow to register.

Not here: which cells run, their limits, done markers and progress (execute.py).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from hyperskill_lite.sweep.spec import SweepError

__all__ = ["run_cell_process", "start_ray", "ERROR_TAIL", "RAY_START_ATTEMPTS"]

ERROR_TAIL = 1500
"""Characters of a cell's output kept as its error (the last ones)."""
logger = logging.getLogger(__name__)


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


class _Local:
    """The local executor: a thread pool that runs `run` child processes or in-process
    cells, and, for ``worlds="pool"``, worker processes that each run SkillWorld cells
    in-process one after another (an interpreter started once per worker, not per cell)."""

    def __init__(self, jobs: int, pool_worlds: bool = False) -> None:
        self.pool = ThreadPoolExecutor(jobs, thread_name_prefix="cell")
        self.procs: ProcessPoolExecutor | None = None
        if pool_worlds:
            threads = max(1, (os.cpu_count() or 1) // jobs)
            self.procs = ProcessPoolExecutor(
                jobs, mp_context=multiprocessing.get_context("spawn"),  # torch: no fork
                initializer=_init_worker, initargs=(threads,))

    def submit(self, argv: list[str], env: dict[str, str], cwd: str) -> Future:
        return self.pool.submit(run_cell_process, argv, env, cwd)

    def submit_call(self, fn: Callable[..., Any], *args: Any) -> Future:
        """`fn(*args)` in a thread of this process (an in-process cell)."""
        return self.pool.submit(fn, *args)

    def submit_pooled(self, fn: Callable[..., Any], *args: Any) -> Future:
        """`fn(*args)` in one of the worker processes (`fn` and `args` pickled)."""
        assert self.procs is not None
        with _sigint_held():  # a worker starts with Ctrl-C ignored (from exec on)
            return self.procs.submit(fn, *args)

    def close(self, wait: bool = True) -> None:
        self.pool.shutdown(wait=wait, cancel_futures=True)
        if self.procs is not None:
            self.procs.shutdown()

    def stop(self, wait: bool = True) -> None:
        """Close after Ctrl-C or a failure: the pooled workers are stopped now (their
        runs resume from their folders)."""
        if self.procs is not None:
            _stop_pool(self.procs)
            self.procs = None
        self.close(wait)


@contextmanager
def _sigint_held() -> Iterator[None]:
    """Start worker processes with SIGINT ignored from their first instruction: while
    the block runs SIGINT is blocked and ignored here (children inherit both across
    exec, and a Python started with SIGINT ignored keeps ignoring it, so a Ctrl-C during
    a worker's start-up prints no traceback); a Ctrl-C that came meanwhile stays pending
    and is raised here as KeyboardInterrupt when the block ends."""
    main = threading.current_thread() is threading.main_thread()
    if not main or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool's workers now and release what the pool holds, so no "leaked
    semaphore" warning follows the one line of a Ctrl-C. Runs with Ctrl-C held: a second
    one cannot cut it short."""
    with _sigint_held():
        workers = list(getattr(pool, "_processes", {}).values())
        for proc in workers:
            proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
        for proc in workers:
            proc.join(timeout=10)


def _init_worker(threads: int) -> None:
    # Ctrl-C goes to the whole process group: the parent stops the pool (and says so in
    # one line); a worker that also raised KeyboardInterrupt would print a traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(threads)


RAY_START_ATTEMPTS = 3
"""Ray gives a starting node 30 s (fixed in Ray) to register; a loaded machine can need
more: the start is tried this many times before the sweep gives up with one line."""


def start_ray(ray: Any, attempts: int = RAY_START_ATTEMPTS, **kwargs: Any) -> Any:
    """``ray.init(**kwargs)`` (dashboard off, workers' logs not forwarded), tried again
    when the node times out during startup; its context. Raises `SweepError` when it
    never started."""
    kwargs = {"include_dashboard": False, "log_to_driver": False, **kwargs}
    last: BaseException | None = None
    for attempt in range(attempts):
        try:
            return ray.init(**kwargs)
        except Exception as exc:  # noqa: BLE001 - Ray raises a bare Exception on timeout
            if "timed out during startup" not in str(exc):
                raise
            last = exc
            logger.warning("Ray's node did not start in time (attempt %d of %d); trying "
                           "again", attempt + 1, attempts)
            ray.shutdown()
    raise SweepError(f"Ray did not start after {attempts} attempts ({last}); the machine may "
                     "be overloaded: try again, or use --executor local")


class _Ray:
    def __init__(self, jobs: int, address: str | None) -> None:
        try:
            import ray
        except ImportError:
            raise SweepError(
                "the ray executor needs Ray: pip install 'hyperskill-lite[scale]' "
                "(or pip install ray)"
            ) from None
        self.ray = ray
        self.started = not ray.is_initialized()
        if self.started:
            if address:
                start_ray(ray, address=address)
            else:
                start_ray(ray, num_cpus=jobs)
        self.remote = ray.remote(num_cpus=1, max_retries=2)(run_cell_process)
        self.pool = ThreadPoolExecutor(max(jobs, 1))  # waits on Ray refs without blocking

    def submit(self, argv: list[str], env: dict[str, str], cwd: str) -> Future:
        ref = self.remote.remote(argv, env, cwd)
        return self.pool.submit(self.ray.get, ref)

    def close(self, wait: bool = True) -> None:
        self.pool.shutdown(wait=wait, cancel_futures=True)
        if self.started:
            self.ray.shutdown()



def _stop(runner: _Local | _Ray, wait: bool) -> None:
    """Close the executor after Ctrl-C or a failure (pooled workers stopped now)."""
    if isinstance(runner, _Local):
        runner.stop(wait)
    else:
        runner.close(wait)
