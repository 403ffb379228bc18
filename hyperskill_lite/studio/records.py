"""A run's records as the studio reads them: one streaming pass over ``episodes.jsonl``,
each episode's retrieval (``explain``) left in the file until a view asks for it.

A record's ``explain`` (`Retrieval.to_record`, a few kB) is half of a records file and
the page shows at most a sample of them (explain.py), so `read_records_lean` drops it
from every record and keeps each line's byte offset instead; `explanations` reads the
asked-for lines again by seeking to them. Lines are parsed by orjson when it is
installed (the ``studio`` extra; several times faster than the standard json module,
which is used with one warning otherwise, and for a line orjson refuses, e.g. one
holding NaN). The cyclic garbage collector is paused while the records are built (they
are hundreds of thousands of acyclic containers that would otherwise set off a full
collection again and again: most of the reading time at 100k episodes).

The checks are those of the runner's reader (runner/files.py): every line a JSON object
whose ``index`` is its position, a damaged line a `RunError` naming the file, the line
and how to recover. One difference, on purpose: a last line without its newline that
is not JSON (a run still writing it, or a crash) is left out with a warning and the
file is not touched, where the runner, which goes on appending, truncates it. A viewer
never writes to a run folder.

Not here: run folders and run.json (runs.py), what the views take from the records.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hyperskill_lite.core.io.read import gc_paused
from hyperskill_lite.runner.files import RECORDS, RunError, recovery_hint

try:  # optional speed-up (the studio extra); the standard json module otherwise
    import orjson
except ImportError:  # pragma: no cover - exercised where orjson is not installed
    orjson = None

__all__ = ["read_records_lean", "explanations", "LEAN_DROP"]

log = logging.getLogger("hyperskill_lite.studio")

LEAN_DROP = "explain"
"""The field left in the file (read on demand with `explanations`)."""
_warned: list[bool] = []


def _loads(line: bytes) -> Any:
    """One line as JSON: orjson when installed, the json module for what orjson refuses
    (NaN and Infinity, which json.dumps writes, and integers past 64 bits)."""
    if orjson is not None:
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            pass
    elif not _warned:
        _warned.append(True)
        log.warning("studio: orjson is not installed, so records are read with the slower "
                    "json module; pip install 'hyperskill_lite[studio]'")
    return json.loads(line)


def read_records_lean(folder: Path | str) -> tuple[list[dict[str, Any]], list[int]]:
    """The finished episodes of a run folder in order, each without its ``explain``,
    and the byte offset of each one's line (for `explanations`). [] and [] when there is
    no records file. RunError naming the file and line when a line is damaged (module
    docstring)."""
    folder = Path(folder)
    path = folder / RECORDS
    records: list[dict[str, Any]] = []
    offsets: list[int] = []
    if not path.is_file():
        return records, offsets
    pos = 0
    with open(path, "rb") as f, gc_paused():
        for lineno, line in enumerate(f, 1):
            start, pos = pos, pos + len(line)
            if not line.strip():
                continue
            try:
                rec = _loads(line)
            except (ValueError, UnicodeDecodeError) as exc:
                if not line.endswith(b"\n"):  # the last line, cut off
                    log.warning("studio: %s: its last line is incomplete (a run still "
                                "writing it, or a crash); the page leaves it out", path)
                    break
                msg = getattr(exc, "msg", None) or str(exc)
                raise RunError(f"{path}: line {lineno} is not valid JSON ({msg}); "
                               f"{recovery_hint(folder, len(records))}") from None
            if not isinstance(rec, dict) or rec.get("index") != len(records):
                got = rec.get("index") if isinstance(rec, dict) else rec
                raise RunError(f"{path}: line {lineno} has index {got}, expected "
                               f"{len(records)}; {recovery_hint(folder, len(records))}")
            rec.pop(LEAN_DROP, None)
            records.append(rec)
            offsets.append(start)
    return records, offsets


def explanations(folder: Path | str, offsets: list[int], indices: Iterable[int]
                 ) -> dict[int, Any]:
    """{episode position: its record's ``explain`` value} for the given positions, read
    from the lines at `offsets` (`read_records_lean`). A line that changed since (its
    index is no longer the position) or cannot be read gives None: that episode shows no
    explanation, never a wrong one."""
    out: dict[int, Any] = {}
    want = sorted({i for i in indices if 0 <= i < len(offsets)})
    if not want:
        return out
    try:
        f = open(Path(folder) / RECORDS, "rb")
    except OSError as exc:
        log.warning("studio: %s cannot be read again (%s); no explanations", folder, exc)
        return {i: None for i in want}
    with f:
        for i in want:
            f.seek(offsets[i])
            try:
                rec = _loads(f.readline())
            except (ValueError, UnicodeDecodeError):
                rec = None
            ok = isinstance(rec, dict) and rec.get("index") == i
            out[i] = rec.get(LEAN_DROP) if ok else None
    return out
