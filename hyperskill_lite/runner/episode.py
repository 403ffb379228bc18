"""One episode: retrieve, act, judge, learn, as one record; and what a failure costs.

`one_episode` runs a task through a memory system and an executor and returns its
record (the fields README "Runs, records and the evaluation protocol" lists). A failure
costs that episode, never the run:

- a model error after retries and re-asks (`ERRORS_RECORDED`) fails the phase it
  happened in and is kept in the record's ``error`` (as it always was);
- any other exception from the memory's ``begin``/``end``, the executor or a judge
  (``MemoryError``, ``LookupError``, ``RecursionError``, a bug) is *unexpected*: the
  record's ``error`` names the phase and the exception, ``errored`` is
  ``"exception"``, and `Unexpected` tells the loop to put the memory back to its last
  saved state when ``begin`` or ``end`` may have changed it halfway;
- `fatal` errors stop the run instead: a cassette that diverges from its recording
  (`CassetteMiss`), a run folder that cannot be used (`RunError`) and a storage failure
  (`is_storage_error`: a full disk, a quota, a read-only file system, permissions),
  since every later episode would fail the same way.

`crashed_record` is the record of an episode during which the process itself died
(``errored`` is ``"crash"``), written on a rerun so that resuming never replays it
forever (loop.py, the in-flight marker).

Not here: the loop, its schedule and its files (loop.py, files.py).
"""

from __future__ import annotations

import errno
import logging
import time
from collections.abc import Callable
from typing import Any

from hyperskill_lite.core.embed import setup_seconds
from hyperskill_lite.errors import CassetteMiss, LLMError
from hyperskill_lite.llm.tokens import count_tokens
from hyperskill_lite.runner.files import RunError
from hyperskill_lite.runner.inflight import crash_point
from hyperskill_lite.runner.record import EpisodeRecord
from hyperskill_lite.types import CountsModelCalls, Episode, KindedJudge, MemoryContext

__all__ = ["one_episode", "crashed_record", "is_storage_error", "fatal", "ERRORS_RECORDED",
           "STORAGE_ERRNOS"]

log = logging.getLogger("hyperskill_lite.runner")

ERRORS_RECORDED: tuple[type[BaseException], ...] = (LLMError,)
"""Exception types that fail one episode as an expected failure (recorded in its `error`
field): model errors after retries and re-asks. Every other exception of an episode
fails it as unexpected (``errored: "exception"``), except the `fatal` ones."""

STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG, errno.EIO,
                            errno.EACCES, errno.EPERM})
"""OSError numbers that mean the run's storage cannot be written: full disk, quota,
read-only file system, file too large, I/O error, permissions."""


def is_storage_error(exc: BaseException) -> bool:
    """True for an OSError that says the disk cannot take the run's files.

    >>> is_storage_error(OSError(errno.ENOSPC, "No space left on device"))
    True
    >>> is_storage_error(ConnectionResetError(errno.ECONNRESET, "reset"))
    False
    """
    return isinstance(exc, OSError) and exc.errno in STORAGE_ERRNOS


def fatal(exc: BaseException) -> bool:
    """Whether `exc` stops the run instead of failing one episode (module docstring)."""
    return (not isinstance(exc, Exception) or isinstance(exc, CassetteMiss | RunError)
            or is_storage_error(exc))


def _describe(phase: str, exc: BaseException) -> str:
    text = " ".join(str(exc).split())[:300]
    return f"{phase}: {type(exc).__name__}" + (f": {text}" if text else "")


