"""A HypergraphMemory in HIF, the Hypergraph Interchange Format, and back.

HIF is the JSON format HyperNetX (``hnx.from_hif`` / ``hnx.to_hif``), XGI and hypergraphx
read and write: ``{"network-type", "metadata", "nodes", "edges", "incidences"}``, where
``incidences`` (the only required field) lists ``{"edge": id, "node": id}`` records and
``nodes`` / ``edges`` carry each element's properties under ``"attrs"``. Our mapping:

==============  ==========================================================================
HIF field       what it holds
==============  ==========================================================================
metadata        format tag and version, the encoder (name, dim), the config, the id
                counters, T_min / T_max (Eq. 3), the embedding dtype (None: not included)
nodes           one per live node, subtask ("u") then skill ("s") ids in insertion order;
                attrs: kind, content, sigma, nu, mean_steps (T_bar), gamma (Eq. 3, derived:
                written for other tools, ignored on import), meta, and for skills name and
                polarity ("success" / "failure"), and the embedding
edges           one per hyperedge in insertion order; attrs: task, lesson, success, steps,
                calls, sigma, nu, mean_steps, gamma, meta, embedding
incidences      the memberships, subtask ones then skill ones, each in the memory's order
==============  ==========================================================================

An embedding is the base64 text of its little-endian float32 bytes, so a round trip is
exact (`from_hif(to_hif(m))` has the same columns, ids, counters and T range as `m`);
``embeddings=False`` leaves them out (a file a third of the size) and `from_hif` then
embeds the texts again with the encoder. Our addition: the paper has no file format.

`to_hif` and `from_hif` are pure converters (dict in, dict out, through the columns of
state.py, so an import is checked like a load); `write_hif` and `read_hif` touch files.

>>> from hyperskill_lite.core.embed import HashingEncoder
>>> from hyperskill_lite.core.memory import HypergraphMemory
>>> from hyperskill_lite.core.records import Skill
>>> m = HypergraphMemory(HashingEncoder(dim=16))
>>> _ = m.add_trajectory("T", ["step"], [Skill("Check Units", "Convert first.")], "L", True, 3)
>>> doc = to_hif(m)
>>> [i["node"] for i in doc["incidences"]], doc["nodes"][1]["attrs"]["polarity"]
(['u1', 's1'], 'success')
>>> from_hif(doc, HashingEncoder(dim=16)).edge("e1").node_ids
['u1', 's1']
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.elements import POLARITIES
from hyperskill_lite.core.embed import Encoder, encoder_by_name
from hyperskill_lite.core.io.layout import (
    _EXTRA,
    FORMAT,
    KINDS,
    ROW_DTYPES,
    TEXT_COLUMNS,
    VERSION,
    MemoryFormatError,
)
from hyperskill_lite.core.io.state import from_state, to_state
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.records import skill_text

__all__ = ["HIF_FORMAT", "HIF_VERSION", "to_hif", "from_hif", "write_hif", "read_hif"]

HIF_FORMAT = "hyperskill_lite.hif"
HIF_VERSION = 1
_KIND = {"u": "subtask", "s": "skill", "e": "hyperedge"}


def _b64(row: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(row, dtype="<f4").tobytes()).decode("ascii")


def _unb64(text: Any, dim: int, where: str) -> np.ndarray:
    try:
        raw = base64.b64decode(str(text), validate=True)
    except ValueError as exc:
        raise MemoryFormatError(f"HIF: {where}: embedding is not base64 ({exc})") from None
    if len(raw) != 4 * dim:
        raise MemoryFormatError(f"HIF: {where}: embedding has {len(raw)} bytes, expected "
                                f"{4 * dim} (dim {dim}, float32)")
    return np.frombuffer(raw, dtype="<f4")


def _attrs(state: dict[str, Any], k: str, i: int, gamma: float,
           embeddings: bool) -> dict[str, Any]:
    rows, text = state["arrays"][f"{k}_rows.npy"], state["text"]
    row = rows[i]
    out: dict[str, Any] = {"kind": _KIND[k]}
    out |= {c: text[k][c][i] for c in TEXT_COLUMNS[k]}
    out |= {"sigma": float(row["sigma"]), "nu": int(row["nu"]),
            "mean_steps": float(row["tbar"]), "gamma": float(gamma)}
    if k == "s":
        out["polarity"] = POLARITIES[int(row["polarity"])]
    if k == "e":
        out |= {"success": bool(row["success"]), "steps": int(row["steps"]),
                "calls": int(row["calls"])}
    out["meta"] = text["meta"][k].get(str(i), {})
    if embeddings:
        out["embedding"] = _b64(state["arrays"][f"{k}_emb.npy"][i])
    return out


def to_hif(memory: HypergraphMemory, embeddings: bool = True) -> dict[str, Any]:
    """The memory as a HIF document (module docstring): plain JSON data."""
    state = to_state(memory)
    man, arrays = state["manifest"], state["arrays"]
    ids = {k: [f"{k}{n}" for n in arrays[f"{k}_rows.npy"]["num"].tolist()] for k in KINDS}
    gammas = {k: memory.gammas(ids[k]) for k in KINDS}
    nodes = [{"node": ids[k][i], "attrs": _attrs(state, k, i, gammas[k][i], embeddings)}
             for k in ("u", "s") for i in range(len(ids[k]))]
    edges = [{"edge": ids["e"][i], "attrs": _attrs(state, "e", i, gammas["e"][i], embeddings)}
             for i in range(len(ids["e"]))]
    incidences = [{"edge": ids["e"][j], "node": ids[k][n]}
                  for k in ("u", "s") for n, j in arrays[f"inc_{k}.npy"].tolist()]
    metadata = {
        "format": HIF_FORMAT,
        "version": HIF_VERSION,
        "encoder": man["encoder"],
        "config": man["config"],
        "counters": man["counters"],
        "t_range": man["t_range"],
        "embedding_dtype": "float32" if embeddings else None,
    }
    return {"network-type": "undirected", "metadata": metadata, "nodes": nodes,
            "edges": edges, "incidences": incidences}


def _records(doc: dict[str, Any], field: str, key: str) -> dict[str, list[dict[str, Any]]]:
    """The doc's node or edge records grouped by id prefix, in file order."""
    out: dict[str, list[dict[str, Any]]] = {k: [] for k in KINDS}
    items = doc.get(field, [])
    if not isinstance(items, list):
        raise MemoryFormatError(f"HIF: {field!r} is not a list")
    for rec in items:
        rid = rec.get(key) if isinstance(rec, dict) else None
        if not isinstance(rid, str) or rid[:1] not in KINDS or not rid[1:].isdigit():
            raise MemoryFormatError(f"HIF: a {field} record has id {rid!r}; this memory's ids "
                                    "are u<n>, s<n> and e<n>")
        if (rid[0] == "e") != (field == "edges"):
            raise MemoryFormatError(f"HIF: {rid!r} listed under {field!r}")
        if not isinstance(rec.get("attrs", {}), dict):
            raise MemoryFormatError(f"HIF: {rid}: attrs is not an object")
        out[rid[0]].append(rec)
    return out


