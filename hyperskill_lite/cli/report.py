"""``python -m hyperskill_lite report RUN_DIR [RUN_DIR ...]``: figures and the summary of
existing run folders, without running anything.

It reads each run's ``episodes.jsonl`` and ``run.json`` and writes, into ``--out``
(default: ``RUN_DIR/figures`` for one run; ``report/`` beside the runs for several),
``cumulative_sr.png`` (one line per run), ``memory_growth.png`` (one panel per run),
``maintenance.png`` (pruned and merged over time) and ``summary.txt`` (the Table-1-style
summary and one line of memory health per run: inserted, deduplicated, merged, pruned,
how often retrieval was non-empty; printed too). A demo, compare or sweep folder stands
for every run inside it (``report runs/demo``; ``runs/demo/*`` works too, its files and
figures skipped). Runs are named by their method, with the profile or benchmark and seed
added where the names would otherwise repeat.

Run folders are read, and the report written, without following a link out of them
(core/confined.py): a ``figures/summary.txt`` that links to a file elsewhere is one
``error:`` line naming it, and nothing outside changes. A big run's records are read in
bounded memory (studio/table.py).

Not here: the figures (plots/), reading records (runner/, studio/runs.py).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from hyperskill_lite.cli.folders import claim_folder
from hyperskill_lite.core.confined import inside, write_bytes, write_text
from hyperskill_lite.plots.runs import report_figures
from hyperskill_lite.protocol import EvalProtocol
from hyperskill_lite.runner.health import memory_health
from hyperskill_lite.runner.summary import summarize, summary_table
from hyperskill_lite.studio.records import evaluated
from hyperskill_lite.studio.runs import expand_runs, read_run, run_names

__all__ = ["add_parser", "command"]

REPORT_FILE = "report.json"
REPORT_FORMAT = "hyperskill_lite.report/1"
OUTPUTS = (REPORT_FILE, "summary.txt", "cumulative_sr.png", "memory_growth.png",
           "maintenance.png")
"""The files `report` writes into its folder."""


def add_parser(sub, parents) -> argparse.ArgumentParser:
    r = sub.add_parser("report", parents=parents,
                       help="figures and the summary table of existing run folders",
                       description=__doc__.split("\n\n")[1])
    r.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR",
                   help="run folders written by `run`, or a `demo`, `compare --out` or "
                   "`sweep` folder (every run inside it)")
    r.add_argument("--out", type=Path, default=None,
                   help="where the figures go (default: RUN_DIR/figures for one run, "
                   "report/ beside the runs for several)")
    r.add_argument("--title", default="", help="a title prefix for the figures")
    r.set_defaults(handler=command)
    return r


def command(args: argparse.Namespace) -> int:
    folders = expand_runs(args.runs)
    if args.out is not None:
        out, root = args.out, args.out
    elif len(folders) == 1:
        out, root = folders[0] / "figures", folders[0]
    else:
        root = Path(*_common(folders))
        out = root / "report"
    for name in OUTPUTS:  # a link leading out: refused before anything is read
        inside(root, out / name)
    read = [read_run(r) for r in folders]
    names = run_names([r.info for r in read])
    runs = {name: r.records for name, r in zip(names, read)}
    infos = {name: r.info for name, r in zip(names, read)}
    claim_folder(out, REPORT_FILE, "report folder", REPORT_FORMAT,
                 {"runs": [str(r) for r in folders]}, root=root)
    baseline = next((n for n in names if infos[n].get("method") == "no-memory"), None)
    protocols = {n: EvalProtocol.from_dict(infos[n].get("protocol")) for n in names}
    # the table covers the evaluated episodes; the health lines what the memory did all run
    rows = {n: {**summarize(evaluated(protocols[n], r)), **memory_health(r)}
            for n, r in runs.items()}
    table = summary_table(rows, baseline=baseline, health=True)
    split = [f"{n}: {p.describe()}" for n, p in protocols.items() if not p.is_paper]
    if split:  # a learn/eval split: the table covers the evaluated episodes
        table = "protocol (the summary covers the evaluated episodes): " + "; ".join(split) \
            + "\n" + table
    worlds = {i.get("world") for i in infos.values()}
    if "skillworld" in worlds:
        table = ("SkillWorld runs are an offline simulation: NOT the paper's numbers\n"
                 + table)
    print(table)
    write_text(root, out / "summary.txt", table + "\n")
    with tempfile.TemporaryDirectory(prefix="hsl-report-") as tmp:  # drawn apart, then
        for drawn in report_figures(runs, Path(tmp), title=args.title):  # put in place
            write_bytes(root, out / drawn.name, drawn.read_bytes())
            print(f"wrote {out / drawn.name}")
    print(f"wrote {out / 'summary.txt'}")
    return 0


def _common(paths: list[Path]) -> tuple[str, ...]:
    parts = [p.resolve().parent.parts for p in paths]
    common: list[str] = []
    for level in zip(*parts):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    return tuple(common) or ("/",)
