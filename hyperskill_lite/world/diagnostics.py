"""Why a mechanism does or does not act in SkillWorld: diagnostics that read the hidden
latent structure behind a memory's skill nodes.

Every skill text SkillWorld's simulated model writes carries ``meta["skillworld"]``
naming the latent strategies and error patterns it expresses (latent.py). No memory
system reads it; these functions do, after the fact, to answer questions the notebooks
ask: how many skill nodes does one hidden strategy end up as, and do two wordings of
one strategy sit above the dedup threshold (delta_dedup, §3.3) or the merge threshold
(delta_merge, Eq. 14)?

Analysis only, and O(n_s^2) in the number of skill nodes (a dense cosine matrix of the
skills): meant for memories of up to a few thousand skills.

Not here: the plots (plots/), the mechanisms themselves (core/).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from hyperskill_lite.world.latent import latent_of

if TYPE_CHECKING:
    from hyperskill_lite.core.memory import HypergraphMemory

__all__ = ["Redundancy", "skill_latents", "redundancy"]


def skill_latents(memory: HypergraphMemory) -> dict[str, list[str]]:
    """Skill id -> the hidden latent ids (strategies, error patterns, spurious
    strategies) its text expresses, in skill insertion order. A skill written outside
    SkillWorld (no metadata) maps to an empty list."""
    out = {}
    for i in memory.node_ids(kind="skill"):
        lat = latent_of(memory.node(i).meta)
        out[i] = [x for f in ("strategies", "errors", "spurious") for x in lat[f]]
    return out


@dataclass(frozen=True)
class Redundancy:
    """How a memory's skill nodes cover the world's hidden latents.

    skill_ids: the live skill nodes; latents: latent ids at least one of them
    expresses; skills_per_latent: (len(latents),) int, how many skill nodes express
    each; same: cosines of same-polarity skill pairs that share a latent (two wordings
    of one hidden strategy or error); other: cosines of same-polarity pairs that share
    none; untagged: skill nodes without latent metadata (left out of both)."""

    skill_ids: list[str]
    latents: list[str]
    skills_per_latent: np.ndarray
    same: np.ndarray
    other: np.ndarray
    untagged: int

    def share_over(self, threshold: float) -> tuple[float, float]:
        """Fractions of the `same` and of the `other` pairs with cosine >= threshold
        (nan when there are no such pairs)."""
        def frac(x: np.ndarray) -> float:
            return float((x >= threshold).mean()) if len(x) else float("nan")
        return frac(self.same), frac(self.other)

    def summary(self, thresholds: Mapping[str, float]) -> dict[str, Any]:
        """One table row: skills, latents, skill nodes per latent (mean, max), pair
        counts, median cosines, and for each named threshold the % of same-latent pairs
        over it and the % of other pairs over it."""
        row: dict[str, Any] = {
            "skill nodes": len(self.skill_ids),
            "hidden latents": len(self.latents),
            "nodes per latent (mean)": float(self.skills_per_latent.mean()) if len(self.latents) else 0.0,
            "nodes per latent (max)": int(self.skills_per_latent.max()) if len(self.latents) else 0,
            "same-latent pairs": len(self.same),
            "median cos, same latent": float(np.median(self.same)) if len(self.same) else float("nan"),
            "median cos, other pairs": float(np.median(self.other)) if len(self.other) else float("nan"),
        }
        for name, t in thresholds.items():
            same, other = self.share_over(t)
            row[f"% same-latent >= {name}"] = 100 * same
            row[f"% other >= {name}"] = 100 * other
        return row


def redundancy(memory: HypergraphMemory) -> Redundancy:
    """Measure how the memory's skill nodes cover SkillWorld's hidden latents: nodes per
    latent and the cosine of every same-polarity pair, split by whether the two share
    a latent. Cosines are of the nodes' plain embeddings (what dedup compares).

    >>> from hyperskill_lite.core.embed import HashingEncoder
    >>> from hyperskill_lite.core.memory import HypergraphMemory
    >>> from hyperskill_lite.types import Skill
    >>> from hyperskill_lite.world.latent import latent_meta
    >>> mem = HypergraphMemory(HashingEncoder(dim=64))
    >>> code = latent_meta(strategies=["compute_with_code"])
    >>> sk = [Skill("Use Python", "Compute in Python.", meta=code),
    ...       Skill("Code The Maths", "Run arithmetic as code.", meta=code),
    ...       Skill("Read Sources", "Open the primary page.",
    ...             meta=latent_meta(strategies=["primary_source"]))]
    >>> _ = mem.add_trajectory("task", ["step"], sk, "lesson", success=True, steps=3)
    >>> r = redundancy(mem)
    >>> r.latents, r.skills_per_latent.tolist(), len(r.same), len(r.other)
    (['compute_with_code', 'primary_source'], [2, 1], 1, 2)
    """
    ids = memory.node_ids(kind="skill")
    lat = skill_latents(memory)
    latents = sorted({x for i in ids for x in lat[i]})
    col = {x: k for k, x in enumerate(latents)}
    L = np.zeros((len(ids), len(latents)), dtype=np.int32)
    for r, i in enumerate(ids):
        L[r, [col[x] for x in lat[i]]] = 1
    tagged = L.any(axis=1)
    if len(ids) < 2:
        empty = np.zeros(0)
        return Redundancy(ids, latents, L.sum(axis=0), empty, empty, int((~tagged).sum()))
    Z = memory.skill_embeddings(ids).astype(np.float64)
    norms = np.linalg.norm(Z, axis=1, keepdims=True)
    Z = np.divide(Z, norms, out=np.zeros_like(Z), where=norms > 0)
    pol = np.array([memory.node(i).polarity for i in ids])
    a, b = np.triu_indices(len(ids), k=1)
    cos = np.einsum("ij,ij->i", Z[a], Z[b])
    keep = (pol[a] == pol[b]) & tagged[a] & tagged[b]
    shared = np.einsum("ij,ij->i", L[a], L[b]) > 0
    return Redundancy(ids, latents, L.sum(axis=0), cos[keep & shared], cos[keep & ~shared],
                      int((~tagged).sum()))
