"""The checks a learner runs: `check` for an answer, `check_function` for a function the
learner writes. Each prints a verdict (correct, not yet, not answered), and when the
answer is not right yet the form expected and a hint, with values rounded; it returns a
`Verdict` (true when correct; a notebook does not echo it) and never raises, so running
a whole notebook goes on past an exercise not done yet.

A check knows only what a student copy may hold: the digest of a value
(catalog.exercises.toml, answers.digest) and a function's public examples. Grading runs
the instructor's tests instead (verify.py): the library's value, hidden inputs.

>>> v = check("04.1", None)
exercise 04.1: not answered yet: set `answer` in the cell above to a number between 0 and 1 (three decimals are enough), run it, then run this cell
>>> v.status, bool(v)
('not answered', False)
>>> bool(check("04.1", 0.705))
exercise 04.1: correct
True
>>> check("demo", [1, 2], (1, 2.0000001)).status  # an id the catalog does not hold
exercise demo: correct
'correct'

Not here: the grader's tests (verify.py), running a function (contained.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from numbers import Number
from typing import Any

from hyperskill_lite.course.answers import FormError, accepts, compare_outputs, encode, shown
from hyperskill_lite.course.catalog import Exercise, catalog, exercise
from hyperskill_lite.course.contained import cell_source, explain_error, run_function

__all__ = ["STATUSES", "Verdict", "call_text", "check", "check_function", "function_feedback"]

STATUSES = ("correct", "wrong", "not answered")
_MISSING = object()


@dataclass(frozen=True)
class Verdict:
    """One check's result: the `exercise` id, its `status` (one of `STATUSES`), the
    text printed, and the `answer` as shown. True when correct."""

    exercise: str
    status: str
    line: str
    answer: str = ""

    def __bool__(self) -> bool:
        return self.status == "correct"

    def _ipython_display_(self) -> None:
        """Show nothing: the verdict is printed already."""


def _say(ex: str, status: str, text: str, answer: str = "") -> Verdict:
    print(text)
    return Verdict(ex, status, text, answer)


def _advice(spec: Exercise) -> str:
    return f"\n  expected: {spec.form}\n  hint: {spec.hint}"


def _same(answer: Any, expected: Any, tol: float) -> bool:
    """The comparison of an exercise the catalog does not hold (a teacher's own)."""
    if isinstance(expected, Number) and not isinstance(expected, bool):
        return (isinstance(answer, Number) and not isinstance(answer, bool)
                and abs(float(answer) - float(expected)) <= tol)
    if isinstance(expected, set | frozenset) or (
            isinstance(answer, set | frozenset) and isinstance(expected, Iterable)
            and not isinstance(expected, str | bytes | dict)):
        try:
            return set(answer) == set(expected)
        except TypeError:
            return False
    if isinstance(expected, list | tuple) and isinstance(answer, list | tuple):
        return len(answer) == len(expected) and all(
            _same(a, e, tol) for a, e in zip(answer, expected))
    return bool(answer == expected)


def check(ex: str, answer: Any, expected: Any = _MISSING, tol: float = 1e-6) -> Verdict:
    """Print whether `answer` is right for exercise `ex` and return the `Verdict`.

    Exercises of the catalog are checked against their digest (or against `expected`
    when given); any other id needs `expected` (numbers within `tol`, sets as sets, lists
    element-wise). ``None`` means not answered yet: a message, not an error."""
    spec = catalog().get(ex)
    if spec is None and expected is _MISSING:
        return _say(ex, "wrong", f"exercise {ex}: unknown exercise (not in the catalog); "
                                 "pass the expected value to check it")
    if answer is None:
        form = spec.form if spec else "your answer"
        return _say(ex, "not answered", f"exercise {ex}: not answered yet: set `answer` in the "
                    f"cell above to {form}, run it, then run this cell")
    decimals = spec.decimals if spec else 3
    if spec is None:
        ok = _same(answer, expected, tol)
        text = f"exercise {ex}: correct" if ok else (
            f"exercise {ex}: not yet: {shown(answer, decimals)} is not the library's value")
        return _say(ex, "correct" if ok else "wrong", text, shown(answer, decimals))
    try:
        if expected is _MISSING:
            ok = accepts(answer, spec.spec(), digest_=spec.digest)
        else:
            ok = accepts(answer, spec.spec(), expected=expected)
    except FormError as e:
        return _say(ex, "wrong", f"exercise {ex}: not yet: the answer should be {e}"
                    + _advice(spec), shown(answer, decimals))
    if ok:
        return _say(ex, "correct", f"exercise {ex}: correct", shown(answer, decimals))
    places = f" (compared to {decimals} decimals)" if spec.kind == "float" else ""
    return _say(ex, "wrong", f"exercise {ex}: not yet: {shown(answer, decimals)} is not the "
                f"value{places}" + _advice(spec), shown(answer, decimals))


def call_text(name: str, args: Iterable[Any], kwargs: dict[str, Any] | None = None,
              decimals: int = 3) -> str:
    """``name(arg, ...)`` with the arguments rounded, for feedback.

    >>> call_text("gamma", [[3, 1], 0.70000001])
    'gamma([3, 1], 0.7)'
    """
    parts = [shown(a, decimals, limit=80) for a in args]
    parts += [f"{k}={shown(v, decimals, limit=40)}" for k, v in (kwargs or {}).items()]
    return f"{name}({', '.join(parts)})"


EXAMPLE_ATOL = 1e-4
"""Public examples are written with a few decimals (exercises.toml): compared to 1e-4."""


def function_feedback(spec: Exercise, fn: Callable, cases: list[tuple[list, dict]],
                      expected: list[Any], label: str, atol: float = 1e-9) -> tuple[str, str]:
    """(status, text) for `fn` on `cases` against the `expected` outputs (within rtol 1e-6
    and `atol`); the cases are called "example" or "hidden input" (`label`) in the text."""
    name = getattr(fn, "__name__", "") or spec.name
    if not callable(fn) or not name.isidentifier():
        return "wrong", f"{spec.name} should be a function written with `def {spec.name}(...)`"
    try:
        source = cell_source(fn)
    except (TypeError, OSError) as e:
        return "wrong", f"cannot read the code of {name} ({e}); define it in a notebook cell"
    run = run_function(source, name, cases, timeout=spec.timeout)
    if run.problem:
        return "wrong", run.problem
    if all("ok" in r and r["ok"] is None for r in run.results) and any(
            e is not None for e in expected):
        return "not answered", f"{name} returns None: write its body"
    for i, (res, (args, kwargs), want) in enumerate(zip(run.results, cases, expected), 1):
        call = call_text(name, args, kwargs, spec.decimals)
        if "error" in res:
            return "wrong", f"on {label} {i}, {call}: {explain_error(res['error'], name)}"
        diff = compare_outputs(res["ok"], encode(want), atol=atol)
        if diff:
            return "wrong", f"on {label} {i}, {call}: {diff}"
    return "correct", ""


def _examples(spec: Exercise) -> tuple[list[tuple[list, dict]], list[Any]]:
    cases = [(list(e.get("args", [])), dict(e.get("kwargs", {}))) for e in spec.examples]
    return cases, [e.get("expected") for e in spec.examples]


def check_function(ex: str, fn: Callable) -> Verdict:
    """Run the learner's function `fn` for coding exercise `ex` on the catalog's public
    examples, contained (contained.py), print the verdict and return it. Grading also
    tries hidden inputs (verify.py)."""
    spec = exercise(ex)
    cases, expected = _examples(spec)
    status, text = function_feedback(spec, fn, cases, expected, "example", EXAMPLE_ATOL)
    if status == "correct":
        return _say(ex, status, f"exercise {ex}: correct on the {len(cases)} examples "
                    "(grading also tries inputs you do not see)")
    if status == "not answered":
        return _say(ex, status, f"exercise {ex}: not answered yet: {text}" + _advice(spec))
    return _say(ex, status, f"exercise {ex}: not yet: {text}" + _advice(spec))
