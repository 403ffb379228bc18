#!/usr/bin/env python3
"""Execute the course notebooks in place, changing a committed file only where an output
really changed.

    .venv/bin/python tools/execute_notebooks.py [notebooks/NN_name.ipynb ...]   # default: all
    .venv/bin/python tools/execute_notebooks.py --workers 2 --write-run-times
    .venv/bin/python tools/execute_notebooks.py --longest-first notebooks/*.ipynb  # the order

Each notebook runs top to bottom in a fresh kernel (nbclient, the engine of nbconvert and
nbval) with the environment of `make test`. Then every code cell whose new outputs equal
the committed ones once nbval's sanitizers (tests/nbval_sanitize.cfg: timings, temporary
paths, addresses) are applied keeps its committed outputs byte for byte, and a cell
tagged ``volatile`` (a wall-clock measurement, which differs on every run by nature) keeps
its committed outputs while its source is unchanged; ipywidgets' random model ids are
masked (and a print cut into several stream chunks compared as one), and a notebook whose
every output was kept keeps its saved widget state too. So re-running an unchanged notebook
leaves the file byte-identical, and a notebook whose results changed shows exactly the
cells that did. Prints each notebook's compute time (wall clock, and the CPU seconds its
kernel used, which another load on the machine does not inflate); exits 1 on the first
notebook that fails (a cell error), leaving that file as it was.

``--workers 2`` runs two notebooks at a time (the longest first), as `make notebooks` runs
nbval. ``--write-run-times`` writes the measured compute time into the notebook's header
line ``**Compute time:** about A s alone, B s with two at once``: A from a run with one
worker, B from a run with two. The figure written is the CPU seconds the notebook's
kernel used (Linux; the wall clock elsewhere): on an otherwise idle 2-core machine that is
the wall clock, alone and two at a time, and other jobs on the machine do not inflate it,
as they inflate the wall clock printed beside it. The study time beside it (``**Study
time:** about N min``) is a measure of people, written by hand.

Not here: checking outputs (nbval, `make notebooks`), the figures the notebooks write
(their cells call `viz.save_figure`, which writes deterministic PNG bytes).
"""

from __future__ import annotations

import argparse
import configparser
import copy
import json
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"
ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_PROGRESS_BARS": "1",
       "TOKENIZERS_PARALLELISM": "false", "MPLBACKEND": "Agg", "PYTHONHASHSEED": "0",
       "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def sanitizers(path: Path = SANITIZE) -> list[tuple[re.Pattern, str]]:
    """nbval's sanitize file as (regex, replacement) pairs, in file order."""
    cfg = configparser.ConfigParser(interpolation=None)
    cfg.read(path)
    return [(re.compile(cfg[s]["regex"]), cfg[s]["replace"]) for s in cfg.sections()]


WIDGET_ID = re.compile(r"\b[0-9a-f]{32}\b")
"""An ipywidgets model id: random on every run, never meaningful in an output."""


def _sanitized(text, subs: list[tuple[re.Pattern, str]]) -> str:
    if isinstance(text, list):
        text = "".join(text)
    elif not isinstance(text, str):  # a JSON payload (a widget's view): keys in one order
        text = json.dumps(text, sort_keys=True)
    for rx, rep in subs:
        text = rx.sub(rep, text)
    return WIDGET_ID.sub("WIDGET", text)


def comparable(outputs: list[dict], subs: list[tuple[re.Pattern, str]]) -> str:
    """Outputs as text with the sanitizers applied to each output's text as nbval applies
    them (line by line, so a pattern anchored at a line's end matches), prints cut into
    chunks joined, widget model ids masked; images compared as they are.

    >>> subs = [(re.compile(r"(?m)(\\d\\.\\d{2}\\s{2,}\\d+\\s{2,})\\d+\\.\\d{3}$"), r"\\1S")]
    >>> row = lambda t: [{"output_type": "stream", "name": "stdout", "text": [f"a 2.00  33228  {t}\\n"]}]
    >>> comparable(row("0.002"), subs) == comparable(row("0.026"), subs)
    True
    """
    norm = []
    for o in coalesce_streams(copy.deepcopy(outputs)):
        if "text" in o:
            o["text"] = _sanitized(o["text"], subs)
        if isinstance(o.get("data"), dict):
            o["data"] = {k: _sanitized(v, subs) if k.startswith("text/") or "json" in k else v
                         for k, v in o["data"].items()}
        norm.append(o)
    return json.dumps(norm, sort_keys=True)


def coalesce_streams(outputs: list[dict]) -> list[dict]:
    """Adjacent stream outputs of one stream joined into one, as nbval compares them: how
    a print is cut into chunks depends on when the kernel flushed, not on the code.

    >>> coalesce_streams([{"output_type": "stream", "name": "stdout", "text": "s9"},
    ...                   {"output_type": "stream", "name": "stdout", "text": " x\\n"}])
    [{'output_type': 'stream', 'name': 'stdout', 'text': 's9 x\\n'}]
    """
    out: list[dict] = []
    for o in outputs:
        if (o.get("output_type") == "stream" and out and out[-1].get("output_type") == "stream"
                and out[-1].get("name") == o.get("name")):
            prev = out[-1]
            text = lambda t: "".join(t) if isinstance(t, list) else t  # noqa: E731
            prev["text"] = text(prev.get("text", "")) + text(o.get("text", ""))
        else:
            out.append(o)
    return out


