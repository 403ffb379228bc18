"""The instructor's tests: each exercise's hidden test cell in the instructor's notebook.
When that notebook runs (nbval, tools/execute_notebooks.py), `verify_answer` and
`verify_function` check the instructor's own solution against the library, check the
catalog against the library (a public example that disagrees raises `CatalogError`),
and record the exercise's **key** in the cell's output (key.py): the library's value, or
the seed of a coding exercise's hidden inputs. Grading reads that key from the
instructor's notebook and never runs a test cell (grade.py); student copies hold only
the cell's comment line.

Silent apart from that one line when all is well; otherwise they raise
`ExerciseFailed` (or `NotAnswered`, `CatalogError`), with one line that says what to fix,
so nbval fails on an authoring error. In a learner's own notebook they compare only
what the learner passes in: they hold no key.

>>> verify_answer("demo.1", 0.5, 0.5)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
KeyError: "exercise 'demo.1' is not in exercises.toml; ..."

Not here: the learner's own checks (check.py), grading (grade.py).
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
    encode,
    shown,
)
from hyperskill_lite.course.cases import CASES
from hyperskill_lite.course.catalog import Exercise, exercise
from hyperskill_lite.course.check import emit, function_feedback
from hyperskill_lite.course.key import key_digest, key_metadata
from hyperskill_lite.course.references import reference as library_reference

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


def _record(ex: str, kind: str, what: str, **key: Any) -> None:
    meta = key_metadata(ex, kind, **key)
    emit(f"exercise {ex}: {what}; its key is recorded for grading (key {key_digest(meta)})",
         meta)


def verify_answer(ex: str, answer: Any, expected: Any) -> None:
    """Check that `answer` is the library's `expected` value for value exercise `ex`
    (the rules of answers.py) and record `expected` as the exercise's key."""
    spec = exercise(ex)
    if not spec.value:
        raise CatalogError(f"exercise {ex} is a {spec.kind} exercise: its test is "
                           f"{'verify_function' if spec.coding else 'a hand grade'}")
    try:
        canonical(expected, spec.spec())
    except FormError as e:
        raise CatalogError(f"exercise {ex}: the library's value {shown(expected)} is not of the "
                           f"form the catalog asks for ({e}); fix the test or the catalog") from None
    if answer is None:
        raise NotAnswered(f"exercise {ex}: not answered")
    try:
        ok = accepts(answer, spec.spec(), expected=expected)
    except FormError as e:
        raise ExerciseFailed(f"exercise {ex}: the answer should be {e}") from None
    if not ok:
        places = f" (compared to {spec.decimals} decimals)" if spec.kind == "float" else ""
        raise ExerciseFailed(f"exercise {ex}: {shown(answer, spec.decimals)} is not the value "
                             f"{shown(expected, spec.decimals)}{places}")
    _record(ex, spec.kind, "the solution agrees with the library", value=expected)


def _as_input(x: Any) -> Any:
    return np.asarray(x) if isinstance(x, list) else x


def check_examples(spec: Exercise, ref: Callable) -> None:
    """Raise `CatalogError` when a public example of `spec` disagrees with `ref`."""
    for i, e in enumerate(spec.examples, 1):
        args = [_as_input(a) for a in e.get("args", [])]
        kwargs = {k: _as_input(v) for k, v in e.get("kwargs", {}).items()}
        diff = compare_outputs(encode(e.get("expected")), encode(ref(*args, **kwargs)),
                               rtol=1e-3, atol=10.0 ** -spec.decimals)
        if diff:
            raise CatalogError(f"exercise {spec.id}: public example {i} disagrees with the "
                               f"library ({diff}); fix it in hyperskill_lite/course/exercises.toml")


def verify_function(ex: str, fn: Callable, reference: Callable | None = None, *,
                    seed: int) -> None:
    """Check that the instructor's `fn` agrees with the library on the hidden inputs of
    coding exercise `ex` (cases.CASES, drawn with `seed`), that the grader's reference
    (references.py) agrees with the catalog's public examples and with the `reference`
    the notebook names, and record `seed` as the exercise's key."""
    spec = exercise(ex)
    if not spec.coding:
        raise CatalogError(f"exercise {ex} is not a coding exercise: its test is verify_answer")
    ours = library_reference(ex)
    check_examples(spec, ours)
    cases = CASES[ex](np.random.default_rng(seed))
    expected = [ours(*args, **kwargs) for args, kwargs in cases]
    if reference is not None:
        for i, ((args, kwargs), want) in enumerate(zip(cases, expected), 1):
            diff = compare_outputs(encode(reference(*args, **kwargs)), encode(want))
            if diff:
                raise CatalogError(f"exercise {ex}: on hidden input {i} the notebook's reference "
                                   f"and the grader's (course/references.py) disagree ({diff})")
    status, text = function_feedback(spec, fn, cases, expected, "hidden input")
    if status == "not answered":
        raise NotAnswered(f"exercise {ex}: not answered: {text}")
    if status != "examples pass":
        raise ExerciseFailed(f"exercise {ex}: {text}")
    _record(ex, "function", f"the solution is right on its {len(cases)} hidden inputs",
            seed=seed)
