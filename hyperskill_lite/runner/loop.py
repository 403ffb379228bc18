"""The episode loop: retrieve, act, judge, learn, maintain — recorded and resumable.

`run_episodes` drives any `MemorySystem` with any `Executor` over a task list (README,
"Runs, records and the evaluation protocol"). Each finished episode becomes one JSONL
line in ``OUT/episodes.jsonl``, written and fsynced before the next episode starts. Before that line is written, the whole state
(memory + progress) is saved atomically to ``OUT/state``, so a run killed at any point
resumes after its last finished episode and ends in exactly the state an uninterrupted
run reaches. The memory is also checkpointed at each maintenance
(``OUT/checkpoints/maint-NNNN``) and where a frozen evaluated part starts
(``OUT/checkpoints/frozen-NNNN``).

The crash-safety rule: the state directory is replaced by rename only; the record of
episode i is stored inside the state that includes episode i, so if the process dies
after the state is saved but before the line is appended, resuming appends it.

One episode never ends the run (episode.py): an exception from the memory, the executor
or a judge fails that episode only; its record says so (``errored``), the memory goes
back to the state saved before the episode, and the run goes on. An episode during
which the process itself died (kill -9, the OOM killer, a crash in native code) is
retried by a rerun once; when the process died `CRASH_LIMIT` times in it, the rerun
records it as crashed and goes on (``OUT/inflight.json``), so resuming never replays a
crash forever. Ctrl-C is the user's choice and is never counted as a crash. A storage
failure (full disk, quota, permissions) stops the run with a `StorageError` that names
what is kept; the state stays the last one saved, whole.

A run folder is read and written without following a link out of it: a resumed folder
holding such a link (its records, run.json, state or a checkpoint leading elsewhere) is
refused before anything is read, with one line naming the link (core/confined.py), and
records are appended without following one.

The evaluation protocol (protocol.py) is the paper's by default: every task retrieves
from and updates the memory, and maintenance runs every ceil(0.1 N) tasks. In a frozen
evaluated part the memory is retrieved from but never updated (no ``end``) nor
maintained, so its files stay byte for byte what they were when the part began.

Not here: building methods, worlds or models (launch.py, cli/), ordering the tasks
(`EvalProtocol.arrange`), plotting (plots/).
"""

from __future__ import annotations

import json
import logging
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hyperskill_lite.core.config import maintenance_period
from hyperskill_lite.core.confined import check_tree
from hyperskill_lite.core.embed import setup_seconds
from hyperskill_lite.protocol import EvalProtocol
from hyperskill_lite.runner.episode import (
    ERRORS_RECORDED,
    crashed_record,
    fatal,
    is_storage_error,
    one_episode,
)
from hyperskill_lite.runner.files import (
    CHECKPOINTS,
    RESTORE_COMMAND,
    RunError,
    StorageError,
    append_record,
    check_run_file,
    find_state,
    kept_text,
    read_records,
    recovery_hint,
    save_state,
    settings_problem,
)
from hyperskill_lite.runner.health import (
    check_index,
    health_check,
    maintenance_record,
    write_health,
)
from hyperskill_lite.runner.identity import identity_problem, stored_identity, system_identity
from hyperskill_lite.runner.inflight import (
    CRASH_LIMIT,
    clear_inflight,
    crash_point,
    inflight_attempts,
    mark_inflight,
)
from hyperskill_lite.runner.record import EpisodeRecord
from hyperskill_lite.types import (
    ExcludesOwnTask,
    Executor,
    Judge,
    MemorySystem,
    Task,
    usage_totals_of,
)

__all__ = ["run_episodes", "run_settings", "resume_problem"]

log = logging.getLogger("hyperskill_lite.runner")


def _apply_protocol(system: MemorySystem, protocol: EvalProtocol) -> None:
    """Tell the system what the protocol asks of its retrieval (own-task exclusion)."""
    if isinstance(system, ExcludesOwnTask):
        system.exclude_self = protocol.exclude_self
    elif protocol.exclude_self and system.stats():  # a memory that stores nothing is exempt
        raise ValueError(f"{system.name} cannot leave a task's own earlier memories out of "
                         "its retrieval (--exclude-self); the HyperSkill methods can")


