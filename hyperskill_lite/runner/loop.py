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

from hyperskill_lite.agent.llm import LLMError
from hyperskill_lite.agent.tokens import count_tokens
from hyperskill_lite.core.config import maintenance_period
from hyperskill_lite.core.embed import setup_seconds
from hyperskill_lite.protocol import EvalProtocol
from hyperskill_lite.runner.files import (
    CHECKPOINTS,
    RunError,
    append_record,
    check_run_file,
    crash_point,
    find_state,
    read_records,
    recovery_hint,
    save_state,
)
from hyperskill_lite.runner.health import (
    check_index,
    health_check,
    maintenance_record,
    write_health,
)
from hyperskill_lite.types import Episode, Executor, Judge, MemoryContext, MemorySystem, Task

__all__ = ["run_episodes", "ERRORS_RECORDED"]

log = logging.getLogger("hyperskill_lite.runner")

ERRORS_RECORDED: tuple[type[BaseException], ...] = (LLMError,)
"""Exception types that fail one episode (recorded in its `error` field) instead of the
run: model errors after retries and re-asks. A cassette miss is not among them: a replay
that diverges stops loudly."""


def _apply_protocol(system: MemorySystem, protocol: EvalProtocol) -> None:
    """Tell the system what the protocol asks of its retrieval (own-task exclusion)."""
    if hasattr(system, "exclude_self"):
        system.exclude_self = protocol.exclude_self  # type: ignore[attr-defined]
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
    usage : optional callable giving cumulative model usage counters (``{"calls",
        "prompt_tokens", "completion_tokens", "agent_tokens", "memory_tokens",
        "judge_tokens", ...}``, e.g. ``Usage.totals``) for per-episode accounting; default
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

    Returns the records of all episodes (earlier ones read back on resume). Each record
    also says how many context items the memory injected ("injected"), what its
    retrieval did when it fell back or excluded something ("retrieval"), and, once,
    after the first 10 % of the tasks, a "health_warning" when a memory method had
    stored nothing (logged on the "hyperskill_lite.runner" logger too).
    """
    protocol = protocol if protocol is not None else EvalProtocol()
    _apply_protocol(system, protocol)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    n = len(tasks)
    if usage is None:
        totals = getattr(getattr(getattr(system, "llm", None), "usage", None), "totals", None)
        usage = totals if callable(totals) else None
    per_pass = max(1, n // protocol.passes) if n else 1
    period = maintenance_period(per_pass) if maintain_every is None else int(maintain_every)
    if period < 0:
        raise ValueError(f"maintain_every must be >= 0 (0: never), got {maintain_every}")
    check_run_file(out, {"n_tasks": n, "task_ids_head": [t.id for t in tasks[:5]],
                         "maintain_every": period, "protocol": protocol.to_dict(),
                         **(run_info or {})}, observed)
    records = read_records(out)
    start = 0
    state = find_state(out)
    if state is not None:
        prog = json.loads((state / "progress.json").read_text())
        start = prog["next_index"]
        if len(records) == start - 1:  # died between saving the state and appending its line
            append_record(out, prog["record"])
            records.append(prog["record"])
        if len(records) != start:
            raise RunError(f"{out}: {len(records)} records but the saved state is after "
                           f"episode {start}; the directory was modified by hand; "
                           f"{recovery_hint(out, min(len(records), start))}")
        try:
            system.load(state / "memory")
        except (ValueError, OSError) as exc:
            raise RunError(f"{out}: the saved state's memory cannot be read ({exc}); "
                           f"{recovery_hint(out, start)}") from None
    elif records:
        raise RunError(f"{out}: {len(records)} records but no saved state; cannot resume; "
                       f"{recovery_hint(out, len(records))}")

    frozen_from = protocol.eval_from if protocol.frozen else None
    check_at = check_index(n, frozen_from) if n else None
    bar = _progress_bar(n, start, system, records) if progress else None
    for i in range(start, n):
        task = tasks[i]
        frozen = protocol.is_frozen(i)
        if frozen and i == protocol.eval_from:  # the memory the evaluated part reads
            ck = out / CHECKPOINTS / f"frozen-{i:04d}"
            shutil.rmtree(ck, ignore_errors=True)
            system.save(ck)
        record = _one_episode(i, task, system, executor, judge, learn_judge, usage,
                              learn=not frozen)
        log.info("episode index=%d task=%s success=%s steps=%d calls=%d tokens=%d "
                 "seconds=%.2f error=%s", i, task.id, record["success"], record["steps"],
                 record["calls"], record["tokens"], record["seconds"], record["error"])
        if protocol.eval_from is not None:
            record["phase"] = "eval" if protocol.in_eval(i) else "learn"
        checkpoint = None
        if period and (i + 1) % period == 0 and not frozen:
            checkpoint = _maintain(system, record, out, i)
        record["sizes"] = system.stats()
        if i == check_at:
            warning = health_check([*records, record], record["sizes"], system.name)
            if warning is not None:
                record["health_warning"] = warning
                log.warning("%s (episode %d of %d, %s)", warning["message"], i + 1, n, out)
        crash_point("before_state", i)
        if durable:
            save_state(system, out, {"next_index": i + 1, "record": record}, checkpoint)
        crash_point("after_state", i)
        append_record(out, record, durable)
        crash_point("after_record", i)
        records.append(record)
        if bar is not None:
            _update_bar(bar, records, record)
    if bar is not None:
        bar.close()
    write_health(out, records)
    return records


def _maintain(system: MemorySystem, record: dict[str, Any], out: Path, i: int) -> Path:
    """One maintenance cycle after episode i, recorded on its record and checkpointed;
    the checkpoint's folder (the memory as the state saved next holds it)."""
    t0, setup0 = time.perf_counter(), setup_seconds()
    try:
        record["maintenance"] = maintenance_record(system.maintain())
    except ERRORS_RECORDED as exc:  # e.g. LLM-Merge failed: keep what was done
        record["maintenance"] = {"error": f"maintain: {exc}"}
    record["maintenance"]["seconds"] = round(
        max(0.0, time.perf_counter() - t0 - (setup_seconds() - setup0)), 6)
    ck = out / CHECKPOINTS / f"maint-{i + 1:04d}"
    shutil.rmtree(ck, ignore_errors=True)
    system.save(ck)
    return ck


