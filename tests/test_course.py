"""course/: answers, the catalog (no answer in it), the learner's checks (form and public
examples, never correctness), the instructor's tests (they record the key), the keys and
records of the shipped notebooks, student copies (no solution, rubric or key anywhere,
readable, never over a file the user owns), the flags a gaming cell earns, the contained
run of answer cells (no library, one process, a cell that hangs costs its own exercise),
and the grade command's one-line refusals. The adversarial submissions are in
test_course_adversarial.py, the oracle loop in test_course_oracle.py, written questions in
test_course_written.py, the capstone in test_course_capstone.py."""

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
    verify_answer,
    verify_function,
    write_student_copies,
)
from hyperskill_lite.course.answers import (
    FormError,
    Spec,
    accepts,
    canonical,
    compare_outputs,
    decode,
    encode,
    shown,
)
from hyperskill_lite.course.catalog import catalog, exercise
from hyperskill_lite.course.check import function_feedback
from hyperskill_lite.course.contained import AnswerJob, isolation_problem, run_answers
from hyperskill_lite.course.exercises import TAGS, cell_id, exercise_cells, exercise_metadata
from hyperskill_lite.course.feedback import TriesLedger
from hyperskill_lite.course.gradebook import WRITTEN_STUB
from hyperskill_lite.course.key import META, read_key, records_of, source_sha
from hyperskill_lite.course.student import MANIFEST, NOTE_ID, StudentCopyError, student_notebook
from hyperskill_lite.course.tamper import find_flags
from hyperskill_lite.course.verify import CatalogError, NotAnswered

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
WITH_EXERCISES = [p for p in NOTEBOOKS if p.name[:2] != "00"]
SOL_B, SOL_E = "### BEGIN " + "SOLUTION", "### END " + "SOLUTION"
HID_B, HID_E = "### BEGIN " + "HIDDEN TESTS", "### END " + "HIDDEN TESTS"
ISOLATION = "bwrap" if isolation_problem("bwrap") is None else "process"


def _cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hyperskill_lite.course", *args],
                          capture_output=True, text=True, cwd=ROOT, env=env)


def _source(cell: dict) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def _module(tmp_path: Path, name: str, text: str):
    (tmp_path / f"{name}.py").write_text(text)
    sys.path.insert(0, str(tmp_path))
    try:
        return __import__(name)
    finally:
        sys.path.remove(str(tmp_path))


# --- answers: forms, rounding, encoding -------------------------------------------------


def test_a_float_is_read_at_its_decimals_and_shown_rounded():
    spec = Spec("04.1", "float", decimals=3)
    assert canonical(0.6449999999999999, spec) == "float:0.645"
    assert shown(0.6449999999999999) == "0.645" and shown(-0.0) == "0"
    assert shown(np.array([[0.1 + 0.2, -1e-12]])) == "[[0.3, 0]]"
    for near in (0.5, 0.4999, 0.5008, 0.50000001):  # within one or two units of the last place
        assert accepts(near, spec, expected=0.5)
    for far in (0.497, 0.503, 0.645):
        assert not accepts(far, spec, expected=0.5)


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


def test_values_cross_the_sandbox_as_plain_data_and_back():
    assert decode(encode({"e2", "e1"})) == {"e1", "e2"}
    assert decode(encode((1, 2.5))) == [1, 2.5] and decode(encode(True)) is True
    assert decode(encode(np.float64(0.5))) == 0.5
    assert "repr" in decode(encode(object()))  # an object is only described: no form takes it


def test_a_difference_on_a_hidden_input_is_told_without_the_library_value():
    got, want = encode(np.array([0.5, 0.3])), encode(np.array([0.5, 0.305]))
    assert compare_outputs(got, want) == "the value at [1] is 0.3, the library gives 0.305"
    quiet = compare_outputs(got, want, reveal=False)
    assert quiet == "the result differs from the library's at [1]" and "0.305" not in quiet
    assert "2" not in compare_outputs(encode([1]), encode([1, 2]), reveal=False)
    assert compare_outputs(encode(np.array([1])), encode(np.array([1, 2])),
                           reveal=False) == "the result has shape (1,), not the library's"


# --- the learner's checks -------------------------------------------------------------


