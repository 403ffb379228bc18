"""Reading benchmark files: rows of JSONL, JSON-array and parquet files with their 1-based
row numbers, required fields and text values checked with errors naming file, row and
problem, and Hugging Face snapshot folders resolved.

A snapshot folder is what ``hf download REPO --repo-type dataset --local-dir DIR`` writes,
or the Hugging Face cache's ``datasets--ORG--NAME`` folder, whose ``snapshots/<revision>``
(the one ``refs/main`` names) holds the files; `resolve_snapshot` turns the second into
the first. Parquet needs pyarrow (the ``bench`` extra); without it the error says so.

>>> text_value(" 12 ", "Level", Path("m.jsonl"), 3)
' 12 '

Not here: what a benchmark's columns mean (gaia.py, loaders.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hyperskill_lite.bench.errors import BenchmarkDataError
from hyperskill_lite.types import Task

__all__ = ["require_file", "read_text", "read_json_rows", "read_parquet_rows", "field",
           "text_value", "check_unique", "plain", "resolve_snapshot"]


def require_file(path: Path) -> Path:
    if not path.exists():
        raise BenchmarkDataError(path, "file not found")
    if not path.is_file():
        raise BenchmarkDataError(path, "not a file")
    return path


def read_text(path: Path, encoding: str = "utf-8") -> str:
    try:
        return require_file(path).read_text(encoding=encoding)
    except UnicodeDecodeError as e:
        raise BenchmarkDataError(path, f"not UTF-8 text ({e.reason} at byte {e.start})") from None


def read_json_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(row number, record) for every non-blank line of a JSONL file, or every element
    of a JSON array when the file holds one."""
    text = read_text(path)
    if path.suffix == ".json" and text.lstrip().startswith("["):
        try:
            items = json.loads(text)
        except json.JSONDecodeError as e:
            raise BenchmarkDataError(path, f"bad JSON: {e.msg}: line {e.lineno}, column "
                                     f"{e.colno}") from None
        pairs = list(enumerate(items, start=1))
    else:
        pairs = []
        for lineno, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                pairs.append((lineno, json.loads(line)))
            except json.JSONDecodeError as e:
                raise BenchmarkDataError(path, f"bad JSON: {e.msg}: column {e.colno}",
                                         row=lineno) from None
    for row, rec in pairs:
        if not isinstance(rec, dict):
            raise BenchmarkDataError(
                path, f"expected a JSON object, got {type(rec).__name__}", row=row
            )
    return pairs


def field(rec: dict[str, Any], names: tuple[str, ...], path: Path, row: int) -> Any:
    for name in names:
        if name in rec:
            return rec[name]
    alts = " or ".join(repr(n) for n in names)
    raise BenchmarkDataError(
        path, f"missing field {alts}; the row has {sorted(map(str, rec))}", row=row
    )


def text_value(value: Any, what: str, path: Path, row: int) -> str:
    """A required text value: non-empty after stripping; numbers become strings."""
    if value is None or isinstance(value, float) and value != value:  # None or NaN
        raise BenchmarkDataError(path, f"{what} is empty", row=row)
    if isinstance(value, (dict, list)):
        raise BenchmarkDataError(path, f"{what} is a {type(value).__name__}, not text", row=row)
    out = str(value)
    if not out.strip():
        raise BenchmarkDataError(path, f"{what} is empty", row=row)
    return out


def check_unique(tasks: list[Task], path: Path) -> None:
    seen: dict[str, int] = {}
    for t in tasks:
        row = t.meta["row"]
        if t.id in seen:
            raise BenchmarkDataError(
                path, f"duplicate id {t.id!r} (first seen in row {seen[t.id]})", row=row
            )
        seen[t.id] = row



def resolve_snapshot(path: str | Path) -> Path:
    """The folder a Hugging Face cache entry stands for: for ``datasets--ORG--NAME`` (it
    holds ``snapshots/``), the snapshot ``refs/main`` names (or its only one); any other
    path as it is.

    >>> resolve_snapshot("data/fixtures/gaia") == Path("data/fixtures/gaia")
    True
    """
    path = Path(path).expanduser()
    snaps = path / "snapshots"
    if not (path.is_dir() and snaps.is_dir()):
        return path
    ref = path / "refs" / "main"
    if ref.is_file():
        rev = ref.read_text(encoding="utf-8").strip()
        if (snaps / rev).is_dir():
            return snaps / rev
    found = sorted(d for d in snaps.iterdir() if d.is_dir())
    if len(found) == 1:
        return found[0]
    raise BenchmarkDataError(
        path, f"a Hugging Face cache folder with {len(found)} snapshots and no usable "
        "refs/main; point --data at one of " + ", ".join(str(d) for d in found[:3]))


def plain(value: Any) -> Any:
    """numpy scalars and arrays (what pandas gives for parquet structs) as plain Python."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and type(value).__module__ == "numpy":
        return plain(tolist())
    return value


def read_parquet_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    import pandas as pd  # lazy: only parquet needs it

    try:
        df = pd.read_parquet(require_file(path))
    except ImportError:
        raise BenchmarkDataError(
            path, "reading parquet needs pyarrow: pip install 'hyperskill_lite[bench]' "
            "(or pip install pyarrow -c constraints.txt), or point --data at a .jsonl file"
        ) from None
    except (OSError, ValueError) as e:
        raise BenchmarkDataError(path, f"unreadable parquet file ({e})") from None
    return [(i, {str(k): plain(v) for k, v in rec.items()})
            for i, rec in enumerate(df.to_dict("records"), start=1)]
