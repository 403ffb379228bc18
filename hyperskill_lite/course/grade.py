"""Grade a learner's notebook outside the learner's kernel, and say per exercise: correct,
wrong, not answered, or to grade by hand.

`grade_notebook(path)` never runs the submitted notebook. It takes what the learner
wrote out of the file (each answer cell's source; for a value that needs the notebook's
objects, the answer its check cell recorded, key.py) and:

1. runs every answer cell in ONE contained process (contained.py: the python tool's
   sandbox, no network, no library, time and memory limits): a value cell on its own,
   returning its ``answer``; a coding cell's function on the exercise's public examples
   and on hidden inputs drawn from the seed the instructor's notebook holds (cases.py);
   only plain JSON comes back;
2. compares, in this process, where no learner code ever ran: a value against the key
   recorded in the instructor's notebook (key.py), a function's outputs against the
   library's own function on the same inputs (references.py), bound here. Nothing a
   submission does in its kernel (patching numpy or the grader, rebinding the names the
   notebook uses, writing a shadow package, swallowing exceptions) reaches this
   comparison; each such attempt is a flag naming its cell (tamper.py), beside what the
   sandbox refused while it ran the cells;
3. hands the verdicts to nbgrader (gradebook.py), which restores the instructor's locked
   and test cells, writes the autograded notebook and stores the scores in its
   gradebook, where formgrader shows them and a written answer waits for its hand grade.

The instructor's notebook is the one of the same number in `source` (the repository's
notebooks/ by default). Without `course` the gradebook is a fresh temporary nbgrader
course; with `course` (an nbgrader course folder) the scores land in its gradebook and
the submission is read from ``course/submitted/<student>/<assignment>/``.

Containment (``isolation``): ``"bwrap"`` (the default) runs the answer cells under
bubblewrap; when bubblewrap cannot run here grading refuses with one line (fails closed)
unless the teacher passes ``"process"`` (time and memory limits; the code runs with the
teacher's rights, though still without the library, the network and new processes as far
as the audit hook can refuse them).

The notes are safe to show a student: they never hold a key or a hidden input; the
instructor's `detail` does (format_report shows it). The learner's file is only read.

Not here: the nbgrader steps (gradebook.py), the sandboxed run (contained.py), the
flags (tamper.py), student feedback and the reveal policy (feedback.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hyperskill_lite.agent.tools.sandbox import ISOLATIONS
from hyperskill_lite.course.answers import (
    FormError,
    accepts,
    canonical,
    compare_outputs,
    decode,
    encode,
    shown,
)
from hyperskill_lite.course.cases import CASES
from hyperskill_lite.course.catalog import Exercise, catalog, read_catalog
from hyperskill_lite.course.check import call_text
from hyperskill_lite.course.contained import (
    AnswerJob,
    explain_error,
    isolation_problem,
    run_answers,
)
from hyperskill_lite.course.exercises import (
    NotebookError,
    cell_id,
    cell_text,
    exercise_cells,
    read_notebook,
)
from hyperskill_lite.course.gradebook import (
    ASSIGNMENT,
    STUDENT,
    WRITTEN_STUB,
    Verdict,
    grade_in_course,
)
from hyperskill_lite.course.key import KeyEntry, read_key, records_of, source_sha
from hyperskill_lite.course.references import reference
from hyperskill_lite.course.tamper import find_flags

__all__ = ["REPO_NOTEBOOKS", "STATUSES", "ExerciseGrade", "GradeReport",
           "course_catalog", "format_report", "grade_notebook", "source_for"]

PACKAGE = Path(__file__).resolve().parents[1]
REPO_NOTEBOOKS = PACKAGE.parent / "notebooks"
STATUSES = ("correct", "wrong", "not answered", "to grade by hand")
VALUE_TIMEOUT = 10.0
"""Seconds a value answer cell may run, on its own, in the sandbox."""


@dataclass(frozen=True)
class ExerciseGrade:
    """One exercise's grade: `status` (one of `STATUSES`), `points` of `max_points`
    (None while a written answer waits for its hand grade), the student-safe `note`, and
    the instructor's `detail` (the hidden input or the key, when there is one to show)."""

    exercise: str
    status: str
    note: str = ""
    points: float | None = 0.0
    max_points: float = 1.0
    detail: str = ""
    kind: str = ""
    reason: str = ""
    """What decided a point lost: "blank", "form", "run" (the cell did not run, or timed
    out), "public" (a public example), all of which a student may be told at once; or
    "value" and "hidden" (the key, a hidden input), which feedback.py reveals only as the
    instructor's policy allows. "" for a correct answer."""