def test_check_confirms_the_form_and_records_never_correctness(capsys):
    assert check("04.1", None).status == "not answered"
    recorded = check("04.1", 0.6449999999999999)
    assert recorded.status == "recorded" and recorded  # true: an answer of the right form
    form = check("02.1", ["e1", "e2"])
    out = capsys.readouterr().out
    assert "exercise 04.1: not answered yet: set `answer` in the cell above to a number" in out
    assert "exercise 04.1: recorded 0.645 (the form is right)" in out
    assert "cannot say whether it is right" in out and "0.6449999" not in out
    assert form.status == "wrong form" and "write {...} instead of [...]" in form.line
    assert "\n  expected: a set of ids" in form.line and "\n  hint: " in form.line
    assert check("04.3", 1).status == "wrong form"  # a coding exercise: check_function


def test_a_check_cell_shows_only_its_verdict(capsys):
    verdict = check("03.2", "s2")
    assert capsys.readouterr().out.startswith("exercise 03.2: recorded 's2' (the form is right)")
    assert DisplayFormatter().format(verdict) == ({}, {})  # no True/False echo
    assert check("teacher.1", [1, 2], (1, 2.0000001))  # an id of the teacher's own
    assert check("unknown.1", 3).status == "wrong form"  # not in the catalog, nothing to compare


GAMMA = (
    "import numpy as np\n\n"
    "def gamma(sigma, nu, t_bar, t_min, t_max, beta=0.7):\n"
    "    sigma, nu, t_bar = (np.asarray(x, dtype=float) for x in (sigma, nu, t_bar))\n"
    "    rate = np.divide(sigma, nu, out=np.zeros_like(sigma), where=nu > 0)\n"
    "    eff = 1 - (t_bar - t_min) / (t_max - t_min) if t_max > t_min else np.ones_like(t_bar)\n"
    "    return np.where(nu > 0, beta * rate + (1 - beta) * eff, 0.5)\n\n")


def test_check_function_runs_the_learners_function_contained(capsys, tmp_path):
    learner = _module(tmp_path, "learner", GAMMA +
                      "def no_prior(sigma, nu, t_bar, t_min, t_max, beta=0.7):\n"
                      "    return beta * np.asarray(sigma) / np.maximum(nu, 1) + (1 - beta) * 1.0\n\n"
                      "def blank(sigma, nu, t_bar, t_min, t_max, beta=0.7):\n"
                      "    '''not written yet'''\n\n"
                      "def borrowed(sigma, nu, t_bar, t_min, t_max, beta=0.7):\n"
                      "    import sys\n    sys.modules.pop('hyperskill_lite', None)\n"
                      "    from hyperskill_lite import utility\n"
                      "    return utility(sigma, nu, t_bar, t_min, t_max, beta=beta)\n")
    assert check_function("04.3", learner.gamma).status == "examples pass"
    assert check_function("04.3", learner.no_prior).status == "wrong"
    assert check_function("04.3", learner.blank).status == "not answered"
    assert check_function("04.3", learner.borrowed).status == "wrong"
    out = capsys.readouterr().out.split("exercise 04.3: ")
    assert out[1].startswith("right on the 3 public examples")
    assert "on example 1, no_prior([3, 1, 0, 0], [4, 4, 3, 0], [3, 11, 6, 0], 2, 12): the value " \
           "at [0] is" in out[2] and "the library gives 0.795" in out[2]  # public: shown
    assert "blank returns None: write its body" in out[3]
    assert "it imports hyperskill_lite: a graded function must compute the result itself" in out[4]


def test_an_endless_loop_in_a_function_is_stopped(tmp_path):
    looping = _module(tmp_path, "looping",
                      "def gamma(sigma, nu, t_bar, t_min, t_max, beta=0.7):\n    while True:\n"
                      "        pass\n")
    spec = dataclasses.replace(exercise("04.3"), timeout=2.0)
    status, text = function_feedback(spec, looping.gamma, [([[1], [1], [4.0], 2, 8], {})],
                                     [np.array([0.88])], "example")
    assert status == "wrong" and text.startswith("stopped after 2 s")


# --- the instructor's tests record the key --------------------------------------------


