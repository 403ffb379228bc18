"""``python -m hyperskill_lite sweep FILE``: a grid of runs from a TOML file on a local
process pool or on Ray (sweep/). Exit code 1 when a cell failed (a rerun retries it), 3
when every cell finished but some with errored episodes (recorded as failures, never
replayed), 130 on Ctrl-C.

Not here: the grid, its execution and its results (sweep/).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hyperskill_lite.cli.options import at_least_1
from hyperskill_lite.cli.run import EXIT_ERRORED
from hyperskill_lite.runner.files import check_out_folder
from hyperskill_lite.sweep import run_sweep

__all__ = ["add_parser", "command"]


def add_parser(sub, parents) -> argparse.ArgumentParser:
    sw = sub.add_parser("sweep", parents=parents,
                        help="a grid of runs from a TOML file, on a local pool or Ray",
                        description="A grid of runs from a TOML file (see "
                        "data/sweeps/example.toml); a rerun skips finished cells and resumes "
                        "unfinished ones.")
    sw.add_argument("file", type=Path, help="the sweep file (see data/sweeps/example.toml)")
    sw.add_argument("--executor", choices=["local", "ray"], default="local")
    sw.add_argument("--address", default=None,
                    help="Ray cluster to join ('auto' or ray://host:port); default: a local Ray")
    sw.add_argument("--jobs", type=at_least_1, default=None,
                    help="cells at once: live cells run as threads (64 streams against one "
                    "server are fine), SkillWorld cells as processes (default: the number of "
                    "cores, or for live cells only the backbones' max_concurrent summed)")
    sw.add_argument("--out", type=Path, default=None,
                    help="output folder (default: runs/sweeps/<file stem>)")
    sw.set_defaults(handler=command, on_interrupt=interrupted, on_storage=_kept)
    return sw


def _out(args: argparse.Namespace) -> Path:
    return args.out or Path("runs") / "sweeps" / args.file.stem


def command(args: argparse.Namespace) -> int:
    out = _out(args)
    check_out_folder(out)
    results, paths = run_sweep(args.file, out, executor=args.executor, jobs=args.jobs,
                               address=args.address, log=print)
    failed = [r for r in results if r.status == "failed"]
    print()
    print(paths["markdown"].read_text())
    for name in ("csv", "markdown", "failures", "cells"):
        print(f"wrote {paths[name]}")
    print(f"figures in {out / 'figures'}")
    errored = [r for r in results if r.status in ("done", "skipped") and r.error]
    if failed:
        print(f"{len(failed)} of {len(results)} cell(s) failed (see {paths['failures']}); "
              "rerun the same command to retry them", file=sys.stderr)
        return 1
    if errored:
        print(f"error: {len(errored)} of {len(results)} cell(s) finished with errored "
              f"episodes, counted as failures and not replayed (see {paths['failures']})",
              file=sys.stderr)
        return EXIT_ERRORED
    return 0


def _kept(args: argparse.Namespace) -> str:
    out = _out(args)
    if not out.is_dir():
        return f"nothing was written yet ({out} was not created)"
    return (f"finished cells and episodes are kept in {out}; rerun the same command to "
            "complete the sweep")


def interrupted(args: argparse.Namespace) -> str:
    return f"interrupted: {_kept(args)}"
