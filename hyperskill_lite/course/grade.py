"""The autograder: run a learner's notebook and say, per exercise, correct, wrong or not
answered.

`grade_notebook(path)` runs a copy of the notebook in a temporary folder (the learner's
file is only read) with ``$HYPERSKILL_CHECK_LOG`` set, so each `check` call appends its
verdict to a log (check.py); the last verdict of an exercise is its grade. An exercise
whose check never ran is not answered; one whose answer or check cell raised is wrong,
with the error in the note. Cells after the last exercise cell are not run (they cannot
change a grade). `format_report` prints the table; the CLI (``python -m
hyperskill_lite.course grade``) exits 0 when every exercise is correct, 1 otherwise, 2 when
a notebook cannot be graded.

In the shipped notebooks every solution cell checks itself after the learner's check, so
they grade all correct (tests/test_course_grade.py). Like minitorch's pytest-marker
autograder, the checks are the tests; our addition to the paper's code.

Not here: the comparison itself (check.py), the cells' metadata (exercises.py).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from hyperskill_lite.course.check import CHECK_LOG_ENV
from hyperskill_lite.course.exercises import (
    NotebookError,
    exercise_cells,
    exercise_ids,
    read_notebook,
)

__all__ = ["ExerciseGrade", "GradeReport", "grade_notebook", "format_report"]


@dataclass(frozen=True)
class ExerciseGrade:
    """One exercise's grade: `status` is "correct", "wrong" or "not answered"."""

    exercise: str
    status: str
    note: str = ""


@dataclass
class GradeReport:
    """A notebook's grades, in exercise order, and problems outside the exercises."""

    notebook: Path
    grades: list[ExerciseGrade] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def all_correct(self) -> bool:
        return bool(self.grades) and all(g.status == "correct" for g in self.grades)

    def by_status(self) -> dict[str, str]:
        """Exercise id -> status."""
        return {g.exercise: g.status for g in self.grades}


def _execute(nb: dict, workdir: Path, log: Path, timeout: int) -> dict:
    try:
        import nbformat
        from jupyter_client.kernelspec import NoSuchKernel
        from nbclient import NotebookClient
        from nbclient.exceptions import DeadKernelError
    except ImportError as e:
        raise NotebookError(f"grading runs the notebook and needs nbclient and ipykernel "
                            f"({e.name} is missing): pip install -e '.[dev]'") from e
    node = nbformat.reads(json.dumps(nb), as_version=4)
    kernel = (nb.get("metadata", {}).get("kernelspec") or {}).get("name") or "python3"
    client = NotebookClient(node, timeout=timeout, kernel_name=kernel, allow_errors=True,
                            resources={"metadata": {"path": str(workdir)}})
    kernel_log = log.with_name("kernel.log")  # the kernel's own stderr (its start-up warnings)
    try:
        with kernel_log.open("wb") as err:
            client.execute(env={**os.environ, CHECK_LOG_ENV: str(log)}, stderr=err)
    except DeadKernelError as e:
        tail = kernel_log.read_text(errors="replace").strip().splitlines()[-1:] or ["no output"]
        raise NotebookError(f"the kernel died while running the notebook ({tail[0]}); "
                            "is the machine out of memory?") from e
    except NoSuchKernel as e:
        raise NotebookError(f"the notebook asks for the Jupyter kernel {kernel!r}, which is not "
                            "installed here; open it in JupyterLab and pick Python 3") from e
    except TimeoutError as e:
        raise NotebookError(f"a cell ran longer than {timeout} s; grade with a larger "
                            "--timeout") from e
    return json.loads(nbformat.writes(node))


def _errors(nb: dict) -> dict[int, str]:
    out = {}
    for i, cell in enumerate(nb["cells"]):
        for o in cell.get("outputs", []):
            if o.get("output_type") == "error":
                out[i] = f"{o.get('ename', 'Error')}: {o.get('evalue', '')}"[:200]
    return out


def grade_notebook(path: Path, timeout: int = 600) -> GradeReport:
    """Run a copy of the notebook at `path` and grade its exercises."""
    path = Path(path)
    nb = read_notebook(path)
    ids = exercise_ids(nb["cells"])
    if not ids:
        raise NotebookError(f"{path}: no exercise cells (cells marked with exercise metadata); "
                            "grade one of the notebooks 01-05 or a student copy of it")
    cells = exercise_cells(nb["cells"])
    nb = {**nb, "cells": nb["cells"][: max(c.index for c in cells) + 1]}
    report = GradeReport(path)
    with tempfile.TemporaryDirectory(prefix="hsl-grade-") as tmp:
        workdir = Path(tmp) / "notebooks"  # the notebooks write ../figures: kept in tmp
        workdir.mkdir()
        (Path(tmp) / "figures").mkdir()
        log = Path(tmp) / "checks.jsonl"
        log.touch()
        executed = _execute(nb, workdir, log, timeout)
        verdicts: dict[str, dict] = {}
        for line in log.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            verdicts[rec["exercise"]] = rec
    errors = _errors(executed)
    role_of = {c.index: c for c in cells}
    failed: dict[str, str] = {}
    for i, err in errors.items():
        if i in role_of and role_of[i].role in ("answer", "check"):
            failed.setdefault(role_of[i].exercise, f"its {role_of[i].role} cell raised {err}")
        elif i not in role_of:
            report.problems.append(f"cell {i} raised {err}")
    for ex in ids:
        rec = verdicts.get(ex)
        if ex in failed:
            report.grades.append(ExerciseGrade(ex, "wrong", failed[ex]))
        elif rec is None:
            report.grades.append(ExerciseGrade(ex, "not answered", "its check did not run"))
        else:
            note = f"answer {rec['answer']}" if rec["status"] == "wrong" else ""
            report.grades.append(ExerciseGrade(ex, rec["status"], note))
    return report


def format_report(report: GradeReport) -> str:
    """The per-exercise table a teacher reads.

    >>> r = GradeReport(Path("04.ipynb"), [ExerciseGrade("04.1", "correct"),
    ...                                    ExerciseGrade("04.2", "wrong", "answer {'n2'}")])
    >>> print(format_report(r))
    04.ipynb: 1 of 2 correct
      exercise  result        note
      04.1      correct
      04.2      wrong         answer {'n2'}
    """
    n_ok = sum(g.status == "correct" for g in report.grades)
    lines = [f"{report.notebook.name}: {n_ok} of {len(report.grades)} correct",
             f"  {'exercise':<9} {'result':<13} note"]
    for g in report.grades:
        lines.append(f"  {g.exercise:<9} {g.status:<13} {g.note}".rstrip())
    for p in report.problems:
        lines.append(f"  (outside the exercises: {p})")
    return "\n".join(lines)