def test_verify_answer_checks_the_solution_and_records_the_key(capsys):
    verify_answer("04.1", 0.5, 0.5)
    line = capsys.readouterr().out
    assert line.startswith("exercise 04.1: the solution agrees with the library; its key is "
                           "recorded for grading (key ")
    with pytest.raises(ExerciseFailed, match=r"0\.7 is not the value 0\.5"):
        verify_answer("04.1", 0.7, 0.5)
    with pytest.raises(NotAnswered):
        verify_answer("04.1", None, 0.5)
    with pytest.raises(CatalogError, match="not of the form"):  # the library's value, misread
        verify_answer("04.2", {"n2"}, ["n2"])
    e = ExerciseFailed("exercise 04.1: 0.7 is not the value")
    assert e._render_traceback_() == ["ExerciseFailed: exercise 04.1: 0.7 is not the value"]


def test_verify_function_uses_hidden_inputs_and_the_graders_reference(tmp_path, capsys):
    from hyperskill_lite import utility

    learner = _module(tmp_path, "solution04", GAMMA)
    verify_function("04.3", learner.gamma, reference=utility, seed=3041)
    assert "the solution is right on its 4 hidden inputs" in capsys.readouterr().out
    # the public examples' answers written in, anything else guessed: right on every example
    overfit = _module(tmp_path, "overfit",
                      "import numpy as np\n\n"
                      "KNOWN = {(3, 1, 0, 0): [0.795, 0.205, 0.18, 0.5], (2,): [0.583333], "
                      "(1,): [1.0]}\n\n"
                      "def gamma(sigma, nu, t_bar, t_min, t_max, beta=0.7):\n"
                      "    return np.array(KNOWN.get(tuple(int(x) for x in sigma), "
                      "[0.5] * len(sigma)))\n")
    assert check_function("04.3", overfit.gamma).status == "examples pass"
    with pytest.raises(ExerciseFailed, match=r"on hidden input \d, gamma\("):
        verify_function("04.3", overfit.gamma, reference=utility, seed=3041)
    with pytest.raises(CatalogError, match="the notebook's reference and the grader's"):
        verify_function("04.3", learner.gamma, reference=overfit.gamma, seed=3041)


# --- the catalog, the notebooks, their keys and records -------------------------------


def test_the_catalog_holds_enough_exercises_in_every_notebook():
    found = catalog()
    per_nb = {nb.name[:2]: [e for e in found.values() if e.notebook == nb.name[:2]]
              for nb in WITH_EXERCISES}
    assert len(found) >= 25 and sum(e.coding for e in found.values()) >= 8
    assert all(per_nb.values()), {k: len(v) for k, v in per_nb.items()}


def test_the_grading_page_counts_what_the_catalog_holds():
    """The grading page's table (a block tools/readme.py generates; tests/test_book.py
    checks it is current) names every notebook with exercises, with the catalog's count
    and coding exercises."""
    text = (ROOT / "docs" / "course" / "grading.md").read_text(encoding="utf-8")
    found = catalog()
    rows = re.findall(r"^\| `(\d\d)_\w+` \| (\d+) \|(.*)\|$", text, flags=re.M)
    assert [r[0] for r in rows] == [p.name[:2] for p in WITH_EXERCISES]
    for nb, total, rest in rows:
        mine = [e for e in found.values() if e.notebook == nb]
        assert int(total) == len(mine), nb
        assert sorted(re.findall(r"\d\d\.\d+", rest)) == sorted(e.id for e in mine if e.coding)
    assert f"with {len(found)} exercises: {sum(e.coding for e in found.values())} coding" in text


