"""A big run's records in bounded memory: `RecordTable`, what `read_records_lean` returns
for a records file past `BIG_BYTES` (records.py).

A records line is a few kB of JSON; as Python dicts a 1 GB ``episodes.jsonl`` (about
250,000 episodes) takes several GB. A `RecordTable` keeps, in one streaming pass, only
what `report` and the studio read of each record, in compact columns:

- the numbers and short strings of every record (`SCALARS`: task id, outcome, steps,
  calls, tokens, seconds, phase, error ...; strings cut to `TEXT_CHARS`) in typed arrays
  (8 bytes a value) or lists, each column with its presence per record; ``sizes`` as
  one integer column per key;
- ``retrieved`` as one string per record (the ids joined);
- a HyperSkill ``update`` as its hyperedge id, its dedup count and, per skill, the node
  id, the dedup and opposite-polarity flags, the polarity and the cosine; the skills'
  names and contents are left in the file (`RunFolder.whole` reads them back for the few
  skills a page shows);
- what only some records hold (``maintenance``, ``health_warning``, another method's
  ``update``) as compact JSON, lists cut to `MAX_ITEMS` and strings to `TEXT_CHARS`;
- everything else (the retrieval ``explain``, usage, the judges' verdicts, reasoning,
  tool calls) is left in the file.

Records are added a chunk at a time (`CHUNK` parsed records at most are alive), and each
column is converted in C loops. A record read (``table[i]``, iteration) is a `Row`, a
read-only mapping whose fields are built when asked for, so every reader of records
(summaries, health, charts, provenance, figures) works unchanged and a pass that reads
two fields builds only those; a slice or `subset` is a view, `column` one field at once.
About 400 bytes per record in all.

Not here: parsing lines and the checks of each (records.py), what the views take.
"""

from __future__ import annotations

import json
import math
import operator
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from hyperskill_lite.core.elements import POLARITIES

__all__ = ["RecordTable", "RecordView", "Row", "trimmed", "BIG_BYTES", "MAX_ITEMS", "TEXT_CHARS", "SCALARS",
           "CHUNK"]

BIG_BYTES = 64 * 2**20
"""Records files larger than this are read into a `RecordTable` (smaller ones as dicts)."""
CHUNK = 2048
"""Parsed records kept at once while a table is built."""
MAX_ITEMS = 200
"""Lists inside the rare fields (a maintenance cycle's merges and pruned nodes) are cut
to this many items."""
TEXT_CHARS = 300
"""Strings a table keeps are cut to this many characters."""
SCALARS = ("task_id", "success", "learned_success", "steps", "calls", "tokens",
           "context_tokens", "injected", "memory_llm_calls", "memory_seconds", "seconds",
           "memory_tokens", "setup_seconds", "phase", "errored", "error")
"""The plain fields kept of every record (besides index, sizes, retrieved, update)."""
SPARSE = ("maintenance", "health_warning")
"""Fields only some records hold, kept as (cut) compact JSON."""
_MISSING = object()
_SEP = "\x1f"
_SKILL_KEYS = frozenset(("content", "cosine", "cross_polarity", "dedup", "name", "node",
                         "polarity"))
_UPDATE_KEYS = frozenset(("dedup", "edge", "skills"))
_TYPED = {int: "q", float: "d", bool: "b"}

try:  # optional speed-up (the studio extra), as in records.py
    import orjson

    def _dumps(v: Any) -> bytes:
        # a copy of the exact size: orjson's own buffer keeps a few kB per object
        return bytes(bytearray(orjson.dumps(v)))

    _loads = orjson.loads
except ImportError:  # pragma: no cover - exercised where orjson is not installed
    def _dumps(v: Any) -> bytes:
        return json.dumps(v, separators=(",", ":")).encode()

    _loads = json.loads


def trimmed(value: Any, depth: int = 0) -> Any:
    """`value` with strings cut to `TEXT_CHARS`, lists to `MAX_ITEMS` (and nesting to 6)."""
    if isinstance(value, str):
        return value if len(value) <= TEXT_CHARS else value[: TEXT_CHARS - 1] + "\u2026"
    if depth >= 6:
        return None
    if isinstance(value, list):
        return [trimmed(v, depth + 1) for v in value[:MAX_ITEMS]]
    if isinstance(value, dict):
        return {str(k)[:80]: trimmed(v, depth + 1) for k, v in list(value.items())[:MAX_ITEMS]}
    return value


