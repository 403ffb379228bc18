"""Self-checking exercises for the notebooks: `check` compares a learner's answer with the
value the library computes and prints one line, so an exercise cell runs clean under
nbval whether or not it has been answered.

The notebooks use one pattern: an exercise cell where the learner sets ``answer``
(``None`` until answered), a check cell ``check("04.1", answer, <library call>)``, and a
collapsed solution cell that computes the answer by hand and checks it the same way.

>>> check("demo", None, 0.5)
exercise demo: not answered yet (set `answer` above; the solution cell below is collapsed)
False
>>> check("demo", 0.50004, 0.5, tol=1e-3)
exercise demo: correct
True
>>> check("demo", {"b", "a"}, ["a", "b"])
exercise demo: correct
True
>>> check("demo", 0.7, 0.5)
exercise demo: not yet: 0.7 is not the library's value; look at the hint and try again
False

Not here: anything the library computes (the expected value is always passed in, from a
library call in the check cell).
"""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Number
from typing import Any

__all__ = ["check"]


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


def check(name: str, answer: Any, expected: Any, tol: float = 1e-6) -> bool:
    """Print whether `answer` matches `expected` (numbers within `tol`; a set or an
    unordered collection compared as sets when either side is a set; lists element-wise)
    and return True when it does. `None` means not answered yet: a message, not an error."""
    if answer is None:
        print(f"exercise {name}: not answered yet (set `answer` above; "
              "the solution cell below is collapsed)")
        return False
    if _same(answer, expected, tol):
        print(f"exercise {name}: correct")
        return True
    print(f"exercise {name}: not yet: {answer!r} is not the library's value; "
          "look at the hint and try again")
    return False
