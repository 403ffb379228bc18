"""The Table-1 comparison: every memory method on one SkillWorld profile over several seeds.

`compare(profile, episodes, seeds)` runs each method (by default no-memory, HyperSkill
and the ten baselines) on the first `episodes` tasks of the profile in the paper's
fixed order (shuffle seed 42), once per world seed, through the resumable runner, and
returns a plain-text table like the paper's Table 1 plus one row per (method, seed):

- SR (%), #Steps and #Calls (tool calls) per task, and Tokens (the agent's tokens per
  task, which grow with the memory context it reads every step), each as mean ± sample
  standard deviation over seeds with the difference of the means to no-memory;
- MemCalls: memory-model calls per task (extraction, scoring, curation, ...), the
  memory's own cost, which SkillWorld does not turn into tokens.

Every method sees the same tasks, the same simulated model and the same executor for a
seed, so the differences are the memories'. SkillWorld numbers are a simulation and are
never the paper's.

>>> rows = [{"method": "no-memory", "seed": 0, "SR": 40.0}, {"method": "no-memory", "seed": 1,
...          "SR": 50.0}, {"method": "awm", "seed": 0, "SR": 60.0}]
>>> aggregate(rows, keys=("SR",))["no-memory"]["SR"]
(45.0, 7.0710678118654755)

Not here: the CLI (cli.py wires ``python -m hyperskill_lite compare``), live runs
(`run` with a model), plotting.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["compare", "aggregate", "format_table", "DEFAULT_METHODS", "KEYS"]

KEYS = ("SR", "Steps", "Calls", "Tokens", "MemCalls")
"""Per-run figures aggregated over seeds (see the module docstring)."""

DELTA_KEYS = ("SR", "Steps", "Calls", "Tokens")


def _default_methods() -> tuple[str, ...]:
    from hyperskill_lite.methods import BASELINES

    return ("no-memory", "hyperskill", *BASELINES)


DEFAULT_METHODS = _default_methods()
"""No memory, HyperSkill and the ten baselines, in the paper's order."""


def aggregate(
    rows: Sequence[dict[str, Any]], keys: Sequence[str] = KEYS
) -> dict[str, dict[str, tuple[float, float]]]:
    """Per method and key: (mean over seeds, sample standard deviation; 0 for one seed).
    Methods keep the order of their first row."""
    out: dict[str, dict[str, tuple[float, float]]] = {}
    for m in dict.fromkeys(r["method"] for r in rows):
        mine = [r for r in rows if r["method"] == m]
        out[m] = {}
        for k in keys:
            x = np.array([float(r[k]) for r in mine])
            sd = float(x.std(ddof=1)) if len(x) > 1 else 0.0
            out[m][k] = (float(x.mean()), sd)
    return out


def format_table(
    agg: dict[str, dict[str, tuple[float, float]]],
    baseline: str | None = "no-memory",
    title: str = "",
) -> str:
    """A Table-1-style text table: mean ± sd per key, (+delta) of the mean against
    `baseline` for SR, #Steps, #Calls and Tokens.

    >>> agg = {"no-memory": {"SR": (40.0, 0.0), "Steps": (5.0, 0.5), "Calls": (5.0, 0.0),
    ...                      "Tokens": (20000.0, 0.0), "MemCalls": (0.0, 0.0)},
    ...        "awm": {"SR": (45.0, 5.0), "Steps": (4.5, 0.5), "Calls": (4.0, 0.0),
    ...                "Tokens": (21000.0, 0.0), "MemCalls": (0.5, 0.0)}}
    >>> print(format_table(agg))
    method     SR (%)                #Steps               #Calls               Tokens             MemCalls
    no-memory  40.00 ± 0.00          5.00 ± 0.50          5.00 ± 0.00          20000 ± 0          0.00
    awm        45.00 ± 5.00 (+5.00)  4.50 ± 0.50 (-0.50)  4.00 ± 0.00 (-1.00)  21000 ± 0 (+1000)  0.50
    """
    base = agg.get(baseline) if baseline else None
    cols = [
        ("SR", "SR (%)", ".2f"),
        ("Steps", "#Steps", ".2f"),
        ("Calls", "#Calls", ".2f"),
        ("Tokens", "Tokens", ".0f"),
    ]
    table = [["method"] + [h for _, h, _ in cols] + ["MemCalls"]]
    for m, vals in agg.items():
        row = [m]
        for key, _, fmt in cols:
            mean, sd = vals[key]
            s = f"{format(mean, fmt)} ± {format(sd, fmt)}"
            if base is not None and m != baseline and key in DELTA_KEYS:
                s += f" ({format(mean - base[key][0], '+' + fmt)})"
            row.append(s)
        table.append(row + [f"{vals['MemCalls'][0]:.2f}"])
    widths = [max(len(r[j]) for r in table) + 2 for j in range(len(table[0]))]
    lines = [title] if title else []
    lines += ["".join(f"{c:<{w}}" for c, w in zip(r, widths)).rstrip() for r in table]
    return "\n".join(lines)


