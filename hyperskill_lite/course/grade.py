"""Grade a learner's notebook with nbgrader, contained, and say per exercise: correct,
wrong or not answered, with the feedback of the instructor's test.

`grade_notebook(path)` finds the instructor's notebook of the same number in
`source` (the repository's notebooks/ by default), copies both into a fresh nbgrader
course folder and runs autograde.py there (nbgrader restores the instructor's check and
test cells, runs the notebook, scores each test cell). The learner's file is only read.

Containment (``isolation``): ``"bwrap"`` (the default) runs the whole grading run
under bubblewrap, with `bwrap_command` of the python tool's sandbox: no network, a
read-only system, the Python installation and this package, and only the grading
folder writable; ``"process"`` runs it as a plain subprocess (for a machine without
bubblewrap, when the teacher says so: the learner's code then runs with the teacher's
rights). When bubblewrap is asked for and cannot run here, grading refuses with one
line (fails closed). Either way each cell has a time limit (`answer_timeout` for
answer cells and cells the learner added, `cell_timeout` for the instructor's cells), the
whole run has `total_timeout`, and a graded function runs in the sandbox again
(contained.py).

The report also flags a learner cell that rebinds the grader's names or reaches into
``hyperskill_lite.course``: in-kernel tests can be subverted by code that rewrites them,
as in any notebook grader, so such a submission deserves a look by hand.

Not here: the nbgrader run (autograde.py), student copies (student.py).
"""

from __future__ import annotations

import ast
import json
import logging
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyperskill_lite.agent.tools.sandbox import ISOLATIONS, PythonSandbox, bwrap_command, safe_env
from hyperskill_lite.core.cache import cache_dir, cache_enabled
from hyperskill_lite.course.autograde import ASSIGNMENT, STUDENT
from hyperskill_lite.course.contained import GRADER, ISOLATION_ENV
from hyperskill_lite.course.exercises import (
    NotebookError,
    cell_id,
    exercise_cells,
    exercise_of,
    read_notebook,
)

__all__ = ["ExerciseGrade", "GradeReport", "REPO_NOTEBOOKS", "bwrap_problem",
           "format_report", "grade_notebook"]

PACKAGE = Path(__file__).resolve().parents[1]
REPO_NOTEBOOKS = PACKAGE.parent / "notebooks"
GRADER_NAMES = {"check", "check_function", "verify_answer", "verify_function",
                "ExerciseFailed", "NotAnswered"}
INSIDE = "/sandbox"


@dataclass(frozen=True)
class ExerciseGrade:
    """One exercise's grade: `status` is "correct", "wrong" or "not answered"; `points`
    of `max_points`; `note` is the test's feedback."""

    exercise: str
    status: str
    note: str = ""
    points: float = 0.0
    max_points: float = 1.0


@dataclass
class GradeReport:
    """A notebook's grades, in exercise order, and what else the teacher should know."""

    notebook: Path
    grades: list[ExerciseGrade] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    isolation: str = ""

    @property
    def all_correct(self) -> bool:
        return bool(self.grades) and all(g.status == "correct" for g in self.grades)

    @property
    def points(self) -> float:
        return sum(g.points for g in self.grades)

    def by_status(self) -> dict[str, str]:
        """Exercise id -> status."""
        return {g.exercise: g.status for g in self.grades}


def bwrap_problem() -> str | None:
    """Why bubblewrap cannot contain a grading run here, or None when it can."""
    box = PythonSandbox(isolation="bwrap")
    quiet = logging.getLogger("hyperskill_lite.agent.tools.sandbox")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        return None if box.mode == "bwrap" else (box.fallback_reason or "bwrap is unusable")
    finally:
        quiet.setLevel(level)


def _source_for(path: Path, source: Path) -> Path:
    exact = source / path.name
    if exact.is_file():
        return exact
    same = sorted(source.glob(f"{path.name[:2]}_*.ipynb")) if path.name[:2].isdigit() else []
    if len(same) == 1:
        return same[0]
    raise NotebookError(f"{path.name}: no instructor notebook of that number in {source}; name "
                        "the file as the course notebook (e.g. 04_utility_and_pruning.ipynb) or "
                        "pass --source")


def _text(cell: dict[str, Any]) -> str:
    src = cell.get("source", "")
    return src if isinstance(src, str) else "".join(src)


def _flags(sub: dict[str, Any], src_nb: dict[str, Any]) -> list[str]:
    """Learner cells (changed or new) that rebind the grader's names or reach into the
    course package."""
    theirs = {_text(c) for c in src_nb["cells"]}
    out = []
    for i, cell in enumerate(sub["cells"]):
        nbg = cell.get("metadata", {}).get("nbgrader", {})
        src = _text(cell)
        if cell.get("cell_type") != "code" or nbg.get("locked") or src in theirs:
            continue
        try:
            tree = ast.parse("\n".join(x for x in src.splitlines()
                                       if not x.lstrip().startswith(("%", "!"))))
        except SyntaxError:
            continue
        bound = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bound.add(node.id)
            elif isinstance(node, ast.FunctionDef | ast.ClassDef):
                bound.add(node.name)
            elif isinstance(node, ast.alias):
                bound.add(node.asname or node.name.split(".")[0])
        hits = sorted(bound & GRADER_NAMES)
        if "hyperskill_lite.course" in src or "setattr(" in src or "builtins" in src:
            hits.append("the course package")
        if hits:
            out.append(f"cell {i} ({cell.get('id', '?')}) rebinds or patches "
                       f"{', '.join(hits)}: look at this submission by hand")
    return out


