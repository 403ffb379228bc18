"""GAIA (Mialon et al.): its metadata read into tasks, the validation and the test split.

- `metadata.jsonl` or `metadata.parquet`, the folder holding it, or a whole Hugging Face
  snapshot of ``gaia-benchmark/GAIA`` (``2023/validation/`` and ``2023/test/``) or its
  cache folder: `task_id`, `Question`, `Level`, `Final answer`, `file_name` (`file_path`,
  relative to the snapshot, in the parquet layout); attachments are resolved beside the
  metadata file and must stay inside the benchmark's folder: a name with ``..`` that
  leaves it, an absolute path, or a symlink whose target lies outside it (outside the
  cache entry, for a Hugging Face cache, whose files are symlinks into its ``blobs/``)
  is refused with one line naming the row (agent/tools/files.py `contained`).
- The test split withholds its answers ("?"): its tasks have no gold answer
  (``answer=None``), so nothing can judge them against "?"; a run over it writes a
  leaderboard submission instead (submission.py).

Every problem raises `BenchmarkDataError` naming the file, the row and what is wrong.

>>> _parse_level(" 2 "), _parse_level(3.0)
(2, 3)

Not here: the other benchmarks and the dispatch (loaders.py), reading rows (rows.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hyperskill_lite.agent.tools.files import OutsideFolder, contained, hf_boundary
from hyperskill_lite.bench.errors import BenchmarkDataError
from hyperskill_lite.bench.rows import (
    check_unique,
    field,
    read_json_rows,
    read_parquet_rows,
    resolve_snapshot,
    text_value,
)
from hyperskill_lite.bench.templates import gaia_prompt
from hyperskill_lite.types import Task

__all__ = ["GAIA_SPLITS", "GAIA_COLUMNS", "WITHHELD", "load_gaia"]

GAIA_SPLITS = ("validation", "test")
"""GAIA's splits; the test split's answers are withheld ("?") and go to the leaderboard."""
WITHHELD = "?"
"""How GAIA's test split writes its withheld answers."""

GAIA_COLUMNS = ("task_id", "Question", "Level", "Final answer")
"""Fields every GAIA metadata row must have (`file_name` is optional, empty = no file)."""


def _find_gaia_metadata(path: Path, split: str | None) -> Path:
    path = resolve_snapshot(path)
    if path.is_file():
        return path
    if not path.exists():
        raise BenchmarkDataError(path, "file or folder not found")
    want = split or "validation"
    candidates = [
        path / sub / f"metadata.{ext}"
        for sub in (".", want, f"2023/{want}")
        for ext in ("jsonl", "parquet")
    ]
    for c in candidates:
        if c.is_file():
            return c
    raise BenchmarkDataError(
        path,
        f"no GAIA metadata found; looked for metadata.jsonl or metadata.parquet here, "
        f"in {want}/ and in 2023/{want}/ (a snapshot of gaia-benchmark/GAIA has "
        "2023/validation/ and 2023/test/)",
    )


def _attachment(meta_path: Path, row: int, base: Path, name: str) -> Path:
    """`base`/`name` after checking it stays inside the benchmark's folder (the symlink
    itself is kept: a Hugging Face cache's file has its name, its blob a hash)."""
    try:
        contained(base, name, hf_boundary(base))
    except OutsideFolder as e:
        raise BenchmarkDataError(meta_path, f"attachment {e}; refused: attachments must stay "
                                 "inside the benchmark's folder", row=row) from None
    return base / name


def _parse_level(value: Any) -> int:
    """1, "1", " 2 ", 3.0 -> int; anything else raises ValueError."""
    s = str(value).strip()
    try:
        return int(s)
    except ValueError:
        f = float(s)  # raises ValueError for non-numbers
        if not f.is_integer():
            raise ValueError(s) from None
        return int(f)


def _level_filter(level: int | str | Iterable[int | str] | None) -> set[int] | None:
    if level is None:
        return None
    items = [level] if isinstance(level, (int, str)) else list(level)
    out = set()
    for item in items:
        try:
            lv = _parse_level(item)
        except ValueError:
            raise ValueError(f"load_gaia: level must be 1, 2 or 3, got {item!r}") from None
        if lv not in (1, 2, 3):
            raise ValueError(f"load_gaia: level must be 1, 2 or 3, got {item!r}")
        out.add(lv)
    return out


