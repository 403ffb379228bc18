"""Command line: ``python -m hyperskill_lite {run,check,demo,compare,sweep,report,inspect,
serve,export-skills,methods} ...``.

`run` drives one memory system over a task list — SkillWorld offline, or a live
OpenAI-compatible model (vLLM or a hosted API) on a benchmark file or a JSONL task
file — writing resumable episode records. `check` runs a live run's preflight against a
model server. `demo` runs the five core methods on one
SkillWorld profile. `compare` runs every registered method over several seeds. `sweep`
runs a grid of runs from a TOML file. `report` draws the figures and the summary of
existing run folders. `inspect` writes the memory studio, one HTML page of run folders.
`serve` serves a memory to any agent over MCP; `export-skills` writes its skills as Agent
Skills folders. `methods` lists the memory methods.

One module per command in this folder; this one builds the parser and runs a command
with one error style: a bad argument, or an error a command raises from what the user
gave it (a ValueError, a missing or foreign file, a run folder that cannot resume, a
model server that refuses), is one line ``error: ...`` on stderr and exit code 2; so is
a disk that cannot take the run's files (a full disk, a quota, permissions), whose line
says what was kept; Ctrl-C is one line that says what was kept and exit code 130.
``HYPERSKILL_TRACEBACK=1`` shows the traceback instead (for maintainers).

Imports: the command modules import the package's own modules at their top, since
``python -m hyperskill_lite`` has imported them with the package already (after
``_startup.py`` checked the required dependencies, so a missing one is still one line
before anything else). What only an extra provides stays inside the command that needs
it, marked ``# lazy:`` on the import (serve's MCP SDK; matplotlib, MiniLM and the OpenAI
client load inside the modules that use them): ``--help`` never loads it, and a missing
extra is one line naming it (``__main__.py``), not a traceback at start.

Not here: anything the commands do (launch.py, compare.py, sweep/, plots/).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading

from hyperskill_lite._startup import release
from hyperskill_lite.cli import check as check_cmd
from hyperskill_lite.cli import compare as compare_cmd
from hyperskill_lite.cli import demo as demo_cmd
from hyperskill_lite.cli import export_skills as export_skills_cmd
from hyperskill_lite.cli import inspect as inspect_cmd
from hyperskill_lite.cli import report as report_cmd
from hyperskill_lite.cli import run as run_cmd
from hyperskill_lite.cli import serve as serve_cmd
from hyperskill_lite.cli import sweep as sweep_cmd
from hyperskill_lite.cli.options import Parser, global_options
from hyperskill_lite.errors import CassetteMiss, LLMError
from hyperskill_lite.logs import setup_logging
from hyperskill_lite.methods.registry import registered
from hyperskill_lite.runner.episode import is_storage_error
from hyperskill_lite.runner.files import RunError, StorageError
from hyperskill_lite.runner.inflight import clear_all_inflight, resume_inflight_marking

__all__ = ["main", "build_parser", "version"]


def version() -> str:
    """The installed package's version (pyproject.toml is its one source)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _version

    try:
        return _version("hyperskill_lite")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="python -m hyperskill_lite", parents=[global_options(top=True)],
        description="HyperSkill hypergraph skill memory: offline SkillWorld runs, live runs "
        "against an OpenAI-compatible model, comparisons, sweeps and reports.",
    )
    p.add_argument("--version", action="version", version=f"hyperskill_lite {version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND",
                           parser_class=Parser)
    parents = [global_options(top=False)]
    for module in (run_cmd, check_cmd, demo_cmd, compare_cmd, sweep_cmd, report_cmd,
                   inspect_cmd, serve_cmd, export_skills_cmd):
        module.add_parser(sub, parents)
    m = sub.add_parser("methods", parents=parents, help="list the memory methods")
    m.set_defaults(handler=cmd_methods)
    return p


def cmd_methods(args: argparse.Namespace) -> int:
    specs = registered()  # the package's, then those installed distributions add
    width = max(len(s.name) for s in specs)
    for s in specs:
        where = "" if s.source == "hyperskill_lite" else f" [plugin: {s.source}]"
        print(f"{s.name:<{width}}  {s.description}{where}")
    return 0


def _user_errors() -> tuple[type[BaseException], ...]:
    """What a command raises from the user's input or environment (one error line)."""
    # ValueError covers BenchmarkDataError, MemoryFormatError, SweepError and bad settings
    return (ValueError, RunError, LLMError, CassetteMiss, FileNotFoundError, FileExistsError,
            NotADirectoryError, IsADirectoryError, PermissionError)


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    traceback = os.environ.get("HYPERSKILL_TRACEBACK", "") not in ("", "0")
    args: argparse.Namespace | None = None
    try:
        release()  # from here on Ctrl-C is a KeyboardInterrupt, answered below
        args = build_parser().parse_args(argv)
        if getattr(args, "no_cache", False):
            os.environ["HYPERSKILL_CACHE"] = "off"
        setup_logging(getattr(args, "log_level", "WARNING"))
        return args.handler(args)
    except BrokenPipeError:  # `... | head`: the reader left; say nothing more
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - Python flushes stdout at exit
        return 0
    except KeyboardInterrupt:
        if traceback:
            raise
        return _interrupted(args)
    except (*_user_errors(), OSError, MemoryError) as exc:
        if traceback:
            raise
        return _error_line(exc, args)


def _interrupted(args: argparse.Namespace | None) -> int:
    """Ctrl-C: one line that says what was kept, exit code 130. No episode running now
    counts as a crash (runner/files.py); runs in threads of this process (live sweep
    cells) are left as a kill would leave them, which their folders survive, instead of
    waiting for their episodes to end."""
    clear_all_inflight()
    on_interrupt = getattr(args, "on_interrupt", None)
    print(on_interrupt(args) if on_interrupt else "interrupted; nothing was written",
          file=sys.stderr)
    if any(t.is_alive() and not t.daemon for t in threading.enumerate()
           if t is not threading.main_thread()):
        clear_all_inflight()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    resume_inflight_marking()  # no thread of the command is left to write one
    return 130


def _error_line(exc: BaseException, args: argparse.Namespace | None) -> int:
    """Print the one ``error:`` line of a failed command; its exit code (2, or 1 for
    running out of memory outside an episode). A storage failure (full disk, quota,
    permissions) says what the command kept."""
    if isinstance(exc, MemoryError):
        print(f"error: out of memory outside any episode; {_kept(args)}", file=sys.stderr)
        return 1
    line = _one_line(exc)
    if is_storage_error(exc) and not isinstance(exc, StorageError):
        line += f"; {_kept(args)}"
    print(f"error: {line}", file=sys.stderr)
    return 2


def _kept(args: argparse.Namespace | None) -> str:
    """What the command keeps after a failure (its `on_storage` hook), and what to do."""
    on_storage = getattr(args, "on_storage", None)
    kept = on_storage(args) if on_storage else "nothing the command wrote was removed"
    return f"{kept}; free some space (or fix the permissions) and rerun the same command"


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and str(exc).startswith("[Errno"):
        text = exc.strerror  # "[Errno 28] No space left on device: 'x'" -> the words
        if exc.filename:
            text = f"{exc.filename}: {text}"
        return " ".join(text.split())
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, FileNotFoundError | FileExistsError | PermissionError) and exc.filename:
        if str(exc.filename) not in text:
            text = f"{exc.filename}: {text}"
    return text
