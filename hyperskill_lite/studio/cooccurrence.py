"""Skill pairs that co-occur beyond chance: a configuration-model permutation test.

kappa (Eq. 8) rewards a skill for appearing in many retrieved trajectories, and the
co-occurrence W (Eq. 12) links skills that share trajectories. Some of that sharing is
chance: a skill used in half of all trajectories shares many of them with every other
frequent skill. This module asks, for each pair of skill nodes seen together, whether
they share more trajectories than a null model in which every skill keeps its degree
(the number of trajectories it is in) and every trajectory keeps its number of skills,
but which skills go together is random. Our addition: the paper has no such test.

The null is sampled with the global curveball algorithm (Carstens, Berger and Strona,
2018: pair the trajectories at random; each pair keeps the skills it shares and deals
out the others at random, as many to each as it had). It preserves both margins exactly
and is vectorised here over all pairs, and over `chains` independent chains at once (one
lexsort per round moves them all). After `burn_in` rounds, each chain gives one sample
every `thin` rounds; the co-occurrence counts of the tested pairs are popcounts of the
AND of the two skills' packed trajectory bits.

Tested pairs are those seen together in at least ``min_count`` trajectories (default
2). Since the pairs are chosen by what was observed, each p-value is conditional on that
choice (a selective p-value): the share of null samples reaching the observed count
among those reaching ``min_count``, ``(1 + #{count >= observed}) / (1 + #{count >=
min_count})`` (one-sided: more than chance). A pair that only just made the cut is
therefore never evidence (its p-value is 1). Why 2: the skills one extraction writes
together always share that one trajectory, and under the null two rare skills almost
never meet, so a single shared trajectory would look significant while it says only
"extracted together"; the pairs seen once are also most of the pairs, and each tested
pair makes the correction stricter for all. The p-values are corrected over the tested
pairs by Benjamini-Hochberg (`benjamini_hochberg`). A Monte Carlo p-value is at least
1/(n_samples + 1), so with m tested pairs a pair passes alone only when n_samples is
about m / alpha or more; when too few samples were drawn for any pair to pass,
`permutation_test` says so in its `note` rather than report an empty list as evidence.

>>> B = np.array([[1, 1, 1, 0], [1, 1, 1, 0], [0, 0, 0, 1]])  # 3 skills x 4 trajectories
>>> t = permutation_test(B, n_samples=200, seed=0, min_count=1)
>>> [(int(i), int(j), int(c)) for i, j, c in zip(t.i, t.j, t.observed)]
[(0, 1, 3)]

Not here: the memory's W (core/maintenance.py), drawing (the studio's page).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

if TYPE_CHECKING:
    from hyperskill_lite.core.memory import HypergraphMemory

__all__ = ["CooccurrenceTest", "curveball_round", "permutation_test", "benjamini_hochberg",
           "cooccurrence_significance"]


@dataclass
class CooccurrenceTest:
    """The result of `permutation_test`. Arrays (m,) over the tested pairs, sorted by
    q then p then (i, j): `i`, `j` row indices (i < j), `observed` shared trajectories,
    `expected` their mean under the null, `p` the (selective) permutation p-value, `q` the
    Benjamini-Hochberg adjusted p-value; `significant` where q <= alpha. `ids` maps
    rows to skill ids when the test ran on a memory."""

    i: np.ndarray
    j: np.ndarray
    observed: np.ndarray
    expected: np.ndarray
    p: np.ndarray
    q: np.ndarray
    alpha: float
    n_samples: int
    seed: int
    note: str = ""
    ids: list[str] = field(default_factory=list)

    @property
    def significant(self) -> np.ndarray:
        return self.q <= self.alpha

    def rows(self, only_significant: bool = False) -> list[dict[str, Any]]:
        """One dict per tested pair ({"a", "b", "observed", "expected", "p", "q",
        "significant"}), skill ids when known, for a table."""
        name = (lambda r: self.ids[r]) if self.ids else int  # noqa: E731
        out = []
        for k in range(len(self.i)):
            if only_significant and not self.significant[k]:
                continue
            out.append({"a": name(int(self.i[k])), "b": name(int(self.j[k])),
                        "observed": int(self.observed[k]),
                        "expected": round(float(self.expected[k]), 4),
                        "p": float(self.p[k]), "q": float(self.q[k]),
                        "significant": bool(self.significant[k])})
        return out


def benjamini_hochberg(p: np.ndarray, m: int | None = None) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (q-values) of `p` (n,), for `m` >= n tests
    (the untested ones count as p = 1): q_(k) = min over l >= k of p_(l) m / l, clipped
    to 1. A hypothesis is rejected at FDR alpha when q <= alpha.

    >>> benjamini_hochberg(np.array([0.01, 0.04, 0.03, 0.5])).round(4).tolist()
    [0.04, 0.0533, 0.0533, 0.5]
    """
    p = np.asarray(p, dtype=np.float64).reshape(-1)
    n = p.shape[0]
    m = n if m is None else int(m)
    if m < n:
        raise ValueError(f"m ({m}) must be at least the number of p-values ({n})")
    if n == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, n + 1)
    q_sorted = np.minimum.accumulate(scaled[::-1])[::-1]
    q = np.empty(n)
    q[order] = np.minimum(q_sorted, 1.0)
    return q


