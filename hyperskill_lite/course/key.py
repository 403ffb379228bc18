"""The key: what grading compares a submission with, read from the instructor's notebook,
never from anything a student holds; and the records a notebook's cells leave in their
outputs.

**Where the key comes from.** Each exercise's hidden test cell, when the instructor's
notebook runs (nbval, tools/execute_notebooks.py), checks the instructor's solution
against the library (verify.py) and leaves one display output whose metadata holds the
exercise's key under ``"hyperskill_course"``: for a value exercise the library's value
(`answers.encode`), for a coding exercise the seed of its hidden inputs. The text line
of that output ends with a short digest of the key, so nbval fails when a change to the
library changes a key without the notebook being run again. Student copies hold no test
cell source and no outputs of exercise cells (student.py), the site removes test cells,
and the package holds no key: the key is the instructor's notebook.

**What a learner's check records.** The check cell of a value exercise (check.py)
leaves the learner's answer in its output's metadata, with the SHA-256 of the answer
cell's source as it ran: grading takes an answer it cannot evaluate from the answer
cell's source alone (one that reads the notebook's objects) from that record, when the
source still matches (a stale record, from before the cell was edited, is not graded).

**Revealing correctness.** After the deadline an instructor may publish a reveal file
(`write_reveal`, ``python -m hyperskill_lite.course reveal OUT``): the salted digests
(answers.digest) of every value exercise's key. A learner's check finds it through
``$HYPERSKILL_COURSE_REVEAL`` or as ``course-reveal.json`` in the working folder, and
then says *correct* or *not yet*. Before then no student-side file holds anything to
compare with (grading.md, "Revealing correctness", for tries counted by the grader).

>>> meta = key_metadata("04.1", "float", value=0.5)
>>> entry = parse_key(meta["hyperskill_course"]["key"])
>>> entry.exercise, entry.value
('04.1', 0.5)

Not here: checking and recording (check.py, verify.py), grading (grade.py).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyperskill_lite.course.answers import FormError, canonical, decode, digest, encode
from hyperskill_lite.course.catalog import catalog
from hyperskill_lite.course.exercises import NotebookError, exercise_cells, read_notebook

__all__ = ["META", "REVEAL_ENV", "REVEAL_FILE", "KeyEntry", "answer_metadata", "key_digest",
           "key_metadata", "load_reveal", "parse_key", "read_key", "records_of", "source_sha",
           "write_reveal"]

META = "hyperskill_course"
"""The metadata key of every record a course cell leaves in its outputs."""
REVEAL_ENV = "HYPERSKILL_COURSE_REVEAL"
REVEAL_FILE = "course-reveal.json"
MAX_RECORD_CHARS = 200_000
"""A record in a submission's output larger than this (as JSON) is ignored."""


@dataclass(frozen=True)
class KeyEntry:
    """One exercise's key: `value` (decoded) for a value exercise, `seed` for a coding
    exercise's hidden inputs."""

    exercise: str
    kind: str
    value: Any = None
    seed: int | None = None


def key_metadata(ex: str, kind: str, *, value: Any = None, seed: int | None = None
                 ) -> dict[str, Any]:
    """The output metadata of exercise `ex`'s key (a value, or a coding exercise's seed)."""
    rec: dict[str, Any] = {"exercise": ex, "kind": kind}
    if kind == "function":
        rec["seed"] = int(seed) if seed is not None else None
    else:
        rec["value"] = encode(value)
    return {META: {"key": rec}}


