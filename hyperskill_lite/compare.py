"""The Table-1 comparison: every memory method on one SkillWorld profile over several
seeds and task orders, with paired confidence intervals.

`compare(profile, episodes, seeds)` runs each method (by default no-memory, HyperSkill
and the ten baselines) on the first `episodes` tasks of the profile in the paper's
fixed order (shuffle seed 42; `orders` gives several order seeds, `protocol` another
evaluation protocol: frozen memory, passes, own-task exclusion, protocol.py), once per
world seed and order, through the resumable runner, and returns a plain-text table like
the paper's Table 1 plus one row per (method, seed, order):

- SR (%), #Steps and #Calls (tool calls) per task, and Tokens (the agent's tokens per
  task, which grow with the memory context it reads every step), each as mean ± sample
  standard deviation over seeds with the difference of the means to no-memory;
- MemCalls: memory-model calls per task (extraction, scoring, curation, ...);
- the paper's per-task cost measures (its token-cost and latency figures): tokens/task
  (TotalTokens: the agent's plus the memory model's; SkillWorld estimates the memory
  calls' tokens from the real prompt texts it would send, world/meter.py) and s/task
  (Latency: wall-clock seconds of the whole episode, maintenance spread over the tasks).

Every method sees the same tasks, the same simulated model and the same executor for a
seed, so the differences are the memories'. Below the table, each method's SR
difference to no-memory (and to a `reference` method) is given paired by task, seed and
order, with a bootstrap 95 % interval over tasks within each (seed, order) cell
(stats.py says why that bootstrap); a "*" marks an interval that excludes 0. Under a
learn/eval split every figure is over the evaluated part. SkillWorld numbers are a
simulation and are never the paper's.

Not here: the tables themselves (compare_tables.py), the CLI
(cli/compare.py wires ``python -m hyperskill_lite compare``), live runs (`run` with a
model), plotting.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import warnings
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hyperskill_lite import compare_tables
from hyperskill_lite.core.embed import encoder_by_name, encoder_known
from hyperskill_lite.methods import BASELINES, METHODS
from hyperskill_lite.methods.registry import registered, spec_of
from hyperskill_lite.protocol import PAPER_ORDER_SEED, EvalProtocol
from hyperskill_lite.runner.files import RunError, check_out_folder, read_records
from hyperskill_lite.runner.summary import summarize
from hyperskill_lite.stats import DEFAULT_BOOT, PairedDifference
from hyperskill_lite.sweep.execute import CellResult, run_cells
from hyperskill_lite.sweep.spec import Cell
from hyperskill_lite.world.generator import PROFILES, make_tasks
from hyperskill_lite.world.params import WorldParams

__all__ = ["compare", "DEFAULT_METHODS"]

DEFAULT_METHODS = ("no-memory", "hyperskill", *BASELINES)
"""No memory, HyperSkill and the ten baselines, in the paper's order."""


def _run_row(records: list[dict[str, Any]], method: str, seed: int,
             order: int = PAPER_ORDER_SEED) -> dict[str, Any]:
    """A (method, seed, order) row from the records of its evaluated part; "outcomes"
    lists [index, task id, success 0/1] per episode, for the paired statistics."""
    s = summarize(records)
    return {
        "method": method,
        "seed": seed,
        "order": order,
        **{k: float(s[k]) for k in ("SR", "Steps", "Calls", "Tokens", "CtxTokens")},
        "MemCalls": float(np.mean([r["memory_llm_calls"] for r in records])),
        "MemTokens": float(s["MemTokens"]),
        "TotalTokens": float(s["TotalTokens"]),
        "Latency": float(s["Latency"]),
        "N": len(records),
        "context_share": float(
            np.mean([bool(r["retrieved"]) or r["context_tokens"] > 0 for r in records])
        ),
        "NonEmpty": float(s["NonEmpty"]),
        "Injected": float(s["Injected"]),
        "EmptyStore": float(s["EmptyStore"]),
        "outcomes": [[int(r["index"]), str(r["task_id"]), int(bool(r["success"]))]
                     for r in records],
    }