def _columns(recs: list[dict[str, Any]], k: str, dim: int, encoder: Encoder | None,
             with_emb: bool) -> tuple[np.ndarray, np.ndarray, dict[str, list[str]],
                                      dict[str, Any]]:
    """(rows, embeddings, text columns, meta by row) of one kind's records."""
    rows = np.zeros(len(recs), dtype=ROW_DTYPES[k])
    text: dict[str, list[str]] = {c: [] for c in TEXT_COLUMNS[k]}
    meta: dict[str, Any] = {}
    emb = np.zeros((len(recs), dim), dtype=np.float32)
    for i, rec in enumerate(recs):
        rid, a = rec.get("node", rec.get("edge")), rec.get("attrs", {})
        try:
            rows[i]["num"] = int(rid[1:])
            rows[i]["sigma"], rows[i]["nu"] = float(a["sigma"]), int(a["nu"])
            rows[i]["tbar"] = float(a["mean_steps"])
            if k == "s":
                rows[i]["polarity"] = POLARITIES.index(a["polarity"])
            for c in _EXTRA[k]:
                if c != "polarity":
                    rows[i][c] = a[c]
            for c in TEXT_COLUMNS[k]:
                text[c].append(a[c])
        except (KeyError, TypeError, ValueError) as exc:
            raise MemoryFormatError(f"HIF: {rid}: missing or malformed attribute ({exc})") from None
        if a.get("meta"):
            if not isinstance(a["meta"], dict):
                raise MemoryFormatError(f"HIF: {rid}: meta is not an object")
            meta[str(i)] = a["meta"]
        if with_emb:
            emb[i] = _unb64(a.get("embedding"), dim, rid)
    if not with_emb and recs:
        if encoder is None:
            raise MemoryFormatError("HIF: the file holds no embeddings; pass encoder= to "
                                    "embed its texts again")
        if k == "s":
            texts = [skill_text(n, c) for n, c in zip(text["name"], text["content"])]
        elif k == "e":
            texts = [f"{t}\n{lesson}" for t, lesson in zip(text["task"], text["lesson"])]
        else:
            texts = list(text["content"])
        emb = np.asarray(encoder.encode(texts), dtype=np.float32)
    return rows, emb, text, meta