class _Errors:
    """The errors of one episode, and whether one was unexpected and where."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.unexpected: list[str] = []  # phases that raised an unexpected exception

    def add(self, phase: str, exc: BaseException, task_id: str, index: int) -> None:
        if fatal(exc):
            raise exc
        if isinstance(exc, ERRORS_RECORDED):
            self.lines.append(f"{phase}: {exc}")
            return
        self.lines.append(_describe(phase, exc))
        self.unexpected.append(phase)
        log.warning("episode %d (task %s): %s; recorded as errored, the run goes on", index,
                    task_id, _describe(phase, exc))
        log.info("episode %d traceback", index, exc_info=exc)  # run.log only (INFO)


def one_episode(i: int, task, system, executor, judge, learn_judge,
                usage: Callable[[], dict[str, int]] | None,
                learn: bool = True) -> tuple[EpisodeRecord, list[str]]:
    """Run task `i`; its record, and the phases ("begin", "end") whose unexpected failure
    may have left the memory changed halfway (the loop restores the last saved state)."""
    errors = _Errors()
    u0 = usage() if usage else None
    calls0 = _calls(system)
    setup0 = setup_seconds()  # a lazily loaded encoder's one-off load is not task latency
    t0 = time.perf_counter()
    try:
        context = system.begin(task)
    except Exception as exc:  # noqa: BLE001 - classified by _Errors.add
        context = MemoryContext()
        errors.add("begin", exc, task.id, i)
    errors.lines += [f"begin: {e}" for e in context.meta.get("errors", ())]  # recovered from
    context.meta.setdefault("source", getattr(system, "name", "memory"))  # the agent names it
    t_begin = time.perf_counter() - t0
    setup_begin = setup_seconds() - setup0
    try:
        crash_point("in_episode", i)
        episode = executor.run(task, context)
    except Exception as exc:  # noqa: BLE001
        episode = Episode(task_id=task.id, success=False, steps=0)
        errors.add("execute", exc, task.id, i)
    if episode.error:
        errors.lines.append(episode.error)
    success = _judged(judge, task, episode, errors, i)
    verdict = episode.meta.get("judge")  # the scoring judge's, before another can write
    learned: bool | None = success
    learn_verdict = None
    if learn_judge and learn:
        seen = Episode(**{**episode.to_dict(), "meta": {k: v for k, v in episode.meta.items()
                                                        if k != "judge"}})
        learned = _judged(learn_judge, task, seen, errors, i, "learn judge")
        learn_verdict = seen.meta.get("judge")
    setup_before_end = setup_seconds()
    t1 = time.perf_counter()
    update = None
    if learn and not errors.unexpected:  # nothing is learned from an errored episode
        # the memory learns from the episode, never from the model's private reasoning
        taught = Episode(**{**episode.to_dict(), "success": learned, "meta": {
            k: v for k, v in episode.meta.items() if k != "reasoning"}})
        try:
            update = system.end(task, taught)
        except Exception as exc:  # noqa: BLE001
            errors.add("end", exc, task.id, i)
    if not learn or errors.unexpected:
        learned = None  # a frozen memory, or an errored episode: nothing was learned
    t_end = time.perf_counter() - t1
    seconds = time.perf_counter() - t0
    setup = setup_seconds() - setup0
    setup_memory = setup_begin + (setup_seconds() - setup_before_end)
    record = EpisodeRecord(
        index=i, task_id=task.id, success=success, learned_success=learned,
        steps=int(episode.steps), calls=int(episode.calls), tokens=int(episode.tokens),
        context_tokens=int(episode.meta.get("context_tokens", count_tokens(context.text))),
        injected=len(context.items), memory_llm_calls=_calls(system) - calls0,
        memory_seconds=round(max(0.0, t_begin + t_end - setup_memory), 6),
        seconds=round(max(0.0, seconds - setup), 6), retrieved=list(context.retrieved),
        answer=episode.answer, error="; ".join(errors.lines) or None)
    if errors.unexpected:
        record.errored = "exception"
    _optional_fields(record, context, update, episode, setup, verdict, learn_judge, learn,
                     learn_verdict, learned)
    if usage:
        u1 = usage()
        record.usage = {k: u1[k] - (u0 or {}).get(k, 0) for k in u1}
        record.memory_tokens = int(record.usage.get("memory_tokens", 0))
    return record, [p for p in errors.unexpected if p in ("begin", "end")]


def _optional_fields(record: EpisodeRecord, context, update, episode, setup, verdict,
                     learn_judge, learn, learn_verdict, learned) -> None:
    if context.meta.get("record"):
        record.retrieval = dict(context.meta["record"])
    if context.meta.get("explain"):  # the whole retrieval, for the memory studio
        record.explain = context.meta["explain"]
    if isinstance(update, dict):
        record.update = update
    if episode.meta.get("reasoning"):  # a reasoning server's reasoning_content, per step
        record.reasoning = episode.meta["reasoning"]
    if "tools_used" in episode.meta:  # the live agent's tool calls, in order
        record.tools_used = list(episode.meta["tools_used"])
    if episode.meta.get("tool_errors"):  # the calls that ended in a tool error
        record.tool_errors = list(episode.meta["tool_errors"])
    if setup > 0:
        record.setup_seconds = round(setup, 6)
    if verdict is not None:
        record.judge = verdict
    if learn_judge and learn:
        record.learn_judge = learn_verdict if learn_verdict is not None else {
            "kind": _judge_kind(learn_judge), "correct": learned}


def _judge_kind(judge) -> str:
    """A judge's kind (`KindedJudge`), else the name of its function or class."""
    if isinstance(judge, KindedJudge) and judge.kind:
        return judge.kind
    return getattr(judge, "__qualname__", type(judge).__name__)  # a function's own name


def _judged(judge, task, episode, errors: _Errors, i: int, what: str = "judge") -> bool:
    """The judge's verdict; a judge that fails counts the episode as failed."""
    if judge is None:
        return bool(episode.success)
    try:
        return bool(judge(task, episode))
    except Exception as exc:  # noqa: BLE001
        errors.add(what, exc, task.id, i)
        return False


def crashed_record(i: int, task, attempts: int) -> EpisodeRecord:
    """The record of episode `i`, during which the process died `attempts` times (killed,
    out of memory, a crash in native code): failed, nothing learned, memory untouched."""
    return EpisodeRecord(
        index=i, task_id=task.id, success=False, learned_success=None,
        error=(f"crash: the process died {attempts} times during this episode (killed, "
               "out of memory or a crash in native code); recorded as failed so the run "
               "goes on, with the memory as it was before the episode"),
        errored="crash")


def _calls(system: Any) -> int:
    """The system's cumulative model calls (`CountsModelCalls`), 0 when it counts none."""
    return int(system.llm_calls) if isinstance(system, CountsModelCalls) else 0