def compare(
    profile: str,
    episodes: int,
    seeds: int | Sequence[int] = 3,
    methods: Sequence[str] | None = None,
    encoder: Any = "minilm",
    out: Path | str | None = None,
    log: Callable[[str], None] | None = None,
    phrasing: str = "calibrated",
    jobs: int | None = 1,
    judge: str = "gt",
    *,
    orders: Sequence[int] | None = None,
    protocol: EvalProtocol | None = None,
    reference: str | None = None,
    stats_seed: int = 0,
    n_boot: int = DEFAULT_BOOT,
) -> tuple[str, list[dict[str, Any]]]:
    """Run every method on SkillWorld `profile` and tabulate (module docstring).

    Parameters
    ----------
    profile : "gaia", "webwalker" or "xbench".
    episodes : tasks per run (the first ones in the run's order), >= 1.
    seeds : K (seeds 0..K-1) or an explicit list of world seeds.
    methods : method names (default `DEFAULT_METHODS`); "no-memory" is added first when
        missing, as the reference of the deltas.
    encoder : "minilm" (the paper's phi), "hashing", or an encoder instance.
    out : directory for the runs (``OUT/<profile>/<method>/seed-<s>``, resumable; other
        orders in ``seed-<s>-order-<o>``, another protocol in ``<method>+<tag>``) and
        ``compare.json`` / ``table.txt``; None runs in a temporary directory.
    log : called with one line per finished run (e.g. ``print``).
    phrasing : SimLLM's text model, "calibrated" (default) or "curated"
        (`WorldParams.phrasing`).
    jobs : run the (method, seed, order) cells in this many worker processes (None: one
        per core), each the `run` command of its cell (sweep/execute.py); ``jobs=1`` runs
        them in this process. Every cell is deterministic and independent (its own world
        seed, model, executor and run directory), so the rows are identical to
        ``jobs=1``; only the order in which `log` reports them differs. Workers rebuild
        the encoder by name and share the persistent embedding cache (core/cache.py).
    judge : what the memories learn from: "gt" (default) the world's true outcome, or
        "self" the simulated self-judge (`SimLLM.judge`, wrong with probability
        `WorldParams.self_judge_flip`). SR is scored by the world's truth either way, so
        `retention` of the two is the paper's self-judge retention. Self-judge runs live
        in ``OUT/<profile>/<method>+self-judge/``.
    orders : task order seeds (default ``[42]``, the paper's); every (seed, order) pair is
        one cell of the paired statistics.
    protocol : the evaluation protocol of every run (protocol.py; its ``order_seed`` is
        replaced by each of `orders`); default the paper's. Rows cover its evaluated
        part. ``exclude_self`` needs methods that support it (the HyperSkill ones).
    reference : a method to compare every other with, besides no-memory (e.g.
        "hyperskill"); must be among `methods`.
    stats_seed, n_boot : seed and replicate count of the bootstrap (stats.py).

    Returns
    -------
    table : str
        The table text (Table 1, then the paired differences).
    rows : list of dict
        One dict per (method, seed, order) with SR, Steps, Calls, Tokens, CtxTokens,
        MemCalls, MemTokens, TotalTokens, Latency (wall clock, the only field that
        differs between two identical runs), N, context_share (the fraction of episodes
        that received memory), NonEmpty, Injected and EmptyStore (memory health,
        runner/health.py), and "outcomes" ([index, task id, success] per evaluated
        episode).
    """
    grid = _grid(profile, episodes, seeds, methods, encoder, phrasing, jobs, judge, orders,
                 protocol, reference, log)
    if out is not None:
        check_out_folder(out)
    with tempfile.TemporaryDirectory() if out is None else nullcontext(out) as root:
        rows = _run_grid(grid, Path(root), log)
    table, paired = _tables(grid, rows, stats_seed, n_boot)
    if out is not None:
        _write(grid, Path(out), table, rows, paired, stats_seed, n_boot)
    return table, rows


@dataclass
class _Grid:
    """compare's preset grid: its checked settings and its cells (sweep cells, `Cell`, in
    compare's folder layout, in the order (seed, order, method))."""

    profile: str
    episodes: int
    seeds: list[int]
    orders: list[int]
    names: list[str]
    encoder: Any
    phrasing: str
    judge: str
    base: EvalProtocol
    reference: str | None
    jobs: int
    cells: list[Cell]


