"""Where the exercises are in a notebook: each exercise's cells carry its id and role in
their metadata, nbgrader's metadata (so `nbgrader` itself can release and grade the
notebooks), tags for the course site, and a cell id made from the id and role.

The three cells of exercise ``03.1``, in order:

======  ==================  =============================  ========================
role    cell id             nbgrader                       tags
======  ==================  =============================  ========================
answer  ``ex-03-1-answer``  solution cell (the learner     ``exercise-answer``,
                            writes here; the instructor's  ``solution`` (instructor
                            solution sits between          edition only; the source
                            ``### BEGIN SOLUTION`` and     is collapsed there)
                            ``### END SOLUTION``)
check   ``ex-03-1-check``   locked cell (read-only,        ``exercise-check``
                            restored when edited): the
                            learner's own check
test    ``ex-03-1-test``    autograded test, locked,       ``exercise-test``,
                            1 point, all of it hidden      ``remove-cell``
                            (``### BEGIN HIDDEN TESTS``)
======  ==================  =============================  ========================

A written question (catalog.py) has two cells instead, both markdown:

======  ==================  =============================  ========================
role    cell id             nbgrader                       tags
======  ==================  =============================  ========================
answer  ``ex-05-5-answer``  solution cell graded by hand   ``exercise-written``,
                            (``points`` from the catalog;  ``solution``
                            the instructor's model
                            answer, replaced by a stub
                            in copies)
rubric  ``ex-05-5-rubric``  none (in the instructor's      ``rubric``
                            edition only)
======  ==================  =============================  ========================

A notebook is read as plain JSON (nbformat 4), so these helpers need no Jupyter package.

>>> cells = [{"cell_type": "code", "metadata": exercise_metadata("01.2", "check")},
...          {"cell_type": "markdown", "metadata": {}}]
>>> [(c.index, c.exercise, c.role) for c in exercise_cells(cells)]
[(0, '01.2', 'check')]
>>> cell_id("01.2", "test"), exercise_of("ex-01-2-test")
('ex-01-2-test', '01.2')

Not here: writing student copies (student.py), grading (grade.py).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["MAX_NOTEBOOK_BYTES", "ROLES", "TAGS", "WRITTEN_TAGS", "ExerciseCell", "NotebookError",
           "cell_id", "cell_text", "exercise_cells", "exercise_ids", "exercise_metadata",
           "exercise_of", "read_notebook"]

ROLES = ("answer", "check", "test", "rubric")
META_KEY = "exercise"
TAGS = {"answer": ["exercise-answer", "solution"], "check": ["exercise-check"],
        "test": ["exercise-test", "remove-cell"], "rubric": ["rubric"]}
"""The tags each role's cell carries in the instructor edition (the site's conventions:
``solution`` holds a solution, ``remove-cell`` is grader-only, ``rubric`` is the
instructor's and never in a student copy)."""
WRITTEN_TAGS = ["exercise-written", "solution"]
"""The tags of a written question's answer cell."""
_ID = re.compile(r"^ex-(\d\d)-(\d+)-(answer|check|test|rubric)$")


class NotebookError(Exception):
    """A notebook that cannot be used, with a one-line message for the user."""


@dataclass(frozen=True)
class ExerciseCell:
    """A cell of an exercise: its `index` among the notebook's cells, `exercise` id and
    `role` (one of `ROLES`)."""

    index: int
    exercise: str
    role: str


def cell_id(exercise: str, role: str) -> str:
    """The cell id (and nbgrader grade id) of an exercise's cell."""
    return f"ex-{exercise.replace('.', '-')}-{role}"


def exercise_of(grade_id: str) -> str | None:
    """The exercise id a cell id / grade id belongs to, or None."""
    m = _ID.match(grade_id or "")
    return f"{m.group(1)}.{m.group(2)}" if m else None


def exercise_metadata(exercise: str, role: str, *, written: bool = False,
                      points: float = 1) -> dict[str, Any]:
    """The metadata of `role`'s cell of `exercise` (instructor edition): ours, nbgrader's
    and the tags. A written question's answer cell (`written`) is graded by hand for
    `points`; its rubric cell carries no nbgrader metadata (student copies drop it)."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}, got {role!r}")
    if role == "rubric":
        return {META_KEY: {"id": exercise, "role": role}, "tags": list(TAGS[role])}
    if written:
        if role != "answer":
            raise ValueError(f"a written question has an answer and a rubric cell, not {role!r}")
        return {META_KEY: {"id": exercise, "role": role, "written": True},
                "nbgrader": {"grade": True, "grade_id": cell_id(exercise, role), "locked": False,
                             "points": points, "schema_version": 3, "solution": True,
                             "task": False},
                "tags": list(WRITTEN_TAGS)}
    nbgrader = {"grade": role == "test", "grade_id": cell_id(exercise, role),
                "locked": role != "answer", "schema_version": 3,
                "solution": role == "answer", "task": False}
    if role == "test":
        nbgrader["points"] = points
    meta: dict[str, Any] = {META_KEY: {"id": exercise, "role": role}, "nbgrader": nbgrader,
                            "tags": list(TAGS[role])}
    if role == "answer":
        meta["jupyter"] = {"source_hidden": True}
    return meta


def exercise_cells(cells: list[dict[str, Any]]) -> list[ExerciseCell]:
    """The cells marked as exercise cells, in notebook order."""
    out = []
    for i, cell in enumerate(cells):
        meta = cell.get("metadata", {}) if isinstance(cell, dict) else {}
        meta = meta.get(META_KEY) if isinstance(meta, dict) else None
        if isinstance(meta, dict) and meta.get("role") in ROLES and meta.get("id"):
            out.append(ExerciseCell(i, str(meta["id"]), meta["role"]))
    return out


def exercise_ids(cells: list[dict[str, Any]]) -> list[str]:
    """The notebook's exercise ids, in order, each once."""
    return list(dict.fromkeys(c.exercise for c in exercise_cells(cells)))


MAX_NOTEBOOK_BYTES = 64 * 2**20
"""A submitted notebook larger than this is refused (one line), never read whole."""


def cell_text(cell: dict[str, Any]) -> str:
    """A cell's source as one string (nbformat allows a list of lines)."""
    src = cell.get("source", "")
    if isinstance(src, list):
        return "".join(x for x in src if isinstance(x, str))
    return src if isinstance(src, str) else ""


def read_notebook(path: Path) -> dict[str, Any]:
    """A notebook's JSON, or a `NotebookError` saying what is wrong with the file."""
    path = Path(path)
    if not path.is_file():
        raise NotebookError(f"{path}: no such notebook")
    if path.stat().st_size > MAX_NOTEBOOK_BYTES:
        raise NotebookError(f"{path}: {path.stat().st_size / 2**20:.0f} MB is more than a "
                            f"notebook may be ({MAX_NOTEBOOK_BYTES // 2**20} MB); clear its "
                            "outputs and save it again")
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise NotebookError(f"{path}: not a readable notebook ({e.__class__.__name__}: {e}); "
                            "open it in JupyterLab and save it again") from e
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list) \
            or nb.get("nbformat") != 4:
        raise NotebookError(f"{path}: not an nbformat-4 notebook; save it from JupyterLab")
    return nb
