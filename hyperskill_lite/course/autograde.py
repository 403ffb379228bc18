"""The grading run itself, with nbgrader: ``python .../course/autograde.py WORK`` (grade.py
starts it by path, under bubblewrap unless told otherwise; it imports nothing of this
package, so it starts without loading the library).

WORK holds an nbgrader course folder (``course/source/notebooks/NAME`` is the
instructor's notebook, ``course/submitted/student/notebooks/NAME`` the submission) and
``job.json`` (the notebook's NAME and the time limits). The run is nbgrader's own, its
converters (what ``nbgrader generate_assignment`` and ``nbgrader autograde`` run):
`GenerateAssignment` records the instructor's cells, with their checksums and hidden
tests, in a gradebook; `Autograde` restores every locked cell a submission changed and
every test cell it lacks from that record (``OverwriteCells``, with
``add_missing_cells``), then runs the notebook in a fresh kernel and scores each test
cell (1 point unless it raised). A cell of the instructor's notebook (a worked-example
cell, even one the learner changed, or a restored check or test cell) may run
`cell_timeout` seconds; an answer cell or a cell the learner added `answer_timeout`; at
the limit the kernel is interrupted, the cell fails and the run goes on.

It writes ``WORK/result.json``: per test cell its grade id, score, and the error its
run raised (name and message) or its printed lines; the same outputs for every exercise
cell (an answer cell stopped at its time limit says so); or an ``error`` line when
nbgrader could not grade at all.

Not here: preparing WORK, containment, the report (grade.py).
"""

from __future__ import annotations

import json
import logging
import sys
import time
import warnings
from pathlib import Path
from typing import Any

__all__ = ["ASSIGNMENT", "STUDENT", "main"]

ASSIGNMENT = "notebooks"  # the folder name the notebooks expect (their figures go to ../figures)
STUDENT = "student"


def _timeouts(source: dict[str, Any], answer_timeout: float, cell_timeout: float):
    """The time limit of each cell: `cell_timeout` for a cell of the instructor's (by its
    id: a worked-example cell, even one the learner changed, or a restored check or test
    cell), `answer_timeout` for an answer cell or a cell the learner added."""
    trusted = set()
    for c in source["cells"]:
        meta = c.get("metadata", {})
        if c["cell_type"] == "code" and meta.get("exercise", {}).get("role") != "answer":
            trusted.add(c.get("id"))
            trusted.add(meta.get("nbgrader", {}).get("grade_id"))
    trusted.discard(None)

    def timeout(cell: Any) -> float:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        mine = cell.get("metadata", {}).get("exercise", {}).get("role") == "answer"
        if not mine and (cell.get("id") in trusted or grade_id in trusted):
            return cell_timeout
        return answer_timeout

    return timeout


def _outputs(nb: dict[str, Any]) -> dict[str, dict[str, str]]:
    out = {}
    for cell in nb["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if not grade_id:
            continue
        info = {"ename": "", "evalue": "", "stdout": ""}
        for o in cell.get("outputs", []):
            if o.get("output_type") == "error" and not info["ename"]:
                info["ename"], info["evalue"] = o.get("ename", ""), o.get("evalue", "")
            elif o.get("output_type") == "stream" and o.get("name") == "stdout":
                text = o.get("text", "")
                info["stdout"] += "".join(text) if isinstance(text, list) else text
        out[grade_id] = info
    return out


def _schema_head_in_process() -> None:
    """nbgrader labels a new gradebook with its schema's alembic revision, which it asks
    the ``alembic`` command line for: a second Python process that costs seconds. The same
    answer comes from alembic's own API, in this process."""
    import nbgrader
    import nbgrader.api
    from alembic.script import ScriptDirectory

    head = ScriptDirectory(str(Path(nbgrader.__file__).parent / "alembic")).get_current_head()
    nbgrader.api.get_alembic_version = lambda: head


def run(work: Path) -> dict[str, Any]:
    """Grade the submission in `work` (module docstring); the result as a dict."""
    from nbgrader.api import Gradebook
    from nbgrader.converters import Autograde, GenerateAssignment
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.utils import capture_log
    from traitlets.config import Config

    _schema_head_in_process()
    job = json.loads((work / "job.json").read_text(encoding="utf-8"))
    name = job["name"]
    root = work / "course"
    source = json.loads((root / "source" / ASSIGNMENT / name).read_text(encoding="utf-8"))
    c = Config()
    c.CourseDirectory.root = str(root)
    c.CourseDirectory.course_id = "hyperskill_lite"
    c.CourseDirectory.assignment_id = ASSIGNMENT
    c.CourseDirectory.student_id = STUDENT
    c.OverwriteCells.add_missing_cells = True
    c.Execute.timeout_func = _timeouts(source, job["answer_timeout"], job["cell_timeout"])
    c.Execute.interrupt_on_timeout = True
    coursedir = CourseDirectory(config=c)
    t0 = time.perf_counter()
    made = capture_log(GenerateAssignment(coursedir=coursedir, config=c))
    t1 = time.perf_counter()
    if not made["success"]:
        return {"error": "nbgrader could not read the instructor's notebook",
                "log": made.get("log", "") + made.get("error", "")}
    app = Autograde(coursedir=coursedir, config=c)
    app.create_student = True
    done = capture_log(app)
    t2 = time.perf_counter()
    if not done["success"]:
        return {"error": "nbgrader could not grade the submission",
                "log": done.get("log", "") + done.get("error", "")}
    graded = json.loads((root / "autograded" / STUDENT / ASSIGNMENT / name)
                        .read_text(encoding="utf-8"))
    outputs = _outputs(graded)
    grades = []
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        sub = gb.find_submission_notebook(Path(name).stem, ASSIGNMENT, STUDENT)
        for g in sub.grades:
            grades.append({"grade_id": g.name, "score": g.auto_score, "max_score": g.max_score,
                           **outputs.get(g.name, {"ename": "", "evalue": "", "stdout": ""})})
    return {"grades": grades, "cells": outputs, "log": done.get("log", "")[-4000:],
            "seconds": {"record": round(t1 - t0, 1), "autograde": round(t2 - t1, 1)}}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    work = Path(args[0])
    logging.getLogger("traitlets").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", module="nbgrader")  # SQLAlchemy session warnings
    warnings.filterwarnings("ignore", module="sqlalchemy")
    try:
        result = run(work)
    except Exception as e:  # one line for the report, whatever nbgrader raised
        result = {"error": f"grading failed: {type(e).__name__}: {e}"}
    (work / "result.json").write_text(json.dumps(result), encoding="utf-8")
    return 0 if "grades" in result else 1


if __name__ == "__main__":
    sys.exit(main())
