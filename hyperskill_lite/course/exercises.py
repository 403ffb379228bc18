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

__all__ = ["ROLES", "TAGS", "ExerciseCell", "NotebookError", "cell_id", "exercise_cells",
           "exercise_ids", "exercise_metadata", "exercise_of", "read_notebook"]

ROLES = ("answer", "check", "test")
META_KEY = "exercise"
TAGS = {"answer": ["exercise-answer", "solution"], "check": ["exercise-check"],
        "test": ["exercise-test", "remove-cell"]}
"""The tags each role's cell carries in the instructor edition (the site's conventions:
``solution`` holds a solution, ``remove-cell`` is grader-only)."""
_ID = re.compile(r"^ex-(\d\d)-(\d+)-(answer|check|test)$")


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


def exercise_metadata(exercise: str, role: str) -> dict[str, Any]:
    """The metadata of `role`'s cell of `exercise` (instructor edition): ours, nbgrader's
    and the tags."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}, got {role!r}")
    nbgrader = {"grade": role == "test", "grade_id": cell_id(exercise, role),
                "locked": role != "answer", "schema_version": 3,
                "solution": role == "answer", "task": False}
    if role == "test":
        nbgrader["points"] = 1
    meta: dict[str, Any] = {META_KEY: {"id": exercise, "role": role}, "nbgrader": nbgrader,
                            "tags": list(TAGS[role])}
    if role == "answer":
        meta["jupyter"] = {"source_hidden": True}
    return meta


def exercise_cells(cells: list[dict[str, Any]]) -> list[ExerciseCell]:
    """The cells marked as exercise cells, in notebook order."""
    out = []
    for i, cell in enumerate(cells):
        meta = cell.get("metadata", {}).get(META_KEY)
        if isinstance(meta, dict) and meta.get("role") in ROLES and meta.get("id"):
            out.append(ExerciseCell(i, str(meta["id"]), meta["role"]))
    return out


def exercise_ids(cells: list[dict[str, Any]]) -> list[str]:
    """The notebook's exercise ids, in order, each once."""
    return list(dict.fromkeys(c.exercise for c in exercise_cells(cells)))


def read_notebook(path: Path) -> dict[str, Any]:
    """A notebook's JSON, or a `NotebookError` saying what is wrong with the file."""
    path = Path(path)
    if not path.is_file():
        raise NotebookError(f"{path}: no such notebook")
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise NotebookError(f"{path}: not a readable notebook ({e.__class__.__name__}: {e}); "
                            "open it in JupyterLab and save it again") from e
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list) \
            or nb.get("nbformat") != 4:
        raise NotebookError(f"{path}: not an nbformat-4 notebook; save it from JupyterLab")
    return nb