def _incidences(doc: dict[str, Any], index: dict[str, dict[str, int]]) -> dict[str, np.ndarray]:
    pairs: dict[str, list[tuple[int, int]]] = {"u": [], "s": []}
    items = doc.get("incidences")
    if not isinstance(items, list):
        raise MemoryFormatError("HIF: 'incidences' (required) is missing or not a list")
    for rec in items:
        e, v = (rec.get("edge"), rec.get("node")) if isinstance(rec, dict) else (None, None)
        k = v[:1] if isinstance(v, str) else ""
        if k not in pairs or v not in index[k] or e not in index["e"]:
            raise MemoryFormatError(f"HIF: incidence ({e!r}, {v!r}) names an unknown node or "
                                    "hyperedge")
        pairs[k].append((index[k][v], index["e"][e]))
    out = {}
    for k, got in pairs.items():
        arr = np.array(got, dtype=np.int64).reshape(-1, 2)
        out[f"inc_{k}.npy"] = arr[np.argsort(arr[:, 1], kind="stable")]  # by hyperedge
    return out


def from_hif(doc: dict[str, Any], encoder: Encoder | None = None,
             config: HyperSkillConfig | None = None) -> HypergraphMemory:
    """A memory from a HIF document written by `to_hif` (or any HIF whose ids and attrs
    follow its mapping). `encoder` None uses the recorded one by name; `config` None the
    recorded config. Every column is checked as `load_memory` checks a file
    (MemoryFormatError naming the element and the problem)."""
    if not isinstance(doc, dict):
        raise MemoryFormatError("HIF: the document is not a JSON object")
    meta = doc.get("metadata") or {}
    if meta.get("format") != HIF_FORMAT:
        raise MemoryFormatError(f"HIF: metadata.format is {meta.get('format')!r}, not "
                                f"{HIF_FORMAT!r}: not a memory written by to_hif")
    if int(meta.get("version", 0)) > HIF_VERSION:
        raise MemoryFormatError(f"HIF: version {meta.get('version')} is newer than this "
                                f"library reads ({HIF_VERSION}); upgrade hyperskill_lite")
    enc_meta = meta.get("encoder") or {}
    dim = int(enc_meta.get("dim", 0))
    if encoder is None:
        encoder = encoder_by_name(str(enc_meta.get("name", "")))
    if int(encoder.dim) != dim:
        raise MemoryFormatError(f"HIF: the memory was embedded with dim {dim}, the encoder "
                                f"given has dim {encoder.dim}")
    with_emb = meta.get("embedding_dtype") == "float32"
    recs = {**_records(doc, "nodes", "node"), "e": _records(doc, "edges", "edge")["e"]}
    arrays: dict[str, np.ndarray] = {}
    text: dict[str, Any] = {"meta": {}}
    index: dict[str, dict[str, int]] = {}
    for k in KINDS:
        rows, emb, cols, rmeta = _columns(recs[k], k, dim, encoder, with_emb)
        arrays[f"{k}_rows.npy"], arrays[f"{k}_emb.npy"] = rows, emb
        text[k], text["meta"][k] = cols, rmeta
        index[k] = {f"{k}{n}": i for i, n in enumerate(rows["num"].tolist())}
    arrays |= _incidences(doc, index)
    manifest = {"format": FORMAT, "version": VERSION, "encoder": enc_meta,
                "config": meta.get("config") or {}, "counters": meta.get("counters") or {},
                "t_range": meta.get("t_range"), "dtype": "float32",
                "counts": {k: len(recs[k]) for k in KINDS}
                | {f"inc_{k}": int(arrays[f"inc_{k}.npy"].shape[0]) for k in ("u", "s")}}
    try:
        return from_state({"manifest": manifest, "arrays": arrays, "text": text}, encoder,
                          config)
    except KeyError as exc:
        raise MemoryFormatError(f"HIF: metadata lacks {exc}") from None


def write_hif(memory: HypergraphMemory, path: Path | str, embeddings: bool = True) -> Path:
    """Write `to_hif(memory)` to the JSON file `path` (replaced by a rename, so a crash
    leaves the old file or the new one whole); returns the path."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(to_hif(memory, embeddings=embeddings), f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path


def read_hif(path: Path | str, encoder: Encoder | None = None,
             config: HyperSkillConfig | None = None) -> HypergraphMemory:
    """`from_hif` of the JSON file `path` (MemoryFormatError naming it when it is not
    JSON)."""
    path = Path(path)
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise MemoryFormatError(f"{path}: not a readable HIF JSON file ({exc})") from None
    try:
        return from_hif(doc, encoder, config)
    except MemoryFormatError as exc:
        raise MemoryFormatError(f"{path}: {exc}") from None
