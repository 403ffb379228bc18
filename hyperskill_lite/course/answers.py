"""Answers as the checks see them: a canonical form per kind, a salted digest of it, the
comparison of a function's outputs with the library's, and values shown rounded.

A value exercise has a `kind` (exercises.toml): ``float`` (compared at ``decimals``
places), ``int``, ``bool``, ``str``, ``choice`` (one of a few words, case-insensitive),
``set`` (of ids, order ignored) or ``list`` (ordered). `canonical` turns an answer into
one string for its kind, or says which form was expected. Grading compares canonical
forms (`accepts`) in the grader's own process, against the instructor's key (key.py).
`digest` salts a canonical form with the exercise id and hashes it (SHA-256): only the
reveal file an instructor publishes after the deadline holds digests (key.py), never a
student copy or the package, since a loop over candidates recovers a value from its
digest in seconds.

A float is accepted when it rounds to the value at ``decimals`` places, or one unit of
the last place either side rounds to it: within one to two units of the last place.

A function's outputs and an answer's value cross from the sandbox to the grader as plain
JSON (`encode`; `decode` reads a value back), never as objects.

>>> canonical(0.6449999999999999, Spec("04.1", "float", decimals=3))
'float:0.645'
>>> canonical(["e2", "e1"], Spec("02.1", "set"))
Traceback (most recent call last):
...
hyperskill_lite.course.answers.FormError: a set (order does not matter), not a list: write {...} instead of [...]
>>> digest("04.1", "float:0.645") == digest("04.1", canonical(0.645, Spec("04.1", "float", decimals=3)))
True
>>> shown(np.array([0.6449999999999999, -0.0]), 3)
'[0.645, 0]'

Not here: which exercises exist (catalog.py), running a learner's function (contained.py).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np

__all__ = ["KINDS", "VALUE_KINDS", "FormError", "Spec", "accepts", "canonical", "compare_outputs",
           "decode", "digest", "encode", "shown"]

VALUE_KINDS = ("float", "int", "bool", "str", "choice", "set", "list")
"""The kinds of an answer that is a value (graded against the key)."""
KINDS = (*VALUE_KINDS, "function", "written")
"""Every kind of exercise: a value, a function (graded on hidden inputs), or a written
answer (graded by hand in nbgrader's formgrader)."""
SALT = "hyperskill-course"


class FormError(ValueError):
    """An answer that is not of the expected form; the message names the form wanted."""


@dataclass(frozen=True)
class Spec:
    """How one exercise's answer is read: its `kind`, places for floats, the allowed
    `choices` (kind "choice")."""

    exercise: str
    kind: str
    decimals: int = 3
    choices: tuple[str, ...] = field(default_factory=tuple)


def _is_number(x: Any) -> bool:
    return isinstance(x, Real | np.number) and not isinstance(x, bool | np.bool_)


def _num(x: float, decimals: int) -> str:
    v = round(float(x), decimals)
    return f"{v + 0.0:.{decimals}f}"  # + 0.0: no "-0.000"


def _item(x: Any) -> str:
    if isinstance(x, str):
        return x.strip()
    if isinstance(x, Integral | np.integer) and not isinstance(x, bool):
        return str(int(x))
    return repr(x)


def canonical(answer: Any, spec: Spec) -> str:
    """One string for `answer` read as `spec.kind`; a `FormError` when it is not of that
    form (``None`` is never canonical: it means not answered)."""
    kind = spec.kind
    if kind == "float":
        if not _is_number(answer) or not math.isfinite(float(answer)):
            raise FormError(f"a number (a float; {spec.decimals} decimals are enough), "
                            f"not {_type(answer)}")
        return "float:" + _num(answer, spec.decimals)
    if kind == "int":
        if isinstance(answer, float | np.floating) and float(answer).is_integer():
            answer = int(answer)
        if not isinstance(answer, Integral | np.integer) or isinstance(answer, bool | np.bool_):
            raise FormError(f"a whole number (an int), not {_type(answer)}")
        return f"int:{int(answer)}"
    if kind == "bool":
        if not isinstance(answer, bool | np.bool_):
            raise FormError(f"True or False, not {_type(answer)}")
        return f"bool:{bool(answer)}"
    if kind == "str":
        if not isinstance(answer, str):
            raise FormError(f"a string such as 'e1' (in quotes), not {_type(answer)}")
        return "str:" + answer.strip()
    if kind == "choice":
        options = " or ".join(repr(c) for c in spec.choices)
        if not isinstance(answer, str) or answer.strip().lower() not in spec.choices:
            raise FormError(f"one of {options}, not {shown(answer)}")
        return "choice:" + answer.strip().lower()
    if kind == "set":
        if isinstance(answer, list | tuple):
            raise FormError(f"a set (order does not matter), not a {type(answer).__name__}: "
                            "write {...} instead of [...]")
        if not isinstance(answer, set | frozenset):
            raise FormError(f"a set, written {{...}}, not {_type(answer)}")
        return "set:" + json.dumps(sorted(_item(x) for x in answer))
    if kind == "list":
        if isinstance(answer, set | frozenset) or not isinstance(answer, list | tuple):
            raise FormError(f"a list in order, such as ['s3', 's1'], not {_type(answer)}")
        return "list:" + json.dumps([_item(x) for x in answer])
    raise ValueError(f"unknown answer kind {kind!r}; one of {KINDS}")


def digest(exercise: str, canon: str) -> str:
    """The salted digest (16 hex digits) of a canonical answer."""
    return hashlib.sha256(f"{SALT}/{exercise}/{canon}".encode()).hexdigest()[:16]


def _neighbours(answer: Any, spec: Spec) -> list[str]:
    """The canonical forms that accept `answer` (a float also one unit either side)."""
    first = canonical(answer, spec)
    if spec.kind != "float":
        return [first]
    unit = 10.0 ** -spec.decimals
    return [first] + [canonical(float(answer) + d, spec) for d in (-unit, unit)]


def accepts(answer: Any, spec: Spec, *, expected: Any = None, digest_: str | None = None) -> bool:
    """Whether `answer` is right: against the key's `expected` value, or against the
    `digest_` of it (a reveal file holds only digests). Raises `FormError` for an answer
    of the wrong form."""
    forms = _neighbours(answer, spec)
    if digest_ is not None:
        return any(digest(spec.exercise, c) == digest_ for c in forms)
    return canonical(expected, spec) in forms


def _type(x: Any) -> str:
    if x is None:
        return "None"
    return f"{type(x).__name__} {shown(x, limit=60)}"


def shown(x: Any, decimals: int = 3, limit: int = 160) -> str:
    """`x` as a reader should see it: floats rounded to `decimals` places (no
    0.6449999999999999, no -0), arrays and nested lists likewise, cut at `limit` chars."""
    def fmt(v: Any) -> str:
        if isinstance(v, bool | np.bool_):
            return str(bool(v))
        if isinstance(v, Integral | np.integer):
            return str(int(v))
        if _is_number(v):
            f = float(v)
            if not math.isfinite(f):
                return str(f)
            text = _num(f, decimals).rstrip("0").rstrip(".")
            return "0" if text in ("-0", "") else text
        if isinstance(v, np.ndarray):
            return fmt(v.tolist())
        if hasattr(v, "toarray"):
            return fmt(np.asarray(v.toarray()).tolist())
        if isinstance(v, list | tuple):
            inner = ", ".join(fmt(i) for i in v)
            return f"[{inner}]" if isinstance(v, list) else f"({inner}{',' if len(v) == 1 else ''})"
        if isinstance(v, set | frozenset):
            return "{" + ", ".join(sorted(fmt(i) for i in v)) + "}" if v else "set()"
        if isinstance(v, Mapping):
            return "{" + ", ".join(f"{fmt(k)}: {fmt(i)}" for k, i in v.items()) + "}"
        return repr(v)

    text = fmt(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def encode(x: Any) -> Any:
    """A function's output as plain JSON data, the same way inside the sandbox and out:
    arrays (and sparse matrices) as ``{"array": nested lists, "shape": [...]}``, numpy
    scalars as numbers, sets as sorted lists under ``"set"``, tuples as lists.

    >>> encode((np.array([1, 2]), {"b", "a"}))
    [{'array': [1, 2], 'shape': [2]}, {'set': ['a', 'b']}]
    """
    if hasattr(x, "toarray") and not isinstance(x, np.ndarray):
        x = np.asarray(x.toarray())
    if isinstance(x, np.ndarray):
        return {"array": x.tolist(), "shape": list(x.shape)}
    if isinstance(x, np.bool_ | bool):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, list | tuple):
        return [encode(i) for i in x]
    if isinstance(x, set | frozenset):
        return {"set": sorted((encode(i) for i in x), key=repr)}
    if isinstance(x, Mapping):
        return {"dict": sorted(([encode(k), encode(v)] for k, v in x.items()), key=repr)}
    if x is None or isinstance(x, str | int | float):
        return x
    return {"repr": repr(x)[:200]}


def decode(x: Any) -> Any:
    """A value `encode` wrote, back as Python data: sets as sets, arrays as numpy
    arrays, tuples as lists; anything `encode` could only describe stays its description
    (``{"repr": ...}``), which no answer's form accepts.

    >>> decode(encode({"e2", "e1"})) == {"e1", "e2"}, decode(encode(np.float64(0.5)))
    (True, 0.5)
    """
    if isinstance(x, list):
        return [decode(i) for i in x]
    if isinstance(x, Mapping):
        if "set" in x and isinstance(x["set"], list):
            items = [decode(i) for i in x["set"]]
            try:
                return set(items)
            except TypeError:  # unhashable items: not a set of ids
                return {"repr": "a set of unhashable items"}
        if "array" in x:
            try:
                return np.asarray(x["array"])
            except (ValueError, TypeError):
                return {"repr": "a ragged array"}
        return dict(x)
    return x


def _numbers(x: Any) -> Any:
    """An encoded output as nested lists of numbers, or None when it holds anything else."""
    if isinstance(x, Mapping):
        return x["array"] if "array" in x else None
    if isinstance(x, bool | int | float):
        return x
    if isinstance(x, list):
        items = [_numbers(i) for i in x]
        return None if any(i is None for i in items) else items
    return None


def _as_array(x: Any) -> np.ndarray | None:
    """An encoded numeric output (an array, a number, a tuple of equal-length arrays) as
    a float array, or None."""
    nums = _numbers(x)
    if nums is None:
        return None
    try:
        return np.asarray(nums, dtype=float)
    except (ValueError, TypeError):  # ragged
        return None


def compare_outputs(got: Any, want: Any, *, rtol: float = 1e-6, atol: float = 1e-9,
                    path: str = "", reveal: bool = True) -> str | None:
    """None when two encoded outputs (`encode`) agree (numbers within rtol/atol, arrays
    by shape then values, lists in order, sets as sets); otherwise what differs first.
    With ``reveal=False`` the text says where they differ, never the library's value
    (what a student may read about a hidden input).

    >>> compare_outputs(encode(np.array([0.5, 0.3])), encode(np.array([0.5, 0.305])))
    'the value at [1] is 0.3, the library gives 0.305'
    >>> compare_outputs(encode([1, 2]), encode(np.array([1, 2]))) is None
    True
    """
    where = path or "the result"
    a, b = _as_array(got), _as_array(want)
    if a is not None and b is not None:
        if a.shape != b.shape:
            if not reveal:
                return f"{where} has shape {a.shape}, not the library's"
            return f"{where} has shape {a.shape}, the library's has shape {b.shape}"
        if not np.all(np.isfinite(a) == np.isfinite(b)):
            return f"{where} holds nan or inf where the library's does not"
        bad = ~np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            if not reveal:
                at = f" at [{', '.join(map(str, idx))}]" if idx else ""
                return f"{where} differs from the library's{at}"
            x, y = float(a[idx]), float(b[idx])
            d = next((d for d in range(3, 12) if shown(x, d) != shown(y, d)), 12)
            if idx:
                at = f"[{', '.join(map(str, idx))}]"
                return (f"the value at {at}{' of ' + path if path else ''} is {shown(x, d)}, "
                        f"the library gives {shown(y, d)}")
            return f"{where} is {shown(x, d)}, the library gives {shown(y, d)}"
        return None
    if isinstance(want, list):
        if not isinstance(got, list):
            if not reveal:
                return f"{where} should be a sequence, got {shown(got)}"
            return f"{where} should be a sequence of {len(want)} items, got {shown(got)}"
        if len(got) != len(want):
            if not reveal:
                return f"{where} has {len(got)} items, not as many as the library's"
            return f"{where} has {len(got)} items, the library's has {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            diff = compare_outputs(g, w, rtol=rtol, atol=atol, path=f"{path}[{i}]",
                                   reveal=reveal)
            if diff:
                return diff
        return None
    if got != want:
        if not reveal:
            return f"{where} is {_plain(got)}, which is not the library's"
        return f"{where} is {_plain(got)}, the library gives {_plain(want)}"
    return None


def _plain(x: Any) -> str:
    """An encoded output shown as the value it stands for."""
    if isinstance(x, Mapping):
        if "array" in x:
            return shown(np.asarray(x["array"]))
        if "set" in x:
            return shown(set(map(str, x["set"])))
        if "repr" in x:
            return x["repr"]
    if isinstance(x, Sequence) and not isinstance(x, str):
        return "[" + ", ".join(_plain(i) for i in x) + "]"
    return shown(x)
