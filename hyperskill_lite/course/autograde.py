"""The grading run itself, with nbgrader: ``python .../course/autograde.py WORK`` (grade.py
starts it by path, under bubblewrap unless told otherwise; it imports nothing of this
package, so it starts without loading the library).

WORK holds an nbgrader course folder (``course/source/notebooks/NAME`` is the
instructor's notebook, ``course/submitted/student/notebooks/NAME`` the submission) and
``job.json`` (the notebook's NAME and the time limits). The run is nbgrader's own:
`generate_assignment` records the instructor's cells, with their checksums and hidden
tests, in a gradebook; `autograde` restores every locked cell a submission changed and
every test cell it lacks from that record (``OverwriteCells``, with
``add_missing_cells``), then runs the notebook in a fresh kernel and scores each test
cell (1 point unless it raised). A cell the instructor wrote (restored or unchanged)
may run `cell_timeout` seconds, any other cell (the learner's) `answer_timeout`; at
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
import warnings
from pathlib import Path
from typing import Any

__all__ = ["ASSIGNMENT", "STUDENT", "main"]

ASSIGNMENT = "notebooks"  # the folder name the notebooks expect (their figures go to ../figures)
STUDENT = "student"


def _timeouts(source: dict[str, Any], answer_timeout: float, cell_timeout: float):
    trusted_sources = {"".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                       for c in source["cells"] if c["cell_type"] == "code"}
    trusted_ids = {c["metadata"]["nbgrader"]["grade_id"] for c in source["cells"]
                   if c.get("metadata", {}).get("nbgrader", {}).get("locked")}

    def timeout(cell: Any) -> float:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in trusted_ids or cell.get("source", "") in trusted_sources:
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


def run(work: Path) -> dict[str, Any]:
    """Grade the submission in `work` (module docstring); the result as a dict."""
    from nbgrader.api import Gradebook
    from nbgrader.apps import NbGraderAPI
    from traitlets.config import Config

    job = json.loads((work / "job.json").read_text(encoding="utf-8"))
    name = job["name"]
    root = work / "course"
    source = json.loads((root / "source" / ASSIGNMENT / name).read_text(encoding="utf-8"))
    c = Config()
    c.CourseDirectory.root = str(root)
    c.CourseDirectory.course_id = "hyperskill_lite"
    c.OverwriteCells.add_missing_cells = True
    c.Execute.timeout_func = _timeouts(source, job["answer_timeout"], job["cell_timeout"])
    c.Execute.interrupt_on_timeout = True
    api = NbGraderAPI(config=c)
    made = api.generate_assignment(ASSIGNMENT)
    if not made["success"]:
        return {"error": "nbgrader could not read the instructor's notebook", "log": made["log"]}
    done = api.autograde(ASSIGNMENT, STUDENT)
    if not done["success"]:
        return {"error": "nbgrader could not grade the submission", "log": done["log"]}
    graded = json.loads((root / "autograded" / STUDENT / ASSIGNMENT / name)
                        .read_text(encoding="utf-8"))
    outputs = _outputs(graded)
    grades = []
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        sub = gb.find_submission_notebook(Path(name).stem, ASSIGNMENT, STUDENT)
        for g in sub.grades:
            grades.append({"grade_id": g.name, "score": g.auto_score, "max_score": g.max_score,
                           **outputs.get(g.name, {"ename": "", "evalue": "", "stdout": ""})})
    return {"grades": grades, "cells": outputs, "log": done["log"][-4000:]}


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
