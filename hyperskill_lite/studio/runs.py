"""Run folders as the studio and `report` read them: one run, or every run inside a
demo, compare or sweep folder.

A run folder is one that holds ``run.json`` (written by `run`, `demo`, `compare --out`
and `sweep`). `find_runs` takes any folder and returns the run folders at or below it,
so ``runs/demo`` gives the demo's five runs, a compare folder its
``<profile>/<method>/seed-<s>`` runs and a sweep folder its cells; the folders a run
keeps for itself (state, checkpoints, figures, logs) are never searched. `read_run`
reads one run's settings and records (records.py: each episode's retrieval is left in the
file until `RunFolder.explanations` asks for it), with one clear error when they cannot
be read.

Everything is read inside the run folder (core/confined.py): a run.json or records file
that is a link leading out of it is one error naming the link, and a link leading out
of a demo, compare or sweep folder is skipped, with a warning, where `find_runs` meets
it. A run.json whose ``format`` is not this project's is refused (another program's
run.json is never shown on a page).

Not here: the records' format (runner/files.py), what the studio shows (build.py).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyperskill_lite.core.confined import TooLarge, entries, read_json
from hyperskill_lite.runner.files import FORMAT, RUN_FILE, RunError
from hyperskill_lite.studio.records import explanations, read_records_lean, reread

__all__ = ["RunFolder", "find_runs", "expand_runs", "read_run", "run_names", "MAX_DEPTH",
           "RUN_JSON_BYTES"]

MAX_DEPTH = 6
"""How deep below a given folder run folders are looked for."""
SKIP = ("state", "checkpoints", "figures", "logs", "report", "__pycache__")
"""Folders of a run (or of a report) that never hold another run."""
RUN_JSON_BYTES = 16 * 2**20
"""A run.json larger than this is not one `run` wrote (it holds settings and a line per
invocation); it is refused unread."""
FORMAT_PREFIX = FORMAT.rsplit("/", 1)[0] + "/"
"""What the ``format`` of every run.json this project writes starts with."""


@dataclass
class RunFolder:
    """One run: its folder, settings (run.json) and finished episodes' records.

    Records read by `read_run` lack their ``explain`` (the retrieval, left in the file):
    `explanations` reads it for the episodes asked for, from the byte `offsets` of their
    lines. Records given directly (offsets empty) keep whatever they hold."""

    path: Path
    info: dict[str, Any]
    records: Sequence[dict[str, Any]] = field(default_factory=list)
    offsets: Sequence[int] = field(default_factory=list, repr=False)

    def explanations(self, indices: Iterable[int]) -> dict[int, Any]:
        """{position: the record's ``explain``} of the given positions in `records` (None
        where there is none)."""
        if not len(self.offsets):
            return {i: self.records[i].get("explain") for i in indices
                    if 0 <= i < len(self.records)}
        return explanations(self.path, self.offsets, indices)

    def whole(self, indices: Iterable[int]) -> dict[int, dict[str, Any] | None]:
        """{position: the whole record} of the given positions, read again from the file
        (the records in memory of a big run keep part of each; records.py `reread`)."""
        if not len(self.offsets):
            return {i: self.records[i] for i in indices if 0 <= i < len(self.records)}
        return reread(self.path, self.offsets, indices)


def _skipped(name: str) -> bool:
    return name.startswith(".") or any(name == s or name.startswith(s + ".") for s in SKIP)


def _has_run_file(folder: Path) -> bool:
    """Whether `folder` names a run.json (a link too: reading it says where it leads)."""
    return os.path.lexists(folder / RUN_FILE)


def find_runs(folder: Path | str) -> list[Path]:
    """`folder` itself when it is a run folder, else the run folders below it (at most
    `MAX_DEPTH` levels), sorted by path; [] when there is none. A link leading out of
    `folder` is skipped with a warning (core/confined.py `entries`); each folder is
    visited once, however many links inside lead to it."""
    folder = Path(folder)
    if _has_run_file(folder):
        return [folder]
    found: list[Path] = []
    seen = {os.path.realpath(folder)}
    level = [folder]
    for _ in range(MAX_DEPTH):
        nxt: list[Path] = []
        for d in level:
            for c in entries(folder, d, "run folders"):
                if _skipped(c.name) or not c.is_dir():
                    continue
                real = os.path.realpath(c)
                if real in seen:
                    continue
                seen.add(real)
                (found if _has_run_file(c) else nxt).append(c)
        level = nxt
    return sorted(found)


def expand_runs(paths: Iterable[Path | str]) -> list[Path]:
    """Every run folder the given paths name: a run folder as itself, a demo, compare or
    sweep folder as the runs inside it, in order, each once. Files given among the paths
    (``runs/demo/*`` expands to ``demo.json`` and ``summary.json`` too) are skipped when
    other paths name runs. Raises FileNotFoundError for a missing path and RunError when
    no path holds a run."""
    out: list[Path] = []
    given = [Path(p) for p in paths]
    for p in given:
        if not p.exists():
            raise FileNotFoundError(f"{p}: no such run folder")
        if p.is_dir() and not _skipped(p.name):
            out += [r for r in find_runs(p) if r not in out]
    if not out:
        names = ", ".join(str(p) for p in given)
        raise RunError(f"{names}: not a run folder (no run.json), and none inside it; give "
                       "folders written by `run`, `demo`, `compare --out` or `sweep`")
    return out


def read_run(path: Path | str) -> RunFolder:
    """A run's settings and records (without their ``explain``: `RunFolder.explanations`);
    RunError naming the folder and the problem when run.json is not this project's (not
    a JSON object, or without its ``format``), a records line is damaged or no episode
    has finished; `LinkOutside` (a PermissionError) when run.json or the records file is
    a link leading out of the folder (nothing outside is read)."""
    path = Path(path)
    info_file = path / RUN_FILE
    if not _has_run_file(path):
        raise RunError(f"{path}: not a run folder (no run.json); give folders written by "
                       "`run`, `demo`, `compare --out` or `sweep`")
    try:
        info = read_json(path, info_file, limit=RUN_JSON_BYTES)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RunError(f"{info_file}: not valid JSON ({exc})") from None
    except TooLarge as exc:
        raise RunError(f"{exc} (a run.json holds a run's settings); not a run folder of "
                       "hyperskill_lite") from None
    except IsADirectoryError:
        raise RunError(f"{info_file}: is a folder; not a run folder of hyperskill_lite") from None
    if not isinstance(info, dict):
        raise RunError(f"{info_file}: not a run description (not a JSON object)")
    fmt = info.get("format")
    if not (isinstance(fmt, str) and fmt.startswith(FORMAT_PREFIX)):
        said = "it has no format" if fmt is None else f"its format is {str(fmt)[:60]!r}"
        raise RunError(f"{info_file}: not a run description of hyperskill_lite ({said}, "
                       f"not {FORMAT!r}); give folders written by `run`, `demo`, "
                       "`compare --out` or `sweep`")
    records, offsets = read_records_lean(path)
    if not records:
        raise RunError(f"{path}: no finished episode yet")
    return RunFolder(path, info, records, offsets)


def run_names(infos: list[dict]) -> list[str]:
    """A distinct label per run: the method, then the task set and the seed when needed.

    >>> run_names([{"method": "a", "profile": "gaia", "seed": 0},
    ...            {"method": "a", "profile": "gaia", "seed": 1}, {"method": "b"}])
    ['a gaia seed 0', 'a gaia seed 1', 'b']
    """
    def label(info: dict, parts: int) -> str:
        where = info.get("profile") or info.get("benchmark") or ""
        bits = [str(info.get("method", "run")), str(where), f"seed {info.get('seed', 0)}"]
        return " ".join(b for b in bits[:parts] if b)

    names = []
    for info in infos:
        for parts in (1, 2, 3):
            mine = label(info, parts)
            if sum(label(o, parts) == mine for o in infos) == 1 or parts == 3:
                break
        names.append(mine)
    counts = Counter(names)
    seen: Counter[str] = Counter()
    numbered = []
    for n in names:  # identical settings in two folders: number them
        seen[n] += 1
        numbered.append(f"{n} ({seen[n]})" if counts[n] > 1 else n)
    return numbered
