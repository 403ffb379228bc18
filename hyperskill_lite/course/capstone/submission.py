"""What a capstone submission is, and what a first look at it finds.

**The format.** One Python file per student, named after the student: ``<id>.py``,
where ``<id>`` (the leaderboard's "student" column) is letters, digits, ``-``, ``_`` or
``.``. The file defines the method as docs/guide/extending.md shows, and names its
`MethodSpec`::

    from hyperskill_lite.methods import MethodSpec
    ...
    SPEC = MethodSpec(name="my-memory", group="plugin", description="one line",
                      factory=lambda ops, encoder, config: MyMemory(ops, encoder))

(or a function ``spec()`` returning one; it need not register it). The factory gets
SkillWorld's simulated model's four operations (``decompose``, ``extract``, ``merge``,
``judge``: the `MemoryLLM` protocol) as `ops`, or what the spec's ``simulated_ops`` builds
over them; the encoder the ranking uses (``hashing`` by default) and the default
`HyperSkillConfig`. The file may import numpy, scipy and the library (its core, types and
methods: to build on HyperSkill's own memory, say). It runs with no network, no files but
a private ``/tmp``, bounded memory and time (remote.py), and each model operation is
answered only for the task in hand.

**From the notebook.** The capstone notebook (notebooks/11_capstone.ipynb) has the student
write the method in one cell and `write_submission(SPEC, path)` writes that whole cell, as
IPython keeps it, to the submission file, so what the notebook compares is what is handed
in. It never writes over a file the student made or edited: a file already there is
replaced only when it is one this function wrote and nobody changed since (its first line
carries the digest of the rest); otherwise it raises `FileExistsError` with one line and
writes nothing.

`find_submissions(folder)` lists a folder's submissions (``*.py``, sorted; names starting
with ``_`` or ``.`` left out). `scan_submission(path)` reads one without running it and
returns the flags a teacher should see (network, processes, ctypes, ``sys.modules``,
SkillWorld's internals, which a method must not read: its score would then say nothing
about the method).

Not here: running it (remote.py, child.py).
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from hyperskill_lite.course.contained import cell_source

__all__ = ["MAX_BYTES", "STUDENT_ID", "WRITTEN_BY", "find_submissions", "scan_submission",
           "write_submission"]

MAX_BYTES = 1_000_000
STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")
_WORLD = ("hyperskill_lite.world", "hyperskill_lite.bench", "hyperskill_lite.runner",
          "hyperskill_lite.course", "hyperskill_lite.launch", "hyperskill_lite.compare")
_LOW = {"socket", "subprocess", "ctypes", "multiprocessing", "urllib", "http", "requests",
        "httpx", "importlib", "pty", "signal", "shutil", "pickle", "marshal", "gc", "inspect"}


WRITTEN_BY = ("# written by the capstone notebook from its method cell (sha256 {digest}); "
              "edit the cell and run it again rather than this file")
"""The first line of a file `write_submission` wrote: the digest names the rest."""
_WRITTEN = re.compile(r"^# written by the capstone notebook from its method cell "
                      r"\(sha256 ([0-9a-f]{16})\)")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _cell_text(source: Any) -> str:
    """The text of the cell that defined `source` (module docstring), or `source` itself
    when it is text."""
    if isinstance(source, str):
        return source
    fn = getattr(source, "factory", source)  # a MethodSpec: its factory, defined in the cell
    if not hasattr(fn, "__code__") and isinstance(fn, type):
        fn = next((v for v in vars(fn).values() if hasattr(v, "__code__")), None)
    if fn is None or not hasattr(fn, "__code__"):
        raise TypeError(f"write_submission needs the cell's text, or a MethodSpec, class or "
                        f"function defined in it, not {type(source).__name__}")
    return cell_source(fn)


def write_submission(source: Any, path: Path) -> Path:
    """Write capstone submission file `path` from the notebook's method cell (`source`:
    its text, or its `MethodSpec`, a class or a function it defines), never over a file
    the student wrote or edited (module docstring). Returns `path`.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> p = write_submission("SPEC = None\\n", folder / "ada.py")
    >>> p.read_text().splitlines()[1], write_submission("SPEC = 1\\n", p) == p
    ('SPEC = None', True)
    >>> _ = p.write_text(p.read_text() + "# my own edit\\n")
    >>> write_submission("SPEC = 2\\n", p)
    Traceback (most recent call last):
    ...
    FileExistsError: ...ada.py was changed since the notebook wrote it ...
    """
    path = Path(path)
    body = _cell_text(source).strip("\n") + "\n"
    if path.exists():
        try:
            first, _, rest = path.read_text(encoding="utf-8").partition("\n")
        except (OSError, UnicodeDecodeError):
            first, rest = "", ""
        mark = _WRITTEN.match(first)
        if mark is None or _digest(rest) != mark.group(1):
            raise FileExistsError(
                f"{path} was changed since the notebook wrote it (or the notebook never wrote "
                "it); nothing was written: copy your changes into the method cell and move "
                "the file away, or name another file")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(WRITTEN_BY.format(digest=_digest(body)) + "\n" + body)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def find_submissions(folder: Path) -> list[Path]:
    """The submission files of a folder, sorted by name."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such folder of submissions")
    return sorted(p for p in folder.glob("*.py")
                  if p.is_file() and not p.name.startswith(("_", ".")))


def scan_submission(path: Path) -> list[str]:
    """Flags for a submission file, read as text and syntax (module docstring)."""
    path = Path(path)
    flags = []
    if not STUDENT_ID.match(path.stem):
        flags.append(f"the file name {path.stem[:40]!r} is not a plain student id")
    size = path.stat().st_size
    if size > MAX_BYTES:
        return flags + [f"the file is {size} bytes (more than {MAX_BYTES}); not read"]
    text = path.read_bytes().decode("utf-8", "replace")
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError) as e:
        return flags + [f"it does not parse ({type(e).__name__})"]
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        for name in names:
            if name.startswith(_WORLD):
                found.append(f"imports {name} (SkillWorld's or the grader's internals)")
            elif name.split(".")[0] in _LOW:
                found.append(f"imports {name}")
        if isinstance(node, ast.Attribute) and node.attr in ("modules", "_getframe", "system",
                                                            "popen", "fork", "environ"):
            found.append(f"uses .{node.attr}")
        if isinstance(node, ast.Name) and node.id in ("exec", "eval", "compile", "__import__",
                                                      "open", "globals", "breakpoint"):
            found.append(f"calls {node.id}")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and ("skillworld" in node.value.lower() or "latent" in node.value.lower()):
            found.append("names SkillWorld's hidden metadata")
    return flags + list(dict.fromkeys(found))
