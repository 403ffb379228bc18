"""``python -m hyperskill_lite export-skills DIR --to OUT``: a memory's skills as Agent
Skills folders (one ``SKILL.md`` each), ready for a client that loads skills from a
folder.

DIR is a memory folder (a served one: its journal's updates are included), or a run
folder (its saved state's memory). Skills are ranked by utility (Eq. 3) and filtered
with ``--min-utility`` and ``--top``. Nothing in OUT that this command did not write is
overwritten. Read the skills before you install them: an agent follows them. Neither DIR
nor OUT is read or written through a link leading out of it (core/confined.py): such a
link is one ``error:`` line naming it.

Not here: the file format (serve/agent_skills.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from hyperskill_lite.cli.options import at_least_1, fraction
from hyperskill_lite.core.confined import check_tree
from hyperskill_lite.serve.agent_skills import export_skills
from hyperskill_lite.serve.bounds import SCOPE_PATTERN
from hyperskill_lite.serve.scopes import scope_folder
from hyperskill_lite.serve.shared import SharedMemory

__all__ = ["add_parser", "command", "memory_folder"]


def add_parser(sub, parents) -> argparse.ArgumentParser:
    e = sub.add_parser("export-skills", parents=parents,
                       help="write a memory's skills as Agent Skills folders (SKILL.md)",
                       description=__doc__.split("\n\n")[1])
    e.add_argument("memory", type=Path, metavar="DIR",
                   help="a memory folder (e.g. one `serve --memory` keeps), or a run folder")
    e.add_argument("--to", type=Path, required=True, metavar="OUT",
                   help="the skills folder to write into (made when missing)")
    e.add_argument("--min-utility", type=fraction, default=0.0,
                   help="leave out skills whose utility gamma (Eq. 3) is below this")
    e.add_argument("--top", type=at_least_1, default=None,
                   help="export only the N skills of highest utility")
    e.add_argument("--polarity", choices=["all", "success", "failure"], default="all",
                   help="strategies (success), mistakes to avoid (failure) or both")
    e.add_argument("--scope", default=None,
                   help="export this scope of a served folder (DIR.scopes/SCOPE) instead")
    e.set_defaults(handler=command)
    return e


def memory_folder(path: Path) -> Path:
    """The memory folder `path` names: itself, or a run folder's ``state/memory``."""
    if (path / "manifest.json").is_file():
        return path
    for candidate in (path / "state" / "memory", path / "memory"):
        if (candidate / "manifest.json").is_file():
            return candidate
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such folder")
    raise ValueError(f"{path}: not a saved memory (no manifest.json) nor a run folder; give "
                     "the folder `serve --memory` uses, or a run's folder")


def command(args: argparse.Namespace) -> int:
    folder = memory_folder(args.memory)
    if args.scope is not None:
        if not SCOPE_PATTERN.match(args.scope):
            raise ValueError(f"--scope {args.scope!r}: not a scope label (lowercase letters, "
                             "digits, _ . -)")
        folder = scope_folder(folder, args.scope)
        if not (folder / "manifest.json").is_file():
            raise FileNotFoundError(f"{folder}: no scope {args.scope!r} in this folder")
        check_tree(folder)  # the scope's memory read: nothing through a link leading out
    else:
        check_tree(args.memory, folder)  # the memory read: nothing through a link leading out
    if args.to.is_dir():
        check_tree(args.to)  # the export target: nothing written through one either
    shared = SharedMemory(folder, readonly=True)
    polarity = None if args.polarity == "all" else args.polarity
    report = export_skills(shared.memory, args.to, memory_name=folder.name,
                           min_utility=args.min_utility, top=args.top, polarity=polarity)
    print(f"{folder}: {report.selected} of {report.total} skills selected; "
          f"{len(report.written)} written to {report.out}")
    for name, why in report.skipped:
        print(f"  skipped {name}: {why}")
    if report.stale:
        print(f"  {len(report.stale)} folder(s) from an earlier export are no longer selected "
              f"and were left in place: {', '.join(report.stale[:5])}"
              f"{' ...' if len(report.stale) > 5 else ''}")
    return 0