def run_episodes(
    system: MemorySystem,
    tasks: Sequence[Task],
    executor: Executor,
    out: Path | str,
    *,
    maintain_every: int | None = None,
    judge: Judge | None = None,
    learn_judge: Judge | None = None,
    run_info: dict[str, Any] | None = None,
    observed: dict[str, Any] | None = None,
    progress: bool = True,
    usage: Callable[[], dict[str, int]] | None = None,
    durable: bool = True,
    protocol: EvalProtocol | None = None,
) -> list[dict[str, Any]]:
    """Run `tasks` in the given order, resuming from `out` if it holds part of this run.

    Parameters
    ----------
    maintain_every : maintenance after every this many finished tasks, 0 for none;
        default ceil(0.1 N) with N = len(tasks) / passes, the tasks of one pass
        (Appendix A); pass ``config.maintain_every(N)`` for another ratio. No maintenance
        runs in a frozen evaluated part.
    judge : decides the outcome r_i that is reported (SR); default the executor's own
        `episode.success`. Its verdict is the record's "judge" and "success".
    learn_judge : decides the outcome the memory learns from (the paper's self-judge
        study, Appendix "Robustness Analysis"); default the same as `judge`. It judges a
        copy of the episode, so the scoring verdict is never overwritten: the record
        keeps both, "success"/"judge" (scored) and "learned_success"/"learn_judge"
        (learned from). Holding `judge` fixed across a GT-judge and a self-judge run is
        what makes their SRs comparable (`compare.retention`).
    run_info : the run's arguments, stored in OUT/run.json; a resume with different
        arguments is refused.
    observed : what this invocation found about the model server (preflight, probes),
        appended to run.json's ``observed`` list; never compared on resume.
    usage : optional callable giving cumulative model usage counters (``Usage.totals``:
        calls, prompt, completion, agent, memory and judge tokens) for per-episode
        accounting; default
        ``system.llm.usage.totals`` when the system's model keeps one (PromptedLLM's
        real counts, SimLLM's estimates from the real prompts).
    durable : True (default) snapshots the whole state after every episode and fsyncs
        every write, so a run killed at any moment resumes exactly. False writes the
        records (unsynced) and the checkpoints only: a throwaway run (notebook
        explorations, knob sweeps) that is many times faster on a busy disk and cannot
        be resumed.
    protocol : the evaluation protocol (protocol.py; default the paper's). `tasks` must
        already be arranged by it (`EvalProtocol.arrange`); here it decides which
        episodes the memory learns from (none in a frozen evaluated part), whether a task
        may retrieve its own earlier hyperedges, and is written to run.json under
        "protocol". Records of a split run carry "phase" ("learn" or "eval").

    Returns
    -------
    list of dict
        The records of all episodes (earlier ones read back on resume). Each record
        also says how many context items the memory injected ("injected"), what its
        retrieval did when it fell back or excluded something ("retrieval"), and,
        once, after the first 10 % of the tasks, a "health_warning" when a memory
        method had stored nothing (logged on the "hyperskill_lite.runner" logger too).
    """
    protocol = protocol if protocol is not None else EvalProtocol()
    _apply_protocol(system, protocol)
    out = Path(out)
    n = len(tasks)
    if n == 0:
        raise ValueError("run_episodes: the task list is empty; nothing to run")
    if usage is None:
        usage = usage_totals_of(system)
    period = _period(n, maintain_every, protocol)
    try:
        return _run(system, tasks, executor, out, period, judge, learn_judge,
                    run_settings(tasks, period, protocol, run_info), observed, progress,
                    usage, durable, protocol)
    except OSError as exc:
        if not is_storage_error(exc):
            raise
        raise _storage_error(exc, out) from None


def _storage_error(exc: OSError, out: Path) -> StorageError:
    """A full disk or a refused write while writing run `out`, as one line saying what was
    kept and how to resume."""
    where = exc.filename or out
    return StorageError(f"{where}: {exc.strerror or exc} while writing the run; "
                        f"{kept_text(out)}; free some space (or fix the permissions) and "
                        "rerun the same command to resume", exc.errno, exc.filename)


