"""The scores, into nbgrader's gradebook, without running the notebook.

Grading decides each exercise outside the notebook (grade.py); nbgrader keeps what it
serves well: the course folder (``source/``, ``submitted/``, ``autograded/``), the
gradebook its formgrader and ``generate_feedback`` read, the restoring of locked and
test cells from the instructor's notebook, and the hand grades of written answers.
`autograde` runs nbgrader's own ``Autograde`` converter with one change: its
``Execute`` step (which would run the submission in a kernel) is replaced by
`ContainedVerdicts`, which writes each test cell's verdict into the cell's output (an
error output for no point, a line for a point: how nbgrader scores a test cell), and puts
each written question's rubric back beside the student's answer for the grader (the
instructor's rubric: one a submission carries, pasted or edited, is dropped). Its
``SaveAutoGrades`` step then stores the scores in the gradebook as usual; a written
answer is left for formgrader (``needs_manual_grade``).

The outputs written into the autograded notebook are what a student's feedback shows
(``nbgrader generate_feedback``): they never hold the key (a library's value, a hidden
input); grade.py makes them.

Not here: deciding the verdicts (grade.py), the course folder's layout (nbgrader's).
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyperskill_lite.course.exercises import NotebookError, cell_id, cell_text, exercise_cells

__all__ = ["ASSIGNMENT", "COURSE_ID", "STUDENT", "WRITTEN_STUB", "Verdict", "autograde",
           "grade_in_course", "rubrics_of"]

WRITTEN_STUB = "*Your answer here (a few sentences).*"
"""What a written question's answer cell holds in a student copy (student.py)."""
ASSIGNMENT = "notebooks"  # the folder name the notebooks expect (their figures go to ../figures)
STUDENT = "student"
COURSE_ID = "hyperskill_lite"


@dataclass(frozen=True)
class Verdict:
    """What goes into one grade cell of the autograded notebook: `points` (0 for none,
    None for a written answer nbgrader leaves to formgrader) and the student-safe `text`."""

    grade_id: str
    points: float | None
    text: str
    name: str = "ExerciseFailed"


def _schema_head_in_process() -> None:
    """nbgrader labels a new gradebook with its schema's alembic revision, which it asks
    the ``alembic`` command line for: a second Python process that costs seconds. The same
    answer comes from alembic's own API, in this process."""
    import nbgrader  # lazy: the course extra
    import nbgrader.api
    from alembic.script import ScriptDirectory

    head = ScriptDirectory(str(Path(nbgrader.__file__).parent / "alembic")).get_current_head()
    nbgrader.api.get_alembic_version = lambda: head


def _preprocessor(verdicts: dict[str, Verdict], rubrics: dict[str, dict[str, Any]]) -> type:
    """nbgrader's step that writes the verdicts (module docstring), as a class nbgrader
    instantiates."""
    from nbformat import v4  # lazy: the course extra
    from nbgrader.preprocessors import NbGraderPreprocessor

    class ContainedVerdicts(NbGraderPreprocessor):
        """Writes grade.py's verdicts into the test cells (in place of running them)."""

        def preprocess(self, nb, resources):
            out = []
            for cell in nb.cells:
                own = cell.get("metadata", {})
                if "rubric" in own.get("tags", []) or own.get("exercise", {}).get("role") == "rubric":
                    continue  # a rubric the submission carries: only the instructor's is put back
                meta = cell.get("metadata", {}).get("nbgrader", {})
                grade_id = meta.get("grade_id")
                v = verdicts.get(grade_id) if meta.get("grade") else None
                if v is not None and cell.cell_type == "code":
                    if v.points is not None and v.points > 0:
                        cell.outputs = [v4.new_output("stream", name="stdout", text=v.text + "\n")]
                    else:
                        cell.outputs = [v4.new_output("error", ename=v.name, evalue=v.text,
                                                      traceback=[f"{v.name}: {v.text}"])]
                    cell.execution_count = None
                out.append(cell)
                rubric = rubrics.get(grade_id) if meta.get("solution") else None
                if rubric is not None and cell.cell_type == "markdown":
                    out.append(v4.new_markdown_cell(
                        "**Rubric (the instructor's, for grading this answer):**\n\n"
                        + rubric["source"], id=rubric["id"],
                        metadata={"exercise": rubric.get("metadata", {}).get("exercise", {}),
                                  "tags": ["rubric"]}))
            nb.cells = out
            return nb, resources

    return ContainedVerdicts


_RECORDED: dict[str, bytes] = {}
"""Gradebooks just after nbgrader recorded an instructor's notebook, by the notebook's
digest: a fresh course folder starts from one instead of recording it again."""


