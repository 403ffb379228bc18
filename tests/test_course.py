"""course/: the exercise check, the exercise cells of the shipped notebooks, student copies
(never over a file the user owns) and the autograder on a small notebook run by a real
kernel. Grading the shipped notebooks themselves runs them: tests/test_course_grade.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest
from IPython.core.formatters import DisplayFormatter

from hyperskill_lite.course import check, format_report, grade_notebook, write_student_copies
from hyperskill_lite.course.check import CHECK_LOG_ENV
from hyperskill_lite.course.exercises import cell_id, exercise_cells, exercise_metadata
from hyperskill_lite.course.student import MANIFEST, StudentCopyError, student_notebook

ROOT = Path(__file__).resolve().parents[1]
WITH_EXERCISES = sorted((ROOT / "notebooks").glob("0[1-5]_*.ipynb"))


def _cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hyperskill_lite.course", *args],
                          capture_output=True, text=True, cwd=cwd)


# --- check ----------------------------------------------------------------------------


def test_numbers_within_tolerance_and_numpy_scalars(capsys):
    assert check("x", 0.705, np.float64(0.7050004), tol=1e-3)
    assert not check("x", 0.71, 0.705, tol=1e-3)
    assert not check("x", True, 1.0)  # a bool is not the number 1
    assert not check("x", "0.705", 0.705)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "exercise x: correct" and out[1].startswith("exercise x: not yet")


def test_sets_lists_and_unanswered(capsys):
    assert check("s", ["n3", "n2"], {"n2", "n3"})  # unordered against a set
    assert not check("s", {"n2"}, {"n2", "n3"})
    assert check("l", [1, 2.0000001], (1, 2))
    assert not check("l", [2, 1], [1, 2])  # lists keep their order
    assert check("u", None, 3).status == "not answered"
    assert "not answered yet" in capsys.readouterr().out
    assert check("e", "e7", "e7") and not check("e", "e1", "e7")


def test_a_check_cell_shows_only_its_verdict_line(capsys):
    verdict = check("03.1", 2, 2)
    assert capsys.readouterr().out == "exercise 03.1: correct\n"
    # what IPython would display as the cell's result: nothing (no True/False echo)
    assert DisplayFormatter().format(verdict) == ({}, {})
    assert (verdict.exercise, verdict.status, bool(verdict)) == ("03.1", "correct", True)


def test_each_check_appends_its_verdict_to_the_log(tmp_path, monkeypatch):
    log = tmp_path / "checks.jsonl"
    monkeypatch.setenv(CHECK_LOG_ENV, str(log))
    check("04.1", 0.5, 0.705, tol=1e-3)
    check("04.1", None, 0.705)
    check("04.2", {"n2"}, {"n2"})
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["exercise"], r["status"]) for r in rows] == [
        ("04.1", "wrong"), ("04.1", "not answered"), ("04.2", "correct")]
    assert rows[0]["answer"] == "0.5"


# --- the shipped notebooks' exercise cells ----------------------------------------------


@pytest.mark.parametrize("nb", WITH_EXERCISES, ids=lambda p: p.stem[:2])
def test_every_exercise_has_an_answer_a_check_and_a_hidden_solution(nb):
    cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
    found = exercise_cells(cells)
    ids = sorted({c.exercise for c in found})
    assert ids and all(i.startswith(nb.stem[:2] + ".") for i in ids), ids
    for ex in ids:
        roles = [c for c in found if c.exercise == ex]
        assert [c.role for c in roles] == ["answer", "check", "solution"], ex
        for c in roles:
            cell = cells[c.index]
            assert cell["id"] == cell_id(ex, c.role) and cell["cell_type"] == "code"
            src = "".join(cell["source"])
            if c.role == "answer":
                assert "answer = None" in src
            else:
                assert f'check("{ex}", answer' in src
        solution = cells[roles[-1].index]
        assert "solution" in solution["metadata"]["tags"]
        assert solution["metadata"]["jupyter"]["source_hidden"]


def test_the_student_copy_drops_solutions_and_blanks_answers():
    for path in WITH_EXERCISES:
        nb = json.loads(path.read_text(encoding="utf-8"))
        copy = student_notebook(nb)
        found = exercise_cells(copy["cells"])
        assert {c.role for c in found} == {"answer", "check"}, path.name
        assert not any("solution" in c["metadata"].get("tags", []) for c in copy["cells"])
        for c in found:
            cell = copy["cells"][c.index]
            assert cell["outputs"] == [] and cell["execution_count"] is None
            if c.role == "answer":
                assert "answer = None  # your answer here" in cell["source"]
        n_solutions = sum(1 for c in exercise_cells(nb["cells"]) if c.role == "solution")
        assert len(copy["cells"]) == len(nb["cells"]) - n_solutions
        # the worked example keeps its figures
        assert any("image/png" in o.get("data", {}) for c in copy["cells"]
                   for o in c.get("outputs", [])), path.name
        nbformat.validate(nbformat.from_dict(copy))


def test_an_answer_cell_with_a_written_answer_is_blanked():
    nb = {"cells": [{"cell_type": "code", "source": "x = 1\nanswer = {'n2', 'n3'}\n",
                     "outputs": [], "execution_count": 3,
                     "metadata": exercise_metadata("04.2", "answer")}], "metadata": {}}
    assert student_notebook(nb)["cells"][0]["source"] == \
        "x = 1\nanswer = None  # your answer here\n"


# --- student copies: never over a file the user owns -------------------------------------


def test_student_copies_are_written_and_rewritten_only_while_unchanged(tmp_path):
    out = tmp_path / "class"
    written = write_student_copies(ROOT / "notebooks", out)
    assert len(written) == len(list((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")))
    assert (out / MANIFEST).is_file()
    assert write_student_copies(ROOT / "notebooks", out) == written  # unchanged: rewritten
    work = out / "04_utility_and_pruning.ipynb"
    work.write_text(work.read_text().replace("answer = None", "answer = 0.7", 1))
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(StudentCopyError, match="was changed since"):
        write_student_copies(ROOT / "notebooks", out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # nothing written


def test_the_cli_refuses_a_folder_it_did_not_make(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes")
    r = _cli("student", str(mine))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "was not made by `course student`" in r.stderr
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    r = _cli("student", str(a_file))
    assert r.returncode == 2 and "is a file, not a folder" in r.stderr
    r = _cli("student", str(tmp_path / "new"), "--notebooks", str(tmp_path / "nowhere"))
    assert r.returncode == 2 and "holds no course notebooks" in r.stderr
    r = _cli("student", str(tmp_path / "new"))
    n = len(list((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")))
    assert r.returncode == 0 and f"wrote {n} student notebooks" in r.stdout


# --- the grader, on a notebook made here, run by a real kernel --------------------------


def _exercise(ex: str, answer: str, expected: str) -> list:
    return [nbformat.v4.new_code_cell(answer, id=cell_id(ex, "answer"),
                                      metadata=exercise_metadata(ex, "answer")),
            nbformat.v4.new_code_cell(f'check("{ex}", answer, {expected})',
                                      id=cell_id(ex, "check"),
                                      metadata=exercise_metadata(ex, "check"))]


def test_the_grader_tells_correct_wrong_not_answered_and_a_raising_answer(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell("from hyperskill_lite import check"),
                *_exercise("9.1", "answer = 4", "2 + 2"),
                *_exercise("9.2", "answer = {'a'}", "{'a', 'b'}"),
                *_exercise("9.3", "answer = None  # your answer here", "3"),
                *_exercise("9.4", "answer = undefined_name", "1"),
                nbformat.v4.new_code_cell("raise SystemExit('after the exercises: never run')")]
    path = tmp_path / "student.ipynb"
    nbformat.write(nb, path)
    before = path.read_bytes()
    report = grade_notebook(path, timeout=120)
    assert report.by_status() == {"9.1": "correct", "9.2": "wrong", "9.3": "not answered",
                                  "9.4": "wrong"}
    notes = {g.exercise: g.note for g in report.grades}
    assert "{'a'}" in notes["9.2"] and "NameError" in notes["9.4"]
    assert report.problems == [] and path.read_bytes() == before  # the learner's file untouched
    table = format_report(report)
    assert table.splitlines()[0] == "student.ipynb: 1 of 4 correct"
    r = _cli("grade", str(path))
    assert r.returncode == 1 and r.stdout.strip() == table


def test_the_grade_cli_says_what_is_wrong_in_one_line(tmp_path):
    r = _cli("grade", str(tmp_path / "missing.ipynb"))
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.strip() == f"course grade: {tmp_path / 'missing.ipynb'}: no such notebook"
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{not json")
    r = _cli("grade", str(broken))
    assert r.returncode == 2 and "not a readable notebook" in r.stderr
    assert r.stderr.count("\n") == 1
    plain = tmp_path / "plain.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")]), plain)
    r = _cli("grade", str(plain))
    assert r.returncode == 2 and "no exercise cells" in r.stderr
