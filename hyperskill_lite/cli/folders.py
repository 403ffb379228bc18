"""Output folders the CLI creates: claimed with a marker file, never taken from the user.

A command that writes several files into a folder (the demo's runs, a report's figures)
first claims it: a missing or empty folder is created and marked with the command's
marker file; a folder that already carries that marker is the command's own and is
written into again; anything else (a file, or a non-empty folder without the marker) is
refused with one line and nothing in it is touched. Nothing here deletes anything.

Not here: run folders (runner/files.py has their own rule: a folder holding another run
is refused), saved memories (core/io/).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hyperskill_lite.core.confined import inside, make_dirs, write_text

__all__ = ["claim_folder"]


def claim_folder(out: Path, marker: str, what: str, fmt: str, settings: dict[str, Any],
                 root: Path | None = None) -> None:
    """Make `out` a folder of `what` (marked by the file `marker`), or check it is one,
    inside the folder `root` (default: `out` itself), without following a link out of
    it (core/confined.py: `LinkOutside` names such a link).

    Raises FileExistsError naming `out` when it is a file, or a non-empty folder without
    `marker`; nothing is written or removed then.

    >>> import tempfile; root = Path(tempfile.mkdtemp())
    >>> (root / "mine.txt").write_text("user data")
    9
    >>> claim_folder(root, "demo.json", "demo output folder", "x/1", {})
    Traceback (most recent call last):
    ...
    FileExistsError: ...: exists and is not a demo output folder; refusing to write into it (choose another --out)
    """
    out = Path(out)
    root = out if root is None else Path(root)
    inside(root, out / marker)  # the folder and its marker lead nowhere else
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"{out}: exists and is not a folder; refusing to replace it "
                              "(choose another --out)")
    if out.is_dir() and any(out.iterdir()) and not (out / marker).is_file():
        raise FileExistsError(f"{out}: exists and is not a {what}; refusing to write into it "
                              "(choose another --out)")
    if root == out:
        out.mkdir(parents=True, exist_ok=True)
    make_dirs(root, out)
    if not (out / marker).is_file():
        write_text(root, out / marker, json.dumps({"format": fmt, **settings}, indent=1,
                                                  sort_keys=True, default=str) + "\n")