@pytest.mark.parametrize("nb", WITH_EXERCISES, ids=lambda p: p.stem[:2])
def test_every_exercise_has_its_cells_a_key_and_a_record(nb):
    cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
    found = exercise_cells(cells)
    ids = list(dict.fromkeys(c.exercise for c in found))
    assert ids == sorted(e for e in catalog() if e.startswith(nb.name[:2] + "."))
    key = read_key({"cells": cells}, nb.name)
    for ex in ids:
        spec = exercise(ex)
        roles = [c for c in found if c.exercise == ex]
        if spec.written:  # a model answer graded by hand, and its rubric: no check, no key
            assert [c.role for c in roles] == ["answer", "rubric"], ex
            answer, rubric = (cells[c.index] for c in roles)
            assert answer["id"] == cell_id(ex, "answer") and rubric["id"] == cell_id(ex, "rubric")
            assert answer["cell_type"] == rubric["cell_type"] == "markdown"
            assert answer["metadata"] == exercise_metadata(ex, "answer", written=True,
                                                           points=spec.points)
            assert rubric["metadata"]["tags"] == TAGS["rubric"] and ex not in key
            assert _source(answer).strip() and _source(rubric).strip()
            assert _source(cells[roles[0].index - 1]).startswith(f"**Exercise {ex}.** ")
            continue
        assert [c.role for c in roles] == ["answer", "check", "test"], ex
        answer, check_cell, test = (cells[c.index] for c in roles)
        for cell, role in zip((answer, check_cell, test), ("answer", "check", "test")):
            assert cell["id"] == cell_id(ex, role) and cell["cell_type"] == "code"
            assert cell["metadata"]["tags"] == TAGS[role]
            assert cell["metadata"]["nbgrader"] == exercise_metadata(ex, role)["nbgrader"]
        assert SOL_B in _source(answer) and SOL_E in _source(answer)
        want = (f'check_function("{ex}", {spec.name})' if spec.coding
                else f'check("{ex}", answer)')
        assert _source(check_cell) == want  # nothing to copy: the id and the answer
        lines = _source(test).splitlines()
        assert lines[0].startswith("# ") and lines[1] == HID_B and lines[-1] == HID_E
        assert ("verify_function" if spec.coding else "verify_answer") in _source(test)
        assert key[ex].kind == spec.kind  # the instructor's run recorded the key
        text = "".join("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                       for o in check_cell["outputs"])
        if spec.coding:
            assert text.startswith(f"exercise {ex}: right on the "), (ex, text)
        else:  # the check recorded the solution's value, bound to the answer cell's source
            assert text.startswith(f"exercise {ex}: recorded "), (ex, text)
            rec = records_of(check_cell, "answer")[-1]
            assert rec["source"] == source_sha(_source(answer))


# --- student copies -------------------------------------------------------------------


def test_a_student_copy_holds_no_solution_no_hidden_test_and_no_key():
    for path in WITH_EXERCISES:
        nb = json.loads(path.read_text(encoding="utf-8"))
        copy = student_notebook(nb)
        text = json.dumps(copy)
        assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text, path.name
        assert "verify_answer" not in text and "verify_function" not in text
        assert META not in text  # no key, no recorded answer
        roles = {c.exercise + c.role: copy["cells"][c.index] for c in exercise_cells(copy["cells"])}
        prose = "\n".join(_source(c) for c in nb["cells"] if c["cell_type"] == "markdown")
        for c in exercise_cells(nb["cells"]):
            if exercise(c.exercise).written:  # the model answer a stub, the rubric gone
                copied = "\n".join(_source(x) for x in copy["cells"])
                for line in _source(nb["cells"][c.index]).splitlines():
                    assert len(line.strip()) < 13 or line.strip() not in copied, (c.exercise, line)
                if c.role == "answer":
                    assert _source(roles[c.exercise + "answer"]) == WRITTEN_STUB
                else:
                    assert c.exercise + c.role not in roles
                continue
            if c.role != "answer":
                continue
            src = _source(nb["cells"][c.index])
            if exercise(c.exercise).written:  # the model answer replaced by a blank stub
                mine = roles[c.exercise + "answer"]
                assert mine["source"] == WRITTEN_STUB and src.strip() not in text
                assert "solution" not in mine["metadata"]["tags"]
                continue
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
        assert copy["cells"][1]["id"] == NOTE_ID and "does not tell you" in copy["cells"][1]["source"]

        def figures(book: dict) -> int:
            return sum("image/png" in o.get("data", {}) for c in book["cells"]
                       for o in c.get("outputs", []))

        assert figures(copy) == figures(nb), path.name  # the worked example keeps its figures
        nbformat.validate(nbformat.from_dict(copy))


def test_the_capstone_copy_holds_a_template_and_a_students_method_earns_no_flag(tmp_path):
    """The capstone's method cell (a solution cell outside any exercise, tagged own-code):
    the student copy holds the template, not collapsed and without the worked example,
    and it runs as it stands; a student's own method written there earns no flag (the
    capstone command scans the file it becomes), while the same code in another cell does."""
    from hyperskill_lite import HashingEncoder
    from hyperskill_lite.launch import skillworld_parts
    from hyperskill_lite.runner import run_episodes

    nb = json.loads((ROOT / "notebooks" / "11_capstone.ipynb").read_text(encoding="utf-8"))
    copy = student_notebook(nb)
    cell = next(c for c in copy["cells"] if c["id"] == "capstone-method")
    src = _source(cell)
    assert SOL_B not in src and "plan-shelf" not in src and 'NAME = "skill-shelf"' in src
    assert "solution" not in cell["metadata"]["tags"] and "jupyter" not in cell["metadata"]
    found: dict = {}
    exec(compile(src, "template", "exec"), found)  # noqa: S102 - the course's own template
    spec = found["SPEC"]
    tasks, llm, executor, _ = skillworld_parts("gaia", 0, 6)
    system = spec.factory(spec.operations(llm), HashingEncoder(), None)
    records = run_episodes(system, tasks, executor, tmp_path / "run", progress=False)
    assert len(records) == 6 and system.stats()["skills"] > 0
    assert any(r["retrieved"] for r in records[1:])  # it shows what it stored
    mine = json.loads(json.dumps(copy))
    own = next(c for c in mine["cells"] if c["id"] == "capstone-method")
    own["source"] = src.replace("class Memory", "class Shelf") + "\nPath('x').write_text('y')\n"
    assert find_flags(mine, nb) == []
    other = next(c for c in mine["cells"] if c["id"] == "capstone-runs")
    other["source"] += "\nPath('x').write_text('y')\n"
    assert [f.cell for f in find_flags(mine, nb)] == ["capstone-runs"]


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


# --- flags ------------------------------------------------------------------------------


def _nb(*sources: str) -> dict:
    return {"cells": [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "source": s,
                       "outputs": []} for i, s in enumerate(sources)]}


