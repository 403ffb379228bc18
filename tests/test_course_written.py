"""Written "explain why" questions (course/catalog.py, "Written questions"), on the fixture
notebook tests/fixtures/course/written/: the catalog format (points and a learning
outcome of the syllabus), the rubric only in the instructor edition, a blank stub in the
student copy, and grading that leaves each answer to a hand grade in nbgrader's
gradebook (what formgrader shows, with the rubric beside the answer), into a course
folder that keeps the hand grades."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from hyperskill_lite.course import format_report, grade_notebook
from hyperskill_lite.course.catalog import read_catalog
from hyperskill_lite.course.contained import isolation_problem
from hyperskill_lite.course.exercises import exercise_cells
from hyperskill_lite.course.gradebook import WRITTEN_STUB
from hyperskill_lite.course.student import student_notebook

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "course" / "written"
NB = FIXTURE / "98_written.ipynb"
ISOLATION = "bwrap" if isolation_problem("bwrap") is None else "process"


def syllabus_outcomes() -> set[int]:
    """The numbers of docs/syllabus.md's learning outcomes."""
    text = (ROOT / "docs" / "syllabus.md").read_text(encoding="utf-8")
    part = text.split("## Learning outcomes", 1)[1].split("\n## ", 1)[0]
    return {int(m) for m in re.findall(r"^(\d+)\. ", part, flags=re.M)}


def test_each_written_question_names_an_outcome_of_the_syllabus():
    found = read_catalog(FIXTURE / "exercises.toml")
    assert {e.kind for e in found.values()} == {"written"}
    assert {e.outcome for e in found.values()} <= syllabus_outcomes()
    assert syllabus_outcomes() == {1, 2, 3, 4, 5, 6}
    from hyperskill_lite.course.catalog import catalog

    for ex in catalog().values():  # the course's own, once written questions are added
        if ex.written:
            assert ex.outcome in syllabus_outcomes(), ex.id


@pytest.mark.parametrize("row, message", [
    ('kind = "written"\nform = "a few sentences"\noutcome = 2\n', "needs points"),
    ('kind = "written"\nform = "a few sentences"\npoints = 2\n', "learning outcome"),
    ('kind = "written"\nform = "x"\npoints = 2\noutcome = 2\nsolution = "y"\n', "no answer"),
])
def test_the_catalog_refuses_a_written_question_without_its_parts(tmp_path, row, message):
    path = tmp_path / "exercises.toml"
    path.write_text(f'[exercises."98.9"]\n{row}', encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        read_catalog(path)


def test_the_fixture_is_what_its_builder_writes(tmp_path):
    import runpy

    mod = runpy.run_path(str(FIXTURE / "make_written.py"))
    assert set(mod["QUESTIONS"]) == {"98.1", "98.2"}
    mod["main"](tmp_path)
    for name in ("98_written.ipynb", "exercises.toml"):
        assert (tmp_path / name).read_bytes() == (FIXTURE / name).read_bytes(), name
    nb = json.loads(NB.read_text())
    roles = [(c.exercise, c.role) for c in exercise_cells(nb["cells"])]
    assert roles == [("98.1", "answer"), ("98.1", "rubric"), ("98.2", "answer"), ("98.2", "rubric")]


def test_the_rubric_is_the_instructors_only():
    nb = json.loads(NB.read_text())
    copy = student_notebook(nb)
    text = json.dumps(copy)
    assert "rubric" not in text.lower() and "1 point" not in text
    answers = [c for c in copy["cells"] if c.get("metadata", {}).get("exercise", {}).get("role")
               == "answer"]
    assert [c["source"] for c in answers] == [WRITTEN_STUB, WRITTEN_STUB]
    assert "evidence of use" not in text  # the model answer is gone too
    for c in answers:
        assert c["metadata"]["nbgrader"]["grade"] and c["metadata"]["nbgrader"]["solution"]
        assert c["cell_type"] == "markdown"
    nbformat.validate(nbformat.from_dict(copy))


def _submission(folder: Path, answers: dict[str, str]) -> Path:
    copy = student_notebook(json.loads(NB.read_text()))
    for cell in copy["cells"]:
        cid = cell.get("id", "")
        if cid in answers:
            cell["source"] = answers[cid]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / NB.name
    path.write_text(json.dumps(copy), encoding="utf-8")
    return path


def test_written_answers_wait_for_a_hand_grade_in_the_gradebook(tmp_path):
    from nbgrader.api import Gradebook

    course = tmp_path / "course"
    (course / "source" / "notebooks").mkdir(parents=True)
    shutil.copy(NB, course / "source" / "notebooks" / NB.name)
    path = _submission(course / "submitted" / "ada" / "notebooks", {
        "ex-98-1-answer": "Kappa counts the trajectories a skill shares with the task's; "
                          "cosine only compares wording."})
    report = grade_notebook(path, FIXTURE, isolation=ISOLATION, course=course, student="ada")
    assert report.by_status() == {"98.1": "to grade by hand", "98.2": "not answered"}
    assert report.points == 0 and [g.max_points for g in report.grades] == [2, 3]
    assert "2 to grade by hand" in format_report(report).splitlines()[0]
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        grades = {g.name: g for g in gb.find_submission_notebook(
            "98_written", "notebooks", "ada").grades}
        assert grades["ex-98-1-answer"].needs_manual_grade and grades["ex-98-1-answer"].auto_score is None
        assert grades["ex-98-2-answer"].auto_score == 0  # blank: nbgrader scores it 0
        grades["ex-98-1-answer"].manual_score = 1.5  # what formgrader writes
        gb.db.commit()
        assert gb.find_submission_notebook("98_written", "notebooks", "ada").score == 1.5
    graded = json.loads((course / "autograded" / "ada" / "notebooks" / NB.name).read_text())
    ids = [c.get("id") for c in graded["cells"]]
    assert ids.index("ex-98-1-rubric") == ids.index("ex-98-1-answer") + 1  # beside the answer
    # the same student submits again: the hand grade stays in the gradebook
    grade_notebook(path, FIXTURE, isolation=ISOLATION, course=course, student="ada")
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        assert gb.find_submission_notebook("98_written", "notebooks", "ada").score == 1.5


def test_only_the_instructors_rubric_sits_beside_an_answer(tmp_path):
    """A submission that carries rubric cells (the instructor's own notebook, or a student
    who pasted or edited one) gets the instructor's rubric once beside each answer, and
    none of its own."""
    course = tmp_path / "course"
    (course / "source" / "notebooks").mkdir(parents=True)
    shutil.copy(NB, course / "source" / "notebooks" / NB.name)
    nb = json.loads(NB.read_text())
    for cell in nb["cells"]:
        if cell.get("id") == "ex-98-1-rubric":
            cell["source"] = "- 2 points: any answer at all"
    path = course / "submitted" / "ada" / "notebooks" / NB.name
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(nb), encoding="utf-8")
    report = grade_notebook(path, FIXTURE, isolation=ISOLATION, course=course, student="ada")
    assert report.by_status() == {"98.1": "to grade by hand", "98.2": "to grade by hand"}
    assert report.all_correct  # nothing graded automatically is wrong
    graded = json.loads((course / "autograded" / "ada" / "notebooks" / NB.name).read_text())
    ids = [c.get("id") for c in graded["cells"]]
    assert ids.count("ex-98-1-rubric") == 1 and ids.count("ex-98-2-rubric") == 1
    assert ids.index("ex-98-1-rubric") == ids.index("ex-98-1-answer") + 1
    assert "any answer at all" not in json.dumps(graded)
