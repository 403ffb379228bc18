"""``python -m hyperskill_lite compare``: every method on one SkillWorld profile over
several seeds, as a Table-1-style table (compare.py).

Not here: the comparison itself (compare.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from hyperskill_lite.cli.options import at_least_1, method_name
from hyperskill_lite.launch import ENCODERS, PHRASINGS, PROFILES

__all__ = ["add_parser", "command"]


def add_parser(sub, parents) -> argparse.ArgumentParser:
    c = sub.add_parser("compare", parents=parents,
                       help="every method on one SkillWorld profile over several seeds",
                       description="Every method on one SkillWorld profile over several "
                       "world seeds: SR, #Steps, #Calls and tokens as mean ± sd over seeds "
                       "with deltas against no-memory (an offline simulation, not the "
                       "paper's numbers).")
    c.add_argument("--profile", choices=PROFILES, default="gaia")
    c.add_argument("--episodes", type=at_least_1, default=40,
                   help="tasks per run, the first ones in the fixed seed-42 order")
    c.add_argument("--seeds", type=at_least_1, default=3, help="world seeds 0..K-1")
    c.add_argument("--phrasing", choices=PHRASINGS, default="calibrated",
                   help="SimLLM's text model (WorldParams.phrasing)")
    c.add_argument("--methods", nargs="+", type=method_name, default=None,
                   help="default: no-memory, hyperskill and the ten baselines (the paper's "
                   "Table 1; `methods` lists the variants too)")
    c.add_argument("--encoder", choices=ENCODERS, default="minilm")
    c.add_argument("--judge", choices=["gt", "self"], default="gt",
                   help="what the memories learn from: the world's truth (gt) or the simulated "
                   "self-judge; SR is scored by the truth either way")
    c.add_argument("--out", type=Path, default=None,
                   help="keep the runs here (resumable; default: a temporary folder)")
    c.add_argument("--jobs", type=at_least_1, default=None,
                   help="worker processes for the (method, seed) cells (default: one per "
                   "core); the table is identical to --jobs 1")
    c.set_defaults(handler=command, on_interrupt=interrupted)
    return c


def command(args: argparse.Namespace) -> int:
    from hyperskill_lite.compare import compare

    table, _ = compare(args.profile, args.episodes, args.seeds, methods=args.methods,
                       encoder=args.encoder, out=args.out, log=print, phrasing=args.phrasing,
                       jobs=args.jobs, judge=args.judge)
    print()
    print(table)
    if args.out is not None:
        print(f"runs, compare.json and table.txt in {args.out}")
    return 0


def interrupted(args: argparse.Namespace) -> str:
    if args.out is None:
        return ("interrupted: nothing was kept (without --out the runs live in a temporary "
                "folder); give --out DIR to make a comparison resumable")
    return (f"interrupted: {args.out} keeps every finished episode; rerun the same command "
            "to resume")
