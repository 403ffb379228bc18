"""Saving and loading a HypergraphMemory: `save_memory(memory, path)`, `load_memory(path)`.

A saved memory is a directory: `manifest.json` (format tag, version, encoder name and
dim, config, id counters, T_min / T_max, and the size and SHA-256 of every other file),
`nodes.json` and `edges.json` (one JSON record per element, exact stats and meta),
`node_emb.npy` and `edge_emb.npy` (float32, rows aligned with the records).

Crash safety: `save_memory` writes into a sibling `<dir>.tmp` (every file fsynced, the
manifest last, then the directory itself), fsyncs the parent, then swaps it in by
renames (old -> `<dir>.old`, tmp -> `<dir>`, parent fsynced after each rename, delete
old). A process killed at any instant (SIGKILL included) leaves either the previous or
the new complete memory: `load_memory` takes `<dir>`, or when a crash came between the renames,
the complete `<dir>.tmp` or `<dir>.old`; the next `save_memory` first puts that copy back.

Concurrency: `save_memory` holds the directory's write lock (`memory_lock`, a `flock` on the
sibling `<dir>.lock`, dirlock.py), so a second process saving the same directory at once
gets `MemoryLockedError` naming the directory and the holder's pid. `load_memory` takes no
lock: it reads one complete copy, or fails clearly if a save swapped copies mid-read.

`load_memory` checks everything and names the file and the problem in a `MemoryFormatError`
(missing, truncated, checksum, foreign, newer version, dangling or duplicate ids).

Not here: the memory's logic (memory.py), pandas / HyperNetX views (views.py), plotting
(plots/), run checkpoints and logs (the runner), and any migration between format
versions (there is only version 1).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import numpy as np

from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.dirlock import directory_lock, fsync_dir
from hyperskill_lite.core.embed import Encoder, encoder_by_name
from hyperskill_lite.core.memory import POLARITIES, HypergraphMemory
from hyperskill_lite.core.records import skill_text

__all__ = [
    "MemoryFormatError",
    "MemoryLockedError",
    "memory_lock",
    "FORMAT",
    "VERSION",
    "save_memory",
    "load_memory",
    "to_state",
    "from_state",
]

FORMAT = "hyperskill_lite.memory"
VERSION = 1
MANIFEST = "manifest.json"
DATA_FILES = ("nodes.json", "edges.json", "node_emb.npy", "edge_emb.npy")


class MemoryFormatError(ValueError):
    """A saved memory is missing, truncated, foreign, newer or inconsistent; the message
    names the file and the problem."""


class MemoryLockedError(MemoryFormatError):
    """Another process (or thread) is saving this memory directory right now; the message
    names the directory and the holder's pid. A subclass of MemoryFormatError so one
    ``except`` clause covers every refusal of this module."""


# ---------------------------------------------------------------- pure converters
def to_state(memory: HypergraphMemory) -> dict[str, Any]:
    """The memory as plain data: {"manifest": dict, "nodes": [record], "edges": [record],
    "node_emb": (n_nodes, d) float32, "edge_emb": (n_edges, d) float32}; nodes are the
    live subtask nodes then the live skill nodes, each in insertion order."""
    U, S, E = memory._sub, memory._skl, memory._edg
    nodes: list[dict[str, Any]] = []
    rows = {"u": U.live(), "s": S.live()}
    for store, kind in ((U, "subtask"), (S, "skill")):
        for r in rows[store.prefix]:
            rec: dict[str, Any] = {"id": store.ids[r], "kind": kind}
            if kind == "skill":
                rec |= {"name": store.text["name"][r], "polarity": POLARITIES[store.polarity[r]]}
            rec |= {"content": store.text["content"][r], **_stats(store, r), "meta": store.meta[r]}
            nodes.append(rec)
    edges = [
        {
            "id": E.ids[j],
            "node_ids": memory._members(j),
            "task": E.text["task"][j],
            "lesson": E.text["lesson"][j],
            "success": bool(E.success[j]),
            "steps": int(E.steps[j]),
            "calls": int(E.calls[j]),
            **_stats(E, j),
            "meta": E.meta[j],
        }
        for j in range(E.n)
    ]
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "encoder": {"name": getattr(memory.encoder, "name", ""), "dim": int(memory.encoder.dim)},
        "config": memory.config.to_dict(),
        "counters": {s.prefix: s.next_id for s in (U, S, E)},
        "t_range": list(memory.t_range) if memory.t_range else None,
        "counts": {"nodes": len(nodes), "edges": len(edges)},
    }
    node_emb = np.concatenate([U.emb[rows["u"]], S.emb[rows["s"]]])
    return {
        "manifest": manifest,
        "nodes": nodes,
        "edges": edges,
        "node_emb": node_emb,
        "edge_emb": E.emb[: E.n].copy(),
    }


def _stats(store: Any, r: int) -> dict[str, Any]:
    return {
        "sigma": float(store.sigma[r]),
        "nu": int(store.nu[r]),
        "mean_steps": float(store.tbar[r]),
    }


def from_state(
    state: dict[str, Any], encoder: Encoder, config: HyperSkillConfig | None = None
) -> HypergraphMemory:
    """Rebuild a memory from `to_state` data without embedding anything. Raises
    MemoryFormatError naming the file whose content is inconsistent (malformed records,
    duplicate or misfiled ids, hyperedges listing unknown nodes)."""
    man = state["manifest"]
    try:
        cfg = config or HyperSkillConfig.from_dict(man["config"])
    except (KeyError, TypeError, ValueError) as exc:
        raise MemoryFormatError(f"{MANIFEST}: unreadable config ({exc})") from exc
    memory = HypergraphMemory(encoder, cfg)
    U, S, E = memory._sub, memory._skl, memory._edg
    nodes, edges = state["nodes"], state["edges"]
    try:
        for rec, vec in zip(nodes, state["node_emb"]):
            store = {"skill": S, "subtask": U}.get(rec["kind"])
            if store is None:
                raise MemoryFormatError(f"nodes.json: node {rec['id']!r} has kind {rec['kind']!r}")
            _check_id("nodes.json", rec["id"], store)
            texts = {"content": rec["content"]}
            if store is S:
                texts |= {"name": rec["name"], "polarity": POLARITIES.index(rec["polarity"])}
            _check_text("nodes.json", rec, ("name", "content") if store is S else ("content",))
            r = store.add(vec, rec["meta"], rid=rec["id"], **texts)
            store.sigma[r], store.nu[r], store.tbar[r] = rec["sigma"], rec["nu"], rec["mean_steps"]
    except MemoryFormatError:
        raise
    except (KeyError, ValueError, TypeError) as exc:
        raise MemoryFormatError(f"nodes.json: malformed node record ({exc!r})") from exc
    try:
        for rec, vec in zip(edges, state["edge_emb"]):
            _check_id("edges.json", rec["id"], E)
            _check_text("edges.json", rec, ("task", "lesson"))
            node_ids = rec["node_ids"]
            if not isinstance(node_ids, list) or not all(isinstance(i, str) for i in node_ids):
                raise MemoryFormatError(
                    f"edges.json: hyperedge {rec['id']} node_ids is not a list of ids"
                )
            missing = [i for i in node_ids if i not in U.row and i not in S.row]
            if missing:
                raise MemoryFormatError(
                    f"edges.json: hyperedge {rec['id']} lists unknown node(s) {missing}"
                )
            if len(set(node_ids)) != len(node_ids):
                raise MemoryFormatError(f"edges.json: hyperedge {rec['id']} lists a node twice")
            j = E.add(
                vec,
                rec["meta"],
                rid=rec["id"],
                task=rec["task"],
                lesson=rec["lesson"],
                success=rec["success"],
                steps=rec["steps"],
                calls=rec["calls"],
            )
            E.sigma[j], E.nu[j], E.tbar[j] = rec["sigma"], rec["nu"], rec["mean_steps"]
            for kind, store in (("subtask", U), ("skill", S)):
                rows = [store.row[i] for i in node_ids if i[:1] == store.prefix]
                memory._inc[kind].extend(rows, j)
    except MemoryFormatError:
        raise
    except (KeyError, ValueError, TypeError) as exc:
        raise MemoryFormatError(f"edges.json: malformed hyperedge record ({exc!r})") from exc
    for store in (U, S, E):
        store.next_id = int(man["counters"][store.prefix])
    if man["t_range"] is not None:
        memory._t_min, memory._t_max = (float(t) for t in man["t_range"])
    try:
        memory.validate()
    except AssertionError as exc:
        raise MemoryFormatError(f"{MANIFEST}: the saved memory is inconsistent: {exc}") from exc
    return memory


def _check_id(fname: str, rid: Any, store: Any) -> None:
    """An id must be a str of the store's kind ("u", "s", "e" + a number), seen once."""
    if not (isinstance(rid, str) and rid[:1] == store.prefix and rid[1:].isdigit()):
        raise MemoryFormatError(f"{fname}: id {rid!r} is not a {store.prefix!r} id")
    if rid in store.row:
        raise MemoryFormatError(f"{fname}: id {rid!r} appears twice")


