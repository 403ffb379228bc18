"""Grading the shipped notebooks with nbgrader: notebook 04 as shipped (the instructor's
solutions) grades all correct; a student copy that games it (a wrong answer under an
edited check cell, the check's expression copied into the answer, a function that never
returns) earns nothing, the function stopped at the sandbox's limit, while its correct
function passes the hidden inputs.

These run the notebook, so they belong to the notebook tier: `make notebooks` runs them
beside nbval with ``HYPERSKILL_GRADE_NOTEBOOKS=1``; elsewhere they are skipped. That every
other shipped notebook passes its own hidden tests is nbval's part: a test cell that
raised would fail it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hyperskill_lite.course import format_report, grade_notebook
from hyperskill_lite.course.grade import bwrap_problem
from hyperskill_lite.course.student import student_notebook

pytestmark = pytest.mark.skipif(
    os.environ.get("HYPERSKILL_GRADE_NOTEBOOKS") != "1",
    reason="runs the notebooks: part of `make notebooks` (HYPERSKILL_GRADE_NOTEBOOKS=1)")

ROOT = Path(__file__).resolve().parents[1]
NB04 = ROOT / "notebooks" / "04_utility_and_pruning.ipynb"
ISOLATION = "bwrap" if bwrap_problem() is None else "process"


def _student_copy(tmp_path: Path, edits: dict[str, str]) -> Path:
    nb = student_notebook(json.loads(NB04.read_text(encoding="utf-8")))
    for cell in nb["cells"]:
        if cell.get("id") in edits:
            cell["source"] = edits[cell["id"]]
    path = tmp_path / NB04.name
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def test_the_shipped_notebook_grades_all_correct():
    report = grade_notebook(NB04, isolation=ISOLATION)
    assert report.all_correct and report.points == len(report.grades) == 4, format_report(report)
    assert report.flags == [] and report.problems == []


def test_a_student_copy_that_games_the_grader_earns_only_its_honest_point(tmp_path):
    path = _student_copy(tmp_path, {
        "ex-04-1-answer": "answer = 0.645",
        "ex-04-1-check": 'print("exercise 04.1: correct")',
        "ex-04-2-answer": 'answer = check("04.2", answer)',
        "ex-04-3-answer": "def gamma(sigma, nu, t_bar, t_min, t_max, beta=0.7):\n"
                          "    sigma, nu, t_bar = (np.asarray(x, float) for x in (sigma, nu, t_bar))\n"
                          "    rate = np.divide(sigma, nu, out=np.zeros_like(sigma), where=nu > 0)\n"
                          "    eff = 1 - (t_bar - t_min) / (t_max - t_min) if t_max > t_min "
                          "else np.ones_like(t_bar)\n"
                          "    return np.where(nu > 0, beta * rate + (1 - beta) * eff, 0.5)\n",
        "ex-04-4-answer": "def prune_ratio(nu, gamma, rho, n_min=3, tau=0.2):\n"
                          "    while True:\n        pass\n",
    })
    report = grade_notebook(path, isolation=ISOLATION, answer_timeout=20)
    assert report.by_status() == {"04.1": "wrong", "04.2": "wrong", "04.3": "correct",
                                  "04.4": "wrong"}, format_report(report)
    notes = {g.exercise: g.note for g in report.grades}
    assert notes["04.1"].startswith("0.645 is not the value 0.705")
    assert notes["04.4"].startswith("stopped after 10 s: the function")  # the sandbox's limit
