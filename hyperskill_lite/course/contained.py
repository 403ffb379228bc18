"""Run a learner's code contained: in the python tool's sandbox (agent/tools/sandbox.py,
`PythonSandbox`), never in the grader's process or the notebook's kernel. Only plain
JSON crosses back (answers.encode): numbers, strings, lists, arrays as nested lists.

Two uses:

- `run_function(source, name, cases)`: the learner's own check (check.py) runs the
  function of one answer cell on the public examples;
- `run_answers(jobs)`: grading (grade.py) runs every answer cell of a submission in ONE
  contained process: a value cell is executed on its own and its ``answer`` returned; a
  coding cell is executed and its function called on each case (the public examples and
  the hidden inputs). The expected outputs never enter the process: grading compares in
  its own.

What the code sees: numpy (``np``), ``math`` and what its own cell imports; never the
notebook's other names, never the library. The library is kept out three ways: under
bubblewrap it is not mounted (and where it lies inside the Python installation, an empty
folder covers it: ``PythonSandbox(hide=...)``); in every mode an audit hook
(``sys.addaudithook``, which Python code cannot remove) refuses to import
``hyperskill_lite`` and to open its files; and ``sys.modules`` holds no copy to take
back. The hook also refuses the network, new processes and ctypes, and reports each
attempt (and every file the code writes) as an event, which grading turns into a flag
naming the cell. Time: each job has its own limit (an alarm), and the whole run a wall
clock limit; when a job never ends (it swallowed its alarm) or the process dies, the
grader starts a fresh process for the jobs after it, so one cell costs only its own
exercise.

Isolation: ``$HYPERSKILL_COURSE_ISOLATION`` (``bwrap`` or ``process``) for the learner's
own check, by default bwrap where it works here, else process limits; grading names its
isolation (grade.py) and refuses rather than fall back.

Not here: comparing the results (answers.py, grade.py), the feedback (check.py).
"""

from __future__ import annotations

import inspect
import json
import linecache
import logging
import os
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from hyperskill_lite.agent.tools.sandbox import ISOLATIONS, PythonSandbox
from hyperskill_lite.course.answers import encode

__all__ = ["ISOLATION_ENV", "PACKAGE", "AnswerJob", "AnswerRun", "FunctionRun", "cell_source",
           "explain_error", "isolation_problem", "run_answers", "run_function", "strip_magics"]

ISOLATION_ENV = "HYPERSKILL_COURSE_ISOLATION"
PACKAGE = Path(__file__).resolve().parents[1]
"""The library's folder: hidden from the contained code."""
MAX_OUTPUT = 4_000_000
STARTUP = 20.0
"""Seconds a contained process may take to start (bubblewrap, Python, numpy) on a busy
machine, on top of its jobs' own limits."""

