"""Benchmark loaders: GAIA, WebWalkerQA and xBench-DeepSearch files read into `Task` lists.

Each loader returns tasks with `id`, `question` (the raw text as in the file), `answer`,
`prompt` (the benchmark's template applied, templates.py), `benchmark` and `meta`
(the row number and benchmark-specific fields). Files are read in order; only
WebWalkerQA is subsampled, exactly as the paper's reference sampler does it.

- GAIA: gaia.py (`load_gaia`): metadata JSONL or parquet, a snapshot
  of ``gaia-benchmark/GAIA``; the test split's withheld answers ("?") are never gold.
- WebWalkerQA (JSONL, a JSON array or parquet, or a snapshot of
  ``callanwu/WebWalkerQA`` holding a ``main`` split file): `question`, `answer`,
  `root_url`, `info`, lower-case or as the dataset card capitalises them; `subset=170`
  is `random.seed(42); random.sample(rows, 170)` over the file's non-blank rows in order.

- xBench-DeepSearch (CSV): `id`, `prompt`, `answer`, `reference_steps`, `canary`;
  `prompt` and `answer` decrypted in memory (cipher.py), never written anywhere.

Every problem raises `BenchmarkDataError` naming the file, the row and what is wrong.
Row numbers are 1-based: the line number for JSONL, the data row (header not counted)
for CSV and parquet, the element for a JSON array.

A snapshot folder (``--data`` pointing at a download as it is) and reading rows:
rows.py. Not here: the task order of a run (the runner shuffles with seed 42), scoring
(scoring.py), judging (judges.py). No benchmark data ships with the toolkit.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path
from typing import Any

from hyperskill_lite.agent.tools.files import ATTACHMENT_KEYS, OutsideFolder, contained
from hyperskill_lite.bench.cipher import xbench_decrypt
from hyperskill_lite.bench.errors import BenchmarkDataError
from hyperskill_lite.bench.gaia import load_gaia
from hyperskill_lite.bench.rows import (
    check_unique,
    field,
    plain,
    read_json_rows,
    read_parquet_rows,
    require_file,
    resolve_snapshot,
    text_value,
)
from hyperskill_lite.bench.templates import webwalkerqa_prompt, xbench_prompt
from hyperskill_lite.llm.client import BENCHMARKS
from hyperskill_lite.types import Task

__all__ = [
    "XBENCH_COLUMNS",
    "load_webwalkerqa",
    "load_xbench",
    "load_benchmark",
    "load_tasks_jsonl",
]

XBENCH_COLUMNS = ("id", "prompt", "answer", "canary")
"""Columns an xBench CSV must have (`reference_steps` is optional and not loaded)."""

_WQA_FIELDS = {
    "question": ("question", "Question"),
    "answer": ("answer", "Answer"),
    "root_url": ("root_url", "Root_Url", "Root_URL"),
}
_ALIASES = {"wqa": "webwalkerqa", "webwalker": "webwalkerqa", "xbench-deepsearch": "xbench"}



# --- WebWalkerQA ---------------------------------------------------------------------


WQA_SUFFIXES = (".jsonl", ".json", ".parquet")


def _find_wqa_files(path: Path, split: str) -> list[Path]:
    """The file(s) of WebWalkerQA split `split` ("main" or "silver") in a snapshot
    folder: data files whose path relative to it names the split (``main.jsonl``,
    ``main/*.jsonl``, ``data/main-00000-of-00001.parquet``, ...), sorted."""
    path = resolve_snapshot(path)
    if path.is_file():
        return [path]
    if not path.exists():
        what = "file" if path.suffix in WQA_SUFFIXES else "file or folder"
        raise BenchmarkDataError(path, f"{what} not found")
    found = sorted(p for p in path.rglob("*") if p.suffix in WQA_SUFFIXES and p.is_file()
                   and ".cache" not in p.parts)
    pick = [p for p in found
            if split in {part.split("-")[0].split(".")[0] for part in p.relative_to(path).parts}]
    if pick:
        return pick
    names = ", ".join(str(p.relative_to(path)) for p in found[:6]) or "no data files"
    raise BenchmarkDataError(path, f"no WebWalkerQA {split!r} split file here (found "
                             f"{names}); point --data at the JSONL or parquet file")


def _wqa_rows(files: list[Path]) -> list[tuple[Path, int, dict[str, Any]]]:
    out = []
    for f in files:
        rows = read_parquet_rows(f) if f.suffix == ".parquet" else read_json_rows(f)
        out += [(f, row, rec) for row, rec in rows]
    return out


def load_webwalkerqa(path: str | Path, subset: int | None = 170, *, seed: int = 42,
                     split: str = "main") -> list[Task]:
    """Read WebWalkerQA into tasks; by default the paper's 170-question subset.

    Parameters
    ----------
    path : JSONL, one question per line (blank lines skipped); a `.json` file holding
        an array; a parquet file (needs pyarrow); or a snapshot folder of
        ``callanwu/WebWalkerQA`` (the files of split `split`, concatenated in name order).
    subset : number of rows to sample as the reference sampler does,
        ``random.seed(seed); random.sample(rows, subset)`` over the file's rows in
        order (here with a local ``random.Random(seed)``, which draws the same);
        ``None`` returns every row in file order.
    seed : the sampler's seed (42 in the paper's protocol).
    split : the split a snapshot folder is read for: "main" (the 680 questions) or
        "silver" (the unverified training set).

    Returns
    -------
    list[Task] in sample order, ``benchmark="webwalkerqa"``, ``id`` the row's `id` field
    when it has one, else ``"wqa-NNNN"`` from its 1-based position among the file's
    rows (stable across subsets); ``meta = {"row", "index", "root_url", "info"}``.
    """
    files = _find_wqa_files(Path(path), split)
    path = files[0] if len(files) == 1 else resolve_snapshot(Path(path))
    tasks = []
    for index, (file, row, rec) in enumerate(_wqa_rows(files), start=1):
        values = {
            key: text_value(field(rec, names, file, row), names[0], file, row)
            for key, names in _WQA_FIELDS.items()
        }
        info = plain(rec.get("info", rec.get("Info")) or {})
        task_id = str(rec["id"]) if rec.get("id") not in (None, "") else f"wqa-{index:04d}"
        tasks.append(
            Task(
                id=task_id,
                question=values["question"],
                answer=values["answer"],
                prompt=webwalkerqa_prompt(values["question"], values["root_url"]),
                benchmark="webwalkerqa",
                meta={"row": row, "index": index, "root_url": values["root_url"], "info": info},
            )
        )
    check_unique(tasks, path)
    if subset is None:
        return tasks
    if isinstance(subset, bool) or not isinstance(subset, int) or subset < 0:
        raise ValueError(
            f"load_webwalkerqa: subset must be a non-negative int or None, got {subset!r}"
        )
    if subset > len(tasks):
        raise BenchmarkDataError(
            path,
            f"subset={subset} asks for more rows than the file has ({len(tasks)}); "
            "pass subset=None to load all rows",
        )
    return random.Random(seed).sample(tasks, subset)


# --- xBench --------------------------------------------------------------------------


def load_xbench(path: str | Path) -> list[Task]:
    """Read the xBench-DeepSearch CSV into tasks, decrypting `prompt` and `answer` in memory.

    Parameters
    ----------
    path : the CSV (UTF-8, a byte-order mark allowed) with columns `id`, `prompt`,
        `answer`, `canary` (and usually `reference_steps`, which is not loaded).

    Returns
    -------
    list[Task] in file order, ``benchmark="xbench"``, ``question`` and ``answer`` the
    decrypted text, ``prompt`` the question unchanged, ``meta = {"row"}``.

    Nothing decrypted is written anywhere: xBench asks that its plain text not be
    posted online. (A cassette recorded during a run does hold prompts; keep it private.)
    """
    path = require_file(Path(path))
    tasks = []
    try:
        with path.open(encoding="utf-8-sig", newline="") as f:
            reader = csv.DictReader(f)
            header = reader.fieldnames or []
            missing = [c for c in XBENCH_COLUMNS if c not in header]
            if missing:
                raise BenchmarkDataError(
                    path, f"missing columns {missing}; the header has {header}"
                )
            for row, rec in enumerate(reader, start=1):
                if None in rec:
                    raise BenchmarkDataError(path, "more fields than the header", row=row)
                if any(rec[c] is None for c in XBENCH_COLUMNS):
                    raise BenchmarkDataError(path, "fewer fields than the header", row=row)
                task_id = text_value(rec["id"], "id", path, row).strip()
                canary = rec["canary"]
                if not canary:
                    raise BenchmarkDataError(path, "canary is empty", row=row)
                plain = {}
                for col in ("prompt", "answer"):
                    try:
                        plain[col] = xbench_decrypt(rec[col], canary)
                    except ValueError as e:
                        raise BenchmarkDataError(path, f"column {col!r}: {e}", row=row) from None
                    if not plain[col].strip():
                        raise BenchmarkDataError(
                            path, f"column {col!r} decrypts to empty text", row=row
                        )
                tasks.append(
                    Task(
                        id=task_id,
                        question=plain["prompt"],
                        answer=plain["answer"],
                        prompt=xbench_prompt(plain["prompt"]),
                        benchmark="xbench",
                        meta={"row": row},
                    )
                )
    except UnicodeDecodeError as e:
        raise BenchmarkDataError(path, f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    except csv.Error as e:
        raise BenchmarkDataError(path, f"malformed CSV ({e})") from None
    check_unique(tasks, path)
    return tasks


# --- plain task files ----------------------------------------------------------------


def load_tasks_jsonl(path: str | Path, benchmark: str = "custom") -> list[Task]:
    """Read a plain task file (the runner's ``--tasks FILE``): JSONL, one task per line.

    Fields: `question` (required), `id` (default ``"task-NNNN"`` from the row's 1-based
    position), `answer`, `prompt` (default: none, the agent sees the question),
    `benchmark` (default the `benchmark` argument) and `meta` (an object), all optional.
    Tasks come back in file order; ``meta["row"]`` is the line number.

    An attached file (``meta["file"]``, ``"file_path"`` or ``"attachment"``) is named
    relative to the file's folder and must stay inside it (no ``..`` out of it, no
    absolute path, no symlink leading out); it comes back as an absolute path. A live
    run exposes these files and nothing else of the folder (not a ``.env`` beside the
    task file).
    """
    path = Path(path)
    tasks = []
    for index, (row, rec) in enumerate(read_json_rows(path), start=1):
        question = text_value(field(rec, ("question",), path, row), "question", path, row)
        answer = rec.get("answer")
        prompt = rec.get("prompt")
        meta = rec.get("meta") or {}
        if not isinstance(meta, dict):
            raise BenchmarkDataError(
                path, f"meta is a {type(meta).__name__}, not an object", row=row
            )
        meta = _attachments(path, row, meta)
        task_id = rec.get("id")
        tasks.append(
            Task(
                id=f"task-{index:04d}" if task_id in (None, "") else str(task_id),
                question=question,
                answer=None if answer is None else str(answer),
                prompt=None if prompt is None else text_value(prompt, "prompt", path, row),
                benchmark=str(rec.get("benchmark") or benchmark),
                meta={**meta, "row": row},
            )
        )
    check_unique(tasks, path)
    return tasks


def _attachments(path: Path, row: int, meta: dict[str, Any]) -> dict[str, Any]:
    """`meta` with each attachment field resolved inside the task file's folder."""
    base = path.resolve().parent
    out = dict(meta)
    for key in ATTACHMENT_KEYS:
        v = meta.get(key)
        if not isinstance(v, str) or not v.strip():
            continue
        try:
            contained(base, v.strip())
        except OutsideFolder as e:
            raise BenchmarkDataError(path, f"meta.{key}: {e}; refused: a task's files must "
                                     "stay inside the folder of the task file", row=row) from None
        out[key] = str(base / v.strip())
    return out


# --- dispatch ------------------------------------------------------------------------


def load_benchmark(name: str, path: str | Path, **kw: Any) -> list[Task]:
    """Load benchmark `name` ("gaia", "webwalkerqa" or "xbench"; "wqa" also works) from
    `path`; keyword arguments go to the loader (`level=` and `split=` for GAIA,
    `subset=`/`seed=` for WebWalkerQA; `split="test"` is GAIA's alone).

    >>> load_benchmark("mmlu", "x.csv")
    Traceback (most recent call last):
    ...
    ValueError: unknown benchmark 'mmlu'; choose one of gaia, webwalkerqa, xbench
    """
    key = _ALIASES.get(name.strip().lower(), name.strip().lower())
    loaders = {"gaia": load_gaia, "webwalkerqa": load_webwalkerqa, "xbench": load_xbench}
    if key not in loaders:
        raise ValueError(f"unknown benchmark {name!r}; choose one of {', '.join(BENCHMARKS)}")
    split = kw.pop("split", None)
    if key == "gaia":
        kw["split"] = split
    elif split not in (None, "validation"):
        raise ValueError(f"--split {split} applies to GAIA only ({key} publishes its answers; "
                         "its runs are judged as usual)")
    return loaders[key](path, **kw)