def _restore_missing(sub: dict[str, Any], src: dict[str, Any]) -> list[str]:
    """Put back, from the instructor's notebook, any check or test cell the submission
    lacks (nbgrader restores a missing test cell only after a graded cell, which our
    check cells are not), each after its exercise's last cell present; say which."""
    have = {c.get("id") for c in sub["cells"]}
    notes = []
    for c in exercise_cells(src["cells"]):
        cell = src["cells"][c.index]
        if c.role == "answer" or cell.get("id") in have:
            continue
        ours = [i for i, x in enumerate(sub["cells"])
                if x.get("metadata", {}).get("exercise", {}).get("id") == c.exercise]
        at = ours[-1] + 1 if ours else len(sub["cells"])
        sub["cells"].insert(at, json.loads(json.dumps(cell)))
        have.add(cell.get("id"))
        notes.append(f"the {c.role} cell of {c.exercise} was missing; restored from the "
                     "instructor's notebook")
    return notes


def _command(work: Path, isolation: str) -> tuple[list[str], dict[str, str], Path]:
    inside = Path(INSIDE) if isolation == "bwrap" else work
    env = safe_env()
    env.update({
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(inside), "TMPDIR": "/tmp" if isolation == "bwrap" else str(work),
        "JUPYTER_RUNTIME_DIR": str(inside / ".jupyter" / "runtime"),
        "JUPYTER_CONFIG_DIR": str(inside / ".jupyter"),
        "IPYTHONDIR": str(inside / ".ipython"), "MPLCONFIGDIR": str(inside / ".matplotlib"),
        "XDG_CACHE_HOME": str(inside / ".cache"), "MPLBACKEND": "Agg",
        "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONHASHSEED": "0",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1", ISOLATION_ENV: GRADER,
        "HYPERSKILL_CACHE": str(inside / ".cache" / "hyperskill_lite"),
    })
    # the script by path: running it as a module would import the whole package first
    cmd = [sys.executable, str(PACKAGE / "course" / "autograde.py"), str(inside)]
    if isolation == "bwrap":
        package = PACKAGE
        # the python tool's container (its script slot holds the grader, unused there),
        # with the grading folder bound over its empty /sandbox
        cmd = bwrap_command(shutil.which("bwrap") or "bwrap", Path(cmd[1]), as_root=False) + [
            "--bind", str(work), INSIDE, "--ro-bind", str(package), str(package)] + cmd
    return cmd, env, inside


CACHE_COPY_LIMIT = 256 * 2**20
"""Embedding caches up to this size (bytes, all together) are copied into a grading run."""


def _seed_cache(work: Path) -> None:
    """Copy the teacher's embedding caches (the encoders' vectors of the notebooks' texts)
    into the grading folder, so a run does not embed every text again; the sandbox never
    sees the teacher's own cache. Skipped when the cache is off or larger than
    `CACHE_COPY_LIMIT`."""
    if not cache_enabled() or not cache_dir().is_dir():
        return
    files = [p for p in cache_dir().glob("*.sqlite") if p.name != "search.sqlite"]
    if sum(p.stat().st_size for p in files) > CACHE_COPY_LIMIT:
        return
    target = work / ".cache" / "hyperskill_lite"
    target.mkdir(parents=True, exist_ok=True)
    for path in files:
        try:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as src, \
                    sqlite3.connect(target / path.name) as dst:
                src.backup(dst)
        except sqlite3.Error:
            (target / path.name).unlink(missing_ok=True)  # a cache we cannot read: skip it