def curveball_round(skill: np.ndarray, edge: np.ndarray, n_edges: int,
                    rng: np.random.Generator, block: int | None = None,
                    n_local: int | None = None) -> np.ndarray:
    """One global curveball round over a bipartite incidence: the new edge of each
    incidence. skill, edge: (M,) int64, no pair twice. Trajectories are paired at random;
    in each pair the shared skills stay and the others are shuffled and dealt back, as
    many to each side as it had. Skill degrees and trajectory sizes are kept exactly,
    and no skill lands twice in one trajectory. With `block` (even), the trajectories
    are independent chains of `block` each (ids chain-major) and are paired within
    their chain only: many null samples advance in one vectorised round; `n_local` is
    then each chain's number of skills (skill ids chain-major too).

    >>> rng = np.random.default_rng(0)
    >>> s, e = np.array([0, 1, 1, 2]), np.array([0, 0, 1, 1])
    >>> e2 = curveball_round(s, e, 2, rng)
    >>> np.bincount(e2, minlength=2).tolist(), sorted(zip(s.tolist(), e2.tolist()))[1:3]
    ([2, 2], [(1, 0), (1, 1)])
    """
    if block is None:
        perm = rng.permutation(n_edges)
    else:  # grouped by chain, shuffled within it
        perm = np.argsort(np.arange(n_edges) // block + rng.random(n_edges), kind="stable")
    n_pairs = n_edges // 2
    pair_of = np.full(n_edges, -1, dtype=np.int64)
    side = np.zeros(n_edges, dtype=np.int8)
    pair_of[perm[: 2 * n_pairs]] = np.repeat(np.arange(n_pairs), 2)
    side[perm[1 : 2 * n_pairs : 2]] = 1
    p = pair_of[edge]
    partner = np.full(n_edges, -1, dtype=np.int64)
    first, second = perm[0 : 2 * n_pairs : 2], perm[1 : 2 * n_pairs : 2]
    partner[first], partner[second] = second, first
    local = skill if n_local is None else skill % n_local  # a chain's own skill ids
    width = int(local.max()) + 1 if skill.size else 1
    if n_edges * width <= _DENSE_BYTES:  # is the skill in the partner too? a table lookup
        present = np.zeros((n_edges, width), dtype=bool)
        present[edge, local] = True
        pe = partner[edge]
        shared = (pe >= 0) & present[np.maximum(pe, 0), local]
        loose = np.flatnonzero((p >= 0) & ~shared)  # incidences whose skill the partner lacks
    else:  # too wide a table: the same by sorting
        inpair = np.flatnonzero(p >= 0)
        key = p[inpair] * width + local[inpair]
        _, inv, cnt = np.unique(key, return_inverse=True, return_counts=True)
        loose = inpair[cnt[inv] == 1]
    lp = p[loose]
    order = np.argsort(lp + rng.random(loose.size), kind="stable")  # shuffled within a pair
    loose, lp = loose[order], lp[order]
    starts = np.zeros(loose.size, dtype=np.int64)  # where each one's pair begins
    bounds = np.flatnonzero(lp[1:] != lp[:-1]) + 1
    starts[bounds] = bounds
    rank = np.arange(loose.size) - np.maximum.accumulate(starts)  # position within its pair
    n0 = np.bincount(lp[side[edge[loose]] == 0], minlength=n_pairs)  # side 0's loose count
    new = edge.copy()
    new[loose] = np.where(rank < n0[lp], first[lp], second[lp])
    return new


_DENSE_BYTES = 64_000_000
"""Largest trajectory-by-skill table `curveball_round` builds to find shared skills."""
_POPCOUNT = np.array([bin(b).count("1") for b in range(256)], dtype=np.uint8)
"""Set bits of each byte value (numpy < 2 has no bitwise_count)."""
_bitcount = getattr(np, "bitwise_count", _POPCOUNT.__getitem__)
"""Set bits of each byte of a uint8 array (numpy >= 2: a vectorised instruction)."""
_CHUNK_BYTES = 32_000_000
"""Bytes of packed rows compared at once in `_pair_counts`."""


def _pair_counts(skill: np.ndarray, edge: np.ndarray, n_skills: int, n_edges: int,
                 i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Shared trajectories of the pairs (i, j) in the incidence: (m,) int64. Each skill's
    trajectories are a packed bit row (n_skills, ceil(n_edges / 8)) uint8; a pair's count
    is the popcount of the AND of its two rows, taken over chunks of pairs.

    >>> _pair_counts(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 2]), 2, 3,
    ...              np.array([0]), np.array([1])).tolist()
    [1]
    """
    dense = np.zeros((n_skills, n_edges), dtype=bool)
    dense[skill, edge] = True
    bits = np.packbits(dense, axis=1)  # (n_skills, ceil(n_edges / 8))
    out = np.empty(i.size, dtype=np.int64)
    step = max(1, _CHUNK_BYTES // max(bits.shape[1], 1))
    for a in range(0, i.size, step):
        both = bits[i[a:a + step]] & bits[j[a:a + step]]  # (chunk, bytes)
        out[a:a + step] = _bitcount(both).sum(axis=1, dtype=np.int64)
    return out


def _chain_counts(skill: np.ndarray, edge: np.ndarray, n_skills: int, block: int,
                  chains: int, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Shared trajectories of the pairs (i, j) in each chain of a stacked incidence
    (skill ids + k * n_skills, edge ids + k * block): (chains, m) int64."""
    counts = _pair_counts(skill, edge % block, chains * n_skills, block,
                          (i[None, :] + n_skills * np.arange(chains)[:, None]).ravel(),
                          (j[None, :] + n_skills * np.arange(chains)[:, None]).ravel())
    return counts.reshape(chains, i.size)


