"""``python -m hyperskill_lite demo``: the five core methods on one SkillWorld profile.

HyperSkill, its three ablations and no memory run on the same tasks, world and simulated
model (MiniLM by default); the command prints a Table-1-style summary that says it is a
simulation, and draws the cumulative-SR and memory-growth figures.

Its output folder (``--out``, default ``runs/demo``) holds one resumable run per method
and ``demo.json``, which marks the folder as the demo's: a second demo with the same
settings finds the runs complete and prints the same table; a folder that exists, is not
empty and is not a demo folder is refused, and nothing in it is touched. Figures go to
``OUT/figures/`` unless ``--figures DIR`` names another folder.

Not here: the runs (launch.py, runner/), the figures (plots/runs.py).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from hyperskill_lite.cli.folders import claim_folder
from hyperskill_lite.cli.options import at_least_1
from hyperskill_lite.core.embed import ENCODERS, encoder_by_name
from hyperskill_lite.launch import RunSpec, execute, prepare
from hyperskill_lite.methods import CORE_METHODS
from hyperskill_lite.plots.runs import demo_figures
from hyperskill_lite.runner.summary import summarize, summary_table
from hyperskill_lite.world.generator import PROFILES
from hyperskill_lite.world.params import PHRASINGS

__all__ = ["add_parser", "command", "DEMO_FILE"]

DEMO_FILE = "demo.json"
DEMO_FORMAT = "hyperskill_lite.demo/1"


def add_parser(sub, parents) -> argparse.ArgumentParser:
    d = sub.add_parser("demo", parents=parents,
                       help="the five core methods on one SkillWorld profile (offline)",
                       description=__doc__.split("\n\n")[1])
    d.add_argument("--profile", choices=PROFILES, default="gaia")
    d.add_argument("--episodes", type=at_least_1, default=None,
                   help="tasks per method (default: the whole profile)")
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--phrasing", choices=PHRASINGS, default="calibrated",
                   help="SimLLM's text model (WorldParams.phrasing)")
    d.add_argument("--encoder", choices=ENCODERS, default="minilm")
    d.add_argument("--out", type=Path, default=Path("runs/demo"),
                   help="the demo's folder (created; rerun to resume)")
    d.add_argument("--figures", type=Path, default=None,
                   help="where the figures go (default: OUT/figures)")
    d.set_defaults(handler=command, on_interrupt=interrupted)
    return d


def command(args: argparse.Namespace) -> int:
    t_start = time.perf_counter()
    settings = {"profile": args.profile, "episodes": args.episodes, "seed": args.seed,
                "phrasing": args.phrasing, "encoder": args.encoder}
    claim_folder(args.out, DEMO_FILE, "demo output folder", DEMO_FORMAT, settings)
    print(f"{args.out}: the demo's runs (rerun to resume)")
    rows, all_records = {}, {}
    for name in CORE_METHODS:
        spec = RunSpec(out=args.out / name, method=name, seed=args.seed, episodes=args.episodes,
                       encoder=args.encoder, progress=False, profile=args.profile,
                       phrasing=args.phrasing)
        encoder_by_name(args.encoder).clear_cache()  # each method pays for its own "mem ms"
        parts = prepare(spec)
        all_records[name] = execute(parts)
        rows[name] = summarize(all_records[name])
        print(f"  {name:<26} done ({len(parts.tasks)} episodes)", flush=True)
    print()
    print(f"SkillWorld '{args.profile}' profile, seed {args.seed}, encoder {args.encoder}, "
          f"{args.phrasing} phrasing (offline simulation: these are NOT the paper's numbers)")
    print(summary_table(rows))
    figures = args.figures if args.figures is not None else args.out / "figures"
    for p in demo_figures(all_records, figures, title=f"SkillWorld {args.profile}"):
        print(f"wrote {p}")
    (args.out / "summary.json").write_text(json.dumps(rows, indent=1) + "\n")
    print(f"total {time.perf_counter() - t_start:.1f} s")
    return 0


def interrupted(args: argparse.Namespace) -> str:
    return (f"interrupted: {args.out} keeps every finished episode; rerun the same command "
            "to resume")
