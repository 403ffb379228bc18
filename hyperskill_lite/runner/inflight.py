"""The episode in flight (``OUT/inflight.json``) and the crash tests' injection points.

`mark_inflight` notes the episode running now and how many processes died running it,
so a rerun gives up on an episode that killed the process `CRASH_LIMIT` times instead of
replaying the crash forever; `clear_all_inflight` is what Ctrl-C does (no episode
running then counts as a crash). `crash_point` is the fault injection
(HYPERSKILL_CRASH_AT). The rest of a run folder's files: files.py.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from hyperskill_lite.core.confined import read_bytes, write_text

__all__ = ["INFLIGHT", "CRASH_LIMIT", "mark_inflight", "inflight_attempts", "clear_inflight",
           "clear_all_inflight", "resume_inflight_marking", "crash_point"]

INFLIGHT = "inflight.json"
CRASH_LIMIT = 2
"""A rerun records an episode as crashed (and goes on) once the process died this many
times while running it; a single kill -9 or power cut is retried."""

_MARKED: set[Path] = set()
"""Markers this process wrote and has not cleared (runs in threads each have one)."""
_MARK_LOCK = threading.Lock()
_STOPPED = False
"""Set by `clear_all_inflight`: the user stopped the process, so a thread that starts its
next episode after the markers were cleared writes none (a marker left then would count
the interrupted episode as a crash on resume)."""


def mark_inflight(out: Path, index: int, task_id: str, attempts: int) -> None:
    """Note that episode `index` is running (its `attempts`-th try). Not fsynced: it
    only has to outlive the process, not the machine."""
    doc = {"index": index, "task_id": task_id, "attempts": attempts, "pid": os.getpid()}
    with _MARK_LOCK:
        if _STOPPED:
            return
        write_text(out, out / INFLIGHT, json.dumps(doc, sort_keys=True), durable=False)
        _MARKED.add(out / INFLIGHT)


def clear_all_inflight() -> None:
    """Clear every marker of this process: the user stopped it (Ctrl-C), so no episode
    running now counts as a crash, even in runs whose threads are not told. From here
    on no thread of this process writes a marker, until `resume_inflight_marking`."""
    global _STOPPED
    with _MARK_LOCK:
        _STOPPED = True
        for path in list(_MARKED):
            _MARKED.discard(path)
            try:
                path.unlink()
            except OSError:
                pass


def resume_inflight_marking() -> None:
    """Markers are written again: the interrupted command has returned and none of its
    threads runs (a process that calls `cli.main` again, such as a test or a notebook)."""
    global _STOPPED
    with _MARK_LOCK:
        _STOPPED = False


def inflight_attempts(out: Path, index: int) -> int:
    """How many processes died while running episode `index` (0: none; an unreadable
    marker for it, torn by the kill, counts as one)."""
    path = out / INFLIGHT
    if not path.is_file():
        return 0
    try:
        doc = json.loads(read_bytes(out, path, limit=1 << 16))
        if not isinstance(doc, dict):
            return 0
    except (OSError, ValueError):
        return 1
    return int(doc.get("attempts", 1)) if doc.get("index") == index else 0


def clear_inflight(out: Path) -> None:
    """Forget the episode in flight (it finished, or the user interrupted it)."""
    with _MARK_LOCK:
        _MARKED.discard(out / INFLIGHT)
        try:
            (out / INFLIGHT).unlink()
        except FileNotFoundError:
            pass


def crash_point(where: str, index: int) -> None:
    """Fault injection for the crash tests: with HYPERSKILL_CRASH_AT="<where>:<index>"
    the process SIGKILLs itself there; "<where>:<index>:int" sends itself SIGINT (a
    Ctrl-C at that moment) and "<where>:<index>:raise" raises MemoryError (an episode
    failing outside the tools). Points: in_episode (after the episode in flight is
    marked), state_written (the state's memory is written, not yet swapped in),
    before_state, after_state, after_record."""
    spec = os.environ.get("HYPERSKILL_CRASH_AT")
    if not spec or not (spec == f"{where}:{index}" or spec.startswith(f"{where}:{index}:")):
        return
    import signal

    how = spec.split(":")[2] if spec.count(":") >= 2 else "kill"
    if how == "raise":
        raise MemoryError(f"injected by HYPERSKILL_CRASH_AT={spec}")
    os.kill(os.getpid(), signal.SIGINT if how == "int" else signal.SIGKILL)
