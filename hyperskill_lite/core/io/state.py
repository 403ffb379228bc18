"""The pure converters: a memory to columns (`to_state`) and columns back to a
memory (`from_state`), with every column checked; nothing touches a file here.

Not here: the files (read.py, write.py), format 1's records (legacy.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.embed import Encoder
from hyperskill_lite.core.io.layout import (
    _EXTRA,
    _STORE,
    _UNIT_TOL,
    DTYPES,
    FORMAT,
    KINDS,
    MANIFEST,
    ROW_DTYPES,
    TEXT,
    TEXT_COLUMNS,
    VERSION,
    MemoryFormatError,
)
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.store import Rows


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
