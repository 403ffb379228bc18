"""The course's exercises, read from ``exercises.toml`` beside this module: for each id
("04.1"), the answer's kind, the form a learner is told to give, a hint that teaches,
and for a coding exercise its public examples. The catalog ships with the package, so
it holds **no answer and no digest of one**: a student who loops the check over
candidates learns nothing from it. The answers (the key) live in the instructor's
notebooks (key.py); the hidden inputs are drawn in the grader (cases.py) with seeds only
the instructor's notebook holds.

One table per exercise::

    [exercises."04.1"]          # a value: graded against the key
    kind = "float"              # answers.VALUE_KINDS, "function" or "written"
    form = "a number between 0 and 1 (three decimals are enough)"
    hint = "what the utility gamma (Eq. 3) weighs ..."
    decimals = 3                # floats: places compared
    choices = ["more", "fewer"] # kind "choice": the words accepted

    [exercises."04.3"]          # a coding exercise: graded on hidden inputs
    kind = "function"
    name = "gamma"              # the function the learner writes
    form = "..."
    hint = "..."                # teaches the idea; never the code
    timeout = 10                # seconds the function may run per check
    examples = [ { args = [[3, 1], [4, 4], [3.0, 11.0], 2, 12], expected = [0.795, 0.205] } ]

    [exercises."05.5"]          # a written "explain why" question, graded by hand
    kind = "written"
    form = "three to five sentences"
    hint = "..."                # optional
    points = 2                  # the points the grader gives in nbgrader's formgrader
    outcome = 4                 # the learning outcome of docs/syllabus.md it assesses (1-6)

**Written questions.** A written question has two cells after its statement (their
metadata from exercises.py, `exercise_metadata(id, role, points=...)`):

- the **answer cell**, a markdown cell nbgrader grades by hand (a manually graded
  solution cell worth `points`). In the instructor edition it holds a model answer;
  student copies replace it with a blank stub (nbgrader's ``ClearSolutions``);
- the **rubric cell**, a markdown cell with the role ``rubric`` (tag ``rubric``): what
  earns each point, for the person grading. It exists only in the instructor edition:
  student copies drop it (student.py), and grading puts it back beside the student's
  answer in the autograded notebook, which is what formgrader shows the grader.

Every written question names the learning outcome it assesses (`outcome`, the number
of the outcome in docs/syllabus.md's list; tests/test_course_written.py checks the
number exists there), so the hand-graded points can be reported per outcome.

`exercise(id)` raises `KeyError` with the known ids for an unknown one.

>>> exercise("04.1").kind, exercise("04.3").name
('float', 'gamma')

Not here: checking an answer (check.py), the key (key.py), the cells (exercises.py).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from hyperskill_lite.course.answers import KINDS, Spec

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["CATALOG", "FORBIDDEN", "Exercise", "catalog", "exercise", "read_catalog"]

CATALOG = Path(__file__).with_name("exercises.toml")
FORBIDDEN = ("digest", "answer", "expected", "value", "solution", "seed")
"""Fields an exercise's table may not have: the catalog ships to students, and any of
these would let a loop recover an answer (public examples keep their ``expected``)."""
_FIELDS = {"kind", "form", "hint", "decimals", "choices", "name", "timeout", "examples",
           "points", "outcome"}


@dataclass(frozen=True)
class Exercise:
    """One exercise of the catalog (module docstring for the fields)."""

    id: str
    kind: str
    form: str
    hint: str = ""
    decimals: int = 3
    choices: tuple[str, ...] = ()
    name: str = ""
    timeout: float = 10.0
    examples: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    points: float = 1.0
    outcome: int | None = None

    @property
    def notebook(self) -> str:
        """The two-digit number of the notebook the exercise belongs to."""
        return self.id.split(".")[0]

    @property
    def coding(self) -> bool:
        return self.kind == "function"

    @property
    def written(self) -> bool:
        return self.kind == "written"

    @property
    def value(self) -> bool:
        """A value exercise (graded against the key)."""
        return not (self.coding or self.written)

    def spec(self) -> Spec:
        return Spec(self.id, self.kind, self.decimals, self.choices)


def _exercise(path: Path, ex_id: str, row: dict[str, Any]) -> Exercise:
    where = f"{path.name}: exercise {ex_id}"
    bad = sorted(set(row) & set(FORBIDDEN))
    if bad:
        raise ValueError(f"{where} has {', '.join(bad)}: the catalog ships to students, so it "
                         "holds no answer and no digest of one (the key is read from the "
                         "instructor's notebook; key.py)")
    unknown = sorted(set(row) - _FIELDS)
    if unknown:
        raise ValueError(f"{where} has unknown field(s) {', '.join(unknown)}; known: "
                         f"{', '.join(sorted(_FIELDS))}")
    kind = row.get("kind")
    if kind not in KINDS:
        raise ValueError(f"{where} has kind {kind!r}; one of {KINDS}")
    if not row.get("form"):
        raise ValueError(f"{where} needs a form (what the learner is told to give)")
    if kind == "function" and not (row.get("name") and row.get("examples")):
        raise ValueError(f"{where}: a coding exercise needs a name and public examples")
    if kind == "choice" and not row.get("choices"):
        raise ValueError(f"{where}: a choice needs its choices")
    if kind == "written":
        points, outcome = row.get("points"), row.get("outcome")
        if not isinstance(points, int | float) or isinstance(points, bool) or points <= 0:
            raise ValueError(f"{where}: a written question needs points > 0 (the hand grade)")
        if not isinstance(outcome, int) or isinstance(outcome, bool) or outcome < 1:
            raise ValueError(f"{where}: a written question needs the number of the learning "
                             "outcome it assesses (outcome = 1 ... 6, docs/syllabus.md)")
    elif kind != "function" and not row.get("hint"):
        raise ValueError(f"{where} needs a hint")
    return Exercise(
        id=ex_id, kind=kind, form=row["form"], hint=row.get("hint", ""),
        decimals=int(row.get("decimals", 3)),
        choices=tuple(c.lower() for c in row.get("choices", ())),
        name=row.get("name", ""), timeout=float(row.get("timeout", 10.0)),
        examples=tuple(row.get("examples", ())), points=float(row.get("points", 1)),
        outcome=row.get("outcome"))


def read_catalog(path: Path) -> dict[str, Exercise]:
    """Every exercise of a catalog file, by id; ValueError naming the first problem."""
    raw = tomllib.loads(Path(path).read_text(encoding="utf-8")).get("exercises", {})
    return {ex_id: _exercise(Path(path), ex_id, row) for ex_id, row in raw.items()}


@cache
def catalog(path: Path = CATALOG) -> dict[str, Exercise]:
    """Every exercise of the catalog file, by id (read once)."""
    return read_catalog(path)


def exercise(ex_id: str) -> Exercise:
    """The catalog entry of one exercise."""
    found = catalog()
    if ex_id not in found:
        raise KeyError(f"exercise {ex_id!r} is not in {CATALOG.name}; known: "
                       f"{', '.join(sorted(found))}")
    return found[ex_id]