@dataclass
class GradeReport:
    """A notebook's grades, in exercise order, and what else the teacher should know:
    `flags` (attempts to game the grader, each naming its cell), `problems` (anything
    else), the `isolation` used and the `seconds` each step took."""

    notebook: Path
    grades: list[ExerciseGrade] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    isolation: str = ""
    seconds: dict[str, float] = field(default_factory=dict)
    student: str = STUDENT
    gradebook: dict[str, Any] = field(default_factory=dict)

    @property
    def all_correct(self) -> bool:
        """Every exercise graded here is right (a written answer waits for its hand grade:
        a notebook of written questions only, all answered, is all correct here)."""
        auto = [g for g in self.grades if g.status != "to grade by hand"]
        return bool(self.grades) and all(g.status == "correct" for g in auto)

    @property
    def points(self) -> float:
        return sum(g.points or 0.0 for g in self.grades)

    def by_status(self) -> dict[str, str]:
        """Exercise id -> status."""
        return {g.exercise: g.status for g in self.grades}


def source_for(path: Path, source: Path) -> Path:
    """The instructor's notebook for a submission: the same name in `source`, or the one
    notebook there with the same two-digit number."""
    exact = Path(source) / Path(path).name
    if exact.is_file():
        return exact
    name = Path(path).name
    same = sorted(Path(source).glob(f"{name[:2]}_*.ipynb")) if name[:2].isdigit() else []
    if len(same) == 1:
        return same[0]
    raise NotebookError(f"{name}: no instructor notebook of that number in {source}; name the "
                        "file as the course notebook (e.g. 04_utility_and_pruning.ipynb) or "
                        "pass --source")


def course_catalog(source: Path) -> dict[str, Exercise]:
    """The exercises grading knows: the package's catalog, and a teacher's own
    ``exercises.toml`` beside the instructor's notebooks (same format, catalog.py; an id
    there replaces the package's; a coding exercise also needs its reference and hidden
    inputs in the package)."""
    found = dict(catalog())
    extra = Path(source) / "exercises.toml"
    if extra.is_file():
        try:
            found.update(read_catalog(extra))
        except (ValueError, OSError) as e:
            raise NotebookError(f"{extra}: {e}") from e
    return found


# --- what the learner wrote ---------------------------------------------------------------


@dataclass
class _Answer:
    exercise: str
    index: int = -1
    cell: str = ""
    source: str | None = None
    record: dict[str, Any] | None = None
    stub: str = ""

    @property
    def blank(self) -> bool:
        """No answer cell, or the student copy's stub as it was handed out."""
        return self.source is None or _tidy(self.source) == _tidy(self.stub)


