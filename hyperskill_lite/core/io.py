"""Saving and loading a HypergraphMemory: `save_memory(memory, path)`, `load_memory(path)`.

A saved memory is a directory in a columnar format (version 3):

==============================  ===========================================================
file                            what it holds
==============================  ===========================================================
``manifest.json``               format tag, version, encoder name and dim, config, id
                                counters, T_min / T_max, row counts, the embedding dtype,
                                and the size and checksum of every other file
``{u,s,e}_emb.npy``             embeddings of the live subtask nodes, skill nodes and
                                hyperedges, (n, d) float32 (or float16, ``dtype=``)
``{u,s,e}_rows.npy``            one structured row per element: the id's number, sigma,
                                nu, T_bar (Eq. 3 inputs), and polarity / success, steps,
                                calls
``inc_u.npy``, ``inc_s.npy``    memberships as (m, 2) int64 (node index, hyperedge index),
                                sorted by hyperedge
``text.json``                   texts as one list per column, and the non-empty meta dicts
==============================  ===========================================================

`load_memory` reads each file once (on POSIX it maps it copy-on-write, so the pages come
from the page cache without a second copy; see `_read_checked`), checks its checksum,
parses the arrays in place and validates the columns in one vectorised pass; nothing is
re-embedded. The garbage collector is paused while the id, text and meta lists are built.
``mmap=True`` maps the embeddings read-only without touching them (their checksums are
not checked: `verify_memory` does that). Version 2 directories (the same files, with the
older word-sum checksums) and version 1 directories (one JSON record per element) still
load; saving one again writes version 3.

Checksums: every file carries an XXH3-128 hash (the xxhash package), a real hash: any
change of the bytes, two swapped words included, changes it, at memory speed (0.04 s for
656 MB on the 2-core machine, where BLAKE2b takes 0.8 s and SHA-256 0.67 s). Version 2's
64-bit word sums (even and odd words summed apart) missed a swap of two words of the same
parity; they are still verified when a version 2 memory is loaded.

Crash safety: `save_memory` writes into a sibling `<dir>.tmp` (every file fsynced, the
manifest last, then the directory itself), fsyncs the parent, then swaps it in by renames
(old -> `<dir>.old`, tmp -> `<dir>`, parent fsynced after each rename, delete old). A
process killed at any instant (SIGKILL included) leaves either the previous or the new
complete memory: `load_memory` takes `<dir>`, or when a crash came between the renames,
the complete `<dir>.tmp` or `<dir>.old`; the next save first puts that copy back.

Concurrency: `save_memory` holds the directory's write lock (`memory_lock`, a `flock` on
the sibling `<dir>.lock`, dirlock.py), so a second process saving the same directory at
once gets `MemoryLockedError` naming the directory and the holder's pid. `load_memory`
takes no lock: it reads one complete copy, or fails clearly if a save swapped copies
mid-read.

`load_memory` checks everything and names the file and the problem in a
`MemoryFormatError` (missing, truncated, checksum, foreign, newer version, dangling or
duplicate ids, malformed columns).

Not here: the memory's logic (memory.py), pandas / HyperNetX views (views.py), plotting
(plots/), run checkpoints and logs (the runner).
"""

from __future__ import annotations

import gc
import hashlib
import io
import json
import mmap
import os
import shutil
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.dirlock import directory_lock, fsync_dir
from hyperskill_lite.core.embed import Encoder, encoder_by_name
from hyperskill_lite.core.memory import POLARITIES, HypergraphMemory
from hyperskill_lite.core.records import skill_text
from hyperskill_lite.core.store import Rows

__all__ = [
    "MemoryFormatError",
    "MemoryLockedError",
    "memory_lock",
    "FORMAT",
    "VERSION",
    "save_memory",
    "load_memory",
    "verify_memory",
    "file_checksum",
    "wordsum_checksum",
    "checksum_matches",
    "to_state",
    "from_state",
]

FORMAT = "hyperskill_lite.memory"
VERSION = 3
MANIFEST = "manifest.json"
KINDS = ("u", "s", "e")  # subtask nodes, skill nodes, hyperedges
TEXT = "text.json"
EMB_FILES = tuple(f"{k}_emb.npy" for k in KINDS)
ARRAY_FILES = (*EMB_FILES, *(f"{k}_rows.npy" for k in KINDS), "inc_u.npy", "inc_s.npy")
DATA_FILES = (*ARRAY_FILES, TEXT)
DATA_FILES_V1 = ("nodes.json", "edges.json", "node_emb.npy", "edge_emb.npy")
DTYPES = ("float32", "float16")

_STATS = [("num", "<i8"), ("sigma", "<f8"), ("nu", "<i8"), ("tbar", "<f8")]
ROW_DTYPES = {
    "u": np.dtype(_STATS),
    "s": np.dtype([*_STATS, ("polarity", "i1")]),
    "e": np.dtype([*_STATS, ("success", "?"), ("steps", "<i8"), ("calls", "<i8")]),
}
"""The structured row of each kind in ``{k}_rows.npy``."""
TEXT_COLUMNS = {"u": ("content",), "s": ("name", "content"), "e": ("task", "lesson")}
_EXTRA = {"u": (), "s": ("polarity",), "e": ("success", "steps", "calls")}
_STORE = {"u": "_sub", "s": "_skl", "e": "_edg"}
_UNIT_TOL = {"float32": 1e-3, "float16": 4e-3}
_BLOCK = 1024  # words per row of the checksum's reduction (even, so columns keep parity)