def _period(n: int, maintain_every: int | None, protocol: EvalProtocol) -> int:
    per_pass = max(1, n // protocol.passes)
    period = maintenance_period(per_pass) if maintain_every is None else int(maintain_every)
    if period < 0:
        raise ValueError(f"maintain_every must be >= 0 (0: never), got {maintain_every}")
    return period


def run_settings(tasks: Sequence[Task], maintain_every: int | None = None,
                 protocol: EvalProtocol | None = None,
                 run_info: dict[str, Any] | None = None) -> dict[str, Any]:
    """The settings `run_episodes` writes to (or checks against) ``OUT/run.json``;
    `maintain_every` None means the default period for these tasks. A command line can
    check a folder with them before it prints anything (`files.settings_problem`)."""
    protocol = protocol if protocol is not None else EvalProtocol()
    period = _period(len(tasks), maintain_every, protocol)
    return {"n_tasks": len(tasks), "task_ids_head": [t.id for t in tasks[:5]],
            "maintain_every": period, "protocol": protocol.to_dict(), **(run_info or {})}


def resume_problem(out: Path | str, settings: dict[str, Any],
                   system: MemorySystem) -> str | None:
    """Why folder `out` cannot go on with the run `settings` (from `run_settings`) and
    `system` describe: another run's settings in its run.json, or a saved state holding
    another run's memory; None when it can (or holds nothing yet). Reads only, so a
    command can refuse before it prints anything about the folder. A folder holding a
    link that leads out of it is refused with `LinkOutside` naming the link (a
    PermissionError: nothing of the run is read or written through it)."""
    out = Path(out)
    if out.is_dir():
        check_tree(out)
    problem = settings_problem(out, settings)
    if problem is not None:
        return problem
    state = find_state(out) if out.is_dir() else None
    if state is None:
        return None
    mismatch = identity_problem(stored_identity(state), system_identity(system))
    return None if mismatch is None else _identity_text(out, mismatch)


def _identity_text(out: Path, mismatch: str) -> str:
    return (f"{out}: the saved state is not this run's memory ({mismatch}); it was copied or "
            f"restored from another run; put back this run's own state "
            f"(`{RESTORE_COMMAND} {out}` restores its last checkpoint) or start afresh with "
            "a new --out")


def _resume(system: MemorySystem, out: Path, records: list[dict[str, Any]]) -> int:
    """Load the saved state (if any) into `system`; the index of the next episode."""
    state = find_state(out)
    if state is None:
        if records:
            raise RunError(f"{out}: {len(records)} records but no saved state; cannot resume; "
                           f"{recovery_hint(out, len(records))}")
        return 0
    prog = json.loads((state / "progress.json").read_text())
    start = prog["next_index"]
    if len(records) == start - 1:  # died between saving the state and appending its line
        append_record(out, prog["record"])
        records.append(prog["record"])
    if len(records) != start:
        raise RunError(f"{out}: {len(records)} records but the saved state is after "
                       f"episode {start}; the directory was modified by hand; "
                       f"{recovery_hint(out, min(len(records), start))}")
    problem = identity_problem(stored_identity(state), system_identity(system))
    if problem is not None:
        raise RunError(_identity_text(out, problem))
    _load(system, state, out, start)
    return start


def _load(system: MemorySystem, state: Path, out: Path, start: int) -> None:
    try:
        system.load(state / "memory")
    except (ValueError, OSError) as exc:
        if is_storage_error(exc):
            raise
        raise RunError(f"{out}: the saved state's memory cannot be read ({exc}); "
                       f"{recovery_hint(out, start)}") from None


def _run(system, tasks, executor, out, period, judge, learn_judge, settings, observed,
         progress, usage, durable, protocol) -> list[dict[str, Any]]:
    out.mkdir(parents=True, exist_ok=True)
    check_tree(out)  # a resumed folder: no link in it leads out (core/confined.py)
    n = len(tasks)
    check_run_file(out, settings, observed)
    records = read_records(out)
    start = _resume(system, out, records)
    if durable and start == 0 and find_state(out) is None:  # what a failed episode 1 returns to
        save_state(system, out, {"next_index": 0, "record": None})
    frozen_from = protocol.eval_from if protocol.frozen else None
    check_at = check_index(n, frozen_from)
    bar = _progress_bar(n, start, system, records) if progress else None
    try:
        for i in range(start, n):
            record = _episode(i, tasks[i], system, executor, judge, learn_judge, usage,
                              out, durable, protocol)
            if protocol.eval_from is not None:
                record.phase = "eval" if protocol.in_eval(i) else "learn"
            checkpoint = None
            if period and (i + 1) % period == 0 and not protocol.is_frozen(i):
                checkpoint = _maintain(system, record, out, i)
            record.sizes = system.stats()
            if i == check_at:
                warning = health_check([*records, record.to_dict()], record.sizes, system.name)
                if warning is not None:
                    record.health_warning = warning
                    log.warning("%s (episode %d of %d, %s)", warning["message"], i + 1, n, out)
            line = record.to_dict()  # the record as written, in format RECORD_VERSION
            crash_point("before_state", i)
            if durable:
                save_state(system, out, {"next_index": i + 1, "record": line}, checkpoint)
            crash_point("after_state", i)
            append_record(out, line, durable)
            crash_point("after_record", i)
            records.append(line)
            if bar is not None:
                _update_bar(bar, records, line)
        if durable:
            clear_inflight(out)
        write_health(out, records)
    except BaseException:  # Ctrl-C, a full disk, a fatal error: the process did not die in
        if durable:  # the episode, so it is not counted as a crash
            clear_inflight(out)
        raise
    finally:
        if bar is not None:
            bar.close()
    return records


def _episode(i, task, system, executor, judge, learn_judge, usage, out, durable,
             protocol) -> EpisodeRecord:
    """Episode `i`'s record: run it, or record it as crashed when the process died
    `CRASH_LIMIT` times running it (files.mark_inflight)."""
    frozen = protocol.is_frozen(i)
    if durable:
        attempts = inflight_attempts(out, i)
        if attempts >= CRASH_LIMIT:
            record = crashed_record(i, task, attempts)
            log.warning("episode %d (task %s): %s", i, task.id, record.error)
            return record
        mark_inflight(out, i, task.id, attempts + 1)
    if frozen and i == protocol.eval_from:  # the memory the evaluated part reads
        ck = out / CHECKPOINTS / f"frozen-{i:04d}"
        shutil.rmtree(ck, ignore_errors=True)
        system.save(ck)
    record, touched = one_episode(i, task, system, executor, judge, learn_judge, usage,
                                  learn=not frozen)
    log.info("episode index=%d task=%s success=%s steps=%d calls=%d tokens=%d "
             "seconds=%.2f error=%s", i, task.id, record.success, record.steps,
             record.calls, record.tokens, record.seconds, record.error)
    if touched:
        _roll_back(system, out, i, record, durable)
    return record


def _roll_back(system, out: Path, i: int, record: EpisodeRecord, durable: bool) -> None:
    """After `begin`/`end` failed halfway: put the memory back to the last saved state
    (the one before this episode), so an errored episode leaves no half-made update. A
    run that saves no state (``durable=False``) cannot, and says so in the record."""
    state = find_state(out) if durable else None
    if state is None:
        record.error = f"{record.error}; the memory may keep part of this episode's update"
        return
    system.load(state / "memory")


def _maintain(system: MemorySystem, record: EpisodeRecord, out: Path, i: int) -> Path:
    """One maintenance cycle after episode i, recorded on its record and checkpointed;
    the checkpoint's folder (the memory as the state saved next holds it)."""
    t0, setup0 = time.perf_counter(), setup_seconds()
    try:
        done = maintenance_record(system.maintain())
    except Exception as exc:  # noqa: BLE001 - e.g. LLM-Merge failed: keep what was done
        if fatal(exc):
            raise
        text = f"maintain: {exc}" if isinstance(exc, ERRORS_RECORDED) else \
            f"maintain: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
        done = {"error": text}
        if not isinstance(exc, ERRORS_RECORDED):
            log.warning("episode %d: %s; recorded, the run goes on", i, text)
    done["seconds"] = round(max(0.0, time.perf_counter() - t0 - (setup_seconds() - setup0)), 6)
    record.maintenance = done
    ck = out / CHECKPOINTS / f"maint-{i + 1:04d}"
    shutil.rmtree(ck, ignore_errors=True)
    system.save(ck)
    return ck


def _progress_bar(n, start, system, records):
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    bar = tqdm(total=n, initial=start, desc=system.name, unit="ep", leave=False)
    return bar


def _update_bar(bar, records, record) -> None:
    sr = 100.0 * sum(r["success"] for r in records) / len(records)
    size = sum(v for k, v in record["sizes"].items() if k != "incidences")
    bar.set_postfix(SR=f"{sr:.1f}%", mem=size, refresh=False)
    bar.update(1)