_PRELUDE = r'''
import builtins as _builtins, json as _json, os as _os, signal as _signal, sys as _sys
_PKG = {package!r}
_EVENTS = []
_NET = ("socket.connect", "socket.bind", "socket.getaddrinfo", "socket.sendto",
        "socket.sendmsg", "socket.gethostbyname")
_PROC = ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
         "os.forkpty", "pty.spawn", "os.kill", "os.killpg")

def _note(what):
    if len(_EVENTS) < 50 and what not in _EVENTS:
        _EVENTS.append(what)

def _no_library(event, args):
    if event == "import":
        name = args[0] or ""
        if name == "hyperskill_lite" or name.startswith("hyperskill_lite."):
            _note("imports the library (" + name[:60] + ")")
            raise ImportError("hyperskill_lite is not available to graded code: compute the "
                              "result yourself (numpy is there)")

def _audit(event, args):
    if event == "open":
        path, mode, flags = (list(args) + [None, None, None])[:3]
        if isinstance(path, bytes):
            path = path.decode("utf-8", "replace")
        if isinstance(path, str):
            real = _os.path.abspath(path)
            if real == _PKG or real.startswith(_PKG + _os.sep) or "hyperskill_lite" in real:
                _note("opens the library's files")
                raise PermissionError("the library's files are not available to graded code")
            if real.startswith("/proc/") and real.endswith("/mem"):
                _note("opens process memory (" + real[:40] + ")")
                raise PermissionError("not available to graded code")
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & (_os.O_WRONLY | _os.O_RDWR | _os.O_CREAT))
            if writing:
                _note("writes the file " + path[:80])
        return
    if event in _NET:
        _note("uses the network (" + event + ")")
        raise PermissionError("no network for graded code")
    if event in _PROC:
        _note("starts or signals a process (" + event + ")")
        raise PermissionError("graded code may not start processes")
    if event.startswith("ctypes."):
        _note("uses ctypes (" + event + ")")
        raise PermissionError("graded code may not use ctypes")
    if event == "sys.addaudithook":
        _note("adds an audit hook")
        raise RuntimeError("refused")

_sys.addaudithook(_no_library)
_sys.modules.pop("hyperskill_lite", None)
import math
import numpy as np
_OUT = _os.fdopen(_os.dup(1), "w")  # results go here; the code's own prints to stderr
_os.dup2(2, 1)
_sys.addaudithook(_audit)  # after numpy's own start (it loads ctypes)

def _emit(obj):
    _OUT.write("\n" + {mark!r} + _json.dumps(obj) + "\n")
    _OUT.flush()

def _dec(x):
    if isinstance(x, dict) and "array" in x:
        return np.asarray(x["array"], dtype=x.get("dtype")).reshape(x["shape"])
    if isinstance(x, list):
        return np.asarray(x)
    return x

def _enc(x, depth=0):
    if depth > 20:
        return {{"repr": "nested too deep"}}
    if hasattr(x, "toarray") and not isinstance(x, np.ndarray):
        x = np.asarray(x.toarray())
    if isinstance(x, np.ndarray):
        if x.size > 100000:
            return {{"repr": "an array of " + str(x.size) + " elements"}}
        return {{"array": x.tolist(), "shape": list(x.shape)}}
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, (list, tuple)):
        return [_enc(i, depth + 1) for i in x[:100000]]
    if isinstance(x, (set, frozenset)):
        return {{"set": sorted((_enc(i, depth + 1) for i in x), key=repr)}}
    if isinstance(x, dict):
        return {{"dict": sorted(([_enc(k, depth + 1), _enc(v, depth + 1)] for k, v in x.items()),
                               key=repr)}}
    if x is None or isinstance(x, (str, int, float)):
        return x if not isinstance(x, str) else x[:10000]
    return {{"repr": type(x).__name__}}

class _Stop(BaseException):
    pass

def _alarm(signum, frame):
    raise _Stop()

def _error(e):
    return type(e).__name__ + ": " + str(e)[:300]
'''

_RUN_FUNCTION = r'''
_ns = {{"np": np, "math": math, "__name__": "__answer__"}}
exec(compile({source!r}, "<cell>", "exec"), _ns)
for _case in _json.loads({cases!r}):
    try:
        _fn = _ns[{name!r}]
        _out = {{"ok": _enc(_fn(*[_dec(a) for a in _case["args"]],
                               **{{k: _dec(v) for k, v in _case["kwargs"].items()}}))}}
    except BaseException as _e:
        _out = {{"error": _error(_e)}}
    _emit(_out)
'''

_RUN_ANSWERS = r'''
_signal.signal(_signal.SIGALRM, _alarm)
for _job in _json.loads({jobs!r}):
    _emit({{"start": _job["id"]}})
    _first = len(_EVENTS)
    _res = {{}}
    _signal.setitimer(_signal.ITIMER_REAL, _job["timeout"], 0.5)
    try:
        _ns = {{"np": np, "math": math, "__name__": "__answer__"}}
        try:
            exec(compile(_job["source"], _job["cell"], "exec"), _ns)
        except _Stop:
            raise
        except BaseException as _e:
            _res = {{"cell_error": _error(_e)}}
        else:
            if _job["kind"] == "value":
                _res = {{"has": "answer" in _ns, "value": _enc(_ns.get("answer"))}}
            else:
                _fn = _ns.get(_job["name"])
                if not callable(_fn):
                    _res = {{"missing": True}}
                else:
                    _outs = []
                    for _case in _job["cases"]:
                        try:
                            _outs.append({{"ok": _enc(_fn(*[_dec(a) for a in _case["args"]],
                                           **{{k: _dec(v) for k, v in _case["kwargs"].items()}}))}})
                        except _Stop:
                            raise
                        except BaseException as _e:
                            _outs.append({{"error": _error(_e)}})
                    _res = {{"outputs": _outs}}
    except _Stop:
        _res = {{"timeout": True}}
    finally:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
    _emit({{"done": _job["id"], "result": _res, "events": _EVENTS[_first:]}})
'''


