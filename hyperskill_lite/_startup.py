"""Ctrl-C while ``python -m hyperskill_lite`` is still importing: one line, exit 130.

``python -m hyperskill_lite`` imports the whole package (numpy, scipy, ...) before the
command line's own code runs, so a Ctrl-C in that second would end in Python's
traceback. `guard` (run when the package imports this module, first thing, and only
when it is being started as that command, never on a plain ``import``) answers it with one line and exit code 130;
the command line puts Python's usual handler back when it starts (`release`), and from
then on says itself what each command kept.

Imports nothing of the package.
"""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["guard", "release", "started_as_command"]


def started_as_command() -> bool:
    """True when this interpreter was started as ``python -m hyperskill_lite``."""
    argv = list(getattr(sys, "orig_argv", []))
    return any(a == "-m" and argv[i + 1:i + 2] == ["hyperskill_lite"]
               for i, a in enumerate(argv))


def _interrupted(signum, frame) -> None:  # noqa: ARG001 - a signal handler's signature
    os.write(2, b"interrupted while starting; nothing was written\n")
    os._exit(130)


def guard() -> None:
    """Answer Ctrl-C with one line and exit 130 until `release`."""
    if started_as_command() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupted)


def release() -> None:
    """Python's usual Ctrl-C (KeyboardInterrupt) again."""
    if signal.getsignal(signal.SIGINT) is _interrupted:
        signal.signal(signal.SIGINT, signal.default_int_handler)


guard()
