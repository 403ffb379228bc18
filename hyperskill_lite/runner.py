"""The episode loop: retrieve, act, judge, learn, maintain — recorded and resumable.

`run_episodes` drives any `MemorySystem` with any `Executor` over a task list (DESIGN
§6). Each finished episode becomes one JSONL line in ``OUT/episodes.jsonl``, written and
fsynced before the next episode starts. Before that line is written, the whole state
(memory + progress) is saved atomically to ``OUT/state``, so a run killed at any point
resumes after its last finished episode and ends in exactly the state an uninterrupted
run reaches. The memory is also checkpointed at each maintenance
(``OUT/checkpoints/maint-NNNN``).

The crash-safety rule: the state directory is replaced by rename only; the record of
episode i is stored inside the state that includes episode i, so if the process dies
after the state is saved but before the line is appended, resuming appends it.

Not here: building methods, worlds or models (cli.py), plotting (plots/).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hyperskill_lite.agent.llm import LLMError
from hyperskill_lite.agent.tokens import count_tokens
from hyperskill_lite.core.config import maintenance_period
from hyperskill_lite.core.dirlock import fsync_dir
from hyperskill_lite.core.embed import setup_seconds
from hyperskill_lite.types import Episode, Executor, Judge, MemoryContext, MemorySystem, Task

__all__ = [
    "RunError",
    "ERRORS_RECORDED",
    "shuffled",
    "run_episodes",
    "read_records",
    "summarize",
    "summary_table",
]

RECORDS = "episodes.jsonl"
STATE = "state"
RUN_FILE = "run.json"
FORMAT = "hyperskill_lite.run/1"


def _crash_point(where: str, index: int) -> None:
    """Fault injection for the crash tests: with HYPERSKILL_CRASH_AT="<where>:<index>"
    the process SIGKILLs itself there (points: before_state, after_state, after_record)."""
    spec = os.environ.get("HYPERSKILL_CRASH_AT")
    if spec and spec == f"{where}:{index}":
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


class RunError(RuntimeError):
    """A run directory that cannot be resumed (different arguments, inconsistent files)."""


ERRORS_RECORDED: tuple[type[BaseException], ...] = (LLMError,)
"""Exception types that fail one episode (recorded in its `error` field) instead of the
run: model errors after retries and re-asks. A cassette miss is not among them: a replay
that diverges stops loudly."""


def shuffled(tasks: Sequence[Task], seed: int = 42) -> list[Task]:
    """The paper's fixed task order: a permutation with seed 42, shared by all methods.

    >>> [t.id for t in shuffled([Task(str(i), "q") for i in range(5)])]
    ['4', '2', '3', '1', '0']
    """
    order = np.random.default_rng(seed).permutation(len(tasks))
    return [tasks[i] for i in order]


def _fsync_write(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def read_records(out: Path) -> list[dict[str, Any]]:
    """The finished episodes of a run directory, in order.

    A final line cut off by a crash (no newline, not JSON) is dropped and truncated away;
    a corrupt line elsewhere raises `RunError` naming the file and line.
    """
    path = Path(out) / RECORDS
    if not path.exists():
        return []
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    records, good_bytes = [], 0
    for i, line in enumerate(lines):
        if not line.strip():
            good_bytes += len(line) + 1
            continue
        try:
            records.append(json.loads(line))
            good_bytes += len(line) + 1
        except json.JSONDecodeError as exc:
            if i == len(lines) - 1:  # partial last line: the write the crash interrupted
                with open(path, "r+b") as f:
                    f.truncate(min(good_bytes, len(raw)))
                break
            raise RunError(f"{path}: line {i + 1} is not valid JSON ({exc.msg})") from exc
    for j, rec in enumerate(records):
        if rec.get("index") != j:
            raise RunError(f"{path}: line {j + 1} has index {rec.get('index')}, expected {j}")
    return records


def _append_record(out: Path, record: dict[str, Any], durable: bool = True) -> None:
    with open(out / RECORDS, "a", encoding="utf-8") as f:
        f.write(json.dumps(record, sort_keys=True) + "\n")
        if durable:
            f.flush()
            os.fsync(f.fileno())


def _save_state(system: MemorySystem, out: Path, progress: dict[str, Any]) -> None:
    """Write memory + progress to OUT/state.new, then swap it in by renames."""
    new, cur, old = out / (STATE + ".new"), out / STATE, out / (STATE + ".old")
    shutil.rmtree(new, ignore_errors=True)
    new.mkdir(parents=True)
    system.save(new / "memory")
    _fsync_write(new / "progress.json", json.dumps(progress, sort_keys=True))  # written last
    shutil.rmtree(old, ignore_errors=True)
    fsync_dir(out)
    if cur.exists():
        cur.rename(old)
    new.rename(cur)
    fsync_dir(out)
    shutil.rmtree(old, ignore_errors=True)


def _find_state(out: Path) -> Path | None:
    """The newest complete state directory (a crash mid-swap leaves .new or .old)."""
    for name in (STATE, STATE + ".new", STATE + ".old"):
        d = out / name
        if (d / "progress.json").exists():
            try:
                json.loads((d / "progress.json").read_text())
            except json.JSONDecodeError:
                continue
            return d
    return None


def _check_run_file(out: Path, run_info: dict[str, Any]) -> None:
    path = out / RUN_FILE
    info = {"format": FORMAT, **run_info}
    if path.exists():
        old = json.loads(path.read_text())
        if old != json.loads(json.dumps(info)):
            diff = sorted(k for k in set(old) | set(info) if old.get(k) != info.get(k))
            raise RunError(
                f"{out} holds a run with different settings ({', '.join(diff)}); "
                "use a new --out directory or the same arguments to resume"
            )
    else:
        _fsync_write(path, json.dumps(info, sort_keys=True, indent=1))


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
    progress: bool = True,
    usage: Callable[[], dict[str, int]] | None = None,
    durable: bool = True,
) -> list[dict[str, Any]]:
    """Run `tasks` in the given order, resuming from `out` if it holds part of this run.

    Parameters
    ----------
    maintain_every : maintenance after every this many finished tasks, 0 for none;
        default ceil(0.1 N) with N = len(tasks) (Appendix A); pass
        ``config.maintain_every(len(tasks))`` for another ratio.
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
    usage : optional callable giving cumulative model usage counters (``{"calls",
        "prompt_tokens", "completion_tokens", "agent_tokens", "memory_tokens",
        "judge_tokens", ...}``, e.g. ``Usage.totals``) for per-episode accounting; default
        ``system.llm.usage.totals`` when the system's model keeps one (PromptedLLM's
        real counts, SimLLM's estimates from the real prompts).
    durable : True (default) snapshots the whole state after every episode and fsyncs
        every write, so a run killed at any moment resumes exactly. False writes the
        records (unsynced) and the maintenance checkpoints only: a throwaway run
        (notebook explorations, knob sweeps) that is many times faster on a busy disk
        and cannot be resumed.

    Returns the records of all episodes (earlier ones read back on resume).
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    n = len(tasks)
    if usage is None:
        totals = getattr(getattr(getattr(system, "llm", None), "usage", None), "totals", None)
        usage = totals if callable(totals) else None
    period = maintenance_period(n) if maintain_every is None else int(maintain_every)
    if period < 0:
        raise ValueError(f"maintain_every must be >= 0 (0: never), got {maintain_every}")
    _check_run_file(out, {"n_tasks": n, "task_ids_head": [t.id for t in tasks[:5]],
                          "maintain_every": period, **(run_info or {})})
    records = read_records(out)
    start = 0
    state = _find_state(out)
    if state is not None:
        prog = json.loads((state / "progress.json").read_text())
        start = prog["next_index"]
        if len(records) == start - 1:  # died between saving the state and appending its line
            _append_record(out, prog["record"])
            records.append(prog["record"])
        if len(records) != start:
            raise RunError(f"{out}: {len(records)} records but the saved state is after "
                           f"episode {start}; the directory was modified by hand")
        system.load(state / "memory")
    elif records:
        raise RunError(f"{out}: {len(records)} records but no saved state; cannot resume")

    bar = _progress_bar(n, start, system, records) if progress else None
    for i in range(start, n):
        task = tasks[i]
        record = _one_episode(i, task, system, executor, judge, learn_judge, usage)
        if period and (i + 1) % period == 0:
            t0, setup0 = time.perf_counter(), setup_seconds()
            try:
                report = system.maintain()
                record["maintenance"] = {
                    "pruned": report.n_pruned,
                    "merged": report.n_merged,
                    "merges": [
                        {k: m[k] for k in ("a", "b", "new_id", "name", "similarity") if k in m}
                        for m in report.merged
                    ],
                }
            except ERRORS_RECORDED as exc:  # e.g. LLM-Merge failed: keep what was done
                record["maintenance"] = {"error": f"maintain: {exc}"}
            record["maintenance"]["seconds"] = round(
                max(0.0, time.perf_counter() - t0 - (setup_seconds() - setup0)), 6)
            ck = out / "checkpoints" / f"maint-{i + 1:04d}"
            shutil.rmtree(ck, ignore_errors=True)
            system.save(ck)
        record["sizes"] = system.stats()
        _crash_point("before_state", i)
        if durable:
            _save_state(system, out, {"next_index": i + 1, "record": record})
        _crash_point("after_state", i)
        _append_record(out, record, durable)
        _crash_point("after_record", i)
        records.append(record)
        if bar is not None:
            _update_bar(bar, records, record)
    if bar is not None:
        bar.close()
    return records