@pytest.mark.parametrize("cell, phrase", [
    ("np.isclose = lambda *a, **k: True", "sets np.isclose"),
    ("import importlib\nm = importlib.import_module('hyperskill_lite' + '.course')",
     "imports modules by a computed name"),
    ("import sys\nsys.modules.pop('hyperskill_lite')", "uses sys.modules"),
    ("utility = lambda *a: 0.5", "rebinds utility"),
    ("def check(*a):\n    print('correct')", "rebinds check, a name of the grader's"),
    ("from pathlib import Path\nPath('hyperskill_lite').mkdir()\n"
     "Path('hyperskill_lite/__init__.py').write_text('')", "writes a Python package or module"),
    ("get_ipython().set_custom_exc((Exception,), lambda *a: None)",
     "changes how the kernel runs or reports cells"),
    ("try:\n    1 / 0\nexcept BaseException:\n    pass", "swallows every exception"),
    ("import builtins\nbuiltins.print = None", "changes or reads the builtins"),
    ("import ctypes", "uses low-level access (ctypes)"),
    ("exec('x = 1')", "runs code or imports modules by name (exec)"),
    ("setattr(np, 'isclose', max)", "sets attributes by name (setattr)"),
    ("globals()['utility'] = max", "writes into globals()"),
    ("import hyperskill_lite.course.verify as v", "imports the grader's package"),
])
def test_each_way_of_gaming_is_flagged_with_its_cell(cell, phrase):
    src = _nb("import numpy as np\nfrom hyperskill_lite import utility\n"
              "from hyperskill_lite.course import check", "x = 1")
    sub = _nb(_source(src["cells"][0]), cell)
    flags = [str(f) for f in find_flags(sub, src)]
    assert any(f.startswith("cell 1 (c1): ") and phrase in f for f in flags), flags


