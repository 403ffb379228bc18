"""The course's exercises, read from ``exercises.toml`` beside this module: for each id
("04.1"), the answer's kind and the form a learner is told to give, a hint, and what the
learner's own check compares with (a digest of the value, or a function's public
examples).

One table per exercise::

    [exercises."04.1"]
    kind = "float"              # answers.KINDS; "function" for a coding exercise
    form = "a number between 0 and 1 (three decimals are enough)"
    hint = "gamma, Eq. 3 ..."
    decimals = 3                # floats: places compared
    digest = "0f3c..."          # answers.digest of the library's value (value kinds)

    [exercises."04.3"]          # a coding exercise
    kind = "function"
    name = "gamma"              # the function the learner writes
    form = "..."
    hint = "..."
    timeout = 10                # seconds the function may run per check
    examples = [ { args = [[3, 1], [4, 4], [3.0, 11.0], 2, 12], expected = [0.795, 0.205] } ]

Hidden inputs are not here: they are drawn in the instructor's test cells (verify.py),
with seeds a student copy does not hold. `exercise(id)` raises `KeyError` with the known
ids for an unknown one.

>>> exercise("04.1").kind, exercise("04.3").name
('float', 'gamma')

Not here: checking an answer (check.py, verify.py), the cells that use these
(exercises.py).
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

__all__ = ["CATALOG", "Exercise", "catalog", "exercise"]

CATALOG = Path(__file__).with_name("exercises.toml")


@dataclass(frozen=True)
class Exercise:
    """One exercise of the catalog (module docstring for the fields)."""

    id: str
    kind: str
    form: str
    hint: str
    decimals: int = 3
    choices: tuple[str, ...] = ()
    digest: str = ""
    name: str = ""
    timeout: float = 10.0
    examples: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    @property
    def notebook(self) -> str:
        """The two-digit number of the notebook the exercise belongs to."""
        return self.id.split(".")[0]

    @property
    def coding(self) -> bool:
        return self.kind == "function"

    def spec(self) -> Spec:
        return Spec(self.id, self.kind, self.decimals, self.choices)


def _read(path: Path) -> dict[str, Exercise]:
    raw = tomllib.loads(path.read_text(encoding="utf-8"))["exercises"]
    out = {}
    for ex_id, row in raw.items():
        kind = row["kind"]
        if kind not in KINDS:
            raise ValueError(f"{path}: exercise {ex_id} has kind {kind!r}; one of {KINDS}")
        if kind == "function" and not (row.get("name") and row.get("examples")):
            raise ValueError(f"{path}: coding exercise {ex_id} needs a name and examples")
        if kind != "function" and not row.get("digest"):
            raise ValueError(f"{path}: exercise {ex_id} needs the digest of its value")
        out[ex_id] = Exercise(
            id=ex_id, kind=kind, form=row["form"], hint=row["hint"],
            decimals=int(row.get("decimals", 3)),
            choices=tuple(c.lower() for c in row.get("choices", ())),
            digest=row.get("digest", ""), name=row.get("name", ""),
            timeout=float(row.get("timeout", 10.0)),
            examples=tuple(row.get("examples", ())))
    return out


@cache
def catalog(path: Path = CATALOG) -> dict[str, Exercise]:
    """Every exercise of the catalog file, by id (read once)."""
    return _read(path)


def exercise(ex_id: str) -> Exercise:
    """The catalog entry of one exercise."""
    found = catalog()
    if ex_id not in found:
        raise KeyError(f"exercise {ex_id!r} is not in {CATALOG.name}; known: "
                       f"{', '.join(sorted(found))}")
    return found[ex_id]