def _one_episode(i, task, system, executor, judge, learn_judge, usage) -> dict[str, Any]:
    errors: list[str] = []
    u0 = usage() if usage else None
    calls0 = int(getattr(system, "llm_calls", 0))
    setup0 = setup_seconds()  # a lazily loaded encoder's one-off load is not task latency
    t0 = time.perf_counter()
    try:
        context = system.begin(task)
    except ERRORS_RECORDED as exc:
        context, errors = MemoryContext(), [f"begin: {exc}"]
    t_begin = time.perf_counter() - t0
    setup_begin = setup_seconds() - setup0
    try:
        episode = executor.run(task, context)
    except ERRORS_RECORDED as exc:
        episode = Episode(task_id=task.id, success=False, steps=0, error=f"execute: {exc}")
    if episode.error:
        errors.append(episode.error)
    success = _judged(judge, task, episode, errors)
    verdict = episode.meta.get("judge")  # the scoring judge's, before another can write
    learned, learn_verdict = success, None
    if learn_judge:
        seen = Episode(**{**episode.to_dict(), "meta": {k: v for k, v in episode.meta.items()
                                                        if k != "judge"}})
        learned = _judged(learn_judge, task, seen, errors, "learn judge")
        learn_verdict = seen.meta.get("judge")
    taught = Episode(**{**episode.to_dict(), "success": learned})
    setup_before_end = setup_seconds()
    t1 = time.perf_counter()
    update = None
    try:
        update = system.end(task, taught)
    except ERRORS_RECORDED as exc:
        errors.append(f"end: {exc}")
    t_end = time.perf_counter() - t1
    seconds = time.perf_counter() - t0
    setup = setup_seconds() - setup0
    setup_memory = setup_begin + (setup_seconds() - setup_before_end)
    record: dict[str, Any] = {
        "index": i,
        "task_id": task.id,
        "success": success,
        "learned_success": learned,
        "steps": int(episode.steps),
        "calls": int(episode.calls),
        "tokens": int(episode.tokens),
        "context_tokens": int(episode.meta.get("context_tokens", count_tokens(context.text))),
        "memory_llm_calls": int(getattr(system, "llm_calls", 0)) - calls0,
        "memory_seconds": round(max(0.0, t_begin + t_end - setup_memory), 6),
        "seconds": round(max(0.0, seconds - setup), 6),
        "retrieved": list(context.retrieved),
        "answer": episode.answer,
        "error": "; ".join(errors) or None,
    }
    if isinstance(update, dict):
        record["update"] = update
    if setup > 0:
        record["setup_seconds"] = round(setup, 6)
    if verdict is not None:
        record["judge"] = verdict
    if learn_judge:
        record["learn_judge"] = learn_verdict if learn_verdict is not None else {
            "kind": getattr(learn_judge, "kind", None)
            or getattr(learn_judge, "__qualname__", type(learn_judge).__name__),
            "correct": learned}
    if usage:
        u1 = usage()
        record["usage"] = {k: u1[k] - u0.get(k, 0) for k in u1}
        record["memory_tokens"] = int(record["usage"].get("memory_tokens", 0))
    return record