def _run_row(records: list[dict[str, Any]], method: str, seed: int) -> dict[str, Any]:
    arr = lambda key: np.array([float(r[key]) for r in records])  # noqa: E731
    return {
        "method": method,
        "seed": seed,
        "SR": 100.0 * float(arr("success").mean()),
        "Steps": float(arr("steps").mean()),
        "Calls": float(arr("calls").mean()),
        "Tokens": float(arr("tokens").mean()),
        "CtxTokens": float(arr("context_tokens").mean()),
        "MemCalls": float(arr("memory_llm_calls").mean()),
        "N": len(records),
        "context_share": float(
            np.mean([bool(r["retrieved"]) or r["context_tokens"] > 0 for r in records])
        ),
    }


def _init_worker(threads: int) -> None:
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(threads)


def _run_cell(
    profile: str, episodes: int, seed: int, name: str, phrasing: str, run_dir: str, encoder: Any
) -> dict[str, Any]:
    """One (method, seed) run of `compare`, resumable in `run_dir`; its row."""
    from hyperskill_lite.core.config import HyperSkillConfig
    from hyperskill_lite.core.embed import encoder_by_name
    from hyperskill_lite.methods import make_method
    from hyperskill_lite.runner import read_records, run_episodes, shuffled
    from hyperskill_lite.world import SimExecutor, SimLLM, WorldParams, make_tasks

    enc = encoder_by_name(encoder) if isinstance(encoder, str) else encoder
    params = WorldParams(phrasing=phrasing)
    tasks = shuffled(make_tasks(profile, seed=seed, params=params), seed=42)[:episodes]
    system = make_method(name, SimLLM(params, seed=seed), enc, HyperSkillConfig())
    run_episodes(
        system,
        tasks,
        SimExecutor(params, seed=seed),
        Path(run_dir),
        progress=False,
        run_info={
            "method": name,
            "profile": profile,
            "seed": seed,
            "encoder": enc.name,
            "phrasing": phrasing,
        },
    )
    return _run_row(read_records(Path(run_dir)), name, seed)


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
) -> tuple[str, list[dict[str, Any]]]:
    """Run every method on SkillWorld `profile` and tabulate (module docstring).

    Parameters
    ----------
    profile : "gaia", "webwalker" or "xbench".
    episodes : tasks per run (the first ones in the fixed seed-42 order), >= 1.
    seeds : K (seeds 0..K-1) or an explicit list of world seeds.
    methods : method names (default `DEFAULT_METHODS`); "no-memory" is added first when
        missing, as the reference of the deltas.
    encoder : "minilm" (the paper's phi), "hashing", or an encoder instance.
    out : directory for the runs (``OUT/<profile>/<method>/seed-<s>``, resumable) and
        ``compare.json`` / ``table.txt``; None runs in a temporary directory.
    log : called with one line per finished run (e.g. ``print``).
    phrasing : SimLLM's text model, "calibrated" (default) or "curated"
        (`WorldParams.phrasing`).
    jobs : run the (method, seed) cells in this many worker processes (None: one per
        core). Every cell is deterministic and independent (its own world seed, model,
        executor and run directory), so the rows are identical to ``jobs=1``; only the
        order in which `log` reports them differs. Workers rebuild the encoder by name
        and share the persistent embedding cache (core/cache.py); each gets
        cores // jobs torch threads.

    Returns ``(table, rows)``: the table text and one dict per (method, seed) with SR,
    Steps, Calls, Tokens, CtxTokens, MemCalls, N and context_share (the fraction of
    episodes that received memory).
    """
    from hyperskill_lite.core.embed import encoder_by_name
    from hyperskill_lite.methods import METHODS
    from hyperskill_lite.world import PROFILES, WorldParams, make_tasks

    if profile not in PROFILES:
        raise ValueError(f"compare: unknown profile {profile!r}; choose one of {PROFILES}")
    if int(episodes) < 1:
        raise ValueError(f"compare: episodes must be >= 1, got {episodes}")
    seed_list = list(range(int(seeds))) if isinstance(seeds, int | np.integer) else list(seeds)
    if not seed_list:
        raise ValueError("compare: seeds must be >= 1 (or a non-empty list of seeds)")
    names = list(dict.fromkeys(methods if methods is not None else DEFAULT_METHODS))
    unknown = [m for m in names if m not in METHODS]
    if unknown:
        raise ValueError(f"compare: unknown method(s) {unknown}; choose from {sorted(METHODS)}")
    if "no-memory" not in names:
        names.insert(0, "no-memory")
    enc = encoder_by_name(encoder) if isinstance(encoder, str) else encoder
    jobs = max(1, int(jobs if jobs is not None else (os.cpu_count() or 1)))
    cells = [(seed, name) for seed in seed_list for name in names]
    jobs = min(jobs, len(cells))
    if jobs > 1:
        try:
            encoder_by_name(enc.name)
        except ValueError:
            raise ValueError(
                f"compare: jobs={jobs} needs an encoder a worker can rebuild by name "
                f"('minilm' or 'hashing(...)'), got {enc.name!r}; use jobs=1"
            ) from None
    n_tasks = len(make_tasks(profile, seed=seed_list[0], params=WorldParams(phrasing=phrasing)))
    if episodes > n_tasks:
        raise ValueError(
            f"compare: profile {profile!r} has {n_tasks} tasks, asked for {episodes} episodes"
        )

    tmp = tempfile.TemporaryDirectory() if out is None else None
    root = Path(tmp.name if tmp is not None else out)  # type: ignore[arg-type]
    rows: list[dict[str, Any]] = []

    def done(row: dict[str, Any]) -> None:
        rows.append(row)
        if log is not None:
            log(
                f"{profile} seed {row['seed']} {row['method']:<24} SR {row['SR']:6.2f}  "
                f"steps {row['Steps']:5.2f}  memory calls/ep {row['MemCalls']:.2f}"
            )

    def cell_args(seed: int, name: str) -> tuple:
        return (profile, episodes, seed, name, phrasing, str(root / profile / name / f"seed-{seed}"))

    try:
        if jobs == 1:
            for seed, name in cells:
                done(_run_cell(*cell_args(seed, name), encoder=enc))
        else:
            threads = max(1, (os.cpu_count() or 1) // jobs)
            ctx = multiprocessing.get_context("spawn")  # torch is not fork-safe
            with ProcessPoolExecutor(
                jobs, mp_context=ctx, initializer=_init_worker, initargs=(threads,)
            ) as pool:
                futures = [
                    pool.submit(_run_cell, *cell_args(seed, name), encoder=enc.name)
                    for seed, name in cells
                ]
                for fut in as_completed(futures):
                    done(fut.result())
    finally:
        if tmp is not None:
            tmp.cleanup()
    order = {m: i for i, m in enumerate(names)}
    rows.sort(key=lambda r: (order[r["method"]], seed_list.index(r["seed"])))
    title = (
        f"SkillWorld '{profile}', {episodes} episodes x {len(seed_list)} seed(s), "
        f"encoder {enc.name}, {phrasing} phrasing; mean ± sd over seeds, (delta) vs no-memory. "
        "Offline simulation: NOT the paper's numbers."
    )
    table = format_table(aggregate(rows), "no-memory", title)
    if out is not None:
        Path(out).mkdir(parents=True, exist_ok=True)
        doc = {
            "profile": profile,
            "episodes": episodes,
            "seeds": seed_list,
            "encoder": enc.name,
            "phrasing": phrasing,
            "rows": rows,
        }
        (Path(out) / "compare.json").write_text(json.dumps(doc, indent=1, sort_keys=True))
        (Path(out) / "table.txt").write_text(table + "\n")
    return table, rows
