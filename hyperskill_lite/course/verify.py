"""The instructor's tests, which grading runs: `verify_answer` compares an answer with the
value the library computes, `verify_function` runs the learner's function on hidden
inputs (contained.py) against the library. Silent when right; otherwise they raise
`ExerciseFailed` (or `NotAnswered`), whose one-line message names the form expected, a
hint and the values, rounded. A raised test is how nbgrader scores a grade cell 0.

These calls sit in the notebooks' hidden test cells (tag ``exercise-test``, every line
between ``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN TESTS``): student copies do not
hold them, and grading restores them from the instructor's notebook before it runs a
submission, so editing a check cell changes nothing. Each test also checks the catalog
against the library (a stale digest or public example raises `CatalogError`), which
nbval catches when the instructor's notebooks run.

>>> verify_answer("04.1", 0.705, 0.705)  # right: silent
>>> verify_answer("04.1", 0.7, 0.705)
Traceback (most recent call last):
...
hyperskill_lite.course.verify.ExerciseFailed: exercise 04.1: 0.7 is not the value 0.705 (compared to 3 decimals); expected: a number between 0 and 1 (three decimals are enough); hint: ...

Not here: the learner's own checks (check.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hyperskill_lite.course.answers import (
    FormError,
    accepts,
    canonical,
    compare_outputs,
    digest,
    encode,
    shown,
)
from hyperskill_lite.course.cases import CASES
from hyperskill_lite.course.catalog import Exercise, exercise
from hyperskill_lite.course.check import function_feedback

__all__ = ["CatalogError", "ExerciseFailed", "NotAnswered", "verify_answer", "verify_function"]


class ExerciseFailed(AssertionError):
    """A test that did not pass; the message is the feedback. In a notebook it shows as
    its message alone, without a traceback."""

    status = "wrong"

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


class NotAnswered(ExerciseFailed):
    """The exercise was left blank."""

    status = "not answered"


class CatalogError(RuntimeError):
    """The catalog disagrees with the library (an authoring error, not the learner's)."""


def _advice(spec: Exercise) -> str:
    return f"; expected: {spec.form}; hint: {spec.hint}"


def verify_answer(ex: str, answer: Any, expected: Any) -> None:
    """Pass silently when `answer` is the library's `expected` value for exercise `ex`
    (the rules of answers.py); raise otherwise."""
    spec = exercise(ex)
    want = digest(ex, canonical(expected, spec.spec()))
    if want != spec.digest:
        raise CatalogError(f"exercise {ex}: the catalog's digest does not match the library's "
                           f"value {shown(expected, spec.decimals)}; set digest = \"{want}\" "
                           "in hyperskill_lite/course/exercises.toml")
    if answer is None:
        raise NotAnswered(f"exercise {ex}: not answered{_advice(spec)}")
    try:
        ok = accepts(answer, spec.spec(), expected=expected)
    except FormError as e:
        raise ExerciseFailed(f"exercise {ex}: the answer should be {e}{_advice(spec)}") from None
    if not ok:
        places = f" (compared to {spec.decimals} decimals)" if spec.kind == "float" else ""
        raise ExerciseFailed(f"exercise {ex}: {shown(answer, spec.decimals)} is not the value "
                             f"{shown(expected, spec.decimals)}{places}{_advice(spec)}")


def _as_input(x: Any) -> Any:
    return np.asarray(x) if isinstance(x, list) else x


def _check_examples(spec: Exercise, reference: Callable) -> None:
    for i, e in enumerate(spec.examples, 1):
        args = [_as_input(a) for a in e.get("args", [])]
        kwargs = {k: _as_input(v) for k, v in e.get("kwargs", {}).items()}
        diff = compare_outputs(encode(e.get("expected")), encode(reference(*args, **kwargs)),
                               rtol=1e-3, atol=10.0 ** -spec.decimals)
        if diff:
            raise CatalogError(f"exercise {spec.id}: public example {i} disagrees with the "
                               f"library ({diff}); fix it in hyperskill_lite/course/exercises.toml")


def verify_function(ex: str, fn: Callable, reference: Callable, seed: int) -> None:
    """Pass silently when the learner's `fn` agrees with the library's `reference` on the
    hidden inputs of exercise `ex` (cases.CASES, drawn with `seed`); raise otherwise."""
    spec = exercise(ex)
    _check_examples(spec, reference)
    cases = CASES[ex](np.random.default_rng(seed))
    expected = [reference(*args, **kwargs) for args, kwargs in cases]
    status, text = function_feedback(spec, fn, cases, expected, "hidden input")
    if status == "not answered":
        raise NotAnswered(f"exercise {ex}: not answered: {text}{_advice(spec)}")
    if status != "correct":
        raise ExerciseFailed(f"exercise {ex}: {text}{_advice(spec)}")