class _Column:
    """One field over every record: a typed array ("q" int, "d" float, "b" bool) while
    its values allow, a list otherwise; `present` says which records hold it."""

    __slots__ = ("kind", "values", "present")

    def __init__(self, n: int) -> None:
        self.kind = ""
        self.values: Any = [None] * n
        self.present = bytearray(n)

    def extend(self, chunk: list[Any]) -> None:
        """Add one chunk of values (`_MISSING` where a record lacks the field)."""
        missing = chunk.count(_MISSING)
        if missing == len(chunk):
            self.present += bytes(len(chunk))
            self.values.extend([0] * len(chunk) if self.kind in _TYPED.values()
                               else [None] * len(chunk))
            return
        if missing:
            self.present += bytes(v is not _MISSING for v in chunk)
        else:
            self.present += b"\x01" * len(chunk)
        types = set(map(type, chunk)) - {object}
        kind = _TYPED.get(next(iter(types))) if len(types) == 1 else None
        if not self.kind and kind:  # the first values decide, and the absent ones before
            self.kind, self.values = kind, array(kind, bytes(array(kind).itemsize
                                                             * len(self.values)))
        if kind is not None and kind == self.kind:
            try:
                self.values.extend([0 if v is _MISSING else v for v in chunk] if missing
                                   else chunk)
                return
            except OverflowError:  # an integer past 64 bits: kept as it is
                pass
        if self.kind != "o":
            self.values = [bool(v) for v in self.values] if self.kind == "b" \
                else list(self.values)
            self.kind = "o"
        self.values.extend(None if v is _MISSING else trimmed(v) if type(v) is not str
                           or len(v) > TEXT_CHARS else v for v in chunk)

    def get(self, i: int) -> Any:
        if not self.present[i]:
            return _MISSING
        v = self.values[i]
        return bool(v) if self.kind == "b" else v


