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
never writes to a run folder, and reads it without following a link out of it
(core/confined.py).

A records file past `BIG_BYTES` is read into a `RecordTable` (table.py): the same
checks, the same pass, but each record kept in compact columns, so a 1 GB file is read in
bounded memory; `reread` reads whole records back for the few a page shows in full.

Not here: run folders and run.json (runs.py), what the views take from the records.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from hyperskill_lite.core.confined import open_read
from hyperskill_lite.core.io.read import gc_paused
from hyperskill_lite.protocol import EvalProtocol
from hyperskill_lite.runner.files import RECORDS, RunError, recovery_hint
from hyperskill_lite.studio.table import BIG_BYTES, RecordTable

try:  # optional speed-up (the studio extra); the standard json module otherwise
    import orjson
except ImportError:  # pragma: no cover - exercised where orjson is not installed
    orjson = None

__all__ = ["read_records_lean", "explanations", "reread", "evaluated", "LEAN_DROP"]

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


def read_records_lean(folder: Path | str) -> tuple[Sequence[dict[str, Any]], Sequence[int]]:
    """The finished episodes of a run folder in order, each without its ``explain``,
    and the byte offset of each one's line (for `explanations`). [] and [] when there is
    no records file. `RunError` naming the file and line when a line is
    damaged (module docstring). A file past `BIG_BYTES` is read into a `RecordTable`
    (table.py: bounded memory; the records keep what the views read), a smaller one
    into dicts. The file is opened inside the run folder only (core/confined.py: a
    link leading out of it is refused)."""
    folder = Path(folder)
    path = folder / RECORDS
    if not os.path.lexists(path):
        return [], []
    f = open_read(folder, path)
    size = os.fstat(f.fileno()).st_size
    table = RecordTable() if size > BIG_BYTES else None
    records: list[dict[str, Any]] = []
    offsets: list[int] = []
    n = 0
    pos = 0
    with f, gc_paused():
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
                               f"{recovery_hint(folder, n)}") from None
            if not isinstance(rec, dict) or rec.get("index") != n:
                got = rec.get("index") if isinstance(rec, dict) else rec
                raise RunError(f"{path}: line {lineno} has index {_shown(got)}, expected "
                               f"{n}; {recovery_hint(folder, n)}")
            rec.pop(LEAN_DROP, None)
            if table is not None:
                table.append(rec, start)
            else:
                records.append(rec)
                offsets.append(start)
            n += 1
    if table is not None:
        return table.finish(), table.offsets
    return records, offsets


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def reread(folder: Path | str, offsets: Sequence[int], positions: Iterable[int]
           ) -> dict[int, dict[str, Any] | None]:
    """{position: the whole record at that position} read again from the lines at
    `offsets` (`read_records_lean`); None for a line that changed since (its index is no
    longer the position) or cannot be read: that record is left out, never a wrong one."""
    out: dict[int, dict[str, Any] | None] = {}
    want = sorted({i for i in positions if 0 <= i < len(offsets)})
    if not want:
        return out
    try:
        f = open_read(folder, Path(folder) / RECORDS)
    except OSError as exc:
        log.warning("studio: %s cannot be read again (%s); its texts are left out", folder, exc)
        return {i: None for i in want}
    with f:
        for i in want:
            f.seek(offsets[i])
            try:
                rec = _loads(f.readline())
            except (ValueError, UnicodeDecodeError):
                rec = None
            out[i] = rec if isinstance(rec, dict) and rec.get("index") == i else None
    return out


def explanations(folder: Path | str, offsets: Sequence[int], indices: Iterable[int]
                 ) -> dict[int, Any]:
    """{episode position: its record's ``explain`` value} for the given positions, read
    from the lines at `offsets` (`read_records_lean`). A line that changed since (its
    index is no longer the position) or cannot be read gives None: that episode shows no
    explanation, never a wrong one."""
    return {i: (rec.get(LEAN_DROP) if rec is not None else None)
            for i, rec in reread(folder, offsets, indices).items()}


def evaluated(protocol: EvalProtocol, records: Sequence[dict[str, Any]]
              ) -> Sequence[dict[str, Any]]:
    """The evaluated records under `protocol` (`EvalProtocol.evaluated`), as a view of a
    `RecordTable` (no record built) or a list."""
    if protocol.is_paper:
        return records
    if isinstance(records, RecordTable):
        return records.subset(i for i in range(len(records)) if protocol.in_eval(i))
    return protocol.evaluated(records)