def test_honest_cells_and_the_instructors_own_are_not_flagged():
    setup = "import numpy as np\nfrom hyperskill_lite import utility"
    src = _nb(setup, "answer = None")
    sub = _nb(setup, "scores = np.asarray([1, 2])\nanswer = float(utility(3, 4, 6.0, 2, 12))\n"
              "def helper(x):\n    try:\n        return int(x)\n    except ValueError:\n"
              "        return 0\n%matplotlib inline")
    assert find_flags(sub, src) == []


# --- the contained run of answer cells --------------------------------------------------


def test_answer_cells_run_in_one_process_without_the_library():
    jobs = [
        AnswerJob("a.1", "ex-a-1-answer", "answer = {'e2', 'e1'}", "value"),
        AnswerJob("a.2", "ex-a-2-answer", "import sys\nsys.modules.pop('hyperskill_lite', None)\n"
                  "import hyperskill_lite\nanswer = 1", "value"),
        AnswerJob("a.3", "ex-a-3-answer", "def f(x):\n    return np.asarray(x) * 2", "function",
                  "f", ((([1, 2],), {}), ((np.array([[1.0]]),), {}))),
        AnswerJob("a.4", "ex-a-4-answer", "answer = incidence['e3'].sum()", "value"),
    ]
    run = run_answers(jobs, ISOLATION)
    assert run.processes == 1
    assert decode(run.results["a.1"]["value"]) == {"e1", "e2"}
    assert run.results["a.2"]["cell_error"].startswith("ImportError: hyperskill_lite is not "
                                                       "available")
    assert any("imports the library" in e for e in run.events["a.2"])
    assert [o["ok"] for o in run.results["a.3"]["outputs"]] == [
        {"array": [2, 4], "shape": [2]}, {"array": [[2.0]], "shape": [1, 1]}]
    assert run.results["a.4"]["cell_error"].startswith("NameError")  # needs the notebook


def test_a_cell_that_never_ends_costs_its_own_exercise():
    jobs = [AnswerJob("b.1", "c1", "answer = 1", "value", timeout=5),
            AnswerJob("b.2", "c2", "while True:\n    try:\n        pass\n"
                      "    except BaseException:\n        pass", "value", timeout=2),
            AnswerJob("b.3", "c3", "answer = 3", "value", timeout=5)]
    run = run_answers(jobs, ISOLATION)
    assert decode(run.results["b.1"]["value"]) == 1 and decode(run.results["b.3"]["value"]) == 3
    assert "b.2" in run.results and ("timeout" in run.results["b.2"] or "died" in run.results["b.2"])
    assert run.processes in (1, 2)


