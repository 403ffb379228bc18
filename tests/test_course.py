"""course/: answers and their digests, the learner's checks, the instructor's tests, the
catalog against the notebooks, student copies (no solution anywhere, readable, never over
a file the user owns), and grading with nbgrader on a small course notebook run by a real
kernel: an edited check cell, a copied check expression, a call into the library and an
endless loop each earn nothing (the loop is stopped), a correct function passes the
hidden inputs and a wrong one gets a message that helps. Grading the shipped notebooks
runs them: tests/test_course_grade.py (the notebook tier)."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest
from IPython.core.formatters import DisplayFormatter

from hyperskill_lite.course import (
    ExerciseFailed,
    check,
    check_function,
    format_report,
    grade_notebook,
    verify_answer,
    verify_function,
    write_student_copies,
)
from hyperskill_lite.course.answers import FormError, Spec, accepts, canonical, digest, shown
from hyperskill_lite.course.catalog import catalog, exercise
from hyperskill_lite.course.check import function_feedback
from hyperskill_lite.course.exercises import (
    TAGS,
    cell_id,
    exercise_cells,
    exercise_metadata,
)
from hyperskill_lite.course.grade import bwrap_problem
from hyperskill_lite.course.student import MANIFEST, NOTE_ID, StudentCopyError, student_notebook
from hyperskill_lite.course.verify import CatalogError, NotAnswered

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
WITH_EXERCISES = [p for p in NOTEBOOKS if p.name[:2] != "00"]
SOL_B, SOL_E = "### BEGIN " + "SOLUTION", "### END " + "SOLUTION"
HID_B, HID_E = "### BEGIN " + "HIDDEN TESTS", "### END " + "HIDDEN TESTS"
ISOLATION = "bwrap" if bwrap_problem() is None else "process"


def _cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hyperskill_lite.course", *args],
                          capture_output=True, text=True, cwd=ROOT, env=env)


def _source(cell: dict) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


# --- answers: forms, digests, rounding ------------------------------------------------


def test_a_float_is_read_at_its_decimals_and_shown_rounded():
    spec = Spec("04.1", "float", decimals=3)
    assert canonical(0.6449999999999999, spec) == "float:0.645"
    assert shown(0.6449999999999999) == "0.645" and shown(-0.0) == "0"
    assert shown(np.array([[0.1 + 0.2, -1e-12]])) == "[[0.3, 0]]"
    d = digest("04.1", canonical(0.705, spec))
    for near in (0.705, 0.7049, 0.7058, 0.70500001):  # within one or two units of the last place
        assert accepts(near, spec, digest_=d) and accepts(near, spec, expected=0.705)
    for far in (0.702, 0.708, 0.645):
        assert not accepts(far, spec, digest_=d) and not accepts(far, spec, expected=0.705)
    assert digest("04.2", canonical(0.705, spec)) != d  # salted with the exercise id


@pytest.mark.parametrize("kind, answer, message", [
    ("set", ["e1", "e2"], "write {...} instead of [...]"),
    ("int", True, "a whole number"),
    ("float", "0.7", "a number"),
    ("bool", 1, "True or False"),
    ("list", {"s1"}, "a list in order"),
])
def test_an_answer_of_the_wrong_form_is_told_the_form(kind, answer, message):
    with pytest.raises(FormError, match=re.escape(message)):
        canonical(answer, Spec("x", kind))


def test_sets_choices_and_lists():
    assert canonical({"e2", " e1"}, Spec("x", "set")) == canonical({"e1", "e2"}, Spec("x", "set"))
    choice = Spec("x", "choice", choices=("higher", "lower"))
    assert canonical(" Lower", choice) == "choice:lower"
    with pytest.raises(FormError, match="one of 'higher' or 'lower'"):
        canonical("down", choice)
    assert canonical(["s3", "s1"], Spec("x", "list")) != canonical(["s1", "s3"], Spec("x", "list"))


# --- the learner's checks -------------------------------------------------------------


def test_check_says_not_answered_wrong_form_not_yet_and_correct(capsys):
    assert check("04.1", None).status == "not answered"
    wrong = check("04.1", 0.6449999999999999)
    assert wrong.status == "wrong" and not wrong
    form = check("02.1", ["e1", "e2"])
    assert check("04.1", 0.705) and check("02.1", {"e2", "e1"})
    out = capsys.readouterr().out
    assert "exercise 04.1: not answered yet: set `answer` in the cell above to a number" in out
    assert "exercise 04.1: not yet: 0.645 is not the value (compared to 3 decimals)" in out
    assert "0.6449999" not in out  # values are shown rounded
    assert "\n  expected: a number between 0 and 1" in out and "\n  hint: Eq. 3" in out
    assert form.status == "wrong" and "write {...} instead of [...]" in form.line
    assert out.count("correct\n") == 2


def test_a_check_cell_shows_only_its_verdict(capsys):
    verdict = check("03.2", "s2")
    assert capsys.readouterr().out == "exercise 03.2: correct\n"
    assert DisplayFormatter().format(verdict) == ({}, {})  # no True/False echo
    assert check("teacher.1", [1, 2], (1, 2.0000001))  # an id of the teacher's own
    assert check("unknown.1", 3).status == "wrong"  # not in the catalog, nothing to compare


def test_check_function_runs_the_learners_function_contained(capsys, tmp_path):
    module = tmp_path / "learner.py"
    module.write_text(
        "import numpy as np\n\n"
        "def gamma(sigma, nu, t_bar, t_min, t_max, beta=0.7):\n"
        "    sigma, nu, t_bar = (np.asarray(x, dtype=float) for x in (sigma, nu, t_bar))\n"
        "    rate = np.divide(sigma, nu, out=np.zeros_like(sigma), where=nu > 0)\n"
        "    eff = 1 - (t_bar - t_min) / (t_max - t_min) if t_max > t_min else np.ones_like(t_bar)\n"
        "    return np.where(nu > 0, beta * rate + (1 - beta) * eff, 0.5)\n\n"
        "def no_prior(sigma, nu, t_bar, t_min, t_max, beta=0.7):\n"
        "    return beta * np.asarray(sigma) / np.maximum(nu, 1) + (1 - beta) * 1.0\n\n"
        "def blank(sigma, nu, t_bar, t_min, t_max, beta=0.7):\n"
        "    '''not written yet'''\n\n"
        "def borrowed(sigma, nu, t_bar, t_min, t_max, beta=0.7):\n"
        "    from hyperskill_lite import utility\n"
        "    return utility(sigma, nu, t_bar, t_min, t_max, beta=beta)\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import learner
    finally:
        sys.path.remove(str(tmp_path))
    assert check_function("04.3", learner.gamma)
    assert check_function("04.3", learner.no_prior).status == "wrong"
    assert check_function("04.3", learner.blank).status == "not answered"
    assert check_function("04.3", learner.borrowed).status == "wrong"
    out = capsys.readouterr().out.split("exercise 04.3: ")
    assert out[1].startswith("correct on the 3 examples")
    assert "on example 1, no_prior([3, 1, 0, 0], [4, 4, 3, 0], [3, 11, 6, 0], 2, 12): the value " \
           "at [0] is" in out[2] and "the library gives 0.795" in out[2]
    assert "blank returns None: write its body" in out[3]
    assert "it imports hyperskill_lite: a graded function must compute the result itself" in out[4]


def test_an_endless_loop_in_a_function_is_stopped(tmp_path):
    (tmp_path / "looping.py").write_text(
        "def gamma(sigma, nu, t_bar, t_min, t_max, beta=0.7):\n    while True:\n        pass\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import looping
    finally:
        sys.path.remove(str(tmp_path))
    spec = dataclasses.replace(exercise("04.3"), timeout=2.0)
    status, text = function_feedback(spec, looping.gamma, [([[1], [1], [4.0], 2, 8], {})],
                                     [np.array([0.88])], "example")
    assert status == "wrong" and text.startswith("stopped after 2 s")


# --- the instructor's tests -----------------------------------------------------------


def test_verify_answer_is_silent_when_right_and_says_why_when_not():
    verify_answer("04.1", 0.705, 0.705)
    with pytest.raises(ExerciseFailed, match=r"0\.7 is not the value 0\.705 .*hint: Eq\. 3"):
        verify_answer("04.1", 0.7, 0.7050000001)
    with pytest.raises(NotAnswered):
        verify_answer("04.1", None, 0.705)
    with pytest.raises(CatalogError, match="set digest ="):  # the catalog disagrees with the library
        verify_answer("04.1", 0.705, 0.71)
    e = ExerciseFailed("exercise 04.1: 0.7 is not the value")
    assert e._render_traceback_() == ["ExerciseFailed: exercise 04.1: 0.7 is not the value"]


def test_verify_function_uses_hidden_inputs_the_examples_do_not_show(tmp_path):
    from hyperskill_lite import utility

    # the public examples' answers written in, anything else guessed: right on every example
    (tmp_path / "overfit.py").write_text(
        "import numpy as np\n\n"
        "KNOWN = {(3, 1, 0, 0): [0.795, 0.205, 0.18, 0.5], (2,): [0.583333], (1,): [1.0]}\n\n"
        "def gamma(sigma, nu, t_bar, t_min, t_max, beta=0.7):\n"
        "    return np.array(KNOWN.get(tuple(int(x) for x in sigma), [0.5] * len(sigma)))\n")
    sys.path.insert(0, str(tmp_path))
    try:
        import overfit
    finally:
        sys.path.remove(str(tmp_path))
    assert check_function("04.3", overfit.gamma)
    with pytest.raises(ExerciseFailed, match=r"on hidden input \d, gamma\(.*the library gives"):
        verify_function("04.3", overfit.gamma, reference=utility, seed=3041)


# --- the catalog and the notebooks ----------------------------------------------------


def test_the_catalog_holds_enough_exercises_in_every_notebook():
    found = catalog()
    per_nb = {nb.name[:2]: [e for e in found.values() if e.notebook == nb.name[:2]]
              for nb in WITH_EXERCISES}
    assert len(found) >= 25 and sum(e.coding for e in found.values()) >= 8
    assert all(per_nb.values()), {k: len(v) for k, v in per_nb.items()}


@pytest.mark.parametrize("nb", WITH_EXERCISES, ids=lambda p: p.stem[:2])
def test_every_exercise_has_an_answer_a_check_and_a_hidden_test(nb):
    cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
    found = exercise_cells(cells)
    ids = list(dict.fromkeys(c.exercise for c in found))
    assert ids == sorted(e for e in catalog() if e.startswith(nb.name[:2] + "."))
    for ex in ids:
        spec = exercise(ex)
        roles = [c for c in found if c.exercise == ex]
        assert [c.role for c in roles] == ["answer", "check", "test"], ex
        answer, check_cell, test = (cells[c.index] for c in roles)
        for cell, role in zip((answer, check_cell, test), ("answer", "check", "test")):
            assert cell["id"] == cell_id(ex, role) and cell["cell_type"] == "code"
            assert cell["metadata"]["tags"] == TAGS[role]
            assert cell["metadata"]["nbgrader"] == exercise_metadata(ex, role)["nbgrader"]
        assert SOL_B in _source(answer) and SOL_E in _source(answer)
        # the check cell holds nothing to copy: the id and the answer (or the function)
        want = (f'check_function("{ex}", {spec.name})' if spec.coding
                else f'check("{ex}", answer)')
        assert _source(check_cell) == want
        lines = _source(test).splitlines()
        assert lines[0].startswith("# ") and lines[1] == HID_B and lines[-1] == HID_E
        assert ("verify_function" if spec.coding else "verify_answer") in _source(test)
        # run top to bottom, the instructor's notebook passes its own checks, silently tested
        out = "".join("".join(o.get("text", "")) for o in check_cell["outputs"])
        assert out.startswith(f"exercise {ex}: correct"), (ex, out)
        assert test["outputs"] == []


# --- student copies -------------------------------------------------------------------


def test_a_student_copy_holds_no_solution_and_no_hidden_test():
    for path in WITH_EXERCISES:
        nb = json.loads(path.read_text(encoding="utf-8"))
        copy = student_notebook(nb)
        text = json.dumps(copy)
        assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text, path.name
        assert "verify_answer" not in text and "verify_function" not in text
        roles = {c.exercise + c.role: copy["cells"][c.index] for c in exercise_cells(copy["cells"])}
        prose = "\n".join(_source(c) for c in nb["cells"] if c["cell_type"] == "markdown")
        for c in exercise_cells(nb["cells"]):
            if c.role != "answer":
                continue
            src = _source(nb["cells"][c.index])
            solution = src.split(SOL_B, 1)[1].split(SOL_E, 1)[0]
            for line in solution.splitlines():  # no line of the solution is left anywhere
                if len(line.strip()) > 12 and line.strip() not in prose:  # but a statement's hint
                    assert line.strip() not in text, (c.exercise, line)
            mine = roles[c.exercise + "answer"]
            assert "solution" not in mine["metadata"]["tags"]
            assert mine["outputs"] == [] and not mine["metadata"].get("jupyter")
            if exercise(c.exercise).coding:
                assert _source(mine).endswith("# your code here")
            else:
                assert _source(mine).endswith("answer = None  # your answer here")
        assert copy["cells"][1]["id"] == NOTE_ID and "instructor edition" in copy["cells"][1]["source"]
        def figures(book: dict) -> int:
            return sum("image/png" in o.get("data", {}) for c in book["cells"]
                       for o in c.get("outputs", []))

        assert figures(copy) == figures(nb), path.name  # the worked example keeps its figures
        nbformat.validate(nbformat.from_dict(copy))


def test_student_copies_are_readable_by_the_class_and_never_overwrite_work(tmp_path):
    out = tmp_path / "class"
    written = write_student_copies(ROOT / "notebooks", out)
    assert len(written) == len(NOTEBOOKS) and (out / MANIFEST).is_file()
    for path in [*written, out / MANIFEST]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path.name
    assert write_student_copies(ROOT / "notebooks", out) == written  # unchanged: rewritten
    work = out / "04_utility_and_pruning.ipynb"
    work.write_text(work.read_text().replace("answer = None", "answer = 0.7", 1))
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(StudentCopyError, match="was changed since"):
        write_student_copies(ROOT / "notebooks", out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # nothing written


def test_the_student_cli_refuses_a_folder_it_did_not_make(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes")
    r = _cli("student", str(mine))
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "was not made by `course student`" in r.stderr
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    (tmp_path / "a_file").write_text("x")
    r = _cli("student", str(tmp_path / "a_file"))
    assert r.returncode == 2 and "is a file, not a folder" in r.stderr
    r = _cli("student", str(tmp_path / "new"), "--notebooks", str(tmp_path / "nowhere"))
    assert r.returncode == 2 and "holds no course notebooks" in r.stderr
    r = _cli("student", str(tmp_path / "new"))
    assert r.returncode == 0 and f"wrote {len(NOTEBOOKS)} student notebooks" in r.stdout
    assert "solutions are in the instructor edition" in r.stdout


# --- grading: a small course notebook, nbgrader, a real kernel -------------------------


def _cells(ex: str, statement: str, answer: str, check_src: str, test_src: str) -> list:
    return [nbformat.v4.new_markdown_cell(f"**Exercise {ex}.** {statement}", id=cell_id(ex, "task")),
            nbformat.v4.new_code_cell(answer, id=cell_id(ex, "answer"),
                                      metadata=exercise_metadata(ex, "answer")),
            nbformat.v4.new_code_cell(check_src, id=cell_id(ex, "check"),
                                      metadata=exercise_metadata(ex, "check")),
            nbformat.v4.new_code_cell(f"# grading runs the instructor's test of {ex} here\n"
                                      f"{HID_B}\n{test_src}\n{HID_E}", id=cell_id(ex, "test"),
                                      metadata=exercise_metadata(ex, "test"))]


def course_notebook() -> nbformat.NotebookNode:
    """A small instructor notebook (named like notebook 04) with four of its exercises."""
    verify = "from hyperskill_lite.course import verify_answer, verify_function\n"
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 04 · a small course notebook", id="title"),
        nbformat.v4.new_code_cell("import numpy as np\n\nfrom hyperskill_lite import utility\n"
                                  "from hyperskill_lite.core.maintenance import prune_selection\n"
                                  "from hyperskill_lite.course import check, check_function",
                                  id="imports"),
        *_cells("04.1", "gamma by hand.", f"answer = None  # your answer here\n{SOL_B}\n"
                "answer = 0.7 * 3 / 4 + 0.3 * (1 - 4 / 10)\n" + SOL_E, 'check("04.1", answer)',
                verify + 'verify_answer("04.1", answer, float(utility(3, 4, 6.0, 2.0, 12.0)))'),
        *_cells("04.2", "which nodes.", f'answer = None  # your answer here\n{SOL_B}\n'
                f'answer = {{"n2", "n3"}}\n{SOL_E}', 'check("04.2", answer)',
                verify + 'nu, g = [0, 2, 3, 5, 8, 3, 6, 4], [0.5, 0.05, 0.15, 0.18, 0.3, 0.6, 0.22, 0.19]\n'
                'verify_answer("04.2", answer, {f"n{i}" for i in prune_selection(np.array(nu), '
                'np.array(g), mode="ratio", rho=0.5)})'),
        *_cells("04.3", "Eq. 3.", "def gamma(sigma, nu, t_bar, t_min, t_max, beta=0.7):\n"
                '    """Eq. 3."""\n    # your code here\n'
                f"    {SOL_B}\n"
                "    sigma, nu, t_bar = (np.asarray(x, dtype=float) for x in (sigma, nu, t_bar))\n"
                "    rate = np.divide(sigma, nu, out=np.zeros_like(sigma), where=nu > 0)\n"
                "    span = t_max - t_min\n"
                "    eff = 1 - (t_bar - t_min) / span if span > 0 else np.ones_like(t_bar)\n"
                "    return np.where(nu > 0, beta * rate + (1 - beta) * eff, 0.5)\n"
                f"    {SOL_E}", 'check_function("04.3", gamma)',
                verify + 'verify_function("04.3", gamma, reference=utility, seed=3041)'),
        *_cells("04.4", "Eq. 11.", "def prune_ratio(nu, gamma, rho, n_min=3, tau=0.2):\n"
                '    """Eq. 11 and rho."""\n    # your code here\n'
                f"    {SOL_B}\n"
                "    nu, gamma = np.asarray(nu), np.asarray(gamma, dtype=float)\n"
                "    low = np.flatnonzero((nu >= n_min) & (gamma < tau))\n"
                "    order = low[np.lexsort((low, gamma[low]))]\n"
                "    return np.sort(order[:int(np.ceil(rho * len(low)))])\n"
                f"    {SOL_E}", 'check_function("04.4", prune_ratio)',
                verify + 'verify_function("04.4", prune_ratio, reference=lambda nu, g, rho: '
                'prune_selection(nu, g, mode="ratio", rho=rho), seed=3042)'),
    ]
    return nb


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The small instructor notebook in a source folder, and its student copy."""
    root = tmp_path_factory.mktemp("course")
    (root / "source").mkdir()
    nbformat.write(course_notebook(), root / "source" / "04_small.ipynb")
    copy = student_notebook(json.loads((root / "source" / "04_small.ipynb").read_text()))
    return root, copy


