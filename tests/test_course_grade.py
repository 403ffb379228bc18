"""The autograder on the shipped notebooks: they grade all correct (each solution checks
itself after the learner's check), a student copy grades all "not answered", and a copy
with one wrong answer grades exactly that one wrong.

These run the notebooks (up to their last exercise), so they belong to the notebook tier:
`make notebooks` runs them beside nbval with ``HYPERSKILL_GRADE_NOTEBOOKS=1``; elsewhere
they are skipped.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hyperskill_lite.course import grade_notebook
from hyperskill_lite.course.exercises import exercise_cells
from hyperskill_lite.course.student import student_notebook

pytestmark = pytest.mark.skipif(
    os.environ.get("HYPERSKILL_GRADE_NOTEBOOKS") != "1",
    reason="runs the notebooks: part of `make notebooks` (HYPERSKILL_GRADE_NOTEBOOKS=1)")

ROOT = Path(__file__).resolve().parents[1]
WITH_EXERCISES = sorted((ROOT / "notebooks").glob("0[1-5]_*.ipynb"))
CHEAPEST = ROOT / "notebooks" / "04_utility_and_pruning.ipynb"


@pytest.mark.parametrize("nb", WITH_EXERCISES, ids=lambda p: p.stem[:2])
def test_the_shipped_notebook_grades_all_correct(nb):
    report = grade_notebook(nb)
    assert report.grades and report.all_correct, report
    assert report.problems == [], report.problems


def _student_copy(tmp_path: Path, answers: dict[str, str]) -> Path:
    nb = student_notebook(json.loads(CHEAPEST.read_text(encoding="utf-8")))
    for c in exercise_cells(nb["cells"]):
        if c.role == "answer" and c.exercise in answers:
            nb["cells"][c.index]["source"] = f"answer = {answers[c.exercise]}\n"
    path = tmp_path / CHEAPEST.name
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def test_a_student_copy_grades_all_not_answered(tmp_path):
    report = grade_notebook(_student_copy(tmp_path, {}))
    assert report.by_status() == {"04.1": "not answered", "04.2": "not answered"}


def test_one_wrong_answer_grades_exactly_that_one_wrong(tmp_path):
    # 04.1 answered wrong (beta = 0.5 instead of the notebook's 0.7), 04.2 answered right
    report = grade_notebook(_student_copy(tmp_path, {
        "04.1": "0.5 * 3 / 4 + 0.5 * (1 - (6 - 2) / (12 - 2))", "04.2": '{"n2", "n3"}'}))
    assert report.by_status() == {"04.1": "wrong", "04.2": "correct"}
