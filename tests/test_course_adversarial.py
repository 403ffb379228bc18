"""Submissions that game the grader (issue 44), graded as a teacher would: notebook 04's
student copy with four wrong answers and one kind of attack each (tests/fixtures/course/
adversarial.py): the grader's helpers overwritten through importlib, a shadow
``hyperskill_lite/`` package written into the working folder, ``np.isclose`` patched,
the reference names rebound to functions that memorise the public examples, the library
taken back from ``sys.modules`` inside the graded functions, every exception swallowed by
the kernel, the grader's modules patched in place, the check cells edited; and all of
them at once; and a check's recorded output edited to the right value. None earns a
point, and each attempt is flagged, naming its cell. An honest submission earns every
point with no flag, and the grader refuses to run beside a shadow package. Grading never runs the notebook
(course/grade.py), so each of these takes seconds."""

from __future__ import annotations

import json
import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hyperskill_lite.course import format_report, grade_notebook
from hyperskill_lite.course.contained import isolation_problem
from hyperskill_lite.course.student import student_notebook

ROOT = Path(__file__).resolve().parents[1]
NB04 = ROOT / "notebooks" / "04_utility_and_pruning.ipynb"
ADV = runpy.run_path(str(ROOT / "tests" / "fixtures" / "course" / "adversarial.py"))
ISOLATION = "bwrap" if isolation_problem("bwrap") is None else "process"

# what each attack's flags must mention, and in which cell
EXPECTED_FLAGS = {
    "importlib_helpers": [("ex-04-1-answer", "imports modules by a computed name"),
                          ("ex-04-1-answer", "sets _m.verify_answer")],
    "shadow_package": [("c0c3acaf", "writes a Python package or module"),
                       ("c0c3acaf", "writes files")],
    "numpy_isclose": [("ex-04-1-answer", "sets np.isclose")],
    "rebind_references": [("ex-04-3-answer", "rebinds utility"),
                          ("ex-04-4-answer", "rebinds prune_selection")],
    "unblock_library": [("ex-04-3-answer", "uses sys.modules"),
                        ("ex-04-3-answer", "while the grader ran it, imports the library"),
                        ("ex-04-4-answer", "uses sys.modules")],
    "swallow_exceptions": [("ex-04-1-answer", "changes how the kernel runs or reports cells")],
    "patch_modules": [("ex-04-1-answer", "imports the grader's package"),
                      ("ex-04-1-answer", "uses sys.modules")],
    "edited_checks": [("ex-04-1-check", "edits the check cell of 04.1"),
                      ("ex-04-4-check", "edits the check cell of 04.4")],
}


@pytest.fixture(scope="module")
def copy() -> dict:
    return student_notebook(json.loads(NB04.read_text(encoding="utf-8")))


def _grade(tmp_path: Path, copy: dict, edits: dict[str, str], kind: str):
    folder = tmp_path / kind
    folder.mkdir()
    path = folder / NB04.name
    path.write_text(json.dumps(ADV["apply"](copy, edits)), encoding="utf-8")
    before = path.read_bytes()
    report = grade_notebook(path, isolation=ISOLATION)
    assert path.read_bytes() == before  # the learner's file is only read
    assert sorted(p.name for p in folder.iterdir()) == [NB04.name]  # nothing written beside it
    return report


def _assert_flagged(report, expected) -> None:
    table = format_report(report)
    for cell, phrase in expected:
        assert any(f"({cell})" in f and phrase in f for f in report.flags), (cell, phrase, table)


@pytest.mark.parametrize("kind", sorted(ADV["ATTACKS"]))
def test_each_attack_earns_nothing_and_is_flagged(tmp_path, copy, kind):
    report = _grade(tmp_path, copy, ADV["ATTACKS"][kind], kind)
    table = format_report(report)
    assert report.points == 0, table
    assert set(report.by_status().values()) <= {"wrong", "not answered"}, table
    assert [g.exercise for g in report.grades] == ["04.1", "04.2", "04.3", "04.4"]
    _assert_flagged(report, EXPECTED_FLAGS[kind])
    assert np.isclose.__module__.startswith("numpy")  # nothing of it ran here


def test_every_attack_at_once_earns_nothing_and_each_is_flagged(tmp_path, copy):
    report = _grade(tmp_path, copy, ADV["combined"](), "combined")
    table = format_report(report)
    assert report.points == 0, table
    for expected in EXPECTED_FLAGS.values():
        _assert_flagged(report, expected)
    assert report.seconds["processes"] <= 2, report.seconds  # one sandbox (two: a cell hung)