def _check_text(fname: str, rec: dict[str, Any], keys: tuple[str, ...]) -> None:
    bad = [k for k in keys if not isinstance(rec[k], str)]
    if bad:
        raise MemoryFormatError(f"{fname}: record {rec['id']!r} has non-text {bad}")


# ---------------------------------------------------------------- files
def _to_bytes(state: dict[str, Any]) -> dict[str, bytes]:
    out = {}
    for name in ("nodes", "edges"):
        try:
            text = json.dumps(state[name], ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name}.json: a meta value is not JSON-serialisable ({exc})") from exc
        # a lone surrogate (e.g. from a "\ud800" escape in a model reply) becomes the JSON
        # escape "\ud800" again, so the text round-trips exactly and the file stays UTF-8
        out[f"{name}.json"] = text.encode("utf-8", "backslashreplace")
    for name in ("node_emb", "edge_emb"):
        buf = io.BytesIO()
        np.save(buf, np.ascontiguousarray(state[name], dtype=np.float32), allow_pickle=False)
        out[f"{name}.npy"] = buf.getvalue()
    return out


def _write(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _siblings(path: Path) -> tuple[Path, Path]:
    return path.with_name(path.name + ".tmp"), path.with_name(path.name + ".old")


def _crash_point(where: str) -> None:
    """Fault injection for the crash tests: with HYPERSKILL_CRASH_AT="<where>:<k>" the
    k-th `save_memory` of this process (from 0) SIGKILLs itself at `where` ("memory_save_files":
    the new copy written, nothing swapped; "memory_save_swap": between the two renames)."""
    spec = os.environ.get("HYPERSKILL_CRASH_AT")
    if spec and spec == f"{where}:{_SAVES[0] - 1}":
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


_SAVES = [0]  # saves started by this process, for `_crash_point`


def memory_lock(path: str | Path) -> AbstractContextManager[Path]:
    """The write lock `save_memory` holds on memory directory `path`, for a ``with`` block that
    spans several steps (`save_memory` inside it does not wait for itself): ``fcntl.flock`` on
    ``<path>.lock`` (dirlock.py). Raises `MemoryLockedError`, naming the directory and
    the holder's pid, when another process or thread holds it."""
    return directory_lock(path, MemoryLockedError)


def _complete(path: Path) -> bool:
    try:
        _read_checked(path)
    except MemoryFormatError:
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


def save_memory(memory: HypergraphMemory, path: str | Path) -> None:
    """Write `memory` to directory `path`, atomically and under the write lock (see the
    module docstring).

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
        _save_locked(memory, path)


def _save_locked(memory: HypergraphMemory, path: Path) -> None:
    tmp, old = _siblings(path)
    _recover(path)
    if path.exists() and not (
        path.is_dir() and ((path / MANIFEST).is_file() or not any(path.iterdir()))
    ):
        raise FileExistsError(f"{path}: exists and is not a saved memory; refusing to replace it")
    state = to_state(memory)
    blobs = _to_bytes(state)
    manifest = state["manifest"] | {
        "files": {
            n: {"bytes": len(b), "sha256": hashlib.sha256(b).hexdigest()} for n, b in blobs.items()
        }
    }
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    for name, data in blobs.items():
        _write(tmp / name, data)
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
    if not bad:
        if not isinstance(enc.get("dim"), int) or not isinstance(enc.get("name", ""), str):
            bad.append("encoder")
        if not all(isinstance(counters.get(p), int) for p in "use"):
            bad.append("counters")
        if not all(isinstance(counts.get(k), int) for k in ("nodes", "edges")):
            bad.append("counts")
        t = man["t_range"]
        if t is not None and not (len(t) == 2 and all(isinstance(x, (int, float)) for x in t)):
            bad.append("t_range")
        for name in DATA_FILES:
            f = files.get(name)
            if not (isinstance(f, dict) and isinstance(f.get("bytes"), int)):
                bad.append(f"files/{name}")
    if bad:
        raise MemoryFormatError(f"{mpath}: malformed entries {bad}")


def _read_checked(path: Path) -> tuple[dict[str, Any], dict[str, bytes]]:
    """Manifest and verified file contents of a saved memory directory."""
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
    if not isinstance(version, int) or version > VERSION:
        raise MemoryFormatError(
            f"{mpath}: format version {version!r} is newer than this library reads ({VERSION})"
        )
    _check_manifest(man, mpath)
    blobs = {}
    for name in DATA_FILES:
        fpath = path / name
        if not fpath.is_file():
            raise MemoryFormatError(f"{fpath}: missing")
        data = fpath.read_bytes()
        want = man["files"][name]
        if len(data) != want["bytes"]:
            raise MemoryFormatError(
                f"{fpath}: {len(data)} bytes, the manifest records {want['bytes']} "
                "(truncated or modified)"
            )
        if hashlib.sha256(data).hexdigest() != want.get("sha256"):
            raise MemoryFormatError(f"{fpath}: checksum differs from the manifest (corrupt)")
        blobs[name] = data
    return man, blobs


def load_memory(
    path: str | Path, encoder: Encoder | None = None, config: HyperSkillConfig | None = None
) -> HypergraphMemory:
    """Read a memory written by `save_memory`; nothing is re-embedded.

    Recovery rule: if `path` is missing but a complete `<path>.tmp` (newer) or
    `<path>.old` exists (a crash inside `save_memory`), load from the first complete one.
    `encoder` None uses the recorded encoder by name; a different dim is an error. The
    encoder's cache is seeded with the stored vectors only when its name and dim match
    the recorded ones. `config` None uses the recorded config.
    """
    path = Path(path)
    if not path.exists():
        for candidate in _siblings(path):
            try:
                man, blobs = _read_checked(candidate)
            except MemoryFormatError:
                continue
            path = candidate
            break
        else:
            raise MemoryFormatError(f"{path}: no saved memory here (missing, nothing to recover)")
    else:
        man, blobs = _read_checked(path)
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
    state: dict[str, Any] = {"manifest": man}
    for name in ("nodes", "edges"):
        try:
            state[name] = json.loads(blobs[f"{name}.json"])
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise MemoryFormatError(f"{path / (name + '.json')}: not valid JSON ({exc})") from exc
        if not isinstance(state[name], list):
            raise MemoryFormatError(
                f"{path / (name + '.json')}: expected a JSON array of records, "
                f"got {type(state[name]).__name__}"
            )
        if len(state[name]) != man["counts"][name]:
            raise MemoryFormatError(
                f"{path / (name + '.json')}: {len(state[name])} records, manifest says "
                f"{man['counts'][name]}"
            )
    for name, count in (("node_emb", "nodes"), ("edge_emb", "edges")):
        fpath = path / f"{name}.npy"
        try:
            arr = np.load(io.BytesIO(blobs[f"{name}.npy"]), allow_pickle=False)
        except (ValueError, EOFError, OSError) as exc:
            raise MemoryFormatError(f"{fpath}: not a readable .npy array ({exc})") from exc
        if arr.dtype != np.float32 or arr.shape != (man["counts"][count], rec_dim):
            raise MemoryFormatError(
                f"{fpath}: {arr.dtype} {arr.shape}, expected float32 "
                f"{(man['counts'][count], rec_dim)}"
            )
        state[name] = arr
    memory = from_state(state, encoder, config)
    if getattr(encoder, "name", None) == rec_name and hasattr(encoder, "seed_cache"):
        texts = [skill_text(r.get("name", ""), r["content"]) for r in state["nodes"]]
        encoder.seed_cache(texts, state["node_emb"])
        encoder.seed_cache(
            [f"{r['task']}\n{r['lesson']}" for r in state["edges"]], state["edge_emb"]
        )
    return memory
