"""``python -m hyperskill_lite compare``: every method on one SkillWorld profile over
several seeds and task orders, as a Table-1-style table with paired confidence intervals
(compare.py), under the paper's evaluation protocol or another (protocol_options.py).

Not here: the comparison itself (compare.py), the statistics (stats.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from hyperskill_lite.cli import protocol_options
from hyperskill_lite.cli.options import at_least_0, at_least_1, method_name
from hyperskill_lite.compare import DEFAULT_METHODS, compare
from hyperskill_lite.core.embed import ENCODERS
from hyperskill_lite.runner.files import kept
from hyperskill_lite.world.generator import PROFILES
from hyperskill_lite.world.params import PHRASINGS

__all__ = ["add_parser", "command"]


def add_parser(sub, parents) -> argparse.ArgumentParser:
    c = sub.add_parser("compare", parents=parents,
                       help="every method on one SkillWorld profile over several seeds",
                       description="Every method on one SkillWorld profile over several "
                       "world seeds and task orders: SR, #Steps, #Calls and tokens as mean "
                       "± sd with deltas against no-memory, then each method's SR "
                       "difference to no-memory (and to --reference) paired by task, with "
                       "a bootstrap 95 % confidence interval (an offline simulation, not "
                       "the paper's numbers).")
    c.add_argument("--profile", choices=PROFILES, default="gaia")
    c.add_argument("--episodes", type=at_least_1, default=40,
                   help="tasks per run, the first ones in the run's task order")
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
    c.add_argument("--reference", type=method_name, default=None,
                   help="also give every method's paired SR difference to this one "
                   "(it is added to --methods)")
    c.add_argument("--stats-seed", type=at_least_0, default=0,
                   help="seed of the bootstrap's random generator")
    protocol_options.add_arguments(c.add_argument_group("evaluation protocol"),
                                   several_orders=True)
    c.add_argument("--out", type=Path, default=None,
                   help="keep the runs here (resumable; default: a temporary folder)")
    c.add_argument("--jobs", type=at_least_1, default=None,
                   help="worker processes for the (method, seed, order) cells (default: one per "
                   "core); the table is identical to --jobs 1")
    c.set_defaults(handler=command, on_interrupt=interrupted, on_storage=failed_storage)
    return c


def command(args: argparse.Namespace) -> int:
    methods = args.methods
    if args.reference is not None:
        methods = list(dict.fromkeys([*(methods or DEFAULT_METHODS), args.reference]))
    table, _ = compare(args.profile, args.episodes, args.seeds, methods=methods,
                       encoder=args.encoder, out=args.out, log=print, phrasing=args.phrasing,
                       jobs=args.jobs, judge=args.judge, orders=args.order_seeds,
                       protocol=protocol_options.settings_from_args(args),
                       reference=args.reference, stats_seed=args.stats_seed)
    print()
    print(table)
    if args.out is not None:
        print(f"runs, compare.json and table.txt in {args.out}")
    return 0


def _finished(out: Path) -> int:
    """Finished episodes under a comparison's folder (``PROFILE/METHOD/RUN``), read
    without following what a running cell is renaming."""
    n = 0
    for run in out.glob("*/*/*"):
        try:
            n += max(kept(run)[0], kept(run)[1] or 0)
        except OSError:
            continue
    return n


def interrupted(args: argparse.Namespace) -> str:
    if args.out is None:
        return ("interrupted: nothing was kept (without --out the runs live in a temporary "
                "folder); give --out DIR to make a comparison resumable")
    return f"interrupted: {_kept(args)}"


def _kept(args: argparse.Namespace) -> str:
    out = Path(args.out)
    if not out.is_dir():
        return f"nothing was written yet ({out} was not created)"
    n = _finished(out)
    if n == 0:
        return f"{out} holds no finished episode yet"
    return (f"{out} keeps every finished episode ({n} in all); rerun the same command to "
            "resume")


def failed_storage(args: argparse.Namespace) -> str:
    """What a comparison whose disk failed keeps (for the CLI's OSError line)."""
    return "nothing was kept (no --out)" if args.out is None else _kept(args)
