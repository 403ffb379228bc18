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

`find_submissions(folder)` lists a folder's submissions (``*.py``, sorted; names starting
with ``_`` or ``.`` left out). `scan_submission(path)` reads one without running it and
returns the flags a teacher should see (network, processes, ctypes, ``sys.modules``,
SkillWorld's internals, which a method must not read: its score would then say nothing
about the method).

Not here: running it (remote.py, child.py).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

__all__ = ["MAX_BYTES", "STUDENT_ID", "find_submissions", "scan_submission"]

MAX_BYTES = 1_000_000
STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")
_WORLD = ("hyperskill_lite.world", "hyperskill_lite.bench", "hyperskill_lite.runner",
          "hyperskill_lite.course", "hyperskill_lite.launch", "hyperskill_lite.compare")
_LOW = {"socket", "subprocess", "ctypes", "multiprocessing", "urllib", "http", "requests",
        "httpx", "importlib", "pty", "signal", "shutil", "pickle", "marshal", "gc", "inspect"}


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