def _tidy(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")


def _stub(source: str) -> str:
    """An instructor answer cell as the student copy holds it: the solution region out."""
    out, inside = [], False
    for line in source.splitlines():
        if line.strip() == "### BEGIN SOLUTION":
            inside = True
        elif line.strip() == "### END SOLUTION":
            inside = False
        elif not inside:
            out.append(line)
    return "\n".join(out)


def _answers(sub: dict[str, Any], src: dict[str, Any], ids: list[str]) -> dict[str, _Answer]:
    """Each exercise's answer cell (the first one marked so) and the last answer its
    check recorded (any cell's output may hold a record; the learner owns them all)."""
    out = {ex: _Answer(ex) for ex in ids}
    for c in exercise_cells(src["cells"]):
        if c.role == "answer" and c.exercise in out:
            out[c.exercise].stub = _stub(cell_text(src["cells"][c.index]))
    for c in exercise_cells(sub["cells"]):
        a = out.get(c.exercise)
        if a is not None and c.role == "answer" and a.source is None:
            cell = sub["cells"][c.index]
            a.index, a.cell, a.source = c.index, str(cell.get("id", "?"))[:64], cell_text(cell)
    for cell in sub["cells"]:
        for rec in records_of(cell, "answer") if isinstance(cell, dict) else []:
            a = out.get(rec.get("exercise")) if isinstance(rec.get("exercise"), str) else None
            if a is not None:
                a.record = rec
    return out


# --- the comparison, in this process ------------------------------------------------------


def _grade_value(spec: Exercise, ans: _Answer, result: dict[str, Any], key: KeyEntry,
                 flags: list[str]) -> ExerciseGrade:
    ex = spec.id
    value, how = None, ""
    rec = ans.record
    fresh = rec is not None and ans.source is not None \
        and rec.get("source") == source_sha(ans.source)
    if result.get("has"):
        value = decode(result.get("value"))
        how = "its answer cell, run on its own"
        if fresh and "value" in rec:
            try:
                mismatch = canonical(decode(rec["value"]), spec.spec()) != canonical(value,
                                                                                       spec.spec())
            except FormError:
                mismatch = True
            if mismatch:
                flags.append(f"cell {ans.index} ({ans.cell}): its check recorded "
                             f"{shown(decode(rec['value']), spec.decimals)} but the cell assigns "
                             f"{shown(value, spec.decimals)} (an edited output?); graded what the "
                             "cell assigns")
    elif fresh and "value" in rec:
        value, how = decode(rec["value"]), "the answer its check recorded"
    elif ans.blank:
        return ExerciseGrade(ex, "not answered", f"not answered: set `answer` to {spec.form}",
                             0.0, 1.0, kind="value", reason="blank")
    else:
        why = (result.get("cell_error") or result.get("died")
               or ("it does not assign `answer`" if "has" in result else "it stopped"))
        if rec is not None:
            note = ("the answer its check recorded is from an earlier version of the answer "
                    "cell: run the answer cell and the check cell again, save, and submit")
        else:
            note = ("its answer cell needs the notebook's objects and its check recorded no "
                    "answer: run the answer cell and the check cell, save, and submit")
        return ExerciseGrade(ex, "not answered", note, 0.0, 1.0,
                             detail=f"run on its own, the cell says: {str(why)[:160]}",
                             kind="value", reason="run")
    if value is None:
        return ExerciseGrade(ex, "not answered", f"not answered: set `answer` to {spec.form}",
                             0.0, 1.0, kind="value", reason="blank")
    try:
        ok = accepts(value, spec.spec(), expected=key.value)
    except FormError as e:
        return ExerciseGrade(ex, "wrong", f"the answer should be {e}", 0.0, 1.0,
                             detail=f"graded {how}", kind="value", reason="form")
    if ok:
        return ExerciseGrade(ex, "correct", "", 1.0, 1.0, detail=f"graded {how}", kind="value")
    places = f" (compared to {spec.decimals} decimals)" if spec.kind == "float" else ""
    return ExerciseGrade(ex, "wrong", f"{shown(value, spec.decimals)} is not the value{places}",
                         0.0, 1.0, detail=f"the key is {shown(key.value, spec.decimals)}; "
                         f"graded {how}", kind="value", reason="value")


def _cases(spec: Exercise, key: KeyEntry) -> tuple[list[tuple[list, dict]], int]:
    """The public examples and the hidden inputs of a coding exercise, and how many of
    them are public."""
    public = [([np.asarray(a) if isinstance(a, list) else a for a in e.get("args", [])],
               {k: np.asarray(v) if isinstance(v, list) else v
                for k, v in e.get("kwargs", {}).items()}) for e in spec.examples]
    hidden = CASES[spec.id](np.random.default_rng(key.seed))
    return public + hidden, len(public)


def _grade_function(spec: Exercise, ans: _Answer, result: dict[str, Any],
                    cases: list[tuple[list, dict]], n_public: int) -> ExerciseGrade:
    ex, name = spec.id, spec.name

    def wrong(note: str, detail: str = "", reason: str = "run") -> ExerciseGrade:
        return ExerciseGrade(ex, "wrong", note, 0.0, 1.0, detail=detail, kind="function",
                             reason=reason)

    if ans.blank:
        return ExerciseGrade(ex, "not answered", f"not answered: write the body of {name}",
                             0.0, 1.0, kind="function", reason="blank")
    if "died" in result:
        return wrong(f"its answer cell was stopped: {result['died']}")
    if result.get("timeout"):
        return wrong(f"stopped after {spec.timeout:g} s: {name} (or the code around it) did not "
                     "finish; is there a loop that never ends?")
    if "cell_error" in result:
        return wrong(f"its answer cell does not run on its own: "
                     f"{explain_error(result['cell_error'], name)}")
    if result.get("missing"):
        return wrong(f"its answer cell defines no function {name}")
    outputs = result.get("outputs")
    if not isinstance(outputs, list) or len(outputs) != len(cases):
        return wrong("the contained run returned no outputs")
    if all(isinstance(o, dict) and o.get("ok", 0) is None for o in outputs):
        return ExerciseGrade(ex, "not answered", f"{name} returns None: write its body",
                             0.0, 1.0, kind="function", reason="blank")
    ref = reference(ex)
    for i, (out, (args, kwargs)) in enumerate(zip(outputs, cases)):
        public = i < n_public
        label = f"public example {i + 1}" if public else \
            f"hidden input {i - n_public + 1} of {len(cases) - n_public}"
        call = call_text(name, args, kwargs, spec.decimals)
        if not isinstance(out, dict) or "error" in out:
            err = explain_error(str(out.get("error", "no output")) if isinstance(out, dict)
                                else "no output", name)
            return wrong(f"on {call if public else label}: {err}", f"on {label}, {call}: {err}",
                         "public" if public else "hidden")
        want = encode(ref(*args, **kwargs))
        diff = compare_outputs(out.get("ok"), want, reveal=public)
        if diff:
            full = compare_outputs(out.get("ok"), want)
            return wrong(f"on {call}: {diff}" if public else f"on {label}: {diff}",
                         f"on {label}, {call}: {full}", "public" if public else "hidden")
    return ExerciseGrade(ex, "correct", "", 1.0, 1.0,
                         detail=f"right on {n_public} public examples and "
                                f"{len(cases) - n_public} hidden inputs", kind="function")


def _written(spec: Exercise, ans: _Answer) -> ExerciseGrade:
    text = (ans.source or "").strip()
    if not text or text == WRITTEN_STUB.strip():
        return ExerciseGrade(spec.id, "not answered", "no written answer", 0.0, spec.points,
                             kind="written", reason="blank")
    return ExerciseGrade(spec.id, "to grade by hand", f"{len(text.split())} words, for formgrader "
                         f"(learning outcome {spec.outcome})", None, spec.points, kind="written")


# --- the whole notebook -------------------------------------------------------------------


def _verdict_text(g: ExerciseGrade) -> str:
    if g.status == "correct":
        return f"exercise {g.exercise}: correct (graded outside the notebook)"
    return f"exercise {g.exercise}: {g.status}: {g.note}".rstrip(": ")


def grade_notebook(path: Path, source: Path = REPO_NOTEBOOKS, *, isolation: str = "bwrap",
                   course: Path | None = None, student: str = STUDENT,
                   assignment: str = ASSIGNMENT, value_timeout: float = VALUE_TIMEOUT,
                   memory_mb: int = 1024) -> GradeReport:
    """Grade the learner's notebook at `path` (module docstring)."""
    if isolation not in ISOLATIONS:
        raise ValueError(f"isolation must be one of {ISOLATIONS}, got {isolation!r}")
    t0 = time.perf_counter()
    path = Path(path)
    sub = read_notebook(path)
    src_path = source_for(path, Path(source))
    src = read_notebook(src_path)
    cells = exercise_cells(src["cells"])
    ids = list(dict.fromkeys(c.exercise for c in cells if c.role in ("test", "answer")))
    known = course_catalog(Path(source))
    specs = {ex: known.get(ex) for ex in ids}
    unknown = [ex for ex, s in specs.items() if s is None]
    if unknown:
        raise NotebookError(f"{src_path.name}: exercise(s) {', '.join(unknown)} are not in the "
                            "catalog (hyperskill_lite/course/exercises.toml)")
    graded = [ex for ex in ids if not specs[ex].written]
    if not ids:
        raise NotebookError(f"{src_path.name} has no exercises to grade")
    key = read_key(src, src_path.name)
    if isolation == "bwrap":
        why = isolation_problem("bwrap")
        if why:
            raise NotebookError(f"cannot contain the learner's code here ({why}); install "
                                "bubblewrap, or grade with --isolation process (time limits "
                                "only: the code runs with your rights)")
    report = GradeReport(path, isolation=isolation, student=student)
    report.flags = [str(f) for f in find_flags(sub, src)]
    answers = _answers(sub, src, ids)
    jobs, cases = [], {}
    for ex in graded:
        spec, ans = specs[ex], answers[ex]
        if ans.blank:
            continue
        if spec.coding:
            cases[ex] = _cases(spec, key[ex])
            jobs.append(AnswerJob(ex, ans.cell, ans.source, "function", spec.name,
                                  tuple(cases[ex][0]), spec.timeout))
        else:
            jobs.append(AnswerJob(ex, ans.cell, ans.source, "value", timeout=value_timeout))
    t1 = time.perf_counter()
    run = run_answers(jobs, isolation, memory_mb=memory_mb)
    t2 = time.perf_counter()
    for ex in ids:
        spec, ans = specs[ex], answers[ex]
        result = run.results.get(ex, {})
        for what in run.events.get(ex, []):
            report.flags.append(f"cell {ans.index} ({ans.cell}): while the grader ran it, {what}")
        if spec.written:
            grade = _written(spec, ans)
        elif spec.coding:
            grade = _grade_function(spec, ans, result, *cases.get(ex, ([], 0)))
        else:
            grade = _grade_value(spec, ans, result, key[ex], report.flags)
        report.grades.append(grade)
    t3 = time.perf_counter()
    _to_gradebook(report, path, src_path, src, sub, course, student, assignment)
    t4 = time.perf_counter()
    report.seconds = {"read": round(t1 - t0, 2), "contained": round(t2 - t1, 2),
                      "compare": round(t3 - t2, 2), "nbgrader": round(t4 - t3, 2),
                      "total": round(t4 - t0, 2), "processes": run.processes}
    return report


def _to_gradebook(report: GradeReport, path: Path, src_path: Path, src: dict[str, Any],
                  sub: dict[str, Any], course: Path | None, student: str, assignment: str) -> None:
    """nbgrader's part (gradebook.py): in `course`, or in a temporary course folder."""
    verdicts = {}
    for g in report.grades:
        if g.kind == "written":
            continue  # nbgrader itself leaves it to formgrader (or 0 when blank)
        gid = cell_id(g.exercise, "test")
        verdicts[gid] = Verdict(gid, g.points, _verdict_text(g),
                                "NotAnswered" if g.status == "not answered" else "ExerciseFailed")
    result = grade_in_course(course, path, src_path.name, src, sub, verdicts,
                             student=student, assignment=assignment)
    report.gradebook = result
    for g in report.grades:
        got = result["scores"].get(cell_id(g.exercise, "test"))
        if got is not None and g.kind != "written" and (got[0] or 0.0) != (g.points or 0.0):
            report.problems.append(f"the gradebook holds {got[0]} for {g.exercise}, not "
                                   f"{g.points}: grade again")


def format_report(report: GradeReport, detail: bool = True) -> str:
    """The per-exercise table a teacher reads (with `detail`: the instructor's details,
    which may name a key or a hidden input: never show them to a student).

    >>> r = GradeReport(Path("04.ipynb"), [ExerciseGrade("04.1", "correct", "", 1.0),
    ...                                    ExerciseGrade("04.2", "wrong", "{'n2'} is not the value")],
    ...                 isolation="bwrap")
    >>> print(format_report(r))
    04.ipynb: 1 of 2 correct (1 of 2 points; contained: bwrap)
      exercise  result            note
      04.1      correct
      04.2      wrong             {'n2'} is not the value
    """
    auto = [g for g in report.grades if g.status != "to grade by hand"]
    n_ok = sum(g.status == "correct" for g in auto)
    top = sum(g.max_points for g in report.grades)
    hand = [g for g in report.grades if g.status == "to grade by hand"]
    lines = [f"{report.notebook.name}: {n_ok} of {len(auto)} correct "
             f"({report.points:g} of {top:g} points"
             + (f", {sum(g.max_points for g in hand):g} to grade by hand" if hand else "")
             + f"; contained: {report.isolation})",
             f"  {'exercise':<9} {'result':<17} note"]
    for g in report.grades:
        text = g.note + (f" [{g.detail}]" if detail and g.detail and g.status != "correct" else "")
        lines.append(f"  {g.exercise:<9} {g.status:<17} {text}".rstrip())
    for p in report.problems:
        lines.append(f"  (outside the exercises: {p})")
    for f in report.flags:
        lines.append(f"  flagged: {f}")
    return "\n".join(lines)
