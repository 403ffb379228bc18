"""The checks a learner runs: `check` for a value, `check_function` for a function the
learner writes. Neither is an oracle: a student copy holds nothing to compare a value
with, so `check` says whether the answer has the **form** expected and records it for
grading; `check_function` runs the function on the exercise's **public examples** (whose
outputs the catalog shows anyway). Whether a value, a prediction or a function on the
hidden inputs is right, only grading says (grade.py), in the grader's own process.

Each check prints one line (and, when the form is wrong or nothing is answered yet, the
form expected and a hint), returns a `Verdict` (a notebook does not echo it) and never
raises, so running a whole notebook goes on past an exercise not done yet. In a
notebook, `check` leaves the answer and the digest of its answer cell's source in its
output's metadata (key.py): what grading reads for an answer that needs the notebook's
objects.

After the deadline an instructor may publish a reveal file (key.py); with it `check`
says *correct* or *not yet*.

>>> v = check("04.1", None)
exercise 04.1: not answered yet: set `answer` in the cell above to a number between 0 and 1 (three decimals are enough), run it, then run this cell
  hint: ...
>>> v.status, bool(v)
('not answered', False)
>>> check("04.1", 0.5).status
exercise 04.1: recorded 0.5 (the form is right); grading compares it with the library's value, so this check cannot say whether it is right
'recorded'
>>> check("demo", [1, 2], (1, 2.0000001)).status  # a teacher's own exercise, not in the catalog
exercise demo: correct
'correct'

Not here: grading (grade.py), running a function (contained.py).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from numbers import Number
from typing import Any

from hyperskill_lite.course.answers import (
    FormError,
    accepts,
    canonical,
    compare_outputs,
    encode,
    shown,
)
from hyperskill_lite.course.catalog import Exercise, catalog, exercise
from hyperskill_lite.course.contained import cell_source, explain_error, run_function
from hyperskill_lite.course.key import answer_metadata, load_reveal

__all__ = ["STATUSES", "Verdict", "call_text", "check", "check_function", "emit",
           "function_feedback"]

STATUSES = ("recorded", "examples pass", "wrong form", "not answered", "correct", "wrong")
"""A check's verdicts: a value ``recorded`` in its form (or ``wrong form``), a function
whose public examples pass (or ``wrong`` on one), ``not answered``; ``correct`` and
``wrong`` for a value only with a reveal file (or a teacher's own expected value)."""
_MISSING = object()


@dataclass(frozen=True)
class Verdict:
    """One check's result: the `exercise` id, its `status` (one of `STATUSES`), the
    text printed, and the `answer` as shown. True when recorded, passing its examples or
    correct."""

    exercise: str
    status: str
    line: str
    answer: str = ""

    def __bool__(self) -> bool:
        return self.status in ("recorded", "examples pass", "correct")

    def _ipython_display_(self) -> None:
        """Show nothing: the verdict is printed already."""


def _shell() -> Any:
    try:
        from IPython import get_ipython  # lazy: only inside a notebook or IPython
    except ImportError:  # pragma: no cover - IPython is a dependency of the course extra
        return None
    return get_ipython()


def emit(text: str, metadata: dict[str, Any] | None = None) -> None:
    """Show `text`; in a notebook as a display output carrying `metadata` (a record
    grading reads), elsewhere printed."""
    shell = _shell()
    if shell is None or metadata is None:
        print(text)
        return
    from IPython.display import display  # lazy: inside a notebook only

    display({"text/plain": text}, raw=True, metadata=metadata)


def _say(ex: str, status: str, text: str, answer: str = "",
         metadata: dict[str, Any] | None = None) -> Verdict:
    emit(text, metadata)
    return Verdict(ex, status, text, answer)


def _advice(spec: Exercise) -> str:
    return f"\n  expected: {spec.form}" + (f"\n  hint: {spec.hint}" if spec.hint else "")


def _assigns_answer(source: str) -> bool:
    try:
        tree = ast.parse("\n".join(x for x in source.splitlines()
                                   if not x.lstrip().startswith(("%", "!"))))
    except (SyntaxError, ValueError):
        return "answer =" in source or "answer=" in source
    return any(isinstance(n, ast.Name) and n.id == "answer" and isinstance(n.ctx, ast.Store)
               for n in ast.walk(tree))


def _answer_source() -> str | None:
    """The source of the last cell run before this one that assigns `answer` (the answer
    cell, as it ran), or None outside a notebook."""
    shell = _shell()
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if not history:
        return None
    for source in reversed(history[:-1]):  # the last one is the check cell running now
        if isinstance(source, str) and _assigns_answer(source):
            return source
    return None


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
    """Print whether `answer` has the form exercise `ex` asks for, record it for grading,
    and return the `Verdict` (module docstring).

    `expected` compares with a value the caller gives (a teacher's own exercise, which
    the catalog does not hold: numbers within `tol`, sets as sets, lists element-wise).
    ``None`` means not answered yet: a message, not an error."""
    spec = catalog().get(ex)
    if spec is None and expected is _MISSING:
        return _say(ex, "wrong form", f"exercise {ex}: unknown exercise (not in the catalog); "
                    "pass the expected value to check it")
    if spec is not None and not spec.value:
        how = ("check_function(id, your_function)" if spec.coding
               else "nothing: it is a written answer, graded by hand")
        return _say(ex, "wrong form", f"exercise {ex} is checked with {how}")
    if answer is None:
        form = spec.form if spec else "your answer"
        return _say(ex, "not answered", f"exercise {ex}: not answered yet: set `answer` in the "
                    f"cell above to {form}, run it, then run this cell"
                    + (f"\n  hint: {spec.hint}" if spec and spec.hint else ""))
    decimals = spec.decimals if spec else 3
    if spec is None:
        ok = _same(answer, expected, tol)
        text = f"exercise {ex}: correct" if ok else (
            f"exercise {ex}: not yet: {shown(answer, decimals)} is not the value expected")
        return _say(ex, "correct" if ok else "wrong", text, shown(answer, decimals))
    try:
        canonical(answer, spec.spec())  # the form, always
        if expected is not _MISSING:
            ok = accepts(answer, spec.spec(), expected=expected)
        else:
            revealed = load_reveal().get(ex)
            ok = accepts(answer, spec.spec(), digest_=revealed) if revealed else None
    except FormError as e:
        return _say(ex, "wrong form", f"exercise {ex}: not yet in the form expected: the "
                    f"answer should be {e}" + _advice(spec), shown(answer, decimals))
    record = answer_metadata(ex, answer, _answer_source())
    if ok is None:
        return _say(ex, "recorded", f"exercise {ex}: recorded {shown(answer, decimals)} (the "
                    "form is right); grading compares it with the library's value, so this "
                    "check cannot say whether it is right", shown(answer, decimals), record)
    if ok:
        return _say(ex, "correct", f"exercise {ex}: correct", shown(answer, decimals), record)
    places = f" (compared to {decimals} decimals)" if spec.kind == "float" else ""
    return _say(ex, "wrong", f"exercise {ex}: not yet: {shown(answer, decimals)} is not the "
                f"value{places}" + _advice(spec), shown(answer, decimals), record)


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
    and `atol`), run contained; the cases are called `label` ("example") in the text."""
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
        diff = compare_outputs(res.get("ok"), encode(want), atol=atol)
        if diff:
            return "wrong", f"on {label} {i}, {call}: {diff}"
    return "examples pass", ""


def _examples(spec: Exercise) -> tuple[list[tuple[list, dict]], list[Any]]:
    cases = [(list(e.get("args", [])), dict(e.get("kwargs", {}))) for e in spec.examples]
    return cases, [e.get("expected") for e in spec.examples]


def check_function(ex: str, fn: Callable) -> Verdict:
    """Run the learner's function `fn` for coding exercise `ex` on the catalog's public
    examples, contained (contained.py), print the verdict and return it. Whether it is
    right on the inputs it has not seen, only grading says."""
    spec = exercise(ex)
    cases, expected = _examples(spec)
    status, text = function_feedback(spec, fn, cases, expected, "example", EXAMPLE_ATOL)
    if status == "examples pass":
        return _say(ex, status, f"exercise {ex}: right on the {len(cases)} public examples; "
                    "grading also runs it on inputs you do not see")
    if status == "not answered":
        return _say(ex, status, f"exercise {ex}: not answered yet: {text}" + _advice(spec))
    return _say(ex, status, f"exercise {ex}: not yet: {text}" + _advice(spec))
