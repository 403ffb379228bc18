"""Measurements of the performance harness, each next to its floor and its naive reference.

For one synthetic workload (synthetic.py) the functions here time

- insertion: `HypergraphMemory.add_trajectory` over every episode (amortised per
  hyperedge); floor: the same lookup encoding, one bare matvec + argmax per skill over a
  skill matrix of the size the memory had then (the dedup search), row writes into
  preallocated arrays, on a systematic sample of the episodes; naive: `NaiveStore`;
- retrieval: `retrieve(memory, ...)` per query, interleaved with the floor (the same query
  encoding, a matvec and an argpartition over the subtask matrix and over the hyperedge
  matrix), so machine noise hits both alike, then the naive store in a pass of its own
  (checked to return the same ids and context); p50 / p95;
- save and load: `save_memory` / `load_memory` (time, bytes on disk); floor:
  `np.save` + fsync / `np.load` of the embedding matrices alone; naive: one JSON file;
- maintenance: `prune` then `merge` (what `maintain` does) with its parts (W, Eq. 12;
  propagation, Eq. 13; merge candidates, Eq. 14) timed on the same state; floor: the bare
  sparse and dense products of the same sizes (B D B^T, L sparse-dense products, the
  blockwise same-polarity cosines); naive: `NaiveStore.maintain`; peak memory in a fresh
  subprocess per measurement (run_all.py --child), by tracemalloc and by peak RSS;
- a SkillWorld episode's memory-side cost: `HyperSkillMemory.begin` + `end` minus the
  time spent inside the simulated LLM, with every text already embedded.

Not here: the command line, scaling fits, targets and the report (run_all.py, report.py).
"""

from __future__ import annotations

import gc
import os
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from naive_store import NaiveStore
from synthetic import Workload

from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.cooccurrence import cooccurrence_matrix, propagate
from hyperskill_lite.core.io import load_memory, save_memory
from hyperskill_lite.core.maintenance import merge, merge_candidates, prune
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.retrieval import Retrieval, retrieve
from hyperskill_lite.core.template_merger import TemplateMerger

__all__ = [
    "summary",
    "build_memory",
    "build_naive",
    "insert_floor",
    "retrieval",
    "save_load",
    "maintenance",
    "maintenance_floor",
    "prune_floor",
    "naive_maintenance",
    "skillworld_episode",
    "dir_bytes",
]


def summary(seconds: list[float]) -> dict[str, float]:
    """{"p50", "p95", "mean"} in seconds of a list of timings.

    >>> summary([1.0, 2.0, 3.0, 4.0])["p50"]
    2.5
    """
    a = np.asarray(seconds, dtype=np.float64)
    return {
        "p50": float(np.percentile(a, 50)),
        "p95": float(np.percentile(a, 95)),
        "mean": float(a.mean()),
        "n": int(a.size),
    }


def dir_bytes(path: Path) -> int:
    """Bytes of every file under `path`."""
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


# ---------------------------------------------------------------------------- insertion
def build_memory(w: Workload, config: HyperSkillConfig) -> tuple[HypergraphMemory, float]:
    """Insert every episode; returns the memory and the wall seconds of the inserts."""
    mem = HypergraphMemory(w.encoder, config)
    used = [Retrieval(edge_ids=list(e.used)) for e in w.episodes]  # prebuilt: not timed
    gc.collect()
    t = time.perf_counter()
    for e, r in zip(w.episodes, used):
        mem.add_trajectory(e.task, e.plan, e.skills, e.lesson, e.success, e.steps, retrieval=r)
    return mem, time.perf_counter() - t


def build_naive(w: Workload, config: HyperSkillConfig) -> tuple[NaiveStore, float]:
    store = NaiveStore(w.encoder, config)
    gc.collect()
    t = time.perf_counter()
    for e in w.episodes:
        store.add_trajectory(e.task, e.plan, e.skills, e.lesson, e.success, e.steps, used=e.used)
    return store, time.perf_counter() - t


