"""Where the package's log records go: the terminal, and a log file in each run folder.

Library code only logs, on loggers under ``hyperskill_lite`` (``logging.getLogger(__name__)``):
one INFO record per model call (operation, HTTP status, latency, tokens, retries), one
per retry and per episode, WARNINGs for what a user should know (a server that refused
structured outputs, ...). Nothing here runs on import: without `setup_logging`, Python's
default applies (WARNING and above on stderr), so a notebook sees warnings only.

- `setup_logging(level)`: the command line's terminal handler, at ``--log-level``
  (default WARNING, so the progress bar stays readable); it writes through tqdm when a
  bar is showing, so log lines never break the bar.
- `run_log(out)`: a context manager that appends the records of this run, INFO and above
  (DEBUG with ``--log-level DEBUG``), to ``OUT/run.log`` while the run executes. Records
  are routed by a context variable, so runs executing side by side in threads of one
  process (live sweep cells) each get their own file.

>>> import tempfile, logging
>>> with tempfile.TemporaryDirectory() as d:
...     with run_log(Path(d)) as path:
...         logging.getLogger("hyperskill_lite.demo").info("episode 0 success=True")
...     "episode 0 success=True" in path.read_text()
True

Not here: what is logged (each module logs its own), the progress bar (runner/loop.py).
"""

from __future__ import annotations

import contextvars
import errno
import logging
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

__all__ = ["LOGGER", "RUN_LOG", "LEVELS", "FORMAT", "add_arguments", "setup_logging",
           "run_log", "file_level"]

LOGGER = "hyperskill_lite"
RUN_LOG = "run.log"
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
FORMAT = "%(asctime)s %(levelname)s %(name)s [%(threadName)s]: %(message)s"

_RUN: contextvars.ContextVar[str | None] = contextvars.ContextVar("hyperskill_run", default=None)
_lock = threading.Lock()
_active = [0]
_saved_level = [logging.NOTSET]


def add_arguments(parser: Any) -> None:
    """Add ``--log-level`` to a parser or argument group."""
    parser.add_argument("--log-level", choices=LEVELS, default="WARNING", type=str.upper,
                        help="what reaches the terminal; OUT/run.log always keeps INFO and "
                        "above (DEBUG with DEBUG)")


def file_level(level: str) -> str:
    """The run log's level for a terminal level: INFO, or DEBUG when asked for.

    >>> file_level("WARNING"), file_level("DEBUG")
    ('INFO', 'DEBUG')
    """
    return "DEBUG" if level.upper() == "DEBUG" else "INFO"


class _TerminalHandler(logging.StreamHandler):
    """A stream handler that writes through `tqdm.write` when tqdm is installed, so a
    log line printed under a progress bar does not break it."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            from tqdm import tqdm
        except ImportError:  # pragma: no cover - tqdm is in the viz extra
            return super().emit(record)
        try:
            tqdm.write(self.format(record), file=self.stream)
        except Exception:  # noqa: BLE001 - logging must never raise
            self.handleError(record)


def setup_logging(level: str = "WARNING", stream: TextIO | None = None) -> logging.Handler:
    """Send the package's records at `level` and above to `stream` (stderr), one line
    each; replaces the handler an earlier call installed. Returns the handler."""
    level = level.upper()
    if level not in LEVELS:
        raise ValueError(f"--log-level must be one of {', '.join(LEVELS)}, got {level!r}")
    logger = logging.getLogger(LOGGER)
    for h in list(logger.handlers):
        if getattr(h, "_hyperskill_terminal", False):
            logger.removeHandler(h)
    handler = _TerminalHandler(stream or sys.stderr)
    handler._hyperskill_terminal = True  # type: ignore[attr-defined]
    handler.setLevel(level)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    _lower_logger_level(logger, level)
    return handler


def _lower_logger_level(logger: logging.Logger, level: str) -> None:
    want = logging.getLevelName(level)
    if logger.level == logging.NOTSET or logger.level > want:
        logger.setLevel(want)


class _RunFileHandler(logging.FileHandler):
    """A run log that never prints logging's own "--- Logging error ---" traceback: on a
    full disk the run's next write fails with one line of its own (cli/), so a log
    record that could not be written is dropped, and counted in `dropped`."""

    dropped = 0

    def _open(self):  # noqa: ANN202 - logging's own signature
        """The log opened for appending, never through a link (a run folder from someone
        else may hold ``run.log`` linking anywhere): one line naming it instead."""
        try:
            fd = os.open(self.baseFilename, os.O_WRONLY | os.O_APPEND | os.O_CREAT
                         | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise PermissionError(f"{self.baseFilename}: a link; a run's log is not "
                                      "written through a link (replace it by a file)") from None
            raise
        return os.fdopen(fd, "a", encoding=self.encoding, errors=self.errors)

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        self.dropped += 1

    def flush(self) -> None:
        try:
            super().flush()
        except OSError:
            self.dropped += 1

    def close(self) -> None:
        try:
            super().close()
        except OSError:
            self.dropped += 1


class _RunFilter(logging.Filter):
    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token

    def filter(self, record: logging.LogRecord) -> bool:
        return _RUN.get() == self.token


@contextmanager
def run_log(out: Path, level: str = "INFO") -> Iterator[Path]:
    """Append this run's records (`level` and above) to ``OUT/run.log`` while the block
    runs (the folder is created). Only records logged in this context (this thread, or
    code it calls) go to this file; nested or parallel runs each keep their own."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / RUN_LOG
    token = f"{path.resolve()}#{id(object())}"
    handler = _RunFileHandler(path, mode="a", encoding="utf-8", delay=False)
    handler.setLevel(level.upper())
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(_RunFilter(token))
    logger = logging.getLogger(LOGGER)
    with _lock:
        if _active[0] == 0:
            _saved_level[0] = logger.level
        _active[0] += 1
        _lower_logger_level(logger, level.upper())
        logger.addHandler(handler)
    reset = _RUN.set(token)
    try:
        yield path
    finally:
        _RUN.reset(reset)
        with _lock:
            logger.removeHandler(handler)
            _active[0] -= 1
            if _active[0] == 0 and not any(getattr(h, "_hyperskill_terminal", False)
                                           for h in logger.handlers):
                logger.setLevel(_saved_level[0])
        handler.close()
