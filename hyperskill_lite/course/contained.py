"""Run a learner's function on given inputs, contained: in the python tool's sandbox
(agent/tools/sandbox.py, `PythonSandbox`), never in the notebook's kernel or the grader.

`run_function(source, name, cases)` writes one script: the learner's cell source, then a
loop that calls `name` on each case and prints each result as a JSON line (answers.encode)
behind a random marker. The sandbox gives it a wall-clock limit (an endless loop is
stopped), a memory limit, no network or user files under bubblewrap, and an environment
without secrets. The library itself is kept out: under bubblewrap the package is not
mounted at all, and in every mode ``hyperskill_lite`` is blocked in ``sys.modules``
before the learner's code runs, so a graded function that calls the library it should
re-implement fails (the checks say so). numpy is there (and scipy); names the notebook
defines are not.

Isolation: ``$HYPERSKILL_COURSE_ISOLATION`` (``bwrap`` or ``process``); by default bwrap
where it works here, else process limits. The grader (grade.py) already runs the whole
notebook under bubblewrap and sets ``grader`` for the runs inside it: process limits,
without the sandbox's switch to user "nobody" (a user namespace maps no other user).

Not here: comparing the results (answers.py), the feedback (check.py, verify.py).
"""

from __future__ import annotations

import inspect
import json
import linecache
import os
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from hyperskill_lite.agent.tools.sandbox import ISOLATIONS, PythonSandbox
from hyperskill_lite.course.answers import encode

__all__ = ["GRADER", "ISOLATION_ENV", "FunctionRun", "cell_source", "explain_error", "run_function"]

ISOLATION_ENV = "HYPERSKILL_COURSE_ISOLATION"
MAX_OUTPUT = 400_000

_HARNESS = """
import json as _json, sys as _sys
_sys.modules["hyperskill_lite"] = None  # graded code implements the idea itself
import math
import numpy as np

{source}

def _dec(x):
    if isinstance(x, dict) and "array" in x:
        return np.asarray(x["array"], dtype=x.get("dtype")).reshape(x["shape"])
    if isinstance(x, list):
        return np.asarray(x)
    return x

def _enc(x):
    if hasattr(x, "toarray") and not isinstance(x, np.ndarray):
        x = np.asarray(x.toarray())
    if isinstance(x, np.ndarray):
        return {{"array": x.tolist(), "shape": list(x.shape)}}
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, (list, tuple)):
        return [_enc(i) for i in x]
    if isinstance(x, (set, frozenset)):
        return {{"set": sorted((_enc(i) for i in x), key=repr)}}
    if isinstance(x, dict):
        return {{"dict": sorted(([_enc(k), _enc(v)] for k, v in x.items()), key=repr)}}
    if x is None or isinstance(x, (str, int, float)):
        return x
    return {{"repr": repr(x)[:200]}}

for _case in _json.loads({cases!r}):
    try:
        _fn = globals()[{name!r}]
        _out = {{"ok": _enc(_fn(*[_dec(a) for a in _case["args"]],
                               **{{k: _dec(v) for k, v in _case["kwargs"].items()}}))}}
    except BaseException as _e:
        _out = {{"error": type(_e).__name__ + ": " + str(_e)[:300]}}
    print({mark!r} + _json.dumps(_out), flush=True)
"""


@dataclass
class FunctionRun:
    """The outcome of one contained run: one entry per case (``{"ok": encoded output}``
    or ``{"error": "Name: message"}``), or `problem` (a line saying why none ran: a
    syntax error, the time limit, the memory limit), and the isolation used."""

    results: list[dict[str, Any]] = field(default_factory=list)
    problem: str = ""
    isolation: str = ""


def _arg(x: Any) -> Any:
    """A case argument as JSON: arrays keep their dtype and shape."""
    import numpy as np

    if isinstance(x, np.ndarray):
        return {"array": x.tolist(), "shape": list(x.shape), "dtype": str(x.dtype)}
    return encode(x)