def keep_unchanged(old: dict, new: dict, subs: list[tuple[re.Pattern, str]]) -> int:
    """Copy the committed outputs of `old` into `new` wherever they are equivalent (see the
    module docstring); returns how many code cells changed."""
    changed = 0
    old_cells = {c.get("id"): c for c in old.get("cells", []) if c.get("id")}
    for i, cell in enumerate(new["cells"]):
        if cell["cell_type"] != "code":
            continue
        cell["outputs"] = coalesce_streams(cell.get("outputs", []))
        before = old_cells.get(cell.get("id"))
        if before is None and i < len(old["cells"]):
            before = old["cells"][i]
        if before is None or before.get("source") != cell.get("source"):
            changed += 1
            continue
        volatile = "volatile" in cell.get("metadata", {}).get("tags", [])
        if volatile or comparable(before.get("outputs", []), subs) == comparable(
                cell.get("outputs", []), subs):
            cell["outputs"] = copy.deepcopy(before.get("outputs", []))
            cell["execution_count"] = before.get("execution_count")
        else:
            changed += 1
    return changed


RUN_TIME = re.compile(r"(\*\*Compute time:\*\* about )(\d+)( s alone, )(\d+)( s with two at once)")
"""The header's compute-time line: group 2 is the time alone, group 4 two at a time."""


def write_run_time(nb, seconds: float, workers: int = 1) -> bool:
    """Put the measured compute time (rounded to 5 s, at least 5) into the notebook's
    header: the "alone" figure for `workers` = 1, the "with two at once" figure for 2;
    True when it changed."""
    cell = nb.cells[0]
    shown = str(max(5, int(round(seconds / 5.0)) * 5))
    group = 2 if workers == 1 else 4

    def put(m: re.Match) -> str:
        parts = [m.group(i) for i in range(1, 6)]
        parts[group - 1] = shown
        return "".join(parts)

    new = RUN_TIME.sub(put, cell.source, count=1)
    changed = new != cell.source
    cell.source = new
    return changed


def kernel_cpu_seconds(pid: int) -> float | None:
    """CPU seconds a process and its finished children used (Linux /proc), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def execute(path: Path, subs: list[tuple[re.Pattern, str]], timeout: int = 900,
            run_time: bool = False, workers: int = 1) -> tuple[int, float, float | None]:
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    old = nbformat.read(path, as_version=4)
    nb = copy.deepcopy(old)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(path.parent)}})
    cpu: list[float | None] = [None]

    def after_cell(**_: object) -> None:  # the kernel's CPU so far: what a load cannot inflate
        pid = getattr(getattr(client.km, "provisioner", None), "pid", None)
        if pid:
            cpu[0] = kernel_cpu_seconds(pid)

    client.on_cell_executed = after_cell
    t0 = time.perf_counter()
    try:
        client.execute()
    except CellExecutionError as exc:
        first = str(exc).strip().splitlines()
        raise SystemExit(f"FAILED: {path}: a cell raised an error ({first[-1] if first else exc}); "
                         "the file was left as it was") from None
    seconds = time.perf_counter() - t0
    changed = keep_unchanged(old, nb, subs)
    if not changed and "widgets" in old.metadata:  # the panels' saved state, whose model ids
        nb.metadata["widgets"] = old.metadata["widgets"]  # are random, belongs to the outputs kept
    if run_time:  # the kernel's CPU seconds: the wall clock of an otherwise idle machine
        write_run_time(nb, cpu[0] if cpu[0] is not None else seconds, workers)
    text = nbformat.writes(nb) + "\n"
    if path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return changed, seconds, cpu[0]


def _alone(path: Path) -> int:
    """The header's compute time alone (0 when absent): the longest run first."""
    m = RUN_TIME.search(path.read_text(encoding="utf-8"))
    return int(m.group(2)) if m else 0


def longest_first(paths: list[Path]) -> list[Path]:
    """`paths` by the compute time alone in their headers, the longest first (a stable
    sort: equal times keep their order)."""
    return sorted(paths, key=_alone, reverse=True)


def _run(args: tuple) -> tuple[str, int, float, float | None]:
    path, subs, run_time, workers = args
    return (path.name, *execute(path, subs, run_time=run_time, workers=workers))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebooks", nargs="*", type=Path)
    ap.add_argument("--workers", type=int, choices=(1, 2), default=1,
                    help="notebooks run at a time (2: as `make notebooks` runs nbval)")
    ap.add_argument("--write-run-times", action="store_true",
                    help="also write each notebook's measured compute time into its header "
                    "(the figure alone with --workers 1, two at once with --workers 2; measure "
                    "on an otherwise idle machine)")
    ap.add_argument("--longest-first", action="store_true",
                    help="only print the notebooks' paths, the longest first by the compute "
                    "time of their headers (the order `make notebooks` runs them in)")
    args = ap.parse_args(argv)
    if args.longest_first:
        print("\n".join(map(str, longest_first(args.notebooks))))
        return 0
    os.environ.update(ENV)
    paths = [Path(p).resolve() for p in args.notebooks] or sorted(
        (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    subs = sanitizers()
    total = time.perf_counter()
    if args.workers > 1:  # the longest first, as make notebooks orders nbval
        paths = longest_first(paths)
    jobs = [(p, subs, args.write_run_times, args.workers) for p in paths]
    if args.workers == 1:
        results = map(_run, jobs)
    else:
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(max_workers=args.workers)
        results = pool.map(_run, jobs)
    for name, changed, seconds, cpu in results:
        used = f" (the kernel's CPU: {cpu:.0f} s)" if cpu is not None else ""
        print(f"{name}: {seconds:.0f} s{used}, {changed} code cell(s) with new outputs", flush=True)
    print(f"all: {time.perf_counter() - total:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