def _arg(x: Any) -> Any:
    """A case argument as JSON: arrays keep their dtype and shape."""
    if isinstance(x, np.ndarray):
        return {"array": x.tolist(), "shape": list(x.shape), "dtype": str(x.dtype)}
    return encode(x)


def _payload(cases: Sequence[tuple[Sequence, dict]]) -> list[dict[str, Any]]:
    return [{"args": [_arg(a) for a in args], "kwargs": {k: _arg(v) for k, v in kwargs.items()}}
            for args, kwargs in cases]


def strip_magics(source: str) -> str:
    """A cell's source without IPython's line magics and shell escapes (``%``, ``!``)."""
    return "\n".join(line for line in source.splitlines()
                     if not line.lstrip().startswith(("%", "!")))


def cell_source(fn: Callable) -> str:
    """The source of the notebook cell (or module) that defined `fn`: the whole cell,
    so its helper functions and imports come along. IPython magics are dropped."""
    code = getattr(fn, "__code__", None)
    if code is None:
        raise TypeError(f"{fn!r} is not a function defined in a cell")
    lines = linecache.getlines(code.co_filename)
    text = "".join(lines) if lines else inspect.getsource(fn)
    return strip_magics(text)


def _quiet_sandbox(**kwargs: Any) -> PythonSandbox:
    return PythonSandbox(hide=(str(PACKAGE),), max_output_chars=MAX_OUTPUT, **kwargs)


@cache
def _default_isolation() -> str:
    wanted = os.environ.get(ISOLATION_ENV, "")
    if wanted in ISOLATIONS:
        return wanted
    quiet = logging.getLogger("hyperskill_lite.agent.tools.sandbox")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # a self-check prints no warning into the notebook
    try:
        return "bwrap" if PythonSandbox(isolation="bwrap").problem() is None else "process"
    finally:
        quiet.setLevel(level)


def isolation_problem(isolation: str) -> str | None:
    """Why `isolation` cannot contain a learner's code here, or None when it can."""
    quiet = logging.getLogger("hyperskill_lite.agent.tools.sandbox")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        return PythonSandbox(isolation=isolation).problem()
    finally:
        quiet.setLevel(level)


@dataclass
class FunctionRun:
    """The outcome of one contained run of a function: one entry per case
    (``{"ok": encoded output}`` or ``{"error": "Name: message"}``), or `problem` (a line
    saying why none ran: a syntax error, the time limit, the memory limit), and the
    isolation used."""

    results: list[dict[str, Any]] = field(default_factory=list)
    problem: str = ""
    isolation: str = ""


_EXIT = re.compile(r"^Error: python exited with code -?\d+\.\s*", re.S)


def run_function(source: str, name: str, cases: Sequence[tuple[Sequence, dict]],
                 timeout: float = 10.0) -> FunctionRun:
    """Run `name` from `source` on each (args, kwargs) of `cases` in the sandbox."""
    mark = "@@" + secrets.token_hex(8) + "@@"
    script = (_PRELUDE.format(package=str(PACKAGE), mark=mark)
              + _RUN_FUNCTION.format(source=source, cases=json.dumps(_payload(cases)),
                                     name=name))
    isolation = _default_isolation()
    out = _quiet_sandbox(timeout=timeout, isolation=isolation).run(script)
    run = FunctionRun(isolation=isolation)
    for line in out.splitlines():
        if line.startswith(mark):
            try:
                run.results.append(json.loads(line[len(mark):]))
            except ValueError:
                continue
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