def permutation_test(B: Any, n_samples: int = 2000, alpha: float = 0.05, seed: int = 0,
                     burn_in: int = 20, thin: int = 1, min_count: int = 2,
                     chains: int = 32) -> CooccurrenceTest:
    """Which pairs of rows of `B` share more columns than the configuration model
    allows (module docstring).

    Parameters
    ----------
    B : (n_skills, n_trajectories) 0/1 array or scipy.sparse matrix (any nonzero is a
        membership), e.g. `HypergraphMemory.skill_incidence()[0]`.
    n_samples : null samples drawn (rounded up to a multiple of the chains).
    alpha : false discovery rate for `significant`.
    seed : the generator's seed (the test is a function of its arguments).
    burn_in, thin : curveball rounds before a chain's first sample and between samples.
    min_count : the trajectories a pair must share to be tested (module docstring).
    chains : independent curveball chains advanced together (one vectorised round moves
        all of them; fewer when their bit rows would pass 64 MB).
    """
    if n_samples < 1 or burn_in < 0 or thin < 1 or min_count < 1 or chains < 1:
        raise ValueError("n_samples, thin and chains must be >= 1, burn_in >= 0, "
                         "min_count >= 1")
    Bc = sp.coo_matrix(B)
    keep = Bc.data != 0
    skill, edge = Bc.row[keep].astype(np.int64), Bc.col[keep].astype(np.int64)
    n_skills, n_edges = Bc.shape
    Bs = sp.csr_matrix((np.ones(skill.size), (skill, edge)), shape=Bc.shape)
    C = sp.triu(Bs @ Bs.T, k=1).tocoo()
    tested = C.data >= min_count
    i, j = C.row[tested].astype(np.int64), C.col[tested].astype(np.int64)
    observed = C.data[tested].astype(np.int64)
    rng = np.random.default_rng(seed)
    block = n_edges + n_edges % 2  # an empty trajectory pads an odd count: it trades nothing
    k = int(max(1, min(chains, n_samples, 64_000_000 // max(1, n_skills * (block // 8 + 1)))))
    rounds = math.ceil(n_samples / k)
    n_drawn = rounds * k
    exceed = np.zeros(i.size, dtype=np.int64)
    selected = np.zeros(i.size, dtype=np.int64)
    total = np.zeros(i.size, dtype=np.float64)
    if i.size:
        offs = np.arange(k)
        sk = (skill[None, :] + n_skills * offs[:, None]).ravel()
        cur = (edge[None, :] + block * offs[:, None]).ravel()
        for _ in range(burn_in):
            cur = curveball_round(sk, cur, k * block, rng, block=block, n_local=n_skills)
        for _ in range(rounds):
            for _ in range(thin):
                cur = curveball_round(sk, cur, k * block, rng, block=block, n_local=n_skills)
            null = _chain_counts(sk, cur, n_skills, block, k, i, j)  # (k, m)
            exceed += (null >= observed).sum(axis=0)
            selected += (null >= min_count).sum(axis=0)
            total += null.sum(axis=0)
    p = np.minimum((1.0 + exceed) / (1.0 + selected), 1.0)
    q = benjamini_hochberg(p)
    order = np.lexsort((j, i, p, q))
    note = ""
    if i.size and 1.0 / (n_drawn + 1) > alpha:
        note = (f"{n_drawn} samples cannot show any pair beyond chance at alpha = {alpha} "
                f"(the smallest p-value is 1/{n_drawn + 1}); draw at least "
                f"{math.ceil(1 / alpha)}, and about {math.ceil(i.size / alpha)} for a single "
                f"pair among the {i.size} tested to pass alone")
    return CooccurrenceTest(i=i[order], j=j[order], observed=observed[order],
                            expected=(total / n_drawn)[order], p=p[order], q=q[order],
                            alpha=alpha, n_samples=n_drawn, seed=seed, note=note)


def cooccurrence_significance(memory: HypergraphMemory, n_samples: int = 2000,
                              alpha: float = 0.05, seed: int = 0, **kwargs: Any
                              ) -> CooccurrenceTest:
    """`permutation_test` over the skill nodes of `memory` (rows of
    ``memory.skill_incidence()``), with their ids in the result (`CooccurrenceTest.rows`
    names the pairs by id). Keyword arguments go to `permutation_test`."""
    B, ids, _, _ = memory.skill_incidence()
    test = permutation_test(B, n_samples=n_samples, alpha=alpha, seed=seed, **kwargs)
    test.ids = list(ids)
    return test
