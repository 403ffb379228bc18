"""Student copies of the notebooks: the solution cells removed and the answers blank, for
a class to work in (as fastbook ships clean copies of its notebooks; our addition).

`student_notebook(nb)` returns the copy of one notebook: every solution cell is dropped,
each answer cell's ``answer = ...`` line reads ``answer = None  # your answer here`` and
the exercise cells' outputs are cleared (the rest keep theirs, figures included, so the
copy still reads well before it is run). `write_student_copies(src, out)` writes the
copies of ``src/NN_*.ipynb`` into `out`.

It never overwrites a file the user owns: `out` must be new, empty, or a folder this
command made (it leaves a manifest of what it wrote, with each file's hash); there it
rewrites only its own files left unchanged since, and refuses when one was edited (a
student's work). Refusals are a `StudentCopyError` with one line for the user.

>>> nb = {"cells": [
...     {"cell_type": "code", "source": "answer = 3", "outputs": [], "execution_count": 1,
...      "metadata": {"exercise": {"id": "04.1", "role": "answer"}}},
...     {"cell_type": "code", "source": "answer = 0.7", "outputs": [], "execution_count": 2,
...      "metadata": {"exercise": {"id": "04.1", "role": "solution"}, "tags": ["solution"]}}],
...     "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
>>> [c["source"] for c in student_notebook(nb)["cells"]]
['answer = None  # your answer here']

Not here: grading (grade.py).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from hyperskill_lite.course.exercises import exercise_cells, read_notebook

__all__ = ["MANIFEST", "StudentCopyError", "student_notebook", "write_student_copies"]

MANIFEST = ".hyperskill-student.json"
BLANK = "answer = None  # your answer here"
ANSWER_LINE = re.compile(r"^answer\s*=.*$", re.MULTILINE)


class StudentCopyError(Exception):
    """A refusal, with a one-line message for the user."""


def student_notebook(nb: dict[str, Any]) -> dict[str, Any]:
    """The student copy of notebook `nb` (module docstring)."""
    nb = copy.deepcopy(nb)
    roles = {c.index: c.role for c in exercise_cells(nb["cells"])}
    cells = []
    for i, cell in enumerate(nb["cells"]):
        if roles.get(i) == "solution" or "solution" in cell.get("metadata", {}).get("tags", []):
            continue
        if i in roles:
            source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            if roles[i] == "answer":
                source = ANSWER_LINE.sub(BLANK, source) if ANSWER_LINE.search(source) \
                    else source.rstrip("\n") + "\n" + BLANK
            cell["source"] = source
            cell["outputs"] = []
            cell["execution_count"] = None
        cells.append(cell)
    nb["cells"] = cells
    nb.get("metadata", {}).pop("widgets", None)
    return nb


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
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
        nb = student_notebook(read_notebook(path))
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