def _one_episode(i, task, system, executor, judge, learn_judge, usage,
                 learn: bool = True) -> dict[str, Any]:
    errors: list[str] = []
    u0 = usage() if usage else None
    calls0 = int(getattr(system, "llm_calls", 0))
    setup0 = setup_seconds()  # a lazily loaded encoder's one-off load is not task latency
    t0 = time.perf_counter()
    try:
        context = system.begin(task)
    except ERRORS_RECORDED as exc:
        context, errors = MemoryContext(), [f"begin: {exc}"]
    errors += [f"begin: {e}" for e in context.meta.get("errors", ())]  # recovered from
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
    learned: bool | None = success
    learn_verdict = None
    if learn_judge and learn:
        seen = Episode(**{**episode.to_dict(), "meta": {k: v for k, v in episode.meta.items()
                                                        if k != "judge"}})
        learned = _judged(learn_judge, task, seen, errors, "learn judge")
        learn_verdict = seen.meta.get("judge")
    setup_before_end = setup_seconds()
    t1 = time.perf_counter()
    update = None
    if learn:
        # the memory learns from the episode, never from the model's private reasoning
        taught = Episode(**{**episode.to_dict(), "success": learned, "meta": {
            k: v for k, v in episode.meta.items() if k != "reasoning"}})
        try:
            update = system.end(task, taught)
        except ERRORS_RECORDED as exc:
            errors.append(f"end: {exc}")
    else:
        learned = None  # a frozen memory learns nothing from this episode
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
        "injected": len(context.items),
        "memory_llm_calls": int(getattr(system, "llm_calls", 0)) - calls0,
        "memory_seconds": round(max(0.0, t_begin + t_end - setup_memory), 6),
        "seconds": round(max(0.0, seconds - setup), 6),
        "retrieved": list(context.retrieved),
        "answer": episode.answer,
        "error": "; ".join(errors) or None,
    }
    if context.meta.get("record"):
        record["retrieval"] = dict(context.meta["record"])
    if context.meta.get("explain"):  # the whole retrieval, for the memory studio
        record["explain"] = context.meta["explain"]
    if isinstance(update, dict):
        record["update"] = update
    if episode.meta.get("reasoning"):  # a reasoning server's reasoning_content, per step
        record["reasoning"] = episode.meta["reasoning"]
    if "tools_used" in episode.meta:  # the live agent's tool calls, in order
        record["tools_used"] = list(episode.meta["tools_used"])
    if episode.meta.get("tool_errors"):  # the calls that ended in a tool error
        record["tool_errors"] = list(episode.meta["tool_errors"])
    if setup > 0:
        record["setup_seconds"] = round(setup, 6)
    if verdict is not None:
        record["judge"] = verdict
    if learn_judge and learn:
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