def _grid(profile: str, episodes: int, seeds: int | Sequence[int], methods: Sequence[str] | None,
          encoder: Any, phrasing: str, jobs: int | None, judge: str,
          orders: Sequence[int] | None, protocol: EvalProtocol | None, reference: str | None,
          log: Callable[[str], None] | None) -> _Grid:
    """Check compare's arguments (a ValueError naming the one that is wrong) and build
    its grid."""
    if judge not in ("gt", "self"):
        raise ValueError(f"compare: judge must be 'gt' or 'self', got {judge!r}")
    if profile not in PROFILES:
        raise ValueError(f"compare: unknown profile {profile!r}; choose one of {PROFILES}")
    if int(episodes) < 1:
        raise ValueError(f"compare: episodes must be >= 1, got {episodes}")
    seed_list = list(range(int(seeds))) if isinstance(seeds, int | np.integer) else list(seeds)
    if not seed_list:
        raise ValueError("compare: seeds must be >= 1 (or a non-empty list of seeds)")
    order_list = list(dict.fromkeys(orders)) if orders is not None else [PAPER_ORDER_SEED]
    if not order_list:
        raise ValueError("compare: orders must hold at least one task order seed")
    base = protocol if protocol is not None else EvalProtocol()
    for o in order_list:
        base.replace(order_seed=int(o))  # checks each seed
    names = _method_names(methods, reference, base)
    enc = encoder_by_name(encoder) if isinstance(encoder, str) else encoder
    n_cells = len(seed_list) * len(order_list) * len(names)
    jobs = min(max(1, int(jobs if jobs is not None else (os.cpu_count() or 1))), n_cells)
    if jobs > 1 and not encoder_known(enc.name):
        raise ValueError(
            f"compare: jobs={jobs} needs an encoder a worker can rebuild by name "
            f"('minilm' or 'hashing(...)'), got {enc.name!r}; use jobs=1")
    n_tasks = len(make_tasks(profile, seed=seed_list[0], params=WorldParams(phrasing=phrasing)))
    if episodes > n_tasks:  # as `run` does: all of them, and say so
        note = (f"note: SkillWorld {profile} has {n_tasks} tasks; running all of them "
                f"(--episodes {episodes} asked for more)")
        (log or logging.getLogger(__name__).warning)(note)
        episodes = n_tasks
    if base.eval_from is not None and base.eval_from >= episodes * base.passes:
        raise ValueError(f"compare: the evaluated part starts at episode {base.eval_from + 1}, "
                         f"after the run's {episodes * base.passes} episodes")
    evaluation = None if base.replace(order_seed=PAPER_ORDER_SEED).is_paper else base
    cells = [Cell(name, seed, None, profile, episodes=episodes, encoder=enc.name,
                  phrasing=phrasing, order_seed=int(order),
                  judge="self" if judge == "self" else None, evaluation=evaluation,
                  folder=_folder(profile, name, seed, int(order), judge, base))
             for seed in seed_list for order in order_list for name in names]
    return _Grid(profile, episodes, seed_list, order_list, names, enc, phrasing, judge, base,
                 reference, jobs, cells)


def _method_names(methods: Sequence[str] | None, reference: str | None,
                  base: EvalProtocol) -> list[str]:
    """The methods compared, no-memory first when missing; checked."""
    names = list(dict.fromkeys(methods if methods is not None else DEFAULT_METHODS))
    unknown = [m for m in names if m not in METHODS]
    if unknown:
        raise ValueError(f"compare: unknown method(s) {unknown}; choose from {sorted(METHODS)}")
    if "no-memory" not in names:
        names.insert(0, "no-memory")
    if reference is not None and reference not in names:
        raise ValueError(f"compare: the reference {reference!r} must be one of the methods "
                         f"compared ({', '.join(names)})")
    bad = [m for m in names if not spec_of(m).exclude_self] if base.exclude_self else []
    if bad:
        able = [s.name for s in registered() if s.exclude_self]
        raise ValueError(f"compare: --exclude-self needs methods that can leave a task's own "
                         f"memories out ({', '.join(able)}); not {bad}")
    return names


def _folder(profile: str, name: str, seed: int, order: int, judge: str,
            base: EvalProtocol) -> str:
    """A cell's folder: ``<profile>/<method>[+self-judge][+tag]/seed-<s>[-order-<o>]``."""
    folder = "+".join([name] + (["self-judge"] if judge == "self" else [])
                      + ([base.tag] if base.tag else []))
    run = f"seed-{seed}" + ("" if order == PAPER_ORDER_SEED else f"-order-{order}")
    return f"{profile}/{folder}/{run}"