# --- grading: every answer cell of a submission, one process ------------------------------


@dataclass(frozen=True)
class AnswerJob:
    """One answer cell to run: `exercise`, its `cell` (id), `source`; `kind` "value" (run
    it, return ``answer``) or "function" (run it, call `name` on `cases`); `timeout`
    seconds for the whole job."""

    exercise: str
    cell: str
    source: str
    kind: str
    name: str = ""
    cases: tuple[tuple[Sequence, dict], ...] = ()
    timeout: float = 10.0


@dataclass
class AnswerRun:
    """What the contained run of a submission's answer cells gave, per exercise:
    `results` (``{"value": ..., "has": bool}``, ``{"outputs": [...]}``,
    ``{"cell_error": line}``, ``{"missing": True}`` or ``{"timeout": True}``; an exercise
    whose process died has ``{"died": line}``), `events` (what the audit hook refused or
    saw), the number of processes started and the isolation."""

    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    events: dict[str, list[str]] = field(default_factory=dict)
    processes: int = 0
    isolation: str = ""


def _job_json(job: AnswerJob) -> dict[str, Any]:
    return {"id": job.exercise, "cell": f"<{job.cell}>", "source": strip_magics(job.source),
            "kind": job.kind, "name": job.name, "timeout": float(job.timeout),
            "cases": _payload(job.cases)}


def _read(out: str, mark: str, run: AnswerRun, wanted: set[str]) -> str | None:
    """Read one process's result lines into `run`; the exercise in progress when it
    stopped (started, never done), if any."""
    current = None
    for line in out.splitlines():
        if not line.startswith(mark):
            continue
        try:
            msg = json.loads(line[len(mark):])
        except (ValueError, RecursionError):
            continue
        if not isinstance(msg, dict):
            continue
        if msg.get("start") in wanted:
            current = msg["start"]
        elif msg.get("done") in wanted and msg["done"] == current:
            ex = msg["done"]
            if ex not in run.results and isinstance(msg.get("result"), dict):
                run.results[ex] = msg["result"]
                run.events[ex] = [str(e)[:200] for e in msg.get("events", [])
                                  if isinstance(e, str)][:20]
            current = None
    return current


def run_answers(jobs: Sequence[AnswerJob], isolation: str,
                memory_mb: int = 1024) -> AnswerRun:
    """Run `jobs` contained (module docstring), one process for all of them while they
    behave; never raises for anything the code does."""
    run = AnswerRun(isolation=isolation)
    todo = list(jobs)
    while todo:
        mark = "@@" + secrets.token_hex(8) + "@@"
        script = (_PRELUDE.format(package=str(PACKAGE), mark=mark)
                  + _RUN_ANSWERS.format(jobs=json.dumps([_job_json(j) for j in todo])))
        limit = STARTUP + sum(j.timeout + 1.0 for j in todo)
        out = _quiet_sandbox(timeout=limit, isolation=isolation, memory_mb=memory_mb).run(script)
        run.processes += 1
        wanted = {j.exercise for j in todo}
        current = _read(out, mark, run, wanted)
        left = [j for j in todo if j.exercise not in run.results]
        if not left:
            break
        # the process stopped early: the job in progress (or the first one left) costs
        # its own exercise; the others get a fresh process
        culprit = current if current in {j.exercise for j in left} else left[0].exercise
        run.results[culprit] = {"died": _death(out, mark)}
        run.events.setdefault(culprit, [])
        todo = [j for j in left if j.exercise != culprit]
    return run


def _death(out: str, mark: str) -> str:
    first = out.splitlines()[0] if out else "no output"
    if first.startswith("Error: python timed out"):
        return "it did not finish within its time limit (a loop that never ends?)"
    if first.startswith("Error: python exceeded"):
        return first[len("Error: "):].replace("python", "the cell", 1).rstrip(".")
    if first.startswith("Error: "):
        return first[len("Error: "):200].rstrip(".")
    return "the contained process stopped while running it"
