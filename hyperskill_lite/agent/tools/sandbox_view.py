"""What of the interpreter's installation the python tool's code sees, in both sandboxes:
`python_view` (what it needs to start and import, put in place read-only) and
`python_roots` (the installations' own folders, hidden in process mode).

A venv's root holds more than the interpreter needs: a ``pip.conf`` with an index
credential, a ``.env``, its ``bin/`` scripts. Bubblewrap binds only `python_view` (no
whole prefix); process mode covers every root of `python_roots` with an empty tmpfs and
puts `python_view` back (sandbox_supervisor.py). Neither shows a project folder that a
``.pth`` file or the current folder puts on ``sys.path``.

Not here: the sandboxes themselves (sandbox.py, sandbox_supervisor.py).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["python_view", "python_roots", "SYSTEM_DIRS"]

SYSTEM_DIRS = (Path("/usr"), Path("/etc"))
"""System folders the bubblewrap sandbox binds whole (read-only)."""


def _outside_system(p: Path) -> bool:
    return not any(p == s or s in p.parents for s in SYSTEM_DIRS) and p != Path("/")


def python_view() -> list[tuple[str, Path, str]]:
    """What the interpreter needs to start and import, outside the system folders, as
    ``(kind, path, link target)`` entries in the order to recreate them: "link" (a
    symbolic link to recreate, e.g. a venv's ``bin/python``), "file" (the real
    executable, a venv's ``pyvenv.cfg``) and "dir" (the standard library, its shared
    library folder, site-packages and every site-packages folder on ``sys.path``).
    Nothing else of an installation: not a venv's other root files (``pip.conf``,
    ``.env``), its ``bin/`` scripts, nor a project folder a ``.pth`` file or the current
    folder puts on ``sys.path``."""
    import sysconfig

    entries: dict[Path, tuple[str, Path, str]] = {}
    exe = Path(sys.executable).absolute()
    for _ in range(40):  # the executable's chain of links, then the file
        if not os.path.islink(exe):
            break
        target = os.readlink(exe)
        if _outside_system(exe):
            entries.setdefault(exe, ("link", exe, target))
        exe = (exe.parent / target).absolute()
    exe = Path(os.path.realpath(exe))
    if _outside_system(exe):
        entries.setdefault(exe, ("file", exe, ""))
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}:
        cfg = Path(prefix) / "pyvenv.cfg"
        if cfg.is_file() and _outside_system(cfg.absolute()):
            entries.setdefault(cfg.absolute(), ("file", cfg.absolute(), ""))
    dirs = {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    dirs.add(sysconfig.get_config_var("LIBDIR"))
    dirs.update(p for p in sys.path if p and Path(p).name in ("site-packages", "dist-packages"))
    real_dirs = sorted({Path(os.path.realpath(d)) for d in dirs if d and os.path.isdir(d)},
                       key=lambda p: len(p.parts))
    kept: list[Path] = []
    for d in real_dirs:
        if _outside_system(d) and not any(k == d or k in d.parents for k in kept):
            kept.append(d)
    for d in kept:
        entries.setdefault(d, ("dir", d, ""))
    return sorted(entries.values(), key=lambda e: (len(e[1].parts), str(e[1])))


def python_roots() -> list[Path]:
    """The installations' own folders outside the system folders (a venv's root, the
    base installation's prefix): the process sandbox covers them, `python_view` put back."""
    out: list[Path] = []
    for prefix in sorted({sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}):
        p = Path(os.path.realpath(prefix))
        if _outside_system(p) and p not in out:
            out.append(p)
    return out
