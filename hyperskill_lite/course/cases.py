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


# --- notebooks 01-05: the exercises for every mechanism (issue 44) --------------------


def _unit(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    Z = rng.normal(size=(n, d))
    return Z / np.linalg.norm(Z, axis=1, keepdims=True)


def _near(rng: np.random.Generator, z: np.ndarray, cos: float) -> np.ndarray:
    """A unit vector at cosine `cos` to the unit vector z."""
    w = rng.normal(size=z.shape)
    w -= (w @ z) * z
    return cos * z + np.sqrt(1.0 - cos * cos) * w / np.linalg.norm(w)


def _clear_of(cosines: np.ndarray, delta: float, margin: float) -> bool:
    """No cosine within `margin` of the threshold: float32 (the memory) and float64 (the
    learner) agree on every comparison with delta."""
    return not np.any(np.abs(np.asarray(cosines) - delta) < margin)


def _dedup(rng: np.random.Generator) -> list[Case]:
    out = []
    d = 8
    for n, delta in ((5, 0.9), (4, 0.75), (0, 0.8), (6, 0.9)):
        while True:
            Z = _unit(rng, n, d)
            V = [_near(rng, Z[rng.integers(0, n)], 0.96) if n else _unit(rng, 1, d)[0],
                 _unit(rng, 1, d)[0]]  # near an existing skill, then far from all
            V.append(_near(rng, V[1], 0.95))  # near the new node the second one made
            if n > 1:
                V.append(_near(rng, Z[rng.integers(0, n)], delta - 0.08))  # close, not enough
            V = np.array(V)[rng.permutation(len(V))]
            every = np.vstack([Z, V]) if n else V
            if _clear_of(V @ every.T, delta, 2e-3):
                break
        out.append(([Z.reshape(n, d), V, delta], {}))
    # a tie: the new skill is as close to two skills (cos 0.707); the earlier one wins
    s = np.sqrt(0.5)
    Z = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    V = np.array([[0.0, 0.0, 1.0], [s, s, 0.0], [0.0, 0.0, 1.0]])
    out.append(([Z, V, 0.7], {}))
    return out


def _owners(rng: np.random.Generator, n_u: int, n_e: int) -> np.ndarray:
    """B_u of n_u subtask nodes, each in one trajectory, created with it (rows by column)."""
    B = np.zeros((n_u, n_e), dtype=np.int64)
    B[np.arange(n_u), np.sort(rng.integers(0, n_e, n_u))] = 1
    return B


def _ties(rng: np.random.Generator, n: int, lo: float, hi: float) -> np.ndarray:
    x = np.round(rng.uniform(lo, hi, n), 1)  # one decimal: ties are likely
    if n > 1:
        x[rng.integers(0, n)] = x[rng.integers(0, n)]  # and at least one, most of the time
    return x


def _subtask(rng: np.random.Generator) -> list[Case]:
    out = []
    for n_u, n_e, k in ((7, 4, 3), (6, 3, 6), (5, 4, 0), (8, 5, 10), (0, 2, 2), (9, 4, 4)):
        out.append(([_ties(rng, n_u, -0.3, 0.9), _owners(rng, n_u, n_e), k], {}))
    B = out[-1][0][1]
    B[np.argmax(out[-1][0][0]), :2] = 1  # the paper lets a subtask node be in several
    return out


def _fusion(rng: np.random.Generator) -> list[Case]:
    out = []
    for n_e, n_u, k_e, k_u in ((5, 8, 2, 2), (4, 6, 0, 3), (6, 7, 3, 0), (3, 5, 5, 4),
                               (6, 9, 2, 3), (4, 0, 2, 2)):
        out.append(([_ties(rng, n_e, -0.2, 0.9), _ties(rng, n_u, -0.2, 0.9),
                     _owners(rng, n_u, n_e), k_e, k_u], {}))
    return out


_LESSONS = ("Official tables beat news summaries.", "Convert the units before comparing.",
            "The first matching entity was wrong; check every clue.",
            "Two sources agreed on the figure.", "The archive page was out of date.",
            "Computing in code avoided a rounding slip.")
_SKILLS = (("Official Source First", "Prefer the statistics office's own tables.", False),
           ("Compute With Code", "Do the arithmetic in Python.", False),
           ("Label Every Unit", "Write the unit next to every number.", False),
           ("", "Check the date the question asks about.", False),
           ("Stale Data Reliance", "Answering from an outdated snapshot.", True),
           ("Premature Entity Assumption", "Committing to the first matching entity.", True),
           ("Unit Mix-Up", "Adding square miles to square kilometres.", True))


def _context(rng: np.random.Generator) -> list[Case]:
    out = []
    for n_l, n_s, blank in ((4, 3, True), (0, 2, False), (3, 0, False), (0, 0, False),
                            (2, 4, True)):
        lessons = [str(x) for x in rng.choice(_LESSONS, n_l, replace=False)]
        if blank and n_l:
            lessons[rng.integers(0, n_l)] = ""  # a hyperedge with no lesson: not shown
        success = [bool(x) for x in rng.random(n_l) < 0.6]
        picked = [int(i) for i in rng.choice(len(_SKILLS), n_s, replace=False)]
        if n_s > 1:  # S_q ranks a mistake first and a strategy last: the sections keep order
            f = rng.choice(range(4, 7), min(int(rng.integers(1, n_s)), 3), replace=False)
            st = rng.choice(range(4), n_s - len(f), replace=False)
            middle = rng.permutation([*f[1:], *st[:-1]])
            picked = [int(i) for i in (f[0], *middle, st[-1])]
        if n_s == 4 and 3 not in picked:
            picked[-1] = 3  # a skill with no name: its content alone
        out.append(([lessons, success, [_SKILLS[i][0] for i in picked],
                     [_SKILLS[i][1] for i in picked], [_SKILLS[i][2] for i in picked]], {}))
    return out


def _merge_pairs(rng: np.random.Generator) -> list[Case]:
    out = []
    for n, d, delta in ((6, 4, 0.85), (8, 5, 0.8), (7, 6, 0.9), (6, 3, 0.75)):
        while True:
            Z = _unit(rng, n, d)
            a, b, c, e, f, z = (int(x) for x in rng.permutation(n)[:6])
            Z[b] = _near(rng, Z[a], delta + 0.08)  # a pair over delta
            Z[c] = _near(rng, Z[a], delta + 0.04)  # a contends for c too: greedy decides
            labels = np.where(rng.random(n) < 0.5, "success", "failure")
            labels[[a, b, c]] = labels[a]
            Z[f] = _near(rng, Z[e], delta + 0.06)  # close, but of the other polarity
            labels[f] = "failure" if labels[e] == "success" else "success"
            if n > 6:
                Z[z] = 0.0  # a zero row has no direction: never paired
            norms = np.linalg.norm(Z, axis=1)
            Zn = Z / np.where(norms > 0, norms, 1.0)[:, None]
            if _clear_of((Zn @ Zn.T)[np.triu_indices(n, 1)], delta, 1e-6):
                break
        if d == 3:
            labels[:] = "skill"  # one label for all: merge_scope="all", Eq. 14 as written
        out.append(([Z, labels, delta], {}))
    # a tie: rows 0 and 2 are both at cos 0.707 to row 1; (0, 1) comes first
    out.append(([np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
                 np.array(["success"] * 4), 0.7], {}))
    return out


def _merge_rows(rng: np.random.Generator) -> list[Case]:
    out = []
    for n_s, n_e, zero in ((5, 4, False), (6, 6, False), (4, 3, True), (3, 5, False)):
        i, j = (int(x) for x in rng.choice(n_s, 2, replace=False))
        B = (rng.random((n_s, n_e)) < 0.4).astype(np.int64)
        B[[i, j], rng.integers(0, n_e)] = 1  # a hyperedge holding both: the new node once
        empty = np.flatnonzero(B.sum(axis=1) == 0)
        B[empty, rng.integers(0, n_e, len(empty))] = 1  # every skill in some trajectory
        nu = rng.integers(0, 7, n_s)
        if zero:
            nu[[i, j]] = 0  # never retrieved, either of them
        sigma = np.array([rng.integers(0, v + 1) for v in nu])
        tbar = np.where(nu > 0, np.round(rng.uniform(2, 10, n_s), 1), 0.0)
        out.append(([B, sigma, nu, tbar, i, j], {}))
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
    # notebooks 01-05, the exercises for every mechanism (issue 44)
    "01.5": _dedup,
    "02.4": _subtask,
    "02.5": _fusion,
    "03.5": _context,
    "05.5": _merge_pairs,
    "05.6": _merge_rows,
    # notebooks 06-11
    "06.4": _schedule,
    "08.5": _pooled,
    "09.2": _retention,
}
"""Exercise id -> its hidden-input generator."""
