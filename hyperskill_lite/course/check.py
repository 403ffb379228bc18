"""The exercise check the notebooks call: `check` compares a learner's answer with the value
the library computes, prints one verdict line and returns a `Verdict`.

The notebooks use one pattern: an exercise cell where the learner sets ``answer``
(``None`` until answered), a check cell ``check("04.1", answer, <library call>)``, and a
collapsed solution cell that computes the answer by hand and checks it the same way.

A check cell shows only the verdict line: the returned `Verdict` is a structured result
(true when correct) that a notebook does not echo. When ``$HYPERSKILL_CHECK_LOG`` names a
file, each check also appends its verdict there as one JSON line, which is how the grader
(grade.py) reads a notebook's results; our addition, like the whole course.

>>> v = check("demo", None, 0.5)
exercise demo: not answered yet (set `answer` in the exercise cell above, then run it and this cell)
>>> v.status, bool(v)
('not answered', False)
>>> bool(check("demo", 0.50004, 0.5, tol=1e-3))
exercise demo: correct
True
>>> bool(check("demo", {"b", "a"}, ["a", "b"]))
exercise demo: correct
True
>>> check("demo", 0.7, 0.5).status
exercise demo: not yet: 0.7 is not the library's value; look at the hint and try again
'wrong'

Not here: anything the library computes (the expected value is always passed in, from a
library call in the check cell); running a notebook to grade it (grade.py).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from numbers import Number
from pathlib import Path
from typing import Any

__all__ = ["CHECK_LOG_ENV", "STATUSES", "Verdict", "check"]

CHECK_LOG_ENV = "HYPERSKILL_CHECK_LOG"
"""The environment variable naming the file where each check appends its verdict."""
STATUSES = ("correct", "wrong", "not answered")


@dataclass(frozen=True)
class Verdict:
    """One check's result: the `exercise` id, its `status` (one of `STATUSES`), the
    `line` printed, and a short repr of the `answer`. True when correct."""

    exercise: str
    status: str
    line: str
    answer: str = ""

    def __bool__(self) -> bool:
        return self.status == "correct"

    def _ipython_display_(self) -> None:
        """Show nothing: the verdict line is printed already (a check cell would otherwise
        echo the result under it)."""

    def to_json(self) -> str:
        """One JSON line (the check log's format)."""
        return json.dumps({"exercise": self.exercise, "status": self.status,
                           "answer": self.answer}, ensure_ascii=False)


def _same(answer: Any, expected: Any, tol: float) -> bool:
    if isinstance(expected, Number) and not isinstance(expected, bool):
        if not isinstance(answer, Number) or isinstance(answer, bool):
            return False
        return abs(float(answer) - float(expected)) <= tol
    if isinstance(expected, set | frozenset) or (
        isinstance(answer, set | frozenset) and isinstance(expected, Iterable)
        and not isinstance(expected, str | bytes | dict)
    ):
        try:
            return set(answer) == set(expected)
        except TypeError:
            return False
    if isinstance(expected, list | tuple) and isinstance(answer, list | tuple):
        return len(answer) == len(expected) and all(
            _same(a, e, tol) for a, e in zip(answer, expected))
    return bool(answer == expected)


def _log(verdict: Verdict) -> None:
    path = os.environ.get(CHECK_LOG_ENV)
    if path:
        with Path(path).open("a", encoding="utf-8") as f:
            f.write(verdict.to_json() + "\n")


def check(name: str, answer: Any, expected: Any, tol: float = 1e-6) -> Verdict:
    """Print whether `answer` matches `expected` (numbers within `tol`; a set or an
    unordered collection compared as sets when either side is a set; lists element-wise)
    and return the `Verdict`. `None` means not answered yet: a message, not an error."""
    shown = repr(answer)
    shown = shown if len(shown) <= 200 else shown[:197] + "..."
    if answer is None:
        status = "not answered"
        line = (f"exercise {name}: not answered yet (set `answer` in the exercise cell above, "
                "then run it and this cell)")
    elif _same(answer, expected, tol):
        status, line = "correct", f"exercise {name}: correct"
    else:
        status = "wrong"
        line = (f"exercise {name}: not yet: {shown} is not the library's value; "
                "look at the hint and try again")
    print(line)
    verdict = Verdict(name, status, line, "" if answer is None else shown)
    _log(verdict)
    return verdict