class MemoryFormatError(ValueError):
    """A saved memory is missing, truncated, foreign, newer or inconsistent; the message
    names the file and the problem."""


class MemoryLockedError(MemoryFormatError):
    """Another process (or thread) is saving this memory directory right now; the message
    names the directory and the holder's pid. A subclass of MemoryFormatError so one
    ``except`` clause covers every refusal of this module."""


# ---------------------------------------------------------------- checksums
def file_checksum(data: bytes | memoryview | np.ndarray) -> str:
    """The XXH3-128 hash of `data` with its name, as saved in a version 3 manifest.

    >>> file_checksum(b"abcdefgh" * 3) == file_checksum(b"abcdefgh" * 3)
    True
    >>> file_checksum(b"abcdefgh12345678") == file_checksum(b"12345678abcdefgh")  # swapped
    False
    >>> file_checksum(b"")
    'xxh3_128:99aa06d3014798d86001c324468d497f'
    """
    import xxhash

    return "xxh3_128:" + xxhash.xxh3_128_hexdigest(memoryview(data).cast("B"))


def wordsum_checksum(data: bytes | memoryview | np.ndarray) -> str:
    """Version 2's checksum, kept to verify version 2 memories: the sums (mod 2**64) of
    the even and of the odd 8-byte words of `data`, the trailing bytes and the length.
    Misses two swapped words of the same parity (why version 3 hashes instead).

    >>> a, b = b"A" * 8 + b"B" * 8 + b"C" * 8 + b"D" * 8, b"C" * 8 + b"B" * 8 + b"A" * 8 + b"D" * 8
    >>> wordsum_checksum(a) == wordsum_checksum(b), file_checksum(a) == file_checksum(b)
    (True, False)
    """
    buf = np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)
    n = buf.size
    words = buf[: n - n % 16].view(np.uint64)
    # summed in rows of _BLOCK words (a contiguous, vectorised reduction; a (-1, 2) sum
    # over axis 0 is ten times slower), then the columns folded into even and odd
    m = words.size - words.size % _BLOCK
    cols = words[:m].reshape(-1, _BLOCK).sum(axis=0, dtype=np.uint64)
    rest = words[m:].reshape(-1, 2).sum(axis=0, dtype=np.uint64)
    with np.errstate(over="ignore"):
        even = int(cols[0::2].sum(dtype=np.uint64) + rest[0])
        odd = int(cols[1::2].sum(dtype=np.uint64) + rest[1])
    tail = bytes(buf[n - n % 16 :]).hex()
    return f"sum64:{n}:{even:016x}:{odd:016x}:{tail}"


def checksum_matches(data: bytes | memoryview | np.ndarray, recorded: Any) -> bool:
    """Does `data` have the checksum a manifest `recorded` (an XXH3-128 hash, or a
    version 2 word sum)?"""
    if not isinstance(recorded, str):
        return False
    if recorded.startswith("sum64:"):
        return wordsum_checksum(data) == recorded
    return file_checksum(data) == recorded


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------- pure converters
def to_state(memory: HypergraphMemory, dtype: str = "float32") -> dict[str, Any]:
    """The memory as columns: {"manifest": dict, "arrays": name -> ndarray (the
    ``*.npy`` files), "text": the ``text.json`` document}. Live rows only, in insertion
    order; memberships re-indexed to them."""
    if dtype not in DTYPES:
        raise ValueError(f"save_memory: dtype must be one of {DTYPES}, got {dtype!r}")
    arrays: dict[str, np.ndarray] = {}
    text: dict[str, Any] = {"meta": {}}
    index: dict[str, np.ndarray] = {}  # kind -> old row -> new index (-1: dead)
    for k in KINDS:
        st: Rows = getattr(memory, _STORE[k])
        live = st.live()
        remap = np.full(st.n, -1, dtype=np.int64)
        remap[live] = np.arange(live.size)
        index[k] = remap
        rows = np.zeros(live.size, dtype=ROW_DTYPES[k])
        rows["num"] = [int(st.ids[r][1:]) for r in live.tolist()]
        for c in ("sigma", "nu", "tbar", *_EXTRA[k]):
            rows[c] = st.num[c][live]
        arrays[f"{k}_rows.npy"] = rows
        arrays[f"{k}_emb.npy"] = np.ascontiguousarray(st.emb[live], dtype=dtype)
        text[k] = {c: [st.text[c][r] for r in live.tolist()] for c in TEXT_COLUMNS[k]}
        text["meta"][k] = {str(i): st.meta[r] for i, r in enumerate(live.tolist()) if st.meta[r]}
    for k, kind in (("u", "subtask"), ("s", "skill")):
        node, edge = memory._inc[kind].pairs()
        arrays[f"inc_{k}.npy"] = np.stack([index[k][node], index["e"][edge]], axis=1).astype(
            np.int64).reshape(-1, 2)
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "encoder": {"name": getattr(memory.encoder, "name", ""), "dim": int(memory.encoder.dim)},
        "config": memory.config.to_dict(),
        "counters": {k: getattr(memory, _STORE[k]).next_id for k in KINDS},
        "t_range": list(memory.t_range) if memory.t_range else None,
        "counts": {k: int(arrays[f"{k}_rows.npy"].shape[0]) for k in KINDS}
        | {f"inc_{k}": int(arrays[f"inc_{k}.npy"].shape[0]) for k in ("u", "s")},
        "dtype": dtype,
    }
    return {"manifest": manifest, "arrays": arrays, "text": text}