class RecordTable(Sequence):
    """A run's records in compact columns (module docstring); ``table[i]`` is record
    `i` as a dict of the kept fields, `offsets` the byte offset of each line. Add
    records with `append` and call `finish` once after the last."""

    def __init__(self) -> None:
        self.n = 0
        self.offsets = array("q")
        self._chunk: list[dict[str, Any]] = []
        self._cols: dict[str, _Column] = {}
        self._sizes: dict[str, _Column] = {}
        self._has_sizes = bytearray()
        self._ret: list[str | None] = []  # ids joined by _SEP; None: absent or sparse
        self._upd_kind = bytearray()  # 0 absent, 1 compact, 2 other value (sparse)
        self._upd_edge: list[str | None] = []
        self._upd_dedup = array("q")  # -1 absent
        self._upd_nodes: list[str] = []
        self._sk_ptr = array("q", [0])
        self._sk_flags = bytearray()  # bit 0 dedup, 1 cross_polarity, 2 polarity, 3 cosine
        self._sk_cos = array("d")
        self._sparse: dict[str, dict[int, bytes]] = {}

    # -- building ---------------------------------------------------------------------
    def append(self, rec: dict[str, Any], offset: int) -> None:
        """Add record `rec` (its ``index`` already checked to be its position), whose
        line starts at byte `offset`."""
        self.offsets.append(offset)
        self._chunk.append(rec)
        if len(self._chunk) >= CHUNK:
            self._flush()

    def finish(self) -> RecordTable:
        """Convert the last chunk; the table is then complete."""
        self._flush()
        return self

    def _flush(self) -> None:
        chunk, self._chunk = self._chunk, []
        if not chunk:
            return
        n0 = self.n
        for key in SCALARS:
            vals = [r.get(key, _MISSING) for r in chunk]
            col = self._cols.get(key)
            if col is None:
                if vals.count(_MISSING) == len(vals):
                    continue
                col = self._cols[key] = _Column(n0)
            col.extend(vals)
        self._flush_sizes(chunk, n0)
        for k, r in enumerate(chunk):
            i = n0 + k
            self._add_retrieved(i, r.get("retrieved", _MISSING))
            self._add_update(i, r.get("update", _MISSING))
            for key in SPARSE:
                if key in r:
                    self._sparse.setdefault(key, {})[i] = _dumps(trimmed(r[key]))
        self.n += len(chunk)

    def _flush_sizes(self, chunk: list[dict[str, Any]], n0: int) -> None:
        rows = []
        for k, r in enumerate(chunk):
            sizes = r.get("sizes", _MISSING)
            ok = type(sizes) is dict and all(type(v) is int for v in sizes.values())
            rows.append(sizes if ok else None)
            if not ok and sizes is not _MISSING:
                self._sparse.setdefault("sizes", {})[n0 + k] = _dumps(trimmed(sizes))
        self._has_sizes += bytes(r is not None for r in rows)
        keys = {k for r in rows if r is not None for k in r}
        for key in keys:
            if key not in self._sizes:
                self._sizes[key] = _Column(n0)
        for key, col in self._sizes.items():
            col.extend([_MISSING if r is None else r.get(key, _MISSING) for r in rows])

    def _add_retrieved(self, i: int, value: Any) -> None:
        if value is _MISSING:
            self._ret.append(None)
        elif type(value) is list and all(type(x) is str and _SEP not in x for x in value):
            self._ret.append(_SEP.join(x[:TEXT_CHARS] for x in value[: MAX_ITEMS * 10]))
        else:
            self._ret.append(None)
            self._sparse.setdefault("retrieved", {})[i] = _dumps(trimmed(value))

    def _add_update(self, i: int, upd: Any) -> None:
        skills = upd.get("skills", []) if type(upd) is dict else None
        compact = (type(upd) is dict and upd.keys() <= _UPDATE_KEYS
                   and type(skills) is list
                   and (upd.get("edge") is None or type(upd.get("edge")) is str)
                   and type(upd.get("dedup", 0)) is int
                   and all(type(s) is dict and s.keys() <= _SKILL_KEYS
                           and type(s.get("node")) is str and _SEP not in s["node"]
                           and s.get("polarity") in POLARITIES
                           and (s.get("cosine") is None or type(s.get("cosine")) is float)
                           for s in skills))
        if not compact:
            self._upd_kind.append(0 if upd is _MISSING else 2)
            if upd is not _MISSING:
                self._sparse.setdefault("update", {})[i] = _dumps(trimmed(upd))
            self._upd_edge.append(None)
            self._upd_dedup.append(-1)
            self._upd_nodes.append("")
            self._sk_ptr.append(len(self._sk_flags))
            return
        self._upd_kind.append(1)
        edge = upd.get("edge", _MISSING)
        self._upd_edge.append(edge[:TEXT_CHARS] if type(edge) is str else
                              "" if edge is _MISSING else None)
        self._upd_dedup.append(upd["dedup"] if "dedup" in upd and upd["dedup"] >= 0 else -1)
        skills = skills[:MAX_ITEMS]
        self._upd_nodes.append(_SEP.join(s["node"][:TEXT_CHARS] for s in skills))
        for s in skills:
            self._sk_flags.append(bool(s.get("dedup")) | bool(s.get("cross_polarity")) << 1
                                  | POLARITIES.index(s["polarity"]) << 2 | ("cosine" in s) << 3)
            cos = s.get("cosine")
            self._sk_cos.append(math.nan if cos is None else cos)
        self._sk_ptr.append(len(self._sk_flags))

    # -- reading ----------------------------------------------------------------------
    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return RecordView(self, range(self.n)[i])
        i = operator.index(i)
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError("record index out of range")
        return self._row(i)

    def __iter__(self) -> Iterator[Mapping[str, Any]]:
        return (Row(self, i) for i in range(self.n))

    def _row(self, i: int) -> Mapping[str, Any]:
        return Row(self, i)

    def _field(self, i: int, key: str) -> Any:
        """Field `key` of record `i`, or `_MISSING`."""
        if key == "index":
            return i
        col = self._cols.get(key)
        if col is not None:
            return col.get(i)
        if key == "sizes":
            if self._has_sizes[i]:
                return {k: v for k, c in self._sizes.items() if (v := c.get(i)) is not _MISSING}
        elif key == "retrieved":
            ret = self._ret[i]
            if ret is not None:
                return ret.split(_SEP) if ret else []
        elif key == "update" and self._upd_kind[i] == 1:
            return self._update(i)
        rows = self._sparse.get(key)
        if rows is not None and i in rows:
            return _loads(rows[i])
        return _MISSING

    def _dict(self, i: int) -> dict[str, Any]:
        d: dict[str, Any] = {"index": i}
        for key, col in self._cols.items():
            v = col.get(i)
            if v is not _MISSING:
                d[key] = v
        if self._has_sizes[i]:
            d["sizes"] = {k: v for k, col in self._sizes.items()
                          if (v := col.get(i)) is not _MISSING}
        ret = self._ret[i]
        if ret is not None:
            d["retrieved"] = ret.split(_SEP) if ret else []
        kind = self._upd_kind[i]
        if kind == 1:
            d["update"] = self._update(i)
        for key, rows in self._sparse.items():
            if i in rows:
                d[key] = _loads(rows[i])
        return d

    def _update(self, i: int) -> dict[str, Any]:
        upd: dict[str, Any] = {}
        if self._upd_dedup[i] >= 0:
            upd["dedup"] = self._upd_dedup[i]
        edge = self._upd_edge[i]
        if edge != "":
            upd["edge"] = edge
        nodes = self._upd_nodes[i].split(_SEP) if self._upd_nodes[i] else []
        skills = []
        for k, node in zip(range(self._sk_ptr[i], self._sk_ptr[i + 1]), nodes):
            f = self._sk_flags[k]
            s: dict[str, Any] = {"node": node, "dedup": bool(f & 1),
                                 "cross_polarity": bool(f & 2), "polarity": POLARITIES[f >> 2 & 1]}
            if f & 8:
                cos = self._sk_cos[k]
                s["cosine"] = None if math.isnan(cos) else cos
            skills.append(s)
        upd["skills"] = skills
        return upd

    # -- what the views ask for -------------------------------------------------------
    def subset(self, positions: Iterable[int]) -> RecordView:
        """A view of the records at `positions` (in that order)."""
        return RecordView(self, list(positions))

    def skill_ids(self) -> set[str]:
        """Every skill node id the records' updates name."""
        out = {x for nodes in self._upd_nodes if nodes for x in nodes.split(_SEP)}
        for raw in self._sparse.get("update", {}).values():
            u = _loads(raw)
            for s in (u.get("skills") or [] if isinstance(u, dict) else []):
                if isinstance(s, dict) and isinstance(s.get("node"), str):
                    out.add(s["node"])
        return out

    def column(self, key: str, default: float = 0.0) -> list[Any]:
        """One plain field (`SCALARS`) of every record (`default` where a record lacks it)."""
        return _column(self, range(self.n), key, default)


