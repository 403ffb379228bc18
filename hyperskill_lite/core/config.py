"""HyperSkillConfig: every hyperparameter of HyperSkill with the paper's defaults.

Each field's docstring names its symbol in the paper and the equation or section that
uses it. Values not given by the paper (alpha, L, the fraction-mode switch) are our
choices and say so (DESIGN §3). `maintenance_period` is the schedule rule of Appendix A
(every ceil(0.1 N) tasks). Not here: anything about SkillWorld or the runner's I/O.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal

__all__ = ["HyperSkillConfig", "maintenance_period", "maintenance_due"]


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
    existing skill of the same polarity at insertion (§3.4, "Execution and memory update")."""
    tau_prune: float = 0.2
    """tau_prune: utility below which a sufficiently retrieved node is pruned (Eq. 11)."""
    n_min: int = 3
    """N_min: minimum retrieval count nu before a node may be pruned (Eq. 11)."""
    delta_merge: float = 0.85
    """delta_merge: cosine of propagated embeddings at or above which two same-polarity
    skills are merge candidates (Eq. 14)."""
    alpha: float = 0.5
    """alpha: restart weight of the L-step propagation (Eq. 13). Not given by the paper;
    our default."""
    L: int = 2
    """L: propagation depth (Eq. 13). Not given by the paper; our default."""
    prune_mode: Literal["threshold", "fraction"] = "threshold"
    """"threshold": Eq. 11 (nu >= N_min and gamma < tau_prune). "fraction": remove the
    rho-fraction of eligible nodes (nu >= N_min) with the lowest gamma, the reading of
    the paper's maintenance-ratio sensitivity study (§4.3)."""
    rho: float = 0.1
    """rho: fraction pruned per cycle in "fraction" mode (sensitivity study, Figure 4b);
    rho = 0 disables pruning."""
    maintain_ratio: float = 0.1
    """Maintenance runs every ceil(maintain_ratio x N) tasks (Appendix A); 0: never."""
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
        if self.prune_mode not in ("threshold", "fraction"):
            raise ValueError(
                f"HyperSkillConfig.prune_mode must be 'threshold' or 'fraction', got {self.prune_mode!r}"
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
        return cls(**d)


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
