"""Reading a saved memory: the manifest checked entry by entry, each file read once
(mapped copy-on-write on POSIX) and checked against its checksum, the columns
validated; `load_memory`, `verify_memory`, and the recovery rule after a crash
inside a save (a complete `.tmp` or `.old` sibling).

Not here: writing (write.py).
"""

from __future__ import annotations

import gc
import io
import json
import mmap
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.embed import Encoder, encoder_by_name
from hyperskill_lite.core.io.checksums import _sha256, checksum_matches
from hyperskill_lite.core.io.layout import (
    ARRAY_FILES,
    DATA_FILES,
    DATA_FILES_V1,
    DTYPES,
    EMB_FILES,
    FORMAT,
    KINDS,
    MANIFEST,
    TEXT,
    VERSION,
    MemoryFormatError,
)
from hyperskill_lite.core.io.legacy import _from_records_v1
from hyperskill_lite.core.io.state import _check_columns, from_state
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.records import skill_text


def _siblings(path: Path) -> tuple[Path, Path]:
    return path.with_name(path.name + ".tmp"), path.with_name(path.name + ".old")



def _complete(path: Path) -> bool:
    try:
        _read_manifest(path)
        _verify_files(path, json.loads((path / MANIFEST).read_bytes()))
    except (MemoryFormatError, OSError, ValueError):
        return False
    return True


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
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off for the block, e.g. while a load builds its lists
    of ids, texts and meta dicts (hundreds of thousands of acyclic containers, which would otherwise set
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
    with gc_paused():
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