def autograde(root: Path, name: str, verdicts: dict[str, Verdict],
              rubrics: dict[str, dict[str, Any]] | None = None, *,
              assignment: str = ASSIGNMENT, student: str = STUDENT,
              source_digest: str | None = None) -> dict[str, Any]:
    """Record the instructor's notebook ``root/source/assignment/name`` in the gradebook
    when it is not there yet, autograde ``root/submitted/student/assignment/name`` with
    `verdicts` (module docstring), and return ``{"scores": {grade id: [score, max]},
    "seconds": {...}}``; ``{"error": line, "log": ...}`` when nbgrader refuses. A fresh
    course folder (no gradebook yet) given the `source_digest` of the instructor's
    notebook starts from the gradebook this process recorded for it before."""
    from nbgrader.api import Gradebook, MissingEntry  # lazy: the course extra
    from nbgrader.converters import Autograde, GenerateAssignment
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.preprocessors import (
        AssignLatePenalties,
        CheckCellMetadata,
        LimitOutput,
        SaveAutoGrades,
    )
    from nbgrader.utils import capture_log
    from traitlets.config import Config

    logging.getLogger("traitlets").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", module="nbgrader")  # SQLAlchemy session warnings
    warnings.filterwarnings("ignore", module="sqlalchemy")
    _schema_head_in_process()
    root = Path(root)
    stem = Path(name).stem
    c = Config()
    c.CourseDirectory.root = str(root)
    c.CourseDirectory.course_id = COURSE_ID
    c.CourseDirectory.assignment_id = assignment
    c.CourseDirectory.student_id = student
    c.CourseDirectory.notebook_id = stem
    c.OverwriteCells.add_missing_cells = True
    # the release steps of student.py, so that the gradebook's checksums are the copies'
    # (a written answer left as its stub then scores 0, as a blank answer should)
    c.ClearSolutions.code_stub = {"python": ""}
    c.ClearSolutions.text_stub = WRITTEN_STUB
    c.GenerateAssignment.force = True
    c.Autograde.force = True
    c.Autograde.autograde_preprocessors = [
        _preprocessor(verdicts, rubrics or {}), LimitOutput, SaveAutoGrades,
        AssignLatePenalties, CheckCellMetadata]
    coursedir = CourseDirectory(config=c)
    t0 = time.perf_counter()
    db = f"sqlite:///{root / 'gradebook.db'}"
    cache_key = f"{source_digest}/{assignment}/{stem}" if source_digest else None
    if cache_key in _RECORDED and not (root / "gradebook.db").exists():
        (root / "gradebook.db").write_bytes(_RECORDED[cache_key])
    with Gradebook(db, COURSE_ID) as gb:
        try:
            gb.find_notebook(stem, assignment)
            known = True
        except MissingEntry:
            known = False
    if not known:
        made = capture_log(GenerateAssignment(coursedir=coursedir, config=c))
        if not made["success"]:
            return {"error": "nbgrader could not record the instructor's notebook",
                    "log": made.get("log", "") + made.get("error", "")}
        if cache_key is not None:
            _RECORDED[cache_key] = (root / "gradebook.db").read_bytes()
    t1 = time.perf_counter()
    app = Autograde(coursedir=coursedir, config=c)
    app.create_student = True
    done = capture_log(app)
    t2 = time.perf_counter()
    if not done["success"]:
        return {"error": "nbgrader could not autograde the submission",
                "log": done.get("log", "") + done.get("error", "")}
    scores = {}
    with Gradebook(db, COURSE_ID) as gb:
        sub = gb.find_submission_notebook(stem, assignment, student)
        for g in sub.grades:
            scores[g.name] = [g.auto_score, g.max_score]
    return {"scores": scores, "seconds": {"record": round(t1 - t0, 2),
                                          "autograde": round(t2 - t1, 2)},
            "autograded": str(root / "autograded" / student / assignment / name),
            "log": json.dumps(done.get("log", "")[-2000:])}


def rubrics_of(src: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each written question's rubric cell in the instructor's notebook, by the grade id
    of its answer cell (what `ContainedVerdicts` puts beside the answer)."""
    out = {}
    for c in exercise_cells(src["cells"]):
        if c.role == "rubric":
            cell = src["cells"][c.index]
            out[cell_id(c.exercise, "answer")] = {"source": cell_text(cell),
                                                  "id": cell_id(c.exercise, "rubric"),
                                                  "metadata": cell.get("metadata", {})}
    return out


def grade_in_course(course: Path | None, path: Path, name: str, src: dict[str, Any],
                    sub: dict[str, Any], verdicts: dict[str, Verdict], *,
                    student: str = STUDENT, assignment: str = ASSIGNMENT) -> dict[str, Any]:
    """`autograde` the submission `sub` (read from `path`) against the instructor's `src`
    (named `name`): in the nbgrader course folder `course`, where the submission must be
    ``submitted/<student>/<assignment>/<name>`` and the instructor's notebook
    ``source/<assignment>/<name>``; or, without `course`, in a temporary course folder
    made for it (removed after). A `NotebookError` says what is missing or what nbgrader
    refused, in one line."""
    tmp = None
    try:
        if course is None:
            tmp = root = Path(tempfile.mkdtemp(prefix="hsl-grade-"))
            (root / "source" / assignment).mkdir(parents=True)
            (root / "source" / assignment / name).write_text(json.dumps(src), encoding="utf-8")
            target = root / "submitted" / student / assignment / name
            target.parent.mkdir(parents=True)
            target.write_text(json.dumps(sub), encoding="utf-8")
        else:
            root = Path(course)
            if not (root / "source" / assignment / name).is_file():
                raise NotebookError(f"{root}: no source/{assignment}/{name}; put the "
                                    "instructor's notebook there (nbgrader's course layout)")
            expected = root / "submitted" / student / assignment / name
            if Path(path).resolve() != expected.resolve():
                raise NotebookError(f"{path}: in an nbgrader course a submission is read from "
                                    f"{expected}")
        digest = hashlib.sha256(json.dumps(src, sort_keys=True).encode()).hexdigest() \
            if course is None else None
        result = autograde(root, name, verdicts, rubrics_of(src), assignment=assignment,
                           student=student, source_digest=digest)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    if "error" in result:
        raise NotebookError(f"{Path(path).name}: {result['error']}")
    return result