@pytest.mark.skipif(ISOLATION != "bwrap", reason="the network is cut only under bubblewrap")
def test_contained_code_reaches_neither_the_network_nor_the_teachers_files(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the teacher's")
    code = (f"import socket, pathlib\nseen = []\ntry:\n    seen.append(pathlib.Path({str(secret)!r})"
            ".read_text())\nexcept OSError:\n    pass\ntry:\n    socket.create_connection(('1.1.1.1',"
            " 80), timeout=2)\n    seen.append('net')\nexcept OSError:\n    pass\nanswer = seen")
    run = run_answers([AnswerJob("c.1", "c1", code, "value")], ISOLATION)
    assert decode(run.results["c.1"]["value"]) == []
    assert any("uses the network" in e for e in run.events["c.1"])


# --- the grade command ------------------------------------------------------------------


def test_the_grade_cli_says_what_is_wrong_in_one_line(tmp_path):
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
    r = _cli("grade", str(stray))
    assert r.returncode == 2 and "no instructor notebook of that number" in r.stderr
    # an instructor notebook that was never run holds no key: grading says so
    src = tmp_path / "src"
    src.mkdir()
    nb = json.loads((ROOT / "notebooks" / "04_utility_and_pruning.ipynb").read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = []
    (src / "04_utility_and_pruning.ipynb").write_text(json.dumps(nb))
    r = _cli("grade", str(src / "04_utility_and_pruning.ipynb"), "--source", str(src))
    assert r.returncode == 2 and "holds no grading key for 04.1, 04.2, 04.3, 04.4" in r.stderr
    # where bubblewrap cannot run, grading refuses rather than run the code uncontained
    env = {**os.environ, "PATH": str(tmp_path)}  # no bwrap on this PATH
    r = _cli("grade", str(ROOT / "notebooks" / "04_utility_and_pruning.ipynb"), env=env)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "cannot contain the learner's code here" in r.stderr and "--isolation process" in r.stderr


def test_a_try_is_a_distinct_submitted_file(tmp_path):
    ledger = TriesLedger(tmp_path / "tries.json")
    assert [ledger.count("bo", "04.ipynb", b) for b in (b"a", b"a", b"b")] == [1, 1, 2]
    assert ledger.count("al", "04.ipynb", b"a") == 1  # each student's own count
    (tmp_path / "tries.json").write_text("{broken")
    with pytest.raises(ValueError, match="is damaged"):
        ledger.count("bo", "04.ipynb", b"c")


def test_feedback_follows_the_reveal_policy(tmp_path):
    student = student_notebook(json.loads((ROOT / "notebooks" / "04_utility_and_pruning.ipynb")
                                          .read_text()))
    for cell in student["cells"]:
        if cell.get("id") == "ex-04-1-answer":
            cell["source"] = "answer = 0.645"
    course = tmp_path / "course"
    (course / "source" / "notebooks").mkdir(parents=True)
    (course / "source" / "notebooks" / "04_utility_and_pruning.ipynb").write_bytes(
        (ROOT / "notebooks" / "04_utility_and_pruning.ipynb").read_bytes())
    sub = course / "submitted" / "bo" / "notebooks" / "04_utility_and_pruning.ipynb"
    sub.parent.mkdir(parents=True)
    sub.write_text(json.dumps(student))
    args = ["grade", str(sub), "--course", str(course), "--student", "bo", "--isolation",
            ISOLATION, "--reveal-tries", "2", "--feedback", str(tmp_path / "fb")]
    r = _cli(*args)
    assert r.returncode == 1, r.stderr
    first = (tmp_path / "fb" / "bo" / "04_utility_and_pruning.txt").read_text()
    assert "(try 1)" in first and "04.1  recorded" in first and "0.645" not in first
    assert "04.2  not answered: not answered" in first  # the student's own to fix: told
    sub.write_text(json.dumps(student) + "\n")  # a second submission
    r = _cli(*args)
    second = (tmp_path / "fb" / "bo" / "04_utility_and_pruning.txt").read_text()
    assert "(try 2)" in second and "04.1  wrong: 0.645 is not the value" in second
    assert "0.705" not in second and "points: 0 of 4" in second


@pytest.mark.skipif(ISOLATION != "bwrap", reason="folders are covered under bubblewrap")
def test_a_hidden_folder_is_covered_inside_the_sandbox():
    # how the grader keeps an installed library out of the sandbox: a folder inside the
    # Python installation (numpy's, here) covered by an empty tmpfs
    from hyperskill_lite.agent.tools.sandbox import PythonSandbox, bwrap_command

    numpy_dir = str(Path(np.__file__).resolve().parent)
    args = bwrap_command("bwrap", Path("/dev/null"), as_root=False, hide=(numpy_dir, "/nowhere"))
    assert args[args.index(numpy_dir) - 1] == "--tmpfs"
    assert "/nowhere" not in args  # not inside a bound folder: nothing to cover
    seen = PythonSandbox(isolation="bwrap", hide=(numpy_dir,)).run(
        f"import os\nprint(sorted(os.listdir({numpy_dir!r})))")
    assert seen.strip() == "[]", seen


def test_a_setup_cell_that_differs_only_by_the_instructors_later_edits_is_not_flagged():
    # a student copy handed out before the instructor changed the notebook's first cell
    src = _nb("import numpy as np\nimport pandas as pd\nfrom hyperskill_lite.course import check, "
              "check_function", "x = 1")
    sub = _nb("import numpy as np\nfrom hyperskill_lite.course import check, check_function",
              "x = 1")
    assert find_flags(sub, src) == []
    sub = _nb("import numpy as np\nfrom hyperskill_lite.course import check, verify_answer", "x = 1")
    assert [str(f) for f in find_flags(sub, src)] == [
        "cell 0 (c0): imports the grader's package (hyperskill_lite.course.verify_answer)",
        "cell 0 (c0): rebinds verify_answer, a name of the grader's"]
