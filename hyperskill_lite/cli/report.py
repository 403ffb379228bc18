"""``python -m hyperskill_lite report RUN_DIR [RUN_DIR ...]``: figures and the summary of
existing run folders, without running anything.

It reads each folder's ``episodes.jsonl`` and ``run.json`` and writes, into ``--out``
(default: ``RUN_DIR/figures`` for one run; ``report/`` beside the runs for several),
``cumulative_sr.png`` (one line per run), ``memory_growth.png`` (one panel per run),
``maintenance.png`` (pruned and merged over time) and ``summary.txt`` (the Table-1-style
summary, printed too). Runs are named by their method, with the profile or benchmark
and seed added where the names would otherwise repeat.

Not here: the figures (plots/), reading records (runner.py).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from hyperskill_lite.cli.folders import claim_folder

__all__ = ["add_parser", "command", "run_names"]

REPORT_FILE = "report.json"
REPORT_FORMAT = "hyperskill_lite.report/1"


def add_parser(sub, parents) -> argparse.ArgumentParser:
    r = sub.add_parser("report", parents=parents,
                       help="figures and the summary table of existing run folders",
                       description=__doc__.split("\n\n")[1])
    r.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR",
                   help="run folders written by `run`, `demo`, `compare --out` or `sweep`")
    r.add_argument("--out", type=Path, default=None,
                   help="where the figures go (default: RUN_DIR/figures for one run, "
                   "report/ beside the runs for several)")
    r.add_argument("--title", default="", help="a title prefix for the figures")
    r.set_defaults(handler=command)
    return r


def run_names(infos: list[dict]) -> list[str]:
    """A distinct label per run: the method, then the task set and the seed when needed.

    >>> run_names([{"method": "a", "profile": "gaia", "seed": 0},
    ...            {"method": "a", "profile": "gaia", "seed": 1}, {"method": "b"}])
    ['a gaia seed 0', 'a gaia seed 1', 'b']
    """
    def label(info: dict, parts: int) -> str:
        where = info.get("profile") or info.get("benchmark") or ""
        bits = [str(info.get("method", "run")), str(where), f"seed {info.get('seed', 0)}"]
        return " ".join(b for b in bits[:parts] if b)

    names = []
    for info in infos:
        for parts in (1, 2, 3):
            mine = label(info, parts)
            if sum(label(o, parts) == mine for o in infos) == 1 or parts == 3:
                break
        names.append(mine)
    counts = Counter(names)
    seen: Counter[str] = Counter()
    numbered = []
    for n in names:  # identical settings in two folders: number them
        seen[n] += 1
        numbered.append(f"{n} ({seen[n]})" if counts[n] > 1 else n)
    return numbered


def _read(run: Path) -> tuple[dict, list[dict]]:
    from hyperskill_lite.runner import RunError, read_records

    info_file = run / "run.json"
    if not run.is_dir():
        raise FileNotFoundError(f"{run}: no such run folder")
    if not info_file.is_file():
        raise RunError(f"{run}: not a run folder (no run.json); give folders written by `run`")
    try:
        info = json.loads(info_file.read_text())
    except json.JSONDecodeError as exc:
        raise RunError(f"{info_file}: not valid JSON ({exc.msg})") from None
    records = read_records(run)
    if not records:
        raise RunError(f"{run}: no finished episode yet")
    return info, records


def command(args: argparse.Namespace) -> int:
    from hyperskill_lite.plots.viz import report_figures
    from hyperskill_lite.protocol import EvalProtocol
    from hyperskill_lite.runner import summarize, summary_table

    read = [_read(r) for r in args.runs]
    names = run_names([info for info, _ in read])
    runs = {name: records for name, (_, records) in zip(names, read)}
    infos = {name: info for name, (info, _) in zip(names, read)}
    if args.out is not None:
        out = args.out
    elif len(args.runs) == 1:
        out = args.runs[0] / "figures"
    else:
        out = Path(*_common(args.runs)) / "report"
    claim_folder(out, REPORT_FILE, "report folder", REPORT_FORMAT,
                 {"runs": [str(r) for r in args.runs]})
    baseline = next((n for n in names if infos[n].get("method") == "no-memory"), None)
    protocols = {n: EvalProtocol.from_dict(infos[n].get("protocol")) for n in names}
    table = summary_table({n: summarize(protocols[n].evaluated(r)) for n, r in runs.items()},
                          baseline=baseline)
    split = [f"{n}: {p.describe()}" for n, p in protocols.items() if not p.is_paper]
    if split:  # a learn/eval split: the table covers the evaluated episodes
        table = "protocol (the summary covers the evaluated episodes): " + "; ".join(split) \
            + "\n" + table
    worlds = {i.get("world") for i in infos.values()}
    if "skillworld" in worlds:
        table = ("SkillWorld runs are an offline simulation: NOT the paper's numbers\n"
                 + table)
    print(table)
    (out / "summary.txt").write_text(table + "\n")
    for path in report_figures(runs, out, title=args.title):
        print(f"wrote {path}")
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
