"""Synthetic workloads for the performance harness: episodes, queries and a lookup encoder.

A workload of N hyperedges has, per hyperedge, 3 subtask steps, 2-4 skills drawn from a
vocabulary of V(N) = round(10_000 * (N / 100_000) ** 0.7) skills (400 at 1k, 1,995 at
10k, 10,000 at 100k: the vocabulary grows like N^0.7), a lesson, an outcome and a step
count. Every text has a precomputed unit embedding (d = 384, float32): the `LookupEncoder`
answers `encode` with a dict lookup, so timing the memory never times a model.

Structure, so maintenance has work to do: the vocabulary falls into topics of about 20
skills and a hyperedge draws its skills from one topic (sometimes plus a stray), so the
co-occurrence W (Eq. 12) is clustered; 2% of the vocabulary are planted near-duplicates
of a topic-mate (cosine ~0.87, under delta_dedup = 0.9, so they stay separate nodes)
that merging (Eq. 14) should find. Each episode also "used" a few earlier elements
(2 subtasks, 2 skills, 3 hyperedges), given as `used` ids, so the Eq. 3 stats grow as in
a run and pruning has candidates, without paying a retrieval per insertion.

Not here: timing (run_all.py), the naive reference (naive_store.py), any real text or
model. Nothing here is benchmark data; everything is generated from a seed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from hyperskill_lite.core.embed import Encoder, HashingEncoder
from hyperskill_lite.core.records import Skill

__all__ = ["DIM", "LookupEncoder", "Episode", "Workload", "vocab_size", "make_workload"]

DIM = 384
SUBTASKS = 3


def vocab_size(n_edges: int) -> int:
    """V(N) = round(10_000 * (N / 100_000) ** 0.7), at least 8.

    >>> [vocab_size(n) for n in (1_000, 10_000, 100_000)]
    [398, 1995, 10000]
    """
    return max(8, round(10_000 * (n_edges / 100_000) ** 0.7))


class LookupEncoder:
    """An Encoder whose vectors were computed beforehand: `encode` is a dict lookup.

    texts: (n,) distinct str; vectors: (n, dim) unit rows. An unknown text goes to
    `fallback` (an Encoder of the same dim; maintenance embeds the merged skills' new
    text) and is counted in `n_fallback`; without a fallback it is an error naming it.

    >>> enc = LookupEncoder(["a", "b"], np.eye(2, dtype=np.float32))
    >>> enc.encode(["b", "a", "b"]).tolist()
    [[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]
    """

    def __init__(
        self,
        texts: Sequence[str],
        vectors: np.ndarray,
        name: str = "lookup",
        fallback: Encoder | None = None,
    ) -> None:
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise ValueError(
                f"LookupEncoder: vectors have shape {vectors.shape}, expected ({len(texts)}, d)"
            )
        self.dim = int(vectors.shape[1])
        self.name = f"{name}(dim={self.dim})"
        self._table: dict[str, np.ndarray] = dict(zip(texts, vectors))  # text -> (d,) row view
        if len(self._table) != len(texts):
            raise ValueError("LookupEncoder: texts must be distinct")
        if fallback is not None and int(fallback.dim) != self.dim:
            raise ValueError(f"LookupEncoder: fallback has dim {fallback.dim}, not {self.dim}")
        self.fallback = fallback
        self.n_fallback = 0  # texts answered by the fallback

    def add(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Register more (text, vector) pairs. vectors: (n, dim)."""
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.shape != (len(texts), self.dim):
            raise ValueError(
                f"LookupEncoder.add: shape {vectors.shape} != ({len(texts)}, {self.dim})"
            )
        self._table.update(zip(texts, vectors))

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(n,) str -> (n, dim) float32 rows from the table."""
        if isinstance(texts, str):
            raise TypeError("encode() takes a list of strings, got a single str")
        table = self._table
        try:
            rows = [table[t] for t in texts]
        except KeyError as exc:
            if self.fallback is None:
                raise KeyError(f"LookupEncoder has no vector for text {exc.args[0]!r}") from None
            new = [t for t in dict.fromkeys(texts) if t not in table]
            self.n_fallback += len(new)
            table.update(zip(new, np.asarray(self.fallback.encode(new), dtype=np.float32)))
            rows = [table[t] for t in texts]
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack(rows)


@dataclass
class Episode:
    """One finished trajectory to insert (the arguments of `add_trajectory`), the ids of
    earlier elements the episode used (its retrieval), whose stats it updates, and the
    number of skill nodes in the memory before it (the size of its dedup search)."""

    task: str
    plan: list[str]
    skills: list[Skill]
    lesson: str
    success: bool
    steps: int
    used: list[str] = field(default_factory=list)
    skills_before: int = 0


@dataclass
class Workload:
    """N episodes to insert, Q queries (task, plan) and the encoder that knows every text."""

    n_edges: int
    n_vocab: int
    episodes: list[Episode]
    queries: list[tuple[str, list[str]]]
    encoder: LookupEncoder
    seed: int

    def __iter__(self) -> Iterator[Episode]:
        return iter(self.episodes)


def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    """(n, dim) float32 random unit rows."""
    X = rng.standard_normal((n, dim), dtype=np.float32)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X


def _near(rng: np.random.Generator, base: np.ndarray, cos: float) -> np.ndarray:
    """(n, dim) unit rows at cosine ~`cos` from the unit rows of `base`."""
    noise = _unit(rng, len(base), base.shape[1])
    noise -= (noise * base).sum(axis=1, keepdims=True) * base  # orthogonal to base
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    out = cos * base + np.sqrt(1.0 - cos**2) * noise
    return (out / np.linalg.norm(out, axis=1, keepdims=True)).astype(np.float32)


def make_workload(
    n_edges: int, n_queries: int = 200, seed: int = 0, dim: int = DIM, topic_size: int = 20
) -> Workload:
    """The synthetic workload of `n_edges` hyperedges (see the module docstring).

    >>> w = make_workload(50, n_queries=3, seed=1, dim=16)
    >>> len(w.episodes), len(w.episodes[0].plan), w.n_vocab, len(w.queries)
    (50, 3, 49, 3)
    >>> w.encoder.encode([w.queries[0][0]]).shape
    (1, 16)
    """
    if n_edges < 1 or n_queries < 0:
        raise ValueError(
            f"make_workload: need n_edges >= 1 and n_queries >= 0, got {n_edges}, {n_queries}"
        )
    rng = np.random.default_rng(seed)
    V = vocab_size(n_edges)
    n_topics = max(1, V // topic_size)
    topic = rng.integers(0, n_topics, size=V)
    members = [np.flatnonzero(topic == t) for t in range(n_topics)]
    polarity = np.where(rng.random(V) < 2 / 3, "success", "failure")
    skill_vec = _unit(rng, V, dim)
    # planted near-duplicates: 2% of the vocabulary copy a same-topic, same-polarity mate
    for v in rng.choice(V, size=max(1, V // 50), replace=False):
        mates = [u for u in members[topic[v]] if u != v]
        if mates:
            u = int(rng.choice(mates))
            polarity[v] = polarity[u]
            skill_vec[v] = _near(rng, skill_vec[u : u + 1], 0.87)[0]
    vocab = [
        Skill(f"Skill {v} of topic {topic[v]}", f"Do step {v} the careful way.", str(polarity[v]))
        for v in range(V)
    ]

    episodes: list[Episode] = []
    n_skills_seen = 0
    first_seen: dict[int, int] = {}  # vocabulary index -> skill node number (dedup order)
    for j in range(n_edges):
        m = members[int(rng.integers(0, n_topics))]
        if len(m) == 0:
            m = np.array([int(rng.integers(0, V))])
        picks = [
            int(x) for x in rng.choice(m, size=min(len(m), int(rng.integers(2, 5))), replace=False)
        ]
        if rng.random() < 0.2:
            stray = int(rng.integers(0, V))
            if stray not in picks:
                picks.append(stray)
        used: list[str] = []
        if j:
            used += [
                f"u{int(x) + 1}"
                for x in rng.choice(SUBTASKS * j, size=min(2, SUBTASKS * j), replace=False)
            ]
            if n_skills_seen:
                size = min(2, n_skills_seen)
                used += [
                    f"s{int(x) + 1}" for x in rng.choice(n_skills_seen, size=size, replace=False)
                ]
            used += [f"e{int(x) + 1}" for x in rng.choice(j, size=min(3, j), replace=False)]
        before = n_skills_seen
        for v in picks:
            if v not in first_seen:
                n_skills_seen += 1
                first_seen[v] = n_skills_seen
        episodes.append(
            Episode(
                task=f"Task {j}: find the value asked in case {j}",
                plan=[f"Step {k} of task {j}" for k in range(SUBTASKS)],
                skills=[vocab[v] for v in picks],
                lesson=f"Lesson {j}: check the source before answering",
                success=bool(rng.random() < 0.55),
                steps=int(rng.integers(2, 21)),
                used=used,
                skills_before=before,
            )
        )
    queries = [
        (f"Query {q}: find the value asked", [f"Query step {k} of {q}" for k in range(SUBTASKS)])
        for q in range(n_queries)
    ]

    edge_texts = [f"{e.task}\n{e.lesson}" for e in episodes]
    step_texts = [s for e in episodes for s in e.plan]
    query_texts = [t for t, _ in queries] + ["\n".join(p) for _, p in queries]
    texts = edge_texts + step_texts + query_texts
    vecs = _unit(rng, len(texts), dim)
    # queries look like stored work: each query vector is near a random stored one
    n_q = len(queries)
    if n_q:
        src_e = rng.integers(0, n_edges, size=n_q)
        src_u = rng.integers(0, len(step_texts), size=n_q)
        base = len(edge_texts) + len(step_texts)
        vecs[base : base + n_q] = _near(rng, vecs[src_e], 0.7)
        vecs[base + n_q :] = _near(rng, vecs[len(edge_texts) + src_u], 0.7)
    encoder = LookupEncoder(texts, vecs, fallback=HashingEncoder(dim=dim, seed=seed))
    encoder.add([s.text for s in vocab], skill_vec)
    return Workload(n_edges, V, episodes, queries, encoder, seed)