def load_gaia(
    path: str | Path,
    level: int | str | Iterable[int | str] | None = None,
    *,
    split: str | None = None,
    check_files: bool = True,
) -> list[Task]:
    """Read GAIA metadata into tasks, in file order.

    Parameters
    ----------
    path : `metadata.jsonl`, `metadata.parquet` (needs pyarrow), a folder holding one
        (directly, in `<split>/` or in `2023/<split>/`), or a Hugging Face snapshot or
        cache folder of ``gaia-benchmark/GAIA``.
    level : keep only this level (1, 2, 3; an int or a string) or these levels.
    split : "validation" or "test" (`GAIA_SPLITS`); None takes the folder's name, else
        "test" when every answer is withheld ("?"), else "validation". A validation
        request on a file whose answers are all "?" is refused (it is the test split).
    check_files : raise when a row's attachment is missing beside the metadata.

    Returns
    -------
    list[Task] with ``benchmark="gaia"``, ``answer`` the `Final answer` as text (None on
    the test split: the answers are withheld), and `meta` holds ``row``, ``level``,
    ``file_name``, ``file_path``, ``split`` (`file_path` absolute or None). ``prompt`` names
    the attachment's path when there is one.
    """
    if split is not None and split not in GAIA_SPLITS:
        raise ValueError(f"load_gaia: split must be one of {', '.join(GAIA_SPLITS)}, "
                         f"got {split!r}")
    meta_path = _find_gaia_metadata(Path(path), split)
    folder_split = meta_path.parent.name if meta_path.parent.name in GAIA_SPLITS else None
    if split is not None and folder_split is not None and folder_split != split:
        raise BenchmarkDataError(meta_path, f"this is the {folder_split} split but --split "
                                 f"{split} was asked for; point --data at the {split} "
                                 "folder or the snapshot root")
    rows = _read_metadata(meta_path)
    wanted = _level_filter(level)
    folder = meta_path.parent.resolve()
    root = folder.parent.parent  # the snapshot root in the 2023/<split>/ layout
    withheld = bool(rows) and all(
        str(rec.get("Final answer", "")).strip() == WITHHELD for _, rec in rows)
    effective = split or folder_split or ("test" if withheld else "validation")
    if effective == "validation" and withheld:
        raise BenchmarkDataError(meta_path, "every answer is withheld ('?'): this is GAIA's "
                                 "test split; pass --split test to write a leaderboard "
                                 "submission (it is never judged)")

    tasks = [_gaia_task(rec, row, meta_path, folder, root, effective, check_files)
             for row, rec in rows]
    check_unique(tasks, meta_path)
    if wanted is not None:
        tasks = [t for t in tasks if t.meta["level"] in wanted]
    return tasks


def _read_metadata(meta_path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The rows of a GAIA metadata file; a parquet file must have every `GAIA_COLUMNS`."""
    if meta_path.suffix == ".parquet":
        rows = read_parquet_rows(meta_path)
        if rows:
            missing = [c for c in GAIA_COLUMNS if c not in rows[0][1]]
            if missing:
                raise BenchmarkDataError(
                    meta_path, f"missing columns {missing}; it has {sorted(rows[0][1])}"
                )
    else:
        rows = read_json_rows(meta_path)
    return rows


def _gaia_task(
    rec: dict[str, Any],
    row: int,
    meta_path: Path,
    folder: Path,
    root: Path,
    effective: str,
    check_files: bool,
) -> Task:
    """One metadata row as a `load_gaia` task of the split `effective`."""
    task_id = text_value(field(rec, ("task_id",), meta_path, row), "task_id", meta_path, row)
    question = text_value(field(rec, ("Question",), meta_path, row), "Question", meta_path, row)
    answer: str | None = text_value(
        field(rec, ("Final answer",), meta_path, row), "Final answer", meta_path, row
    )
    if effective == "test":
        answer = None  # withheld: scored by the leaderboard, never here
    raw_level = field(rec, ("Level",), meta_path, row)
    try:
        lv = _parse_level(raw_level)
    except ValueError:
        raise BenchmarkDataError(
            meta_path, f"Level {raw_level!r} is not a level number", row=row
        ) from None
    file_name = rec.get("file_name")
    file_name = "" if file_name is None or file_name != file_name else str(file_name).strip()
    file_path = None
    if file_name:
        fp = _attachment(meta_path, row, folder, file_name)
        rel = rec.get("file_path")
        if not fp.is_file() and isinstance(rel, str) and rel.strip():
            # the parquet layout: relative to the snapshot
            fp = _attachment(meta_path, row, root, rel.strip())
        if check_files and not fp.is_file():
            raise BenchmarkDataError(
                meta_path, f"attachment {file_name!r} not found (looked for {fp})", row=row
            )
        file_path = str(fp)
    return Task(
        id=task_id,
        question=question,
        answer=answer,
        prompt=gaia_prompt(question, file_path),
        benchmark="gaia",
        meta={"row": row, "level": lv, "file_name": file_name, "file_path": file_path,
              "split": effective},
    )