def _fail(path: Path | None, name: str, msg: str) -> MemoryFormatError:
    where = path / name if path is not None else Path(name)
    return MemoryFormatError(f"{where}: {msg}")


def _check_columns(state: dict[str, Any], path: Path | None = None) -> None:
    """Every invariant a loaded memory needs, vectorised over the columns; raises
    MemoryFormatError naming the file and the problem."""
    man, arrays, text = state["manifest"], state["arrays"], state["text"]
    dim, counts, dtype = man["encoder"]["dim"], man["counts"], man["dtype"]
    if not isinstance(text, dict) or not all(isinstance(text.get(k), dict) for k in (*KINDS, "meta")):
        raise _fail(path, TEXT, "expected a JSON object with 'u', 's', 'e' and 'meta' columns")
    n = {}
    for k in KINDS:
        rows, emb = arrays[f"{k}_rows.npy"], arrays[f"{k}_emb.npy"]
        rname, ename = f"{k}_rows.npy", f"{k}_emb.npy"
        if rows.dtype != ROW_DTYPES[k] or rows.ndim != 1:
            raise _fail(path, rname, f"rows of dtype {rows.dtype} {rows.shape}, expected "
                        f"{ROW_DTYPES[k]} (n,)")
        n[k] = rows.shape[0]
        if n[k] != counts[k]:
            raise _fail(path, rname, f"{n[k]} rows, the manifest counts {counts[k]}")
        if emb.dtype != np.dtype(dtype) or emb.shape != (n[k], dim):
            raise _fail(path, ename, f"{emb.dtype} {emb.shape}, expected {dtype} {(n[k], dim)}")
        nums = rows["num"]
        if n[k]:
            if nums.min() < 1 or nums.max() >= man["counters"][k]:
                raise _fail(path, rname, f"ids outside 1..{man['counters'][k] - 1} (the counter)")
            srt = nums if np.all(nums[1:] > nums[:-1]) else np.sort(nums)  # saved ascending
            same = np.flatnonzero(srt[1:] == srt[:-1])
            if same.size:
                raise _fail(path, rname, f"id '{k}{int(srt[same[0]])}' appears twice")
        nu, sigma, tbar = rows["nu"], rows["sigma"], rows["tbar"]
        if np.any(nu < 0) or np.any((sigma < 0) | (sigma > nu)) or not np.all(
            np.isfinite(tbar) & (tbar >= 0)
        ):
            raise _fail(path, rname, "stats outside 0 <= sigma <= nu, T_bar finite >= 0")
        if k == "s" and not np.all(np.isin(rows["polarity"], (0, 1))):
            raise _fail(path, rname, "a skill polarity code is not 0 or 1")
        if k == "e" and n[k]:
            steps = rows["steps"]
            t = man["t_range"]
            if np.any(rows["calls"] < 0) or t is None or steps.min() < t[0] or steps.max() > t[1]:
                raise _fail(path, rname, "steps or calls outside the recorded T range")
        if emb.size and isinstance(emb, np.ndarray) and not isinstance(emb, np.memmap):
            x = emb.astype(np.float32, copy=False)
            sq = np.einsum("ij,ij->i", x, x)
            if not np.all(np.isfinite(sq)) or np.any(np.abs(sq - 1.0) > 2 * _UNIT_TOL[dtype]):
                raise _fail(path, ename, "an embedding is not finite with unit norm")
        for c in TEXT_COLUMNS[k]:
            col = text[k].get(c)
            if not isinstance(col, list) or len(col) != n[k]:
                raise _fail(path, TEXT, f"column {k}.{c} is not a list of {n[k]} texts")
            if not set(map(type, col)) <= {str}:
                bad = next(i for i, s in enumerate(col) if not isinstance(s, str))
                raise _fail(path, TEXT, f"record '{k}{int(nums[bad])}' has non-text ['{c}']")
        meta = text["meta"].get(k, {})
        if not isinstance(meta, dict) or not all(
            isinstance(v, dict) and str(i).isdigit() and int(i) < n[k] for i, v in meta.items()
        ):
            raise _fail(path, TEXT, f"meta of '{k}' is not row index -> object")
    for k in ("u", "s"):
        inc, name = arrays[f"inc_{k}.npy"], f"inc_{k}.npy"
        if inc.dtype != np.int64 or inc.ndim != 2 or inc.shape[1] != 2:
            raise _fail(path, name, f"{inc.dtype} {inc.shape}, expected int64 (m, 2)")
        if inc.shape[0] != counts[f"inc_{k}"]:
            raise _fail(path, name, f"{inc.shape[0]} memberships, the manifest counts "
                        f"{counts[f'inc_{k}']}")
        node, edge = inc[:, 0], inc[:, 1]
        if inc.size and (node.min() < 0 or node.max() >= n[k]):
            j = int(np.flatnonzero((node < 0) | (node >= n[k]))[0])
            e_num = int(arrays["e_rows.npy"]["num"][edge[j]]) if 0 <= edge[j] < n["e"] else "?"
            raise _fail(path, name, f"hyperedge e{e_num} lists unknown node(s) (index {node[j]})")
        if inc.size and (edge.min() < 0 or edge.max() >= n["e"]):
            raise _fail(path, name, "a membership names an unknown hyperedge")
        if np.any(np.diff(edge) < 0):
            raise _fail(path, name, "memberships are not sorted by hyperedge")
        pair = np.sort(edge * max(n[k], 1) + node)
        same = np.flatnonzero(pair[1:] == pair[:-1])
        if same.size:
            e_row = int(pair[same[0]] // max(n[k], 1))
            raise _fail(path, name, f"hyperedge e{int(arrays['e_rows.npy']['num'][e_row])} "
                        "lists a node twice")


def from_state(
    state: dict[str, Any], encoder: Encoder, config: HyperSkillConfig | None = None,
    path: Path | None = None,
) -> HypergraphMemory:
    """Rebuild a memory from `to_state` columns without embedding anything, after one
    vectorised check of them (MemoryFormatError naming the file otherwise)."""
    man, arrays, text = state["manifest"], state["arrays"], state["text"]
    try:
        cfg = config or HyperSkillConfig.from_dict(man["config"])
    except (KeyError, TypeError, ValueError) as exc:
        raise _fail(path, MANIFEST, f"unreadable config ({exc})") from exc
    _check_columns(state, path)
    memory = HypergraphMemory(encoder, cfg)
    for k in KINDS:
        rows, emb = arrays[f"{k}_rows.npy"], arrays[f"{k}_emb.npy"]
        if emb.dtype != np.float32:  # float16 on disk: back to unit float32 rows
            emb = emb.astype(np.float32)
            norms = np.linalg.norm(emb, axis=1, keepdims=True)
            emb /= np.where(norms > 0, norms, 1.0)
        meta_col = text["meta"].get(k, {})
        meta: list[dict[str, Any]] = [{} for _ in range(rows.shape[0])]
        for i, m in meta_col.items():  # sparse: only the rows that have meta
            meta[int(i)] = dict(m)
        num = {c: rows[c] for c in ("sigma", "nu", "tbar", *_EXTRA[k])}
        store = Rows.from_columns(k, emb, rows["num"], man["counters"][k], text[k], meta, num)
        setattr(memory, _STORE[k], store)
    for k, kind in (("u", "subtask"), ("s", "skill")):
        inc = arrays[f"inc_{k}.npy"]
        memory._inc[kind].set_pairs(inc[:, 0].copy(), inc[:, 1].copy())
    if man["t_range"] is not None:
        memory._t_min, memory._t_max = (float(t) for t in man["t_range"])
    return memory


# ---------------------------------------------------------------- version 1 (read only)
def _from_records_v1(state: dict[str, Any], encoder: Encoder, config: HyperSkillConfig | None,
                     path: Path) -> HypergraphMemory:
    """A memory from format-1 records (nodes.json, edges.json, two embedding arrays)."""
    man = state["manifest"]
    try:
        cfg = config or HyperSkillConfig.from_dict(man["config"])
    except (KeyError, TypeError, ValueError) as exc:
        raise _fail(path, MANIFEST, f"unreadable config ({exc})") from exc
    memory = HypergraphMemory(encoder, cfg)
    U, S, E = memory._sub, memory._skl, memory._edg
    try:
        for rec, vec in zip(state["nodes"], state["node_emb"]):
            store = {"skill": S, "subtask": U}.get(rec["kind"])
            if store is None:
                raise _fail(path, "nodes.json", f"node {rec['id']!r} has kind {rec['kind']!r}")
            _check_id_v1(path, "nodes.json", rec["id"], store)
            texts = {"content": rec["content"]}
            if store is S:
                texts |= {"name": rec["name"], "polarity": POLARITIES.index(rec["polarity"])}
            _check_text_v1(path, "nodes.json", rec, ("name", "content") if store is S else ("content",))
            r = store.add(vec, rec["meta"], rid=rec["id"], **texts)
            store.sigma[r], store.nu[r], store.tbar[r] = rec["sigma"], rec["nu"], rec["mean_steps"]
    except MemoryFormatError:
        raise
    except (KeyError, ValueError, TypeError) as exc:
        raise _fail(path, "nodes.json", f"malformed node record ({exc!r})") from exc
    try:
        for rec, vec in zip(state["edges"], state["edge_emb"]):
            _check_id_v1(path, "edges.json", rec["id"], E)
            _check_text_v1(path, "edges.json", rec, ("task", "lesson"))
            node_ids = rec["node_ids"]
            if not isinstance(node_ids, list) or not all(isinstance(i, str) for i in node_ids):
                raise _fail(path, "edges.json", f"hyperedge {rec['id']} node_ids is not a list of ids")
            missing = [i for i in node_ids if i not in U.row and i not in S.row]
            if missing:
                raise _fail(path, "edges.json", f"hyperedge {rec['id']} lists unknown node(s) {missing}")
            if len(set(node_ids)) != len(node_ids):
                raise _fail(path, "edges.json", f"hyperedge {rec['id']} lists a node twice")
            j = E.add(vec, rec["meta"], rid=rec["id"], task=rec["task"], lesson=rec["lesson"],
                      success=rec["success"], steps=rec["steps"], calls=rec["calls"])
            E.sigma[j], E.nu[j], E.tbar[j] = rec["sigma"], rec["nu"], rec["mean_steps"]
            for kind, store in (("subtask", U), ("skill", S)):
                memory._inc[kind].extend([store.row[i] for i in node_ids if i[:1] == store.prefix], j)
    except MemoryFormatError:
        raise
    except (KeyError, ValueError, TypeError) as exc:
        raise _fail(path, "edges.json", f"malformed hyperedge record ({exc!r})") from exc
    for store in (U, S, E):
        store.next_id = int(man["counters"][store.prefix])
    if man["t_range"] is not None:
        memory._t_min, memory._t_max = (float(t) for t in man["t_range"])
    try:
        memory.validate()
    except AssertionError as exc:
        raise _fail(path, MANIFEST, f"the saved memory is inconsistent: {exc}") from exc
    return memory


def _check_id_v1(path: Path, fname: str, rid: Any, store: Any) -> None:
    """An id must be a str of the store's kind ("u", "s", "e" + a number), seen once."""
    if not (isinstance(rid, str) and rid[:1] == store.prefix and rid[1:].isdigit()):
        raise _fail(path, fname, f"id {rid!r} is not a {store.prefix!r} id")
    if rid in store.row:
        raise _fail(path, fname, f"id {rid!r} appears twice")


def _check_text_v1(path: Path, fname: str, rec: dict[str, Any], keys: tuple[str, ...]) -> None:
    bad = [k for k in keys if not isinstance(rec[k], str)]
    if bad:
        raise _fail(path, fname, f"record {rec['id']!r} has non-text {bad}")


# ---------------------------------------------------------------- files
def _write(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _write_array(path: Path, arr: np.ndarray) -> None:
    with open(path, "wb") as f:
        np.save(f, np.ascontiguousarray(arr), allow_pickle=False)
        f.flush()
        os.fsync(f.fileno())


def _text_bytes(text: dict[str, Any]) -> bytes:
    try:
        s = json.dumps(text, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{TEXT}: a meta value is not JSON-serialisable ({exc})") from exc
    # a lone surrogate (e.g. from a "\ud800" escape in a model reply) becomes the JSON
    # escape "\ud800" again, so the text round-trips exactly and the file stays UTF-8
    return s.encode("utf-8", "backslashreplace")


def _siblings(path: Path) -> tuple[Path, Path]:
    return path.with_name(path.name + ".tmp"), path.with_name(path.name + ".old")


def _crash_point(where: str) -> None:
    """Fault injection for the crash tests: with HYPERSKILL_CRASH_AT="<where>:<k>" the
    k-th `save_memory` of this process (from 0) SIGKILLs itself at `where`
    ("memory_save_files": the new copy written, nothing swapped; "memory_save_swap":
    between the two renames)."""
    spec = os.environ.get("HYPERSKILL_CRASH_AT")
    if spec and spec == f"{where}:{_SAVES[0] - 1}":
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


_SAVES = [0]  # saves started by this process, for `_crash_point`


def memory_lock(path: str | Path) -> AbstractContextManager[Path]:
    """The write lock `save_memory` holds on memory directory `path`, for a ``with``
    block that spans several steps (`save_memory` inside it does not wait for itself):
    ``fcntl.flock`` on ``<path>.lock`` (dirlock.py). Raises `MemoryLockedError`, naming
    the directory and the holder's pid, when another process or thread holds it."""
    return directory_lock(path, MemoryLockedError)


def _complete(path: Path) -> bool:
    try:
        _read_manifest(path)
        _verify_files(path, json.loads((path / MANIFEST).read_bytes()))
    except (MemoryFormatError, OSError, ValueError):
        return False
    return True


def _recover(path: Path) -> None:
    """After a crash between the renames of an earlier save (`path` missing), move the
    newest complete copy (`.tmp`, else `.old`) back to `path`."""
    if path.exists():
        return
    for candidate in _siblings(path):
        if candidate.is_dir() and _complete(candidate):
            os.replace(candidate, path)
            fsync_dir(path.parent)
            return


def save_memory(memory: HypergraphMemory, path: str | Path, dtype: str = "float32") -> None:
    """Write `memory` to directory `path`, atomically and under the write lock (see the
    module docstring). ``dtype="float16"`` stores the embeddings in half the space; they
    load back as float32 (re-normalised), and retrieval agrees with float32 on nearly
    every query (measured by ``make bench``).

    Raises
    ------
    MemoryLockedError
        Another process is saving to `path` at this moment.
    FileExistsError
        `path` is a non-empty directory (or a file) that is not a saved memory.
    """
    path = Path(path)
    _SAVES[0] += 1
    with memory_lock(path):
        _save_locked(memory, path, dtype)


def _save_locked(memory: HypergraphMemory, path: Path, dtype: str) -> None:
    tmp, old = _siblings(path)
    _recover(path)
    if path.exists() and not (
        path.is_dir() and ((path / MANIFEST).is_file() or not any(path.iterdir()))
    ):
        raise FileExistsError(f"{path}: exists and is not a saved memory; refusing to replace it")
    state = to_state(memory, dtype)
    text = _text_bytes(state["text"])
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    files: dict[str, dict[str, Any]] = {}
    for name, arr in state["arrays"].items():
        _write_array(tmp / name, arr)
        size = (tmp / name).stat().st_size
        data = np.memmap(tmp / name, dtype=np.uint8, mode="r") if size else b""
        files[name] = {"bytes": size, "checksum": file_checksum(data)}
        del data
    _write(tmp / TEXT, text)
    files[TEXT] = {"bytes": len(text), "checksum": file_checksum(text)}
    manifest = state["manifest"] | {"files": files}
    _write(tmp / MANIFEST, json.dumps(manifest, indent=1).encode())  # last: marks completeness
    fsync_dir(tmp)
    fsync_dir(path.parent)
    _crash_point("memory_save_files")
    if path.exists():
        if old.exists():
            shutil.rmtree(old)
        os.replace(path, old)
        fsync_dir(path.parent)
        _crash_point("memory_save_swap")
    os.replace(tmp, path)
    fsync_dir(path.parent)
    if old.exists():
        shutil.rmtree(old)


# ---------------------------------------------------------------- reading
_MANIFEST_TYPES = {
    "encoder": dict,
    "config": dict,
    "counters": dict,
    "t_range": (list, type(None)),
    "counts": dict,
    "files": dict,
}


def _check_manifest(man: dict[str, Any], mpath: Path) -> None:
    """Every manifest entry present with the right shape, else MemoryFormatError."""
    missing_keys = [k for k in _MANIFEST_TYPES if k not in man]
    if missing_keys:
        raise MemoryFormatError(f"{mpath}: missing entries {missing_keys}")
    bad = [k for k, t in _MANIFEST_TYPES.items() if not isinstance(man[k], t)]
    enc, counters, counts, files = man["encoder"], man["counters"], man["counts"], man["files"]
    v1 = man["version"] == 1
    if not bad:
        if not isinstance(enc.get("dim"), int) or not isinstance(enc.get("name", ""), str):
            bad.append("encoder")
        if not all(isinstance(counters.get(p), int) for p in KINDS):
            bad.append("counters")
        keys = ("nodes", "edges") if v1 else (*KINDS, "inc_u", "inc_s")
        if not all(isinstance(counts.get(k), int) and counts[k] >= 0 for k in keys):
            bad.append("counts")
        t = man["t_range"]
        if t is not None and not (len(t) == 2 and all(isinstance(x, (int, float)) for x in t)):
            bad.append("t_range")
        if not v1 and man.get("dtype") not in DTYPES:
            bad.append("dtype")
        for name in DATA_FILES_V1 if v1 else DATA_FILES:
            f = files.get(name)
            if not (isinstance(f, dict) and isinstance(f.get("bytes"), int)):
                bad.append(f"files/{name}")
    if bad:
        raise MemoryFormatError(f"{mpath}: malformed entries {bad}")


def _read_manifest(path: Path) -> dict[str, Any]:
    mpath = path / MANIFEST
    if not mpath.is_file():
        raise MemoryFormatError(f"{mpath}: missing (not a saved memory, or an incomplete save)")
    try:
        man = json.loads(mpath.read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MemoryFormatError(f"{mpath}: not valid JSON, truncated or corrupt ({exc})") from exc
    if not isinstance(man, dict) or man.get("format") != FORMAT:
        fmt = man.get("format") if isinstance(man, dict) else None
        raise MemoryFormatError(f"{mpath}: format {fmt!r} is not {FORMAT!r} (a foreign file)")
    version = man.get("version")
    if not isinstance(version, int) or not 1 <= version <= VERSION:
        raise MemoryFormatError(
            f"{mpath}: format version {version!r} is newer than this library reads ({VERSION})"
        )
    _check_manifest(man, mpath)
    return man


def _verify_files(path: Path, man: dict[str, Any], skip: tuple[str, ...] = (), *,
                  sizes_only: bool = False) -> None:
    """Every data file present with the recorded size and checksum (those in `skip`, or
    all with `sizes_only`: size only)."""
    v1 = man["version"] == 1
    for name in DATA_FILES_V1 if v1 else DATA_FILES:
        fpath = path / name
        if not fpath.is_file():
            raise MemoryFormatError(f"{fpath}: missing")
        want = man["files"][name]
        size = fpath.stat().st_size
        if size != want["bytes"]:
            raise MemoryFormatError(
                f"{fpath}: {size} bytes, the manifest records {want['bytes']} "
                "(truncated or modified)"
            )
        if name in skip or sizes_only:
            continue
        if v1:
            ok = _sha256(fpath.read_bytes()) == want.get("sha256")
        else:
            data = np.memmap(fpath, dtype=np.uint8, mode="r") if size else b""
            ok = checksum_matches(data, want.get("checksum"))
            del data
        if not ok:
            raise MemoryFormatError(f"{fpath}: checksum differs from the manifest (corrupt)")


def _read_checked(fpath: Path, want: dict[str, Any]) -> np.ndarray:
    """The file's bytes as a uint8 array, checked against the manifest's size and
    checksum; the buffer then backs the arrays parsed from it (no second copy).

    On POSIX the file is mapped copy-on-write (``MAP_PRIVATE``): its pages come straight
    from the page cache, are private to this process once written, and stay valid after
    the file is replaced or deleted (`save_memory` only ever writes new files and renames
    them in). That skips allocating and zeroing fresh memory for a second copy, which is
    most of the cost of reading: at 100k hyperedges (656 MB) about 0.9 s of a 1.1 s read.
    Elsewhere (Windows cannot replace a mapped file) the file is read into memory."""
    size = want["bytes"]
    if os.name == "posix" and size:
        with open(fpath, "rb") as f:
            try:
                buf = np.frombuffer(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY), np.uint8)
            except (OSError, ValueError) as exc:
                raise MemoryFormatError(f"{fpath}: cannot be mapped ({exc})") from exc
        got = buf.size
    else:
        buf = np.empty(size, dtype=np.uint8)
        with open(fpath, "rb") as f:
            got = f.readinto(memoryview(buf))
    if got != size:
        raise MemoryFormatError(f"{fpath}: {got} bytes read, the manifest records {size} "
                                "(truncated while reading)")
    if not checksum_matches(buf, want.get("checksum")):
        raise MemoryFormatError(f"{fpath}: checksum differs from the manifest (corrupt)")
    return buf


def _npy_view(fpath: Path, buf: np.ndarray) -> np.ndarray:
    """The array an ``.npy`` file's bytes (`buf`) hold, as a view of them (no copy)."""
    head = io.BytesIO(buf[: min(buf.size, 1 << 16)].tobytes())
    try:
        version = np.lib.format.read_magic(head)
        read = {(1, 0): np.lib.format.read_array_header_1_0,
                (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        if read is None:
            raise ValueError(f"unsupported .npy version {version}")
        shape, fortran, dtype = read(head)
        if dtype.hasobject:
            raise ValueError("object arrays are not stored in a memory file")
        offset, count = head.tell(), int(np.prod(shape, dtype=np.int64))
        if buf.size - offset != count * dtype.itemsize:
            raise ValueError(f"{buf.size - offset} data bytes for shape {shape} of {dtype}")
        flat = buf[offset:].view(dtype) if count else np.zeros(0, dtype=dtype)
        return flat.reshape(shape, order="F" if fortran else "C")
    except (ValueError, EOFError, OSError) as exc:
        raise MemoryFormatError(f"{fpath}: not a readable .npy array ({exc})") from exc


def _read_array(fpath: Path, mmap: bool) -> np.ndarray:
    try:
        return np.load(fpath, allow_pickle=False, mmap_mode="r" if mmap else None)
    except (ValueError, EOFError, OSError) as exc:
        raise MemoryFormatError(f"{fpath}: not a readable .npy array ({exc})") from exc


def _read_v2(path: Path, man: dict[str, Any], mmap: bool) -> dict[str, Any]:
    """Each file read once: sizes of all first, then each file's bytes checked against its
    checksum and parsed in place (``mmap``: the embeddings mapped, size-checked only)."""
    _verify_files(path, man, sizes_only=True)
    files = man["files"]
    arrays = {}
    for name in ARRAY_FILES:
        if mmap and name in EMB_FILES:
            arrays[name] = _read_array(path / name, True)
        else:
            arrays[name] = _npy_view(path / name, _read_checked(path / name, files[name]))
    raw = _read_checked(path / TEXT, files[TEXT])
    try:
        text = json.loads(raw.tobytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MemoryFormatError(f"{path / TEXT}: not valid JSON ({exc})") from exc
    return {"manifest": man, "arrays": arrays, "text": text}


def _read_v1(path: Path, man: dict[str, Any]) -> dict[str, Any]:
    _verify_files(path, man)
    state: dict[str, Any] = {"manifest": man}
    for name in ("nodes", "edges"):
        fpath = path / f"{name}.json"
        try:
            state[name] = json.loads(fpath.read_bytes())
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise MemoryFormatError(f"{fpath}: not valid JSON ({exc})") from exc
        if not isinstance(state[name], list):
            raise MemoryFormatError(
                f"{fpath}: expected a JSON array of records, got {type(state[name]).__name__}"
            )
        if len(state[name]) != man["counts"][name]:
            raise MemoryFormatError(
                f"{fpath}: {len(state[name])} records, manifest says {man['counts'][name]}"
            )
    dim = man["encoder"]["dim"]
    for name, count in (("node_emb", "nodes"), ("edge_emb", "edges")):
        fpath = path / f"{name}.npy"
        arr = _read_array(fpath, False)
        if arr.dtype != np.float32 or arr.shape != (man["counts"][count], dim):
            raise MemoryFormatError(
                f"{fpath}: {arr.dtype} {arr.shape}, expected float32 {(man['counts'][count], dim)}"
            )
        state[name] = arr
    return state


def _locate(path: Path) -> tuple[Path, dict[str, Any]]:
    """The directory to read (path, or after a crash inside a save its complete .tmp or
    .old sibling) and its manifest."""
    if path.exists():
        return path, _read_manifest(path)
    for candidate in _siblings(path):
        if candidate.is_dir() and _complete(candidate):
            return candidate, _read_manifest(candidate)
    raise MemoryFormatError(f"{path}: no saved memory here (missing, nothing to recover)")


@contextmanager
def _gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a load builds its lists of ids, texts and
    meta dicts (hundreds of thousands of acyclic containers, which would otherwise set
    off a full collection every few hundred thousand allocations: a third of the load
    time at 100k hyperedges); restored as it was, also on an error."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def load_memory(
    path: str | Path,
    encoder: Encoder | None = None,
    config: HyperSkillConfig | None = None,
    mmap: bool = False,
) -> HypergraphMemory:
    """Read a memory written by `save_memory` (format 2, or format 1); nothing is
    re-embedded.

    Recovery rule: if `path` is missing but a complete `<path>.tmp` (newer) or
    `<path>.old` exists (a crash inside `save_memory`), load from the first complete one.
    `encoder` None uses the recorded encoder by name; a different dim is an error. The
    encoder's cache is seeded with the stored vectors only when its name and dim match
    the recorded ones. `config` None uses the recorded config.

    By default every file is read once and checked against its checksum (on POSIX the
    file is mapped copy-on-write: the loaded memory stays valid when a later save
    replaces the files or they are deleted; do not edit the files in place while it is
    in use). ``mmap=True`` maps the embedding files read-only without reading them (for
    memories larger than you want to read; their checksums are then not checked:
    `verify_memory` does that).
    """
    path, man = _locate(Path(path))
    rec_name, rec_dim = man["encoder"].get("name", ""), man["encoder"].get("dim")
    if encoder is None:
        try:
            encoder = encoder_by_name(rec_name)
        except ValueError as exc:
            raise MemoryFormatError(
                f"{path / MANIFEST}: encoder {rec_name!r} is not built in; pass encoder="
            ) from exc
    if int(encoder.dim) != rec_dim:
        raise MemoryFormatError(
            f"{path / MANIFEST}: embeddings have dim {rec_dim} ({rec_name}), "
            f"the encoder given has dim {encoder.dim}"
        )
    with _gc_paused():
        if man["version"] == 1:
            memory = _from_records_v1(_read_v1(path, man), encoder, config, path)
        else:
            memory = from_state(_read_v2(path, man, mmap), encoder, config, path)
    exact = man.get("dtype", "float32") == "float32"  # float16 vectors are not phi(text)
    if exact and getattr(encoder, "name", None) == rec_name and hasattr(encoder, "seed_cache"):
        _seed(encoder, memory)
    return memory


def _seed(encoder: Any, memory: HypergraphMemory) -> None:
    """Put the stored (text, vector) pairs in the encoder's cache: nothing stored is
    embedded again in this process."""
    U, S, E = memory._sub, memory._skl, memory._edg
    for st, texts in (
        (U, U.text["content"]),
        (S, [skill_text(n, c) for n, c in zip(S.text["name"], S.text["content"])]),
        (E, [f"{t}\n{ls}" for t, ls in zip(E.text["task"], E.text["lesson"])]),
    ):
        live = st.live()
        if live.size == st.n:  # all rows alive (a memory just loaded): views, no copies
            encoder.seed_cache(list(texts[: st.n]), st.emb[: st.n], copy=False)
        elif live.size:
            encoder.seed_cache([texts[r] for r in live.tolist()], st.emb[live], copy=False)


def verify_memory(path: str | Path) -> dict[str, Any]:
    """Check a saved memory completely (every file's size and checksum, then every
    column) without keeping it; returns its manifest. Raises MemoryFormatError."""
    path, man = _locate(Path(path))
    if man["version"] == 1:
        _read_v1(path, man)
        return man
    state = _read_v2(path, man, mmap=False)
    _check_columns(state, path)
    return man