def _submit(root: Path, copy: dict, edits: dict[str, str], name: str) -> Path:
    nb = json.loads(json.dumps(copy))
    for cell in nb["cells"]:
        if cell.get("id") in edits:
            cell["source"] = edits[cell["id"]]
    path = root / name / "04_small.ipynb"
    path.parent.mkdir()
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def test_gaming_the_grader_earns_nothing_and_a_loop_is_stopped(course):
    root, copy = course
    escaped = root / "escaped.txt"
    path = _submit(root, copy, {
        # a wrong answer, and the check cell edited to claim success
        "ex-04-1-answer": "answer = 0.645",
        "ex-04-1-check": 'print("exercise 04.1: correct")',
        # the check cell's expression copied into the answer, and the check silenced
        "ex-04-2-answer": 'answer = check("04.2", answer)\n'
                          'check = lambda *args: print("exercise 04.2: correct")',
        # the library called instead of implemented; and a write outside the grading folder
        "ex-04-3-answer": "from pathlib import Path\n"
                          f"try:\n    Path({str(escaped)!r}).write_text('out')\n"
                          "except OSError:\n    pass\n"
                          "from hyperskill_lite import utility as _u\n\n"
                          "def gamma(sigma, nu, t_bar, t_min, t_max, beta=0.7):\n"
                          "    return _u(sigma, nu, t_bar, t_min, t_max, beta=beta)\n",
        # an endless loop
        "ex-04-4-answer": "while True:\n    pass\n",
    }, "gaming")
    before = path.read_bytes()
    report = grade_notebook(path, root / "source", isolation=ISOLATION, answer_timeout=10)
    assert report.by_status() == {"04.1": "wrong", "04.2": "wrong", "04.3": "wrong",
                                  "04.4": "wrong"}, format_report(report)
    assert report.points == 0 and path.read_bytes() == before  # the learner's file untouched
    notes = {g.exercise: g.note for g in report.grades}
    assert notes["04.1"].startswith("0.645 is not the value 0.705")
    assert "the answer should be a set" in notes["04.2"]
    assert "graded function" in notes["04.3"] or "cannot see" in notes["04.3"]
    assert notes["04.4"].startswith("its answer cell was stopped at the time limit (10 s)")
    assert [f.split(": ")[0] for f in report.flags] == ["cell 8 (ex-04-2-answer) rebinds or patches check"]
    if ISOLATION == "bwrap":
        assert not escaped.exists()  # the learner's cell could not write outside its folder
    table = format_report(report)
    assert table.splitlines()[0] == f"04_small.ipynb: 0 of 4 correct (0 of 4 points; contained: {ISOLATION})"


