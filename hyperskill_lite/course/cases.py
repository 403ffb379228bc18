"""Hidden inputs for the coding exercises: one generator per exercise id, drawn from a
generator the instructor's test seeds (the seed lives only in the instructor's test
cell, so a student copy cannot know the inputs). Each returns a list of ``(args,
kwargs)`` covering the cases a correct implementation must get right: ties, empty
selections, elements never retrieved, equal step counts, isolated skills.

>>> cases = CASES["04.3"](np.random.default_rng(0))
>>> len(cases) >= 4 and all(len(args) == 5 for args, _ in cases)
True

Not here: the public examples (exercises.toml), comparing outputs (answers.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["CASES", "Case"]

Case = tuple[list[Any], dict[str, Any]]


def _top_k(rng: np.random.Generator) -> list[Case]:
    out = []
    for n, k in ((6, 3), (8, 8), (5, 0), (7, 10), (9, 4)):
        scores = np.round(rng.uniform(-1, 1, n), 1)  # one decimal: ties are likely
        scores[rng.integers(0, n)] = scores[rng.integers(0, n)]  # and at least one
        out.append(([scores, k], {}))
    return out


def _incidence(rng: np.random.Generator, n_s: int, n_e: int) -> np.ndarray:
    B = (rng.random((n_s, n_e)) < 0.4).astype(np.int64)
    B[:, rng.integers(0, n_e)] = 0  # a hyperedge with no skill
    return B


def _kappa(rng: np.random.Generator) -> list[Case]:
    out = []
    for n_s, n_e, m in ((5, 4, 2), (7, 6, 3), (4, 5, 5), (6, 3, 1)):
        B = _incidence(rng, n_s, n_e)
        cols = np.sort(rng.choice(n_e, size=m, replace=False)).astype(np.int64)
        out.append(([B, rng.permutation(cols)], {}))
    return out


def _rank(rng: np.random.Generator) -> list[Case]:
    out = []
    for r, k in ((6, 3), (5, 5), (7, 2), (4, 6), (6, 0)):
        kappa = rng.integers(1, 4, r).astype(np.int64)
        sim = np.round(rng.uniform(-0.2, 0.9, r), 2)
        sim[rng.integers(0, r)] = sim[rng.integers(0, r)]  # a tie in cosine too
        out.append(([kappa, sim, k], {}))
    return out


def _gamma(rng: np.random.Generator) -> list[Case]:
    out = []
    for n, beta in ((5, 0.7), (6, 0.5), (4, 1.0)):
        nu = rng.integers(0, 9, n)
        nu[0] = 0  # never retrieved: the prior
        sigma = np.array([rng.integers(0, v + 1) for v in nu])
        t_bar = np.where(nu > 0, np.round(rng.uniform(2, 12, n), 2), 0.0)
        out.append(([sigma, nu, t_bar, 2.0, 12.0], {"beta": beta}))
    nu = np.array([3, 1, 0])
    out.append(([np.array([1, 1, 0]), nu, np.array([4.0, 4.0, 0.0]), 4.0, 4.0], {}))  # T equal
    return out


def _prune(rng: np.random.Generator) -> list[Case]:
    out = []
    for n, rho in ((8, 0.1), (10, 0.5), (6, 1.0), (7, 0.0), (9, 0.3)):
        nu = rng.integers(0, 8, n)
        gamma = np.round(rng.uniform(0.0, 0.4, n), 2)
        gamma[rng.integers(0, n)] = gamma[rng.integers(0, n)]  # a tie in utility
        out.append(([nu, gamma, rho], {}))
    return out


def _w(rng: np.random.Generator) -> list[Case]:
    out = []
    for n_s, n_e in ((4, 3), (6, 5), (5, 6)):
        B = _incidence(rng, n_s, n_e)
        sizes = B.sum(axis=0) + rng.integers(1, 4, n_e)  # |V_e| counts subtasks too
        gamma = np.round(rng.uniform(0.1, 1.0, n_s), 2)
        out.append(([B, sizes, gamma], {}))
    return out


def _propagate(rng: np.random.Generator) -> list[Case]:
    out = []
    for n, d, alpha in ((4, 3, 0.5), (5, 2, 0.2), (3, 4, 1.0), (6, 3, 0.0)):
        W = np.triu(np.round(rng.uniform(0, 0.6, (n, n)), 2) * (rng.random((n, n)) < 0.5), 1)
        W = W + W.T  # symmetric, nonnegative, zero diagonal; some skills isolated
        Z = rng.normal(size=(n, d))
        out.append(([W, Z, alpha], {}))
    return out


def _cumulative(rng: np.random.Generator) -> list[Case]:
    return [([rng.random(n) < p], {}) for n, p in ((10, 0.5), (1, 1.0), (25, 0.3), (6, 0.0))]


def _bootstrap(rng: np.random.Generator) -> list[Case]:
    out = []
    for n, n_boot, level in ((40, 500, 0.95), (25, 300, 0.9), (60, 1000, 0.95)):
        a = (rng.random(n) < 0.6).astype(np.int64)
        b = (rng.random(n) < 0.5).astype(np.int64)
        out.append(([a, b], {"seed": int(rng.integers(0, 10_000)), "n_boot": n_boot,
                             "level": level}))
    return out


# --- notebooks 06-11 ------------------------------------------------------------------


def _schedule(rng: np.random.Generator) -> list[Case]:
    """Run lengths and ratios: one task, a period of one, a length that is not a multiple
    of the period (no last cycle), no maintenance at all (ratio 0), one cycle at the end.
    The products ratio x N stay clear of float rounding (ceil is exact on them)."""
    out: list[Case] = [([1], {}), ([9], {}), ([11], {}), ([7], {"ratio": 0.0}),
                       ([30], {"ratio": 1.0}), ([165], {})]
    for ratio in (0.1, 0.25, 0.5):
        n = int(rng.integers(12, 120))
        out.append(([n], {"ratio": ratio}))
    return out


def _pooled(rng: np.random.Generator) -> list[Case]:
    """(seeds, tasks) outcome arrays: three seeds as in the notebooks, one seed, two seeds
    of one task each, identical arms (a zero-width interval)."""
    out = []
    for c, n, n_boot, level in ((3, 40, 400, 0.95), (1, 30, 300, 0.9), (2, 1, 200, 0.95),
                                (4, 25, 500, 0.8)):
        a = (rng.random((c, n)) < 0.6).astype(np.int64)
        b = (rng.random((c, n)) < 0.5).astype(np.int64)
        out.append(([a, b], {"seed": int(rng.integers(0, 10_000)), "n_boot": n_boot,
                             "level": level}))
    a = (rng.random((3, 20)) < 0.5).astype(np.int64)
    out.append(([a, a.copy()], {"seed": 1, "n_boot": 100}))
    return out


def _retention(rng: np.random.Generator) -> list[Case]:
    """SRs per seed (percent, two decimals): one seed, seeds whose per-seed ratios average
    to another value than the ratio of the means, a self-judge run above the GT run, two
    equal runs."""
    out: list[Case] = []
    for n in (1, 3, 5):
        gt = np.round(rng.uniform(20, 70, n), 2)
        out.append(([gt, np.round(gt + rng.uniform(-8, 4, n), 2)], {}))
    out.append(([np.array([40.0, 20.0, 60.0]), np.array([44.0, 16.0, 60.0])], {}))
    out.append(([np.array([50.0, 52.0]), np.array([55.0, 53.0])], {}))
    same = np.round(rng.uniform(30, 60, 3), 2)
    out.append(([same, same.copy()], {}))
    return out


CASES: dict[str, Callable[[np.random.Generator], list[Case]]] = {
    "02.3": _top_k,
    "03.3": _kappa,
    "03.4": _rank,
    "04.3": _gamma,
    "04.4": _prune,
    "05.3": _w,
    "05.4": _propagate,
    "07.2": _cumulative,
    "08.3": _bootstrap,
    # notebooks 06-11
    "06.4": _schedule,
    "08.5": _pooled,
    "09.2": _retention,
}
"""Exercise id -> its hidden-input generator."""