def _run(work: Path, isolation: str, total_timeout: float) -> dict[str, Any]:
    cmd, env, _ = _command(work, isolation)
    with (work / "grader.log").open("wb") as log:
        proc = subprocess.Popen(cmd, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            proc.wait(timeout=total_timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return {"error": f"the grading run passed its limit of {total_timeout:g} s and was "
                             "stopped (a cell that ignores interrupts?)"}
    result = work / "result.json"
    if not result.is_file():
        tail = (work / "grader.log").read_text(errors="replace").strip().splitlines()[-1:]
        return {"error": f"the grading run ended without a result (exit {proc.returncode}: "
                         f"{tail[0] if tail else 'no output'})"}
    return json.loads(result.read_text(encoding="utf-8"))


def _log_reason(log: str) -> str:
    """The last line of nbgrader's log that says what went wrong, as a suffix."""
    lines = [x.strip() for x in log.splitlines() if x.strip()]
    errors = [x for x in lines if "Error" in x and not x.startswith(("File ", "Traceback"))]
    return f" ({errors[-1][:300]})" if errors else ""


def _grade(ex: str, rec: dict[str, Any] | None) -> ExerciseGrade:
    if rec is None:
        return ExerciseGrade(ex, "not answered", "its test did not run")
    score, top = float(rec.get("score") or 0.0), float(rec.get("max_score") or 1.0)
    note = rec.get("evalue", "").removeprefix(f"exercise {ex}: ").strip()
    if rec.get("ename") in ("CellTimeoutError", "KeyboardInterrupt"):
        note = note or "stopped at the time limit"
    if score >= top:
        return ExerciseGrade(ex, "correct", "", score, top)
    if rec.get("ename") == "NotAnswered":
        return ExerciseGrade(ex, "not answered", note.removeprefix("not answered").strip(": ;"),
                             score, top)
    if not note and rec.get("ename"):
        note = f"its test raised {rec['ename']}"
    return ExerciseGrade(ex, "wrong", note, score, top)


def _with_answer(grade: ExerciseGrade, answer: dict[str, str] | None,
                 answer_timeout: float) -> ExerciseGrade:
    """A failed grade's note, led by what went wrong in its answer cell, if anything."""
    if grade.status == "correct" or not answer or not answer.get("ename"):
        return grade
    if answer["ename"] in ("CellTimeoutError", "KeyboardInterrupt"):
        lead = (f"its answer cell was stopped at the time limit ({answer_timeout:g} s): a loop "
                "that never ends?")
    else:
        lead = f"its answer cell raised {answer['ename']}: {answer['evalue'][:160]}"
    return ExerciseGrade(grade.exercise, grade.status, f"{lead}; {grade.note}".strip("; "),
                         grade.points, grade.max_points)


def grade_notebook(path: Path, source: Path = REPO_NOTEBOOKS, *, isolation: str = "bwrap",
                   answer_timeout: float = 60, cell_timeout: float = 600,
                   total_timeout: float = 1800) -> GradeReport:
    """Grade the learner's notebook at `path` (module docstring)."""
    if isolation not in ISOLATIONS:
        raise ValueError(f"isolation must be one of {ISOLATIONS}, got {isolation!r}")
    path = Path(path)
    sub = read_notebook(path)
    src_path = _source_for(path, Path(source))
    src = read_notebook(src_path)
    ids = [c.exercise for c in exercise_cells(src["cells"]) if c.role == "test"]
    if not ids:
        raise NotebookError(f"{src_path.name} has no exercises to grade")
    if isolation == "bwrap":
        why = bwrap_problem()
        if why:
            raise NotebookError(f"cannot contain the learner's code here ({why}); install "
                                "bubblewrap, or grade with --isolation process (time limits "
                                "only: the code runs with your rights)")
    report = GradeReport(path, flags=_flags(sub, src), isolation=isolation)
    report.problems += _restore_missing(sub, src)
    with tempfile.TemporaryDirectory(prefix="hsl-grade-") as tmp:
        work = Path(tmp)
        for folder, nb in (("source", src), (f"submitted/{STUDENT}", sub)):
            target = work / "course" / folder / ASSIGNMENT / src_path.name
            target.parent.mkdir(parents=True)
            target.write_text(json.dumps(nb), encoding="utf-8")
        (work / "job.json").write_text(json.dumps({
            "name": src_path.name, "answer_timeout": answer_timeout,
            "cell_timeout": cell_timeout}), encoding="utf-8")
        _seed_cache(work)
        result = _run(work, isolation, total_timeout)
    if "error" in result:
        raise NotebookError(f"{path.name}: {result['error']}{_log_reason(result.get('log', ''))}")
    by_ex = {exercise_of(r["grade_id"]): r for r in result["grades"]}
    cells = result.get("cells", {})
    report.grades = [_with_answer(_grade(ex, by_ex.get(ex)), cells.get(cell_id(ex, "answer")),
                                  answer_timeout) for ex in ids]
    return report


def format_report(report: GradeReport) -> str:
    """The per-exercise table a teacher reads.

    >>> r = GradeReport(Path("04.ipynb"), [ExerciseGrade("04.1", "correct", "", 1.0),
    ...                                    ExerciseGrade("04.2", "wrong", "{'n2'} is not ...")],
    ...                 isolation="bwrap")
    >>> print(format_report(r))
    04.ipynb: 1 of 2 correct (1 of 2 points; contained: bwrap)
      exercise  result        note
      04.1      correct
      04.2      wrong         {'n2'} is not ...
    """
    n_ok = sum(g.status == "correct" for g in report.grades)
    top = sum(g.max_points for g in report.grades)
    lines = [f"{report.notebook.name}: {n_ok} of {len(report.grades)} correct "
             f"({report.points:g} of {top:g} points; contained: {report.isolation})",
             f"  {'exercise':<9} {'result':<13} note"]
    for g in report.grades:
        lines.append(f"  {g.exercise:<9} {g.status:<13} {g.note}".rstrip())
    for p in report.problems:
        lines.append(f"  (outside the exercises: {p})")
    for f in report.flags:
        lines.append(f"  flagged: {f}")
    return "\n".join(lines)