def key_digest(meta: dict[str, Any]) -> str:
    """A short digest of a key record (printed in its output, for nbval)."""
    text = json.dumps(meta[META]["key"], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def source_sha(source: str) -> str:
    """The digest of an answer cell's source that a check's record names: trailing
    spaces and blank lines at either end ignored, so that saving a notebook again does
    not make its records stale."""
    lines = [line.rstrip() for line in source.replace("\r\n", "\n").splitlines()]
    return hashlib.sha256("\n".join(lines).strip("\n").encode()).hexdigest()


def answer_metadata(ex: str, value: Any, source: str | None) -> dict[str, Any]:
    """The output metadata of a learner's recorded answer."""
    return {META: {"answer": {"exercise": ex, "value": encode(value),
                              "source": source_sha(source) if source is not None else None}}}


def parse_key(rec: Any) -> KeyEntry:
    """A key record read back; ValueError when it is not one."""
    if not isinstance(rec, dict) or not isinstance(rec.get("exercise"), str):
        raise ValueError("not a key record")
    kind = rec.get("kind")
    if kind == "function":
        seed = rec.get("seed")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"the key of {rec['exercise']} has no seed")
        return KeyEntry(rec["exercise"], kind, seed=seed)
    if "value" not in rec:
        raise ValueError(f"the key of {rec['exercise']} has no value")
    return KeyEntry(rec["exercise"], str(kind), value=decode(rec["value"]))


def records_of(cell: dict[str, Any], what: str) -> list[dict[str, Any]]:
    """The course records of kind `what` ("key" or "answer") in a cell's outputs, in
    order; anything malformed or oversized is skipped (a submission's outputs are the
    learner's to edit)."""
    out = []
    outputs = cell.get("outputs") if isinstance(cell, dict) else None
    for o in outputs if isinstance(outputs, list) else []:
        meta = o.get("metadata") if isinstance(o, dict) else None
        rec = meta.get(META) if isinstance(meta, dict) else None
        rec = rec.get(what) if isinstance(rec, dict) else None
        if not isinstance(rec, dict):
            continue
        try:
            if len(json.dumps(rec)) > MAX_RECORD_CHARS:
                continue
        except (TypeError, ValueError, RecursionError):
            continue
        out.append(rec)
    return out


def read_key(nb: dict[str, Any], name: str = "the instructor's notebook") -> dict[str, KeyEntry]:
    """Every exercise's key in an instructor notebook, by id. A `NotebookError` names
    the exercises without one (the notebook was not run since they were added)."""
    found: dict[str, KeyEntry] = {}
    missing = []
    for c in exercise_cells(nb["cells"]):
        if c.role != "test":
            continue
        entry = None
        for rec in records_of(nb["cells"][c.index], "key"):
            try:
                entry = parse_key(rec)
            except ValueError:
                continue
            if entry.exercise == c.exercise:
                break
            entry = None
        if entry is None:
            missing.append(c.exercise)
        else:
            found[c.exercise] = entry
    if missing:
        raise NotebookError(
            f"{name} holds no grading key for {', '.join(missing)}: run it once (python "
            "tools/execute_notebooks.py NOTEBOOK, or make notebooks) so that its hidden tests "
            "record the key, and grade again")
    return found


def write_reveal(notebooks: list[Path], out: Path) -> int:
    """Write the reveal file of the value exercises of `notebooks` (instructor notebooks)
    to `out`; the number of exercises it reveals. Refuses (FileExistsError) to overwrite."""
    revealed: dict[str, str] = {}
    for path in notebooks:
        nb = read_notebook(path)
        if not any(c.role == "test" for c in exercise_cells(nb["cells"])):
            continue
        for ex, entry in read_key(nb, path.name).items():
            spec = catalog().get(ex)
            if entry.kind == "function" or spec is None or not spec.value:
                continue
            try:
                revealed[ex] = digest(ex, canonical(entry.value, spec.spec()))
            except FormError as e:
                raise NotebookError(f"{path.name}: the key of {ex} is not of its form ({e})") from e
    out = Path(out)
    if out.exists():
        raise FileExistsError(f"{out} exists; name a new file")
    out.write_text(json.dumps({"course": "hyperskill_lite", "revealed": revealed}, indent=1,
                              sort_keys=True) + "\n", encoding="utf-8")
    return len(revealed)


def load_reveal() -> dict[str, str]:
    """The revealed digests a learner's check may use (module docstring), or {} when no
    reveal file is there (or it cannot be read)."""
    path = Path(os.environ.get(REVEAL_ENV) or REVEAL_FILE)
    try:
        if not path.is_file() or path.stat().st_size > 1_000_000:
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    revealed = data.get("revealed") if isinstance(data, dict) else None
    if not isinstance(revealed, dict):
        return {}
    return {str(k): str(v) for k, v in revealed.items() if isinstance(v, str)}