def _run_grid(grid: _Grid, root: Path, log: Callable[[str], None] | None,
              ) -> list[dict[str, Any]]:
    """Run the grid's cells on the sweep executor (in this process for one job, else in
    `jobs` worker processes); its rows, in (method, seed, order) order. A failed cell
    raises `RunError` with its one-line error."""
    if log is not None:
        log(f"[compare] {len(grid.cells)} run(s) in this process" if grid.jobs == 1 else
            f"[compare] {len(grid.cells)} run(s) on {grid.jobs} worker process(es)")
    rows: list[dict[str, Any]] = []

    def done(result: CellResult) -> None:
        if result.status == "failed":
            raise RunError(f"compare: the run in {root / result.cell.key} failed: "
                           f"{_clean(result.error)}")
        row = _row_of(result.cell, root, grid.judge)
        rows.append(row)
        if log is not None:
            where = f" order {row['order']}" if len(grid.orders) > 1 else ""
            log(f"{grid.profile} seed {row['seed']}{where} {row['method']:<24} "
                f"SR {row['SR']:6.2f}  steps {row['Steps']:5.2f}  "
                f"memory calls/ep {row['MemCalls']:.2f}")

    run_cells(grid.cells, root, jobs=grid.jobs, log=_quiet, worlds="thread" if grid.jobs == 1 else "pool",
              encoder=grid.encoder, on_result=done)
    rank = {m: i for i, m in enumerate(grid.names)}
    rows.sort(key=lambda r: (rank[r["method"]], grid.seeds.index(r["seed"]),
                             grid.orders.index(r["order"])))
    return rows


def _quiet(line: str) -> None:
    """The sweep's progress lines: compare prints one line per finished run instead."""


def _clean(error: str | None) -> str:
    text = " ".join(str(error or "no output").split())
    return text[len("error: "):] if text.startswith("error: ") else text


def _row_of(cell: Cell, root: Path, judge: str) -> dict[str, Any]:
    """The row of a finished cell, from the records of its evaluated part."""
    protocol = cell.protocol
    records = protocol.evaluated(read_records(root / cell.key))
    return {**_run_row(records, cell.method, cell.seed, protocol.order_seed), "judge": judge}


def _tables(grid: _Grid, rows: list[dict[str, Any]], stats_seed: int, n_boot: int,
            ) -> tuple[str, list[PairedDifference]]:
    """The printed table: Table 1 with its title, then the paired differences."""
    spread = "seeds" if len(grid.orders) == 1 else "seeds x orders"
    orders_text = ("task order seed 42" if grid.orders == [PAPER_ORDER_SEED] else
                   f"task order seeds {', '.join(map(str, grid.orders))}")
    base = grid.base
    proto = "" if base.replace(order_seed=PAPER_ORDER_SEED).is_paper else \
        f"; protocol: {base.describe().split(', ', 1)[1]}"
    title = (
        f"SkillWorld '{grid.profile}', {grid.episodes} episodes x {len(grid.seeds)} seed(s), "
        f"{orders_text}, encoder {grid.encoder.name}, {grid.phrasing} phrasing{proto}"
        + (", memories learn from the self-judge" if grid.judge == "self" else "")
        + f"; mean ± sd over {spread}, (delta) vs no-memory. "
        "Offline simulation: NOT the paper's numbers."
    )
    paired_text, paired = compare_tables.paired_table(rows, "no-memory", grid.reference, stats_seed, n_boot)
    return compare_tables.format_table(compare_tables.aggregate(rows), "no-memory", title) + "\n\n" + paired_text, paired


def _write(grid: _Grid, out: Path, table: str, rows: list[dict[str, Any]],
           paired: list[PairedDifference], stats_seed: int, n_boot: int) -> None:
    """``OUT/compare.json`` and ``OUT/table.txt``."""
    out.mkdir(parents=True, exist_ok=True)
    doc = {
        "profile": grid.profile,
        "episodes": grid.episodes,
        "seeds": grid.seeds,
        "orders": grid.orders,
        "protocol": grid.base.to_dict(),
        "encoder": grid.encoder.name,
        "phrasing": grid.phrasing,
        "judge": grid.judge,
        "reference": grid.reference,
        "stats_seed": stats_seed,
        "n_boot": n_boot,
        "paired": [d.to_dict() for d in paired],
        "rows": rows,
    }
    (out / "compare.json").write_text(json.dumps(doc, indent=1, sort_keys=True))
    (out / "table.txt").write_text(table + "\n")


_MOVED = {"aggregate": "hyperskill_lite.compare_tables",
          "paired_table": "hyperskill_lite.compare_tables",
          "retention": "hyperskill_lite.compare_tables"}
"""Names the notebooks of version 0.2.0 imported from here, now read from their home
(compare_tables.py) with a DeprecationWarning."""


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        warnings.warn(f"hyperskill_lite.compare.{name} is deprecated: import it from "
                      f"{_MOVED[name]}", DeprecationWarning, stacklevel=2)
        return getattr(compare_tables, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
