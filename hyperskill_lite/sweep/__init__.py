"""Sweeps: a grid of runs (method x SkillWorld profile or benchmark x seed x backbone x
config fields) from one TOML file, fanned out on a local process pool or on Ray, then
one Table-1-style frame, figures and a failures list. Live cells run as threads of the
sweep's process (network-bound streams against one server; ``--jobs 64``), SkillWorld
cells as processes (execute.py).

``python -m hyperskill_lite sweep SWEEP.toml [--executor local|ray] [--address ADDR]
[--jobs N] [--out DIR]``, or `run_sweep` from Python. Every cell is exactly one `run`
(its own folder, resumable); a rerun skips finished cells and resumes unfinished ones.

May import: core, types, agent, methods, runner, launch, logs, plots, world and bench (the
names a sweep file's fields are checked against). Must not import: cli.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hyperskill_lite.sweep.execute import EXECUTORS, CellResult, run_cells
from hyperskill_lite.sweep.results import sweep_frame, write_results
from hyperskill_lite.sweep.spec import (
    Backbone,
    Benchmark,
    Cell,
    SweepError,
    SweepSpec,
    load_sweep,
    parse_sweep,
)

__all__ = [
    "run_sweep",
    "load_sweep",
    "parse_sweep",
    "SweepSpec",
    "SweepError",
    "Cell",
    "Backbone",
    "Benchmark",
    "CellResult",
    "run_cells",
    "sweep_frame",
    "write_results",
    "EXECUTORS",
]


def run_sweep(
    sweep: str | Path | SweepSpec,
    out: str | Path,
    executor: str = "local",
    jobs: int | None = None,
    address: str | None = None,
    log: Any = None,
    in_process: bool = True,
) -> tuple[list[CellResult], dict[str, Path]]:
    """Run (or complete) a sweep and write its results under `out`: the cells' run
    folders, ``table.csv``, ``table.md``, ``failures.md``, ``cells.json`` and
    ``figures/``. Returns the cell results and the written paths. Progress lines go to
    `log` (a callable such as ``print``), else to the logger (`run_cells`)."""
    spec = sweep if isinstance(sweep, SweepSpec) else load_sweep(sweep)
    results = run_cells(spec, Path(out), executor=executor, jobs=jobs, address=address, log=log,
                        in_process=in_process)
    return results, write_results(results, Path(out), reference=spec.reference)
