"""The library's answer to every coding exercise, bound here, in the grader: the function a
learner's function is compared with on the hidden inputs (cases.py). Grading calls these
in its own process, where no learner code ever ran, so nothing a submission does (a name
rebound in its kernel, a module patched there) can change what they return.

Each reference takes the arguments the learner's function takes (the exercise's public
examples in exercises.toml show them) and returns what the learner's function should.
The instructor's test cell of each exercise (verify.py) checks in the instructor's own
notebook that the reference agrees with the one the notebook names, and with the
catalog's public examples; a new coding exercise adds its reference here.

>>> sorted(REFERENCES)[:3]
['02.3', '03.3', '03.4']
>>> [int(i) for i in REFERENCES["02.3"](np.array([0.2, 0.9, 0.5]), 2)]
[1, 2]

Not here: the hidden inputs (cases.py), comparing outputs (answers.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hyperskill_lite.compare_tables import retention
from hyperskill_lite.core.config import maintenance_due
from hyperskill_lite.core.cooccurrence import cooccurrence_matrix, propagate
from hyperskill_lite.core.maintenance import prune_selection
from hyperskill_lite.core.retrieval.ranking import kappa_counts, rank_skills
from hyperskill_lite.core.retrieval.scores import top_k
from hyperskill_lite.core.utility import utility
from hyperskill_lite.plots.runs import cumulative_sr
from hyperskill_lite.stats import bootstrap_ci

__all__ = ["REFERENCES", "reference"]


def _rank(kappa: Any, sim: Any, k: int) -> np.ndarray:
    return rank_skills(kappa, sim)[:k]


def _prune_ratio(nu: Any, gamma: Any, rho: float, n_min: int = 3, tau: float = 0.2) -> np.ndarray:
    return prune_selection(nu, gamma, mode="ratio", rho=rho, n_min=n_min, tau=tau)


def _w(B: Any, sizes: Any, gamma: Any) -> np.ndarray:
    return cooccurrence_matrix(B, sizes, gamma).toarray()


def _propagate_once(W: Any, Z: Any, alpha: float) -> np.ndarray:
    return propagate(W, Z, alpha=alpha, L=1)


def _running_sr(success: Any) -> np.ndarray:
    return cumulative_sr([{"success": bool(x)} for x in success])


def _paired_ci(a: Any, b: Any, seed: int = 0, n_boot: int = 2000,
               level: float = 0.95) -> tuple[float, float, float]:
    d = 100.0 * (np.asarray(a, dtype=float) - np.asarray(b, dtype=float))
    return bootstrap_ci([d], np.random.default_rng(seed), n_boot, level)


# --- notebooks 06-11 ------------------------------------------------------------------


def _maintenance_after(n_tasks: int, ratio: float = 0.1) -> np.ndarray:
    n = int(n_tasks)
    return np.array([i + 1 for i in range(n) if maintenance_due(i, n, ratio)], dtype=np.int64)


def _pooled_ci(a: Any, b: Any, seed: int = 0, n_boot: int = 2000,
               level: float = 0.95) -> tuple[float, float, float]:
    d = 100.0 * (np.asarray(a, dtype=float) - np.asarray(b, dtype=float))
    return bootstrap_ci(list(np.atleast_2d(d)), np.random.default_rng(seed), n_boot, level)


def _retention(gt_sr: Any, self_sr: Any) -> tuple[float, float]:
    def rows(srs: Any) -> list[dict[str, Any]]:
        return [{"method": "m", "seed": s, "SR": float(x)} for s, x in enumerate(srs)]

    found = retention(rows(gt_sr), rows(self_sr), "m")
    return found["Retention"], found["Delta"]


REFERENCES: dict[str, Callable[..., Any]] = {
    "02.3": top_k,
    "03.3": kappa_counts,
    "03.4": _rank,
    "04.3": utility,
    "04.4": _prune_ratio,
    "05.3": _w,
    "05.4": _propagate_once,
    "07.2": _running_sr,
    "08.3": _paired_ci,
    # notebooks 06-11
    "06.4": _maintenance_after,
    "08.5": _pooled_ci,
    "09.2": _retention,
}
"""Coding exercise id -> the library's function for it."""


def reference(ex: str) -> Callable[..., Any]:
    """The reference of coding exercise `ex`; KeyError naming the known ids otherwise."""
    if ex not in REFERENCES:
        raise KeyError(f"coding exercise {ex!r} has no reference in course/references.py; "
                       f"known: {', '.join(sorted(REFERENCES))}")
    return REFERENCES[ex]