def test_a_correct_function_passes_hidden_inputs_and_a_wrong_one_is_told_why(course):
    root, copy = course
    path = _submit(root, copy, {
        "ex-04-1-answer": "answer = 0.705",
        "ex-04-3-answer": "def gamma(sigma, nu, t_bar, t_min, t_max, beta=0.7):\n"
                          "    sigma, nu, t_bar = (np.asarray(x, float) for x in (sigma, nu, t_bar))\n"
                          "    rate = np.divide(sigma, nu, out=np.zeros_like(sigma), where=nu > 0)\n"
                          "    eff = 1 - (t_bar - t_min) / (t_max - t_min) if t_max > t_min "
                          "else np.ones_like(t_bar)\n"
                          "    return np.where(nu > 0, beta * rate + (1 - beta) * eff, 0.5)\n",
        # forgets the lowest-utility-first order: right on none of the cases with a tie
        "ex-04-4-answer": "def prune_ratio(nu, gamma, rho, n_min=3, tau=0.2):\n"
                          "    low = np.flatnonzero((np.asarray(nu) >= n_min) & (np.asarray(gamma) < tau))\n"
                          "    return low[:int(np.ceil(rho * len(low)))]\n",
    }, "honest")
    report = grade_notebook(path, root / "source", isolation=ISOLATION, answer_timeout=30)
    assert report.by_status() == {"04.1": "correct", "04.2": "not answered", "04.3": "correct",
                                  "04.4": "wrong"}, format_report(report)
    note = {g.exercise: g.note for g in report.grades}["04.4"]
    assert re.match(r"on hidden input \d, prune_ratio\(.*\): the value at \[\d\] is \d+, the "
                    r"library gives \d+; expected: the indices of the pruned nodes", note), note
    assert report.flags == [] and report.points == 2


def test_the_grade_cli_says_what_is_wrong_in_one_line(course, tmp_path):
    root, copy = course
    r = _cli("grade", str(tmp_path / "missing.ipynb"))
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.strip() == f"course grade: {tmp_path / 'missing.ipynb'}: no such notebook"
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{not json")
    r = _cli("grade", str(broken))
    assert r.returncode == 2 and "not a readable notebook" in r.stderr
    assert r.stderr.count("\n") == 1
    stray = tmp_path / "77_stray.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")]), stray)
    r = _cli("grade", str(stray), "--source", str(root / "source"))
    assert r.returncode == 2 and "no instructor notebook of that number" in r.stderr
    # where bubblewrap cannot run, grading refuses rather than run the code uncontained
    path = _submit(root, copy, {}, "blank")
    env = {**os.environ, "PATH": str(tmp_path)}  # no bwrap on this PATH
    r = _cli("grade", str(path), "--source", str(root / "source"), env=env)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "cannot contain the learner's code here" in r.stderr and "--isolation process" in r.stderr