class Row(Mapping):
    """Record `i` of a table, its fields built when read (`get`, ``[]``, ``in``): a pass
    that reads two fields of every record builds only those."""

    __slots__ = ("_t", "_i")

    def __init__(self, table: RecordTable, i: int) -> None:
        self._t, self._i = table, i

    def __getitem__(self, key: str) -> Any:
        v = self._t._field(self._i, key)
        if v is _MISSING:
            raise KeyError(key)
        return v

    def get(self, key: str, default: Any = None) -> Any:
        v = self._t._field(self._i, key)
        return default if v is _MISSING else v

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._t._field(self._i, key) is not _MISSING

    def __iter__(self) -> Iterator[str]:
        return iter(self._t._dict(self._i))

    def __len__(self) -> int:
        return len(self._t._dict(self._i))

    def __repr__(self) -> str:
        return repr(self._t._dict(self._i))


def _column(table: RecordTable, positions: Iterable[int], key: str, default: Any) -> list[Any]:
    col = table._cols.get(key)
    if col is None:
        return [default] * len(positions)  # type: ignore[arg-type]
    return [v if (v := col.get(p)) is not _MISSING else default for p in positions]


class RecordView(Sequence):
    """Some records of a `RecordTable`, by position (a slice, the evaluated part)."""

    def __init__(self, table: RecordTable, positions: Sequence[int]) -> None:
        self.table, self.positions = table, positions

    def __len__(self) -> int:
        return len(self.positions)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return RecordView(self.table, self.positions[i])
        return self.table._row(self.positions[operator.index(i)])

    def __iter__(self) -> Iterator[Mapping[str, Any]]:
        table = self.table
        return (Row(table, p) for p in self.positions)

    def column(self, key: str, default: float = 0.0) -> list[Any]:
        """`RecordTable.column` of these records."""
        return _column(self.table, self.positions, key, default)