def insert_floor(w: Workload, skill_matrix: np.ndarray, delta: float, sample: int = 2000) -> float:
    """Floor seconds per hyperedge, averaged over a systematic sample of the episodes.

    skill_matrix: (>= V, d) float32, only its size matters (the dedup search of episode j
    scans its first `skills_before` rows, growing by one per new skill)."""
    stride = max(1, len(w.episodes) // sample)
    picked = w.episodes[::stride]
    d = skill_matrix.shape[1]
    E_out = np.zeros((len(picked), d), dtype=np.float32)
    U_out = np.zeros((3 * len(picked), d), dtype=np.float32)
    enc = w.encoder
    gc.collect()
    t = time.perf_counter()
    for i, e in enumerate(picked):
        vecs = enc.encode([f"{e.task}\n{e.lesson}", *e.plan, *(s.text for s in e.skills)])
        n = e.skills_before
        for v in vecs[1 + len(e.plan) :]:
            if n:
                sims = skill_matrix[:n] @ v  # (n,) the dedup search
                r = int(np.argmax(sims))
                if sims[r] >= delta:
                    continue
            n += 1
        E_out[i] = vecs[0]
        U_out[3 * i : 3 * i + len(e.plan)] = vecs[1 : 1 + len(e.plan)]
    return (time.perf_counter() - t) / len(picked)


# ---------------------------------------------------------------------------- retrieval
def _floor_query(
    enc: Any, U: np.ndarray, E: np.ndarray, task: str, plan: list[str], k: int
) -> None:
    q = enc.encode([task, "\n".join(plan)])
    s_u = U @ q[1]
    np.argpartition(s_u, len(s_u) - k)[len(s_u) - k :]
    s_e = E @ q[0]
    np.argpartition(s_e, len(s_e) - k)[len(s_e) - k :]


def retrieval(
    mem: HypergraphMemory, w: Workload, naive: NaiveStore | None = None, warmup: int = 5
) -> dict[str, Any]:
    """Latency per query of the memory, the floor and (if given) the naive store."""
    U, E = mem.columns("subtask").emb, mem.columns("hyperedge").emb  # same sizes, views
    k = mem.config.k_u
    enc = w.encoder
    for task, plan in w.queries[:warmup]:
        _floor_query(enc, U, E, task, plan, k)
        retrieve(mem, task, plan)
    fallback_before = enc.n_fallback
    ours: list[float] = []
    floor: list[float] = []
    for task, plan in w.queries:  # interleaved, so noise hits both alike
        t0 = time.perf_counter()
        _floor_query(enc, U, E, task, plan, k)
        t1 = time.perf_counter()
        retrieve(mem, task, plan)
        floor.append(t1 - t0)
        ours.append(time.perf_counter() - t1)
    ref: list[float] = []
    agree = 0
    if naive is not None:  # a pass of its own: its loops would evict the others' caches
        for task, plan in w.queries:
            t0 = time.perf_counter()
            n = naive.retrieve(task, plan)
            ref.append(time.perf_counter() - t0)
            r = retrieve(mem, task, plan)
            agree += n["retrieved_ids"] == r.retrieved_ids and n["context"] == r.context
    if enc.n_fallback != fallback_before:
        raise RuntimeError("retrieval embedded a text outside the workload's table")
    out: dict[str, Any] = {"ours": summary(ours), "floor": summary(floor)}
    if naive is not None:
        out["naive"] = summary(ref)
        out["naive_agrees"] = f"{agree}/{len(w.queries)}"
    return out


# ---------------------------------------------------------------------------- files
def _timed(f: Any) -> tuple[Any, float]:
    gc.collect()
    t = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t


def _np_save(path: Path, arrays: list[np.ndarray]) -> None:
    path.mkdir(parents=True, exist_ok=True)
    for i, a in enumerate(arrays):
        with open(path / f"{i}.npy", "wb") as f:
            np.save(f, a, allow_pickle=False)
            f.flush()
            os.fsync(f.fileno())


def save_load(
    mem: HypergraphMemory,
    workdir: Path,
    naive: NaiveStore | None = None,
    queries: list[tuple[str, list[str]]] | None = None,
) -> dict[str, Any]:
    """Save and load times and bytes on disk of the memory (format 2, float32; float16;
    a memory-mapped load), the floor and the naive store, and with `queries` the share
    of queries whose retrieval (S_q and the context) is identical after a float16 round
    trip. The memory's float32 copy stays in workdir/"ours" (the peak-memory children
    load it)."""
    ours_dir, floor_dir, naive_dir = workdir / "ours", workdir / "floor", workdir / "naive"
    half_dir = workdir / "ours16"
    _, save_s = _timed(lambda: save_memory(mem, ours_dir))
    loaded, load_s = _timed(lambda: load_memory(ours_dir, encoder=mem.encoder))
    same = loaded.stats() == mem.stats()
    del loaded
    mapped, mmap_s = _timed(lambda: load_memory(ours_dir, encoder=mem.encoder, mmap=True))
    same = same and mapped.stats() == mem.stats()
    del mapped
    _, save16_s = _timed(lambda: save_memory(mem, half_dir, dtype="float16"))
    half, load16_s = _timed(lambda: load_memory(half_dir, encoder=mem.encoder))
    U, S, E = (mem.columns(k) for k in ("subtask", "skill", "hyperedge"))
    arrays = [U.emb[U.live()], S.emb[S.live()], E.emb[: E.n]]  # what the floor writes
    _, fsave_s = _timed(lambda: _np_save(floor_dir, arrays))
    _, fload_s = _timed(lambda: [np.load(floor_dir / f"{i}.npy") for i in range(3)])
    out: dict[str, Any] = {
        "ours": {"save_s": save_s, "load_s": load_s, "bytes": dir_bytes(ours_dir)},
        "ours_mmap": {"load_s": mmap_s},
        "ours_f16": {"save_s": save16_s, "load_s": load16_s, "bytes": dir_bytes(half_dir)},
        "floor": {"save_s": fsave_s, "load_s": fload_s, "bytes": dir_bytes(floor_dir)},
        "roundtrip_ok": same,
    }
    if queries:
        agree = 0
        for task, plan in queries:
            a, b = retrieve(mem, task, plan), retrieve(half, task, plan)
            agree += a.retrieved_ids == b.retrieved_ids and a.context == b.context
        out["f16_agreement"] = {"identical": agree, "queries": len(queries)}
    del half
    shutil.rmtree(floor_dir)
    shutil.rmtree(half_dir)
    if naive is not None:
        _, nsave_s = _timed(lambda: naive.save(naive_dir))
        _, nload_s = _timed(lambda: NaiveStore.load(naive_dir, naive.encoder, naive.config))
        out["naive"] = {"save_s": nsave_s, "load_s": nload_s, "bytes": dir_bytes(naive_dir)}
    return out


# ---------------------------------------------------------------------------- maintenance
def _polarity(mem: HypergraphMemory, ids: list[str]) -> np.ndarray:
    failure = set(mem.node_ids(kind="skill", polarity="failure"))
    return np.array(["failure" if s in failure else "success" for s in ids], dtype=object)


def prune_floor(mem: HypergraphMemory) -> float:
    """Seconds of the bare work of Eq. 11 on arrays of the memory's node count: Eq. 3
    on (sigma, nu, T_bar) and the threshold test."""
    from hyperskill_lite.core.utility import utility

    n = mem.stats()["subtask_nodes"] + mem.stats()["skill_nodes"]
    rng = np.random.default_rng(0)
    nu = rng.integers(0, 6, size=n)
    sigma, tbar = rng.binomial(nu, 0.5).astype(float), rng.uniform(2, 20, size=n)
    t = time.perf_counter()
    g = utility(sigma, nu, tbar, 2.0, 20.0)
    np.flatnonzero((nu >= 3) & (g < 0.2))
    return time.perf_counter() - t


def maintenance(mem: HypergraphMemory) -> dict[str, Any]:
    """One cycle, prune then merge (= `maintain`), with the Eq. 12-14 parts and the floor
    timed alone on the post-prune state. Seconds; counts of what the cycle did."""
    cfg = mem.config
    nnz = mem.stats()["incidences"]
    t_prune_floor = prune_floor(mem)
    pruned, t_prune = _timed(lambda: prune(mem))
    B, ids, _, sizes = mem.skill_incidence()
    gamma = mem.gammas(ids)
    W, t_w = _timed(lambda: cooccurrence_matrix(B, sizes, gamma))  # Eq. 12
    Z = mem.skill_embeddings(ids)
    Zt, t_prop = _timed(lambda: propagate(W, Z, alpha=cfg.alpha, L=cfg.L))  # Eq. 13
    pol = _polarity(mem, ids)
    pairs, t_cand = _timed(lambda: merge_candidates(Zt, pol, cfg.delta_merge))  # Eq. 14
    t_floor = t_prune_floor + maintenance_floor(mem, cfg.delta_merge)
    merged, t_merge = _timed(lambda: merge(mem, TemplateMerger()))
    return {
        "total_s": t_prune + t_merge,
        "floor_s": t_floor,
        "prune_s": t_prune,
        "merge_s": t_merge,
        "W_s": t_w,
        "propagate_s": t_prop,
        "candidates_s": t_cand,
        "incidences": nnz,
        "skills": len(ids),
        "pruned": len(pruned),
        "merged": len(merged),
        "candidate_pairs": len(pairs),
    }


def maintenance_floor(mem: HypergraphMemory, delta: float = 0.85, block: int = 1024) -> float:
    """Seconds of the bare array work of one merge step on the memory's current sizes:
    C = B D^-1 B^T, the normalised (C + I), L = 2 sparse-dense products with Z, and the
    upper-triangle same-polarity cosine blocks thresholded at delta. No ids, no stats, no
    bookkeeping."""
    B, ids, _, sizes = mem.skill_incidence()
    B = sp.csr_matrix(B)
    inv = np.where(sizes > 0, 1.0 / np.maximum(sizes, 1), 0.0)
    Z = np.asarray(mem.skill_embeddings(ids), dtype=np.float64)
    groups = [np.flatnonzero(_polarity(mem, ids) == p) for p in ("success", "failure")]
    gc.collect()
    t = time.perf_counter()
    C = B @ sp.diags(inv) @ B.T
    A = C + sp.identity(C.shape[0], format="csr")
    dinv = 1.0 / np.sqrt(np.asarray(A.sum(axis=1)).ravel())
    A = sp.diags(dinv) @ A @ sp.diags(dinv)
    X, out = Z, 0.5 * Z
    for _ in range(2):  # L = 2
        X = A @ X
        out = out + 0.25 * X
    Zn = out / np.linalg.norm(out, axis=1, keepdims=True)
    count = 0
    for idx in groups:
        G = Zn[idx]
        for start in range(0, len(idx), block):
            count += int(np.count_nonzero(G[start : start + block] @ G[start:].T >= delta))
    return time.perf_counter() - t


def naive_maintenance(store: NaiveStore) -> dict[str, Any]:
    pruned, t_prune = _timed(store.prune)
    merged, t_merge = _timed(lambda: store.merge(TemplateMerger()))
    return {
        "total_s": t_prune + t_merge,
        "prune_s": t_prune,
        "merge_s": t_merge,
        "pruned": len(pruned),
        "merged": len(merged),
    }


# ---------------------------------------------------------------------------- SkillWorld
class TimedLLM:
    """Forwards every MemoryLLM call to `inner` and adds the seconds spent there to
    `seconds`, so the memory-side time of begin / end is (wall - seconds)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0

    def _call(self, name: str, *args: Any) -> Any:
        t = time.perf_counter()
        try:
            return getattr(self.inner, name)(*args)
        finally:
            self.seconds += time.perf_counter() - t

    def decompose(self, task: Any) -> list[str]:
        return self._call("decompose", task)

    def extract(self, task: Any, episode: Any) -> Any:
        return self._call("extract", task, episode)

    def merge(self, a: Any, b: Any) -> Any:
        return self._call("merge", a, b)

    def judge(self, task: Any, episode: Any) -> bool:
        return self._call("judge", task, episode)


def skillworld_episode(n_memory: int = 1000, n_measure: int = 200, seed: int = 0) -> dict[str, Any]:
    """Memory-side seconds of begin() + end() of `HyperSkillMemory` on SkillWorld ("gaia"
    profile) once the memory holds `n_memory` hyperedges, embedding and LLM excluded.

    Pass 1 runs all episodes with a HashingEncoder (384-d), filling its text cache.
    Pass 2 replays the identical, deterministic run on a fresh memory sharing that
    encoder, so every encode is a cache lookup (checked: no new text is embedded), and
    times begin and end of the last `n_measure` episodes minus the LLM's own time."""
    from hyperskill_lite.core.embed import HashingEncoder
    from hyperskill_lite.methods import HyperSkillMemory
    from hyperskill_lite.world import SimExecutor, SimLLM, make_tasks

    tasks = make_tasks("gaia", n=n_memory + n_measure, seed=seed)
    encoder = HashingEncoder(dim=384, seed=seed)

    def run(timed: bool) -> tuple[list[float], list[float], int]:
        llm = TimedLLM(SimLLM(seed=seed))
        system = HyperSkillMemory(llm, encoder=encoder)
        executor = SimExecutor(seed=seed)
        mem_side: list[float] = []
        llm_side: list[float] = []
        for i, task in enumerate(tasks):
            llm.seconds = 0.0
            t0 = time.perf_counter()
            ctx = system.begin(task)
            t1 = time.perf_counter()
            episode = executor.run(task, ctx)
            t2 = time.perf_counter()
            system.end(task, episode)
            t3 = time.perf_counter()
            if timed and i >= n_memory:
                mem_side.append((t1 - t0) + (t3 - t2) - llm.seconds)
                llm_side.append(llm.seconds)
        return mem_side, llm_side, system.stats()["hyperedges"]

    run(timed=False)
    misses = encoder.cache_info()["misses"]
    mem_side, llm_side, n_edges = run(timed=True)
    return {
        "memory_side": summary(mem_side),
        "llm_side": summary(llm_side),
        "hyperedges_at_start": n_memory,
        "hyperedges_at_end": n_edges,
        "texts_embedded_in_timed_pass": encoder.cache_info()["misses"] - misses,
    }
