"""HyperSkillConfig: every hyperparameter of HyperSkill with the paper's defaults.

Each field's docstring names its symbol in the paper and the equation or section that
uses it. Values not given by the paper (alpha, L, the fragment cap, the W diagonal, the
prune-mode switch, the merge scope) are our choices and say so (README, "Where the paper leaves a choice open").
`maintenance_period` is the schedule rule of Appendix A (every ceil(0.1 N) tasks).

The paper's rho, "maintenance ratio" (§4.3, Figure 4b), can be read four ways; the
default follows §4.3's sentence and the others are options:

1. ``prune_mode="ratio"`` (default): the share of the low-utility entries of the
   pruning rule (Eq. 11: nu >= N_min and gamma < tau_prune) removed per cycle, lowest
   gamma first;
2. ``prune_mode="threshold"``: no share at all, every low-utility entry goes (Eq. 11
   alone, "ratio" with rho = 1);
3. ``prune_mode="fraction"``: the share of *all* entries retrieved at least N_min times,
   whatever tau_prune says (this toolkit's reading before issue 21);
4. the 0.1 in Appendix A's maintenance period ceil(0.1 x N): how often maintenance runs,
   not how much it prunes. That 0.1 is ``maintain_ratio``; sweeping it (instead of
   ``rho``) reads Figure 4b's "maintenance ratio" as the schedule, and its peak at 0.1
   would then be the Appendix's period.

Not here: anything about SkillWorld or the runner's I/O.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal

__all__ = ["HyperSkillConfig", "maintenance_period", "maintenance_due", "PRUNE_MODES",
           "MERGE_SCOPES"]

PRUNE_MODES = ("ratio", "threshold", "fraction")
"""The readings of rho a maintenance cycle can use (`HyperSkillConfig.prune_mode`)."""
MERGE_SCOPES = ("same_polarity", "all")
"""Which skill pairs may be merge candidates (`HyperSkillConfig.merge_scope`)."""


@dataclass(frozen=True)
class HyperSkillConfig:
    """Hyperparameters of HyperSkill (paper §3, Appendix A "Implementation Details").

    >>> cfg = HyperSkillConfig()
    >>> (cfg.k_u, cfg.k_e, cfg.k_s, cfg.beta, cfg.tau_prune)
    (2, 2, 2, 0.7, 0.2)
    >>> HyperSkillConfig.qwen3().k_s
    5
    >>> HyperSkillConfig().maintain_every(165)
    17
    """

    k_u: int = 2
    """k_u: subtask nodes retrieved by the subtask path (Eq. 4, R_u)."""
    k_e: int = 2
    """k_e: hyperedges retrieved by the trajectory path (Eq. 5, E_traj)."""
    k_s: int = 2
    """k_s: skills surfaced after co-occurrence ranking (Eq. 9, S_q)."""
    beta: float = 0.7
    """beta: weight of success rate against step efficiency in the utility (Eq. 3)."""
    prior: float = 0.5
    """Neutral utility gamma of an element never retrieved (nu = 0) (Appendix A)."""
    delta_dedup: float = 0.9
    """delta_dedup: cosine at or above which a new skill is merged into its nearest
    existing skill node at insertion (§3.4, "Execution and memory update")."""
    dedup_scope: Literal["all", "same_polarity"] = "all"
    """Which existing skill nodes a new skill is compared with at insertion: "all" (the
    paper: "similarity to all existing skill nodes", §3.4), or "same_polarity" (only
    strategies with strategies, mistakes with mistakes; this toolkit's reading before
    issue 21). Under "all" the existing node keeps its polarity (see
    `HypergraphMemory.add_trajectory`)."""
    tau_prune: float = 0.2
    """tau_prune: utility below which a sufficiently retrieved node is pruned (Eq. 11)."""
    n_min: int = 3
    """N_min: minimum retrieval count nu before a node may be pruned (Eq. 11)."""
    delta_merge: float = 0.85
    """delta_merge: cosine of propagated embeddings at or above which two skills are
    merge candidates (Eq. 14; which pairs are compared is `merge_scope`)."""
    merge_scope: Literal["same_polarity", "all"] = "same_polarity"
    """Which skill pairs Eq. 14 may pair: "same_polarity" (default; our addition, the
    paper does not restrict it): strategies only with strategies and mistakes with
    mistakes, so a merge never turns a warning into advice or the reverse; "all": every
    pair of skill nodes, Eq. 14 read literally. Under "all" a strategy-mistake pair
    merges into a node of the polarity of the one retrieved more often (nu; ties: the
    older), the merger seeing both as that kind."""
    alpha: float = 0.5
    """alpha: restart weight of the L-step propagation (Eq. 13). Not given by the paper;
    our default."""
    L: int = 2
    """L: propagation depth (Eq. 13). Not given by the paper; our default."""
    w_diagonal: Literal["zero", "formula"] = "zero"
    """Diagonal of W (Eq. 12). "zero" (default): W holds only co-occurrence between
    distinct skills; Eq. 13 adds the self-loop through W + I, as the propagation it
    follows (SGC-style normalised adjacency) does. "formula": Eq. 12 read literally for
    i = j, W_ii = gamma_i * sum over e containing i of ``1/|V_e|``, which adds a second,
    usage-dependent self-weight (a skill in many small hyperedges keeps more of its own
    embedding). Our reading; the paper does not say."""
    merge_fragments: int = 3
    """Shared trajectory fragments given to LLM-Merge per candidate pair: the task and
    lesson of at most this many hyperedges containing both skills, newest first (§3.5:
    the agent "reasons over the contents of v_a, v_b, and their shared trajectory
    fragments"). The cap is ours; 0 gives the merger only the two skills."""
    prune_mode: Literal["ratio", "threshold", "fraction"] = "ratio"
    """How a maintenance cycle picks the nodes it prunes (Eq. 11 and rho):

    - "ratio" (default): among the low-utility entries of Eq. 11 (nu >= N_min and
      gamma < tau_prune), the ceil(rho x count) with the lowest gamma. This reads §4.3:
      "rho, which controls the fraction of low-utility entries pruned during each
      maintenance cycle", with Eq. 11 saying which entries are low-utility.
    - "threshold": every low-utility entry (Eq. 11 alone; "ratio" with rho = 1).
    - "fraction": the rho-fraction (floor) of all entries with nu >= N_min, lowest gamma
      first, whatever tau_prune says (this toolkit's earlier reading of rho).
    """
    rho: float = 0.1
    """rho: maintenance ratio, the fraction pruned per cycle in "ratio" and "fraction"
    modes (§4.3, Figure 4b; peaks at 0.1 in the paper); rho = 0 disables pruning. The
    module docstring lists the four readings of rho; the fourth is `maintain_ratio`."""
    maintain_ratio: float = 0.1
    """Maintenance runs every ceil(maintain_ratio x N) tasks (Appendix A); 0: never.
    The fourth reading of the paper's rho: the 0.1 of the maintenance period, i.e. how
    often a cycle runs rather than how much it prunes (module docstring)."""
    window: int = 3
    """w: sliding window of recent interaction steps the agent keeps (Eq. 10)."""
    temperature: float = 0.7
    """Sampling temperature of the backbone model (Appendix A)."""

    def __post_init__(self) -> None:
        for name in ("k_u", "k_e", "k_s", "n_min", "L", "window"):
            if getattr(self, name) < 0:
                raise ValueError(f"HyperSkillConfig.{name} must be >= 0, got {getattr(self, name)}")
        for name in ("beta", "prior", "delta_dedup", "delta_merge", "alpha", "rho", "maintain_ratio"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"HyperSkillConfig.{name} must be in [0, 1], got {v}")
        for name, allowed in (("prune_mode", PRUNE_MODES),
                              ("dedup_scope", ("all", "same_polarity")),
                              ("merge_scope", MERGE_SCOPES),
                              ("w_diagonal", ("zero", "formula"))):
            if getattr(self, name) not in allowed:
                raise ValueError(
                    f"HyperSkillConfig.{name} must be one of {allowed}, got {getattr(self, name)!r}"
                )
        if self.merge_fragments < 0:
            raise ValueError(
                f"HyperSkillConfig.merge_fragments must be >= 0, got {self.merge_fragments}"
            )

    @classmethod
    def gpt4o(cls, **overrides: Any) -> HyperSkillConfig:
        """The GPT-4o setting: (k_u, k_e, k_s) = (2, 2, 2) (Appendix A)."""
        return cls(**{"k_u": 2, "k_e": 2, "k_s": 2, **overrides})

    @classmethod
    def qwen3(cls, **overrides: Any) -> HyperSkillConfig:
        """The Qwen3-30B-A3B setting: (k_u, k_e, k_s) = (5, 5, 5) (Appendix A)."""
        return cls(**{"k_u": 5, "k_e": 5, "k_s": 5, **overrides})

    def with_k(self, k: int) -> HyperSkillConfig:
        """A single retrieval budget k sets all three (the paper's sensitivity study)."""
        return replace(self, k_u=k, k_e=k, k_s=k)

    def replace(self, **changes: Any) -> HyperSkillConfig:
        return replace(self, **changes)

    def maintain_every(self, n_tasks: int) -> int:
        """Maintenance period ceil(maintain_ratio x N) for a run of N tasks
        (`maintenance_period`, the one place the rule lives)."""
        return maintenance_period(n_tasks, self.maintain_ratio)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> HyperSkillConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown HyperSkillConfig fields: {sorted(unknown)}")
        # a config saved before a field existed keeps the behaviour it was saved with
        return cls(**{**_BEFORE_FIELD, **d})


_BEFORE_FIELD: dict[str, Any] = {
    "dedup_scope": "same_polarity",
    "w_diagonal": "zero",
    "merge_fragments": 0,
    "prune_mode": "threshold",
    "merge_scope": "same_polarity",
}
"""What a config dict without these fields meant when it was written (releases before
issue 21): `from_dict` fills them in, so a saved memory or run resumes unchanged."""


def maintenance_period(n_tasks: int, ratio: float = 0.1) -> int:
    """Tasks between maintenance cycles: ceil(ratio * N) (Appendix A), at least 1; a ratio
    of 0 means no maintenance at all, period 0.

    ``HyperSkillConfig.maintain_every`` and the runner's default use this rule.

    >>> maintenance_period(165), maintenance_period(100), maintenance_period(5, 0.001)
    (17, 10, 1)
    >>> maintenance_period(5, 0.0)
    0
    """
    if n_tasks < 1:
        raise ValueError(f"n_tasks must be >= 1, got {n_tasks}")
    if not 0.0 <= ratio <= 1.0:
        raise ValueError(f"ratio must be in [0, 1], got {ratio}")
    return 0 if ratio == 0.0 else max(1, math.ceil(ratio * n_tasks))


def maintenance_due(episode_index: int, n_tasks: int, ratio: float = 0.1) -> bool:
    """True when maintenance runs after the task with 0-based ``episode_index`` finishes:
    after every ``maintenance_period(n_tasks, ratio)``-th task, i.e. when
    (episode_index + 1) % period == 0.

    >>> [i for i in range(30) if maintenance_due(i, 30)]
    [2, 5, 8, 11, 14, 17, 20, 23, 26, 29]
    """
    if episode_index < 0:
        raise ValueError(f"episode_index must be >= 0, got {episode_index}")
    period = maintenance_period(n_tasks, ratio)
    return period > 0 and (episode_index + 1) % period == 0