def cell_source(fn: Callable) -> str:
    """The source of the notebook cell (or module) that defined `fn`: the whole cell,
    so its helper functions and imports come along. IPython magics are dropped."""
    code = getattr(fn, "__code__", None)
    if code is None:
        raise TypeError(f"{fn!r} is not a function defined in a cell")
    lines = linecache.getlines(code.co_filename)
    text = "".join(lines) if lines else inspect.getsource(fn)
    return "\n".join(line for line in text.splitlines()
                     if not line.lstrip().startswith(("%", "!")))


GRADER = "grader"
"""The isolation value grade.py sets inside its own sandbox."""


@cache
def _isolation() -> str:
    wanted = os.environ.get(ISOLATION_ENV, "")
    if wanted in ISOLATIONS or wanted == GRADER:
        return wanted
    import logging

    quiet = logging.getLogger("hyperskill_lite.agent.tools.sandbox")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # a self-check prints no warning into the notebook
    try:
        return PythonSandbox(isolation="bwrap").mode
    finally:
        quiet.setLevel(level)


_EXIT = re.compile(r"^Error: python exited with code -?\d+\.\s*", re.S)


def run_function(source: str, name: str, cases: Sequence[tuple[Sequence, dict]],
                 timeout: float = 10.0) -> FunctionRun:
    """Run `name` from `source` on each (args, kwargs) of `cases` in the sandbox."""
    mark = "@@" + secrets.token_hex(8) + "@@"
    payload = json.dumps([{"args": [_arg(a) for a in args],
                           "kwargs": {k: _arg(v) for k, v in kwargs.items()}}
                          for args, kwargs in cases])
    script = _HARNESS.format(source=source, cases=payload, name=name, mark=mark)
    isolation = _isolation()
    box = PythonSandbox(timeout=timeout, max_output_chars=MAX_OUTPUT,
                        isolation="process" if isolation == GRADER else isolation,
                        drop_root=isolation != GRADER)
    out = box.run(script)
    run = FunctionRun(isolation=isolation)
    for line in out.splitlines():
        if line.startswith(mark):
            run.results.append(json.loads(line[len(mark):]))
    if len(run.results) < len(cases):
        run.problem = _problem(out, mark, timeout)
    return run


def _problem(out: str, mark: str, timeout: float) -> str:
    first = out.splitlines()[0] if out else "no output"
    if first.startswith("Error: python timed out"):
        return (f"stopped after {timeout:g} s: the function (or the code around it) did not "
                "finish; is there a loop that never ends?")
    if first.startswith("Error: python exceeded"):
        return first[len("Error: "):].replace("python", "your code", 1)
    tail = [x for x in _EXIT.sub("", out).splitlines() if x.strip() and not x.startswith(mark)]
    if tail:
        last = tail[-1].strip()
        if "hyperskill_lite" in out and ("ImportError" in last or "ModuleNotFoundError" in last):
            return ("your code imports hyperskill_lite: a graded function must compute the "
                    "result itself (numpy is available)")
        return f"your cell does not run on its own: {last[:240]}"
    return f"the run stopped early ({first[:200]})"


def explain_error(error: str, name: str) -> str:
    """A learner-facing reading of one case's error line (``"Name: message"``)."""
    if "hyperskill_lite" in error:
        return ("it imports hyperskill_lite: a graded function must compute the result itself "
                "(numpy is available as np)")
    m = re.match(r"NameError: name '(\w+)' is not defined", error)
    if m:
        return (f"it uses `{m.group(1)}`, which it cannot see: a graded function runs on its "
                "own, with its arguments, numpy (np), math and what its cell imports, not the "
                "notebook's other names or the library")
    if error.startswith("NotImplementedError"):
        return f"{name} is not written yet (it raises NotImplementedError)"
    return f"it raised {error}"