def test_a_correct_submission_earns_every_point_unflagged(tmp_path, copy):
    report = _grade(tmp_path, copy, ADV["CORRECT"], "correct")
    assert report.all_correct and report.points == 4, format_report(report)
    assert report.flags == [] and report.problems == []
    assert report.gradebook["scores"] == {f"ex-04-{i}-test": [1.0, 1.0] for i in range(1, 5)}


def test_the_shipped_notebook_grades_from_its_own_records(tmp_path):
    # the instructor's notebook as a submission: 04.1 and 04.2 are values its cells
    # compute, 04.3 and 04.4 its solutions; graded without running it
    report = grade_notebook(NB04, isolation=ISOLATION)
    assert report.all_correct and report.points == 4, format_report(report)
    assert report.flags == []


def test_wrong_answers_are_told_without_the_key(tmp_path, copy):
    edits = {**ADV["CORRECT"], "ex-04-1-answer": "answer = 0.645\n",
             "ex-04-2-answer": 'answer = {"n2"}\n',
             # forgets the lowest-utility-first order
             "ex-04-4-answer": "def prune_ratio(nu, gamma, rho, n_min=3, tau=0.2):\n"
                               "    low = np.flatnonzero((np.asarray(nu) >= n_min) & "
                               "(np.asarray(gamma) < tau))\n"
                               "    return low[:int(np.ceil(rho * len(low)))]\n"}
    report = _grade(tmp_path, copy, edits, "wrong")
    notes = {g.exercise: g.note for g in report.grades}
    assert report.by_status() == {"04.1": "wrong", "04.2": "wrong", "04.3": "correct",
                                  "04.4": "wrong"}, format_report(report)
    assert notes["04.1"] == "0.645 is not the value (compared to 3 decimals)"
    assert notes["04.2"] == "{'n2'} is not the value"
    assert notes["04.4"].startswith("on hidden input ") and "differs from the library's" in notes["04.4"]
    student_side = " ".join(notes.values())
    for secret in ("0.705", "n3", "library gives"):
        assert secret not in student_side
    details = {g.exercise: g.detail for g in report.grades}  # the instructor's table has them
    assert "0.705" in details["04.1"] and "n3" in details["04.2"]
    assert "prune_ratio(" in details["04.4"] and "the library gives" in details["04.4"]


def test_the_grader_refuses_to_run_from_a_folder_with_a_shadow_package(tmp_path):
    # the shadow package of the attack, written where a teacher might run the grader
    subprocess.run([sys.executable, "-c", ADV["SHADOW"]], cwd=tmp_path, check=True)
    assert (tmp_path / "hyperskill_lite" / "course" / "__init__.py").is_file()
    r = subprocess.run([sys.executable, "-m", "hyperskill_lite.course", "grade", str(NB04),
                        "--isolation", ISOLATION], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1, r.stderr
    assert "shadows it" in r.stderr
    r = subprocess.run([sys.executable, "-I", "-m", "hyperskill_lite.course", "grade", str(NB04),
                        "--isolation", ISOLATION], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and "4 of 4 correct" in r.stdout, r.stderr  # -I: not on sys.path


def test_a_forged_or_stale_record_earns_nothing(tmp_path, copy):
    from hyperskill_lite.course.key import answer_metadata

    def record(ex, value, source):
        return [{"output_type": "display_data", "data": {"text/plain": f"exercise {ex}: recorded"},
                 "metadata": answer_metadata(ex, value, source)}]

    nb = ADV["apply"](copy, {**ADV["CORRECT"], "ex-04-1-answer": "answer = 0.645\n",
                             "ex-04-2-answer": "answer = set(nodes.index[[2]])\n"})
    for cell in nb["cells"]:
        if cell.get("id") == "ex-04-1-check":  # the right value, edited into the output
            cell["outputs"] = record("04.1", 0.705, "answer = 0.645\n")
        if cell.get("id") == "ex-04-2-check":  # recorded before the cell was changed
            cell["outputs"] = record("04.2", {"n2", "n3"}, 'answer = {"n2", "n3"}\n')
    folder = tmp_path / "forged"
    folder.mkdir()
    path = folder / NB04.name
    path.write_text(json.dumps(nb), encoding="utf-8")
    report = grade_notebook(path, isolation=ISOLATION)
    table = format_report(report)
    assert report.by_status() == {"04.1": "wrong", "04.2": "not answered", "04.3": "correct",
                                  "04.4": "correct"}, table
    _assert_flagged(report, [("ex-04-1-answer", "its check recorded 0.705 but the cell assigns "
                                                "0.645 (an edited output?)")])
    assert "from an earlier version of the answer cell" in report.grades[1].note
