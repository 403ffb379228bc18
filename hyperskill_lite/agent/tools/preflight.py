"""The tools' share of a live run's preflight: what the run checks of its tools before
it creates its folder, beside the model server's checks (llm/preflight.py).

- `check_sandbox`: the python tool's sandbox can run here; the default (bubblewrap)
  refuses to start without ``bwrap`` (check "sandbox": one line naming bubblewrap, how to
  install it, and ``--sandbox process``, the option that accepts weaker isolation);
  nothing falls back silently.
- `needs_for`: the model capabilities (`CAPABILITIES`: vision, transcription) the tasks'
  attached files need when the media tools are on to read them; the model preflight then
  asks the server for exactly those.

Both are called by the run's assembly (launch.py) and the ``check`` command, before the
model preflight; a failure is the same one-line `PreflightError` the model checks raise.

Not here: the model server's checks and the report (llm/preflight.py), the sandbox itself
(sandbox.py), the media tools and their file types (media.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hyperskill_lite.agent.tools.media import AUDIO_MIME, IMAGE_MIME
from hyperskill_lite.llm.preflight import CAPABILITIES, PreflightError

__all__ = ["check_sandbox", "needs_for"]


def check_sandbox(sandbox: Any) -> str:
    """Refuse a python tool whose sandbox cannot run here (`PythonSandbox.problem`:
    bubblewrap missing or refused, or process mode unable to start) with a
    `PreflightError` ("sandbox"); else the isolation that will run. Runs a trivial
    program once per setting and process; writes nothing but its own temporary folder.

    >>> from hyperskill_lite.agent.tools import PythonSandbox
    >>> check_sandbox(PythonSandbox(bwrap="/nonexistent/bwrap"))
    Traceback (most recent call last):
    ...
    hyperskill_lite.llm.preflight.PreflightError: the python tool's default sandbox needs bubblewrap (bwrap), which is not installed here: install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or pass --sandbox process to accept weaker isolation (resource limits; see docs/guide/guarantees.md)
    """
    problem = sandbox.problem()
    if problem is not None:
        raise PreflightError("sandbox", problem)
    return str(sandbox.isolation)


def needs_for(tasks: Iterable[Any], media: bool = True) -> tuple[str, ...]:
    """The capabilities a run's tasks need: "vision" when a task's attachment is an image,
    "transcription" when one is audio (and the media tools are on to read them).

    >>> from hyperskill_lite.types import Task
    >>> needs_for([Task("a", "q", meta={"file_path": "/d/x.PNG"}), Task("b", "q")])
    ('vision',)
    """
    if not media:
        return ()
    found: set[str] = set()
    for t in tasks:
        for key in ("file", "file_path", "attachment"):
            value = (getattr(t, "meta", None) or {}).get(key)
            if not value:
                continue
            ext = Path(str(value)).suffix.lower()
            if ext in IMAGE_MIME:
                found.add("vision")
            elif ext in AUDIO_MIME:
                found.add("transcription")
    return tuple(c for c in CAPABILITIES if c in found)