def _judged(judge, task, episode, errors: list[str], what: str = "judge") -> bool:
    """The judge's verdict; a judge whose model fails counts the episode as failed."""
    if judge is None:
        return bool(episode.success)
    try:
        return bool(judge(task, episode))
    except ERRORS_RECORDED as exc:
        errors.append(f"{what}: {exc}")
        return False


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


def maintenance_seconds(records: Sequence[dict[str, Any]]) -> float:
    """Seconds all maintenance cycles of a run took (recorded on the episode they followed)."""
    return float(sum((r.get("maintenance") or {}).get("seconds", 0.0) for r in records))


def summarize(records: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Table-1 figures of one run: SR (%), mean #Steps, mean #Calls, mean context tokens,
    mean memory-operation milliseconds per episode, and the episode count; and the
    paper's per-task cost measures: "Tokens" (the agent's), "MemTokens" (memory-model
    calls: decompose, extract, merge, baseline operations), "TotalTokens" (both) and
    "Latency" (wall-clock seconds per task of the whole episode, agent and memory, with
    maintenance spread over the run's tasks; a lazily loaded encoder's one-off load is
    the record's "setup_seconds", not latency). Records written before a field existed
    count it as 0."""
    if not records:
        return {k: float("nan") for k in ("SR", "Steps", "Calls", "CtxTokens", "MemMs", "Tokens",
                                           "MemTokens", "TotalTokens", "Latency")} | {"N": 0}
    arr = lambda key: np.array([r.get(key, 0) for r in records], dtype=float)  # noqa: E731
    tokens, mem_tokens = arr("tokens").mean(), arr("memory_tokens").mean()
    return {
        "SR": 100.0 * arr("success").mean(),
        "Steps": arr("steps").mean(),
        "Calls": arr("calls").mean(),
        "CtxTokens": arr("context_tokens").mean(),
        "MemMs": 1000.0 * arr("memory_seconds").mean(),
        "Tokens": tokens,
        "MemTokens": mem_tokens,
        "TotalTokens": tokens + mem_tokens,
        "Latency": arr("seconds").mean() + maintenance_seconds(records) / len(records),
        "N": len(records),
    }


def summary_table(rows: dict[str, dict[str, float]], baseline: str | None = "no-memory") -> str:
    """A plain-text table like the paper's Table 1, with deltas against `baseline`, and
    the paper's cost measures: tokens per task (agent + memory calls) and latency per
    task (seconds).

    >>> print(summary_table({"no-memory": {"SR": 40.0, "Steps": 5.0, "Calls": 4.0,
    ...     "CtxTokens": 0.0, "MemMs": 0.0, "TotalTokens": 900.0, "Latency": 0.01, "N": 10}}))
    method     SR (%)        #Steps       #Calls       ctx tokens  mem ms  tokens/task  s/task  N
    no-memory  40.00         5.00         4.00                  0    0.00          900   0.010  10
    """
    base = rows.get(baseline) if baseline else None

    def cell(name: str, key: str, fmt: str) -> str:
        v = rows[name][key]
        s = format(v, fmt)
        if base is not None and name != baseline and key in ("SR", "Steps", "Calls"):
            s += f" ({v - base[key]:+.2f})"
        return s

    header = (f"{'method':<26}{'SR (%)':<14}{'#Steps':<13}{'#Calls':<13}{'ctx tokens':>10}"
              f"{'mem ms':>8}{'tokens/task':>13}{'s/task':>8}  N")
    width = max([len(k) for k in rows] + [6]) + 2
    header = f"{'method':<{width}}" + header[26:]
    lines = [header]
    for name in rows:
        r = rows[name]
        lines.append(
            f"{name:<{width}}{cell(name, 'SR', '.2f'):<14}{cell(name, 'Steps', '.2f'):<13}"
            f"{cell(name, 'Calls', '.2f'):<13}{r['CtxTokens']:>10.0f}"
            f"{r['MemMs']:>8.2f}{r.get('TotalTokens', float('nan')):>13.0f}"
            f"{r.get('Latency', float('nan')):>8.3f}  {r['N']}"
        )
    return "\n".join(lines)
