"""Where the exercises are in a notebook: each exercise cell carries its role and exercise
id in its metadata, and a cell id made from them.

The three cells of exercise ``03.1``::

    answer cell    id "ex-03-1-answer"    metadata {"exercise": {"id": "03.1", "role": "answer"}}
    check cell     id "ex-03-1-check"     metadata {"exercise": {"id": "03.1", "role": "check"}}
    solution cell  id "ex-03-1-solution"  metadata {"exercise": {"id": "03.1", "role": "solution"},
                                                    "tags": ["solution"], collapsed source}

A notebook is read as plain JSON (nbformat 4), so these helpers need no Jupyter package.

>>> cells = [{"cell_type": "code", "metadata": exercise_metadata("01.2", "check")},
...          {"cell_type": "markdown", "metadata": {}}]
>>> [(c.index, c.exercise, c.role) for c in exercise_cells(cells)]
[(0, '01.2', 'check')]
>>> cell_id("01.2", "solution")
'ex-01-2-solution'

Not here: running a notebook (grade.py), writing student copies (student.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["ROLES", "ExerciseCell", "cell_id", "exercise_cells", "exercise_ids",
           "exercise_metadata", "read_notebook", "NotebookError"]

ROLES = ("answer", "check", "solution")
META_KEY = "exercise"


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
    """The cell id of an exercise's cell (nbformat ids allow letters, digits, - and _)."""
    return f"ex-{exercise.replace('.', '-')}-{role}"


def exercise_metadata(exercise: str, role: str) -> dict[str, Any]:
    """The metadata entry marking a cell as `role` of `exercise`."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}, got {role!r}")
    return {META_KEY: {"id": exercise, "role": role}}


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
