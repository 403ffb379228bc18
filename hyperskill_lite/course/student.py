"""Student copies of the notebooks, made with nbgrader's own release steps: solution
regions stripped (`ClearSolutions`; a written question's model answer replaced by
`WRITTEN_STUB`), hidden tests stripped (`ClearHiddenTests`), check and test cells locked
(`LockCells`) and checksummed (`ComputeChecksums`), the metadata validated
(`CheckCellMetadata`). Then, ours: every rubric cell dropped (the instructor's, catalog.py),
the exercise cells' outputs cleared (a test cell's recorded key with them), the
instructor-only tag ``solution`` and the collapsed source removed (also from a solution
cell outside an exercise, the capstone's method cell, which keeps its template), and a
note under the title says where the solutions are. A test cell stays, holding only its comment
line (the site drops it: ``remove-cell``); grading restores its hidden test. The other cells keep their outputs, figures
included, so a copy reads well before it is run (and the student site shows them).

`student_notebook(nb)` returns the copy of one notebook; `write_student_copies(src, out)`
writes the copies of ``src/NN_*.ipynb`` into `out`, readable by the class (mode 0644).
It never overwrites a file the user owns: `out` must be new, empty, or a folder this
command made (it leaves a manifest of what it wrote, with each file's hash); there it
rewrites only its own files left unchanged since, and refuses when one was edited (a
student's work). Refusals are a `StudentCopyError` with one line for the user.

>>> from hyperskill_lite.course.exercises import exercise_metadata
>>> nb = {"cells": [
...     {"cell_type": "markdown", "id": "t", "metadata": {}, "source": "# 04 · title"},
...     {"cell_type": "code", "outputs": [], "execution_count": 1, "id": "a",
...      "source": "answer = None  # your answer here\\n### BEGIN SOLUTION\\nanswer = 0.7\\n### END SOLUTION",
...      "metadata": exercise_metadata("04.1", "answer")}],
...     "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
...                                 "language": "python"}},
...     "nbformat": 4, "nbformat_minor": 5}
>>> [c["id"] for c in student_notebook(nb)["cells"]]
['t', 'student-copy-note', 'a']
>>> student_notebook(nb)["cells"][2]["source"]
'answer = None  # your answer here'

Not here: grading (grade.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from hyperskill_lite.course.exercises import NotebookError, exercise_cells, read_notebook
from hyperskill_lite.course.gradebook import WRITTEN_STUB

__all__ = ["MANIFEST", "NOTE", "StudentCopyError", "student_notebook",
           "write_student_copies"]

MANIFEST = ".hyperskill-student.json"
NOTE = (
    "> **Student copy.** The exercises' answer cells are blank: write your answer (or the "
    "function) there and run the check cell under it. The check tells you whether your answer "
    "has the form asked for, and runs a function on its public examples; it does not tell you "
    "whether a value is right (that would let a loop find it). Run each check before you "
    "submit: it records your answer for grading. Grading (`python -m hyperskill_lite.course "
    "grade`) takes your answers out of the notebook and checks them against the library's, a "
    "function also on inputs you do not see; written answers are graded by hand. The "
    "solutions are in the instructor edition, which your teacher shares when they choose."
)

NOTE_ID = "student-copy-note"


class StudentCopyError(Exception):
    """A refusal, with a one-line message for the user."""


def _nbgrader_release(nb: dict[str, Any]) -> Any:
    try:
        import nbformat
        from nbgrader.preprocessors import (
            CheckCellMetadata,
            ClearHiddenTests,
            ClearSolutions,
            ComputeChecksums,
            LockCells,
        )
    except ImportError as e:
        raise StudentCopyError(f"student copies are made with nbgrader, which is not installed "
                               f"({e.name} is missing): pip install -e '.[course]'") from e
    node = nbformat.reads(json.dumps(nb), as_version=4)  # sources as strings
    resources: dict[str, Any] = {}
    steps = [ClearSolutions(code_stub={"python": ""}, text_stub=WRITTEN_STUB),
             ClearHiddenTests(), LockCells(), ComputeChecksums(), CheckCellMetadata()]
    try:
        for step in steps:
            node, resources = step.preprocess(node, resources)
    except (RuntimeError, ValueError) as e:
        raise NotebookError(f"nbgrader cannot release this notebook: {e}") from e
    out = json.loads(nbformat.writes(node))
    for cell in out["cells"]:
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])
    return out


def _tidy(source: str) -> str:
    """A cleared answer: no lines of bare indentation, no trailing blank lines."""
    return "\n".join(line.rstrip() for line in source.splitlines()).rstrip("\n")


def student_notebook(nb: dict[str, Any]) -> dict[str, Any]:
    """The student copy of notebook `nb` (module docstring)."""
    out = _nbgrader_release(nb)
    roles = {c.index: c.role for c in exercise_cells(out["cells"])}
    cells = []
    for i, cell in enumerate(out["cells"]):
        role = roles.get(i)
        if role == "rubric" or "rubric" in cell.get("metadata", {}).get("tags", []):
            continue  # the instructor's: never in a student copy
        # a solution cell outside an exercise (the capstone's method cell): its template
        free = role is None and "solution" in cell.get("metadata", {}).get("tags", [])
        if role is not None or free:
            meta = cell["metadata"]
            meta["tags"] = [t for t in meta.get("tags", []) if t != "solution"]
            meta.get("jupyter", {}).pop("source_hidden", None)
            if not meta.get("jupyter"):
                meta.pop("jupyter", None)
            if role in ("answer", "test") or free:
                cell["source"] = _tidy(cell["source"])
            if role is not None and cell.get("cell_type") == "code":
                cell["outputs"] = []
                cell["execution_count"] = None
        cells.append(cell)
    if roles:
        note = {"cell_type": "markdown", "id": NOTE_ID, "metadata": {"tags": ["student-note"]},
                "source": NOTE}
        cells = cells[:1] + [note] + cells[1:]
    out["cells"] = cells
    out.get("metadata", {}).pop("widgets", None)
    return out


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _atomic_write(path: Path, data: bytes, mode: int = 0o644) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)  # the class reads these: not mkstemp's 0600
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read_manifest(out: Path) -> dict[str, str] | None:
    path = out / MANIFEST
    if not path.is_file():
        return None
    try:
        written = json.loads(path.read_text(encoding="utf-8"))["written"]
        return {str(k): str(v) for k, v in written.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise StudentCopyError(f"{path} is damaged ({e.__class__.__name__}); write the student "
                               "copies into a new folder") from e


def write_student_copies(src: Path, out: Path) -> list[Path]:
    """Write the student copies of ``src/NN_*.ipynb`` into `out`; return the files
    written. Raises `StudentCopyError` rather than overwrite a file the user owns."""
    src, out = Path(src), Path(out)
    notebooks = sorted(src.glob("[0-9][0-9]_*.ipynb"))
    if not notebooks:
        raise StudentCopyError(f"{src} holds no course notebooks (NN_*.ipynb); pass the "
                               "repository's notebooks/ folder with --notebooks")
    if out.exists() and not out.is_dir():
        raise StudentCopyError(f"{out} is a file, not a folder; name a new folder")
    manifest: dict[str, str] = {}
    if out.is_dir() and any(out.iterdir()):
        found = _read_manifest(out)
        if found is None:
            raise StudentCopyError(f"{out} is not empty and was not made by `course student`; "
                                   "name a new or empty folder (nothing was written)")
        manifest = found
    copies = {}
    for path in notebooks:
        try:
            nb = student_notebook(read_notebook(path))
        except NotebookError as e:
            raise NotebookError(f"{path.name}: {e}") from e
        copies[path.name] = (json.dumps(nb, indent=1, ensure_ascii=False) + "\n").encode()
    for name in copies:
        target = out / name
        if target.exists() and (name not in manifest
                                or _digest(target.read_bytes()) != manifest[name]):
            raise StudentCopyError(f"{target} was changed since `course student` wrote it (or "
                                   "was never written by it); move it away or name a new folder "
                                   "(nothing was written)")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in copies.items():
        _atomic_write(out / name, data)
        manifest[name] = _digest(data)
        written.append(out / name)
    _atomic_write(out / MANIFEST, (json.dumps({"written": manifest}, indent=1) + "\n").encode())
    return written
