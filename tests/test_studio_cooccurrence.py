"""Co-occurrence beyond chance (studio/cooccurrence.py): the curveball null keeps both
margins and samples them uniformly, the pair counts match a dense reference, the
Benjamini-Hochberg correction matches scipy's, and the test finds a planted pair and not
the same pair once shuffled."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats

from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.records import Skill
from hyperskill_lite.studio.cooccurrence import (
    _pair_counts,
    benjamini_hochberg,
    cooccurrence_significance,
    curveball_round,
    permutation_test,
)


def _random_incidence(n_skills: int, n_edges: int, per_edge: int, rng) -> np.ndarray:
    """(n_skills, n_edges) 0/1: each trajectory holds `per_edge` skills drawn with
    weights that make some skills frequent."""
    w = rng.pareto(1.5, n_skills) + 1
    B = np.zeros((n_skills, n_edges), dtype=np.int8)
    for e in range(n_edges):
        B[rng.choice(n_skills, per_edge, replace=False, p=w / w.sum()), e] = 1
    return B


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_curveball_round_keeps_both_margins_and_no_pair_twice(seed):
    rng = np.random.default_rng(seed)
    B = _random_incidence(30, 41, 4, rng)  # an odd number of trajectories: one sits out
    skill, edge = np.nonzero(B)
    for _ in range(5):
        edge = curveball_round(skill, edge, B.shape[1], rng)
        after = np.zeros_like(B)
        np.add.at(after, (skill, edge), 1)
        assert after.max() == 1  # no skill twice in a trajectory
        assert (after.sum(axis=1) == B.sum(axis=1)).all()  # skill degrees
        assert (after.sum(axis=0) == B.sum(axis=0)).all()  # trajectory sizes


def test_the_curveball_chain_samples_every_matrix_equally_often():
    """Three skills of degree 1 in three trajectories of size 1: the 3! = 6 matrices
    with those margins are equally likely under the null."""
    rng = np.random.default_rng(0)
    skill, edge = np.arange(3), np.arange(3)
    seen: Counter[tuple[int, ...]] = Counter()
    for _ in range(6000):
        edge = curveball_round(skill, edge, 3, rng)
        seen[tuple(edge.tolist())] += 1
    assert len(seen) == 6
    _, p = stats.chisquare(list(seen.values()))
    assert p > 1e-3, seen


def test_pair_counts_match_a_dense_reference():
    rng = np.random.default_rng(3)
    B = _random_incidence(25, 70, 3, rng)
    skill, edge = np.nonzero(B)
    i, j = np.triu_indices(25, k=1)
    want = (B.astype(int) @ B.T.astype(int))[i, j]
    assert np.array_equal(_pair_counts(skill, edge, 25, 70, i, j), want)


def test_benjamini_hochberg_matches_scipy():
    p = np.random.default_rng(4).uniform(size=40) ** 3
    assert np.allclose(benjamini_hochberg(p), stats.false_discovery_control(p))
    # untested hypotheses count as p = 1
    full = np.concatenate([p, np.ones(10)])
    assert np.allclose(benjamini_hochberg(p, m=50), stats.false_discovery_control(full)[:40])
    with pytest.raises(ValueError):
        benjamini_hochberg(p, m=3)


def _planted(rng) -> np.ndarray:
    """40 skills in 150 trajectories of 3, and skills 0 and 1 together in 20 more."""
    B = _random_incidence(40, 150, 3, rng)
    extra = np.zeros((40, 20), dtype=np.int8)
    extra[0] = extra[1] = 1
    extra[rng.integers(2, 40, 20), np.arange(20)] = 1
    return np.concatenate([B, extra], axis=1)


def test_the_test_finds_a_planted_pair_and_not_the_shuffled_one():
    rng = np.random.default_rng(5)
    B = _planted(rng)
    found = permutation_test(B, n_samples=4000, seed=0)
    top = (int(found.i[0]), int(found.j[0]))
    assert top == (0, 1) and found.significant[0] and found.observed[0] >= 20
    assert found.expected[0] < 10 and found.note == ""
    # skill 1's memberships shuffled among the trajectories (its degree kept)
    shuffled = B.copy()
    shuffled[1] = 0
    free = np.flatnonzero(B[1] == 0)
    shuffled[1, rng.choice(B.shape[1], int(B[1].sum()), replace=False)] = 1
    assert free.size  # (skill 1 could land anywhere)
    again = permutation_test(shuffled, n_samples=4000, seed=0)
    pair = (again.i == 0) & (again.j == 1)
    assert not again.significant[pair].any()


def test_random_data_shows_no_pair_beyond_chance_and_seeds_reproduce():
    B = _random_incidence(40, 150, 3, np.random.default_rng(6))
    t = permutation_test(sp.csr_matrix(B), n_samples=300, seed=1)
    assert not t.significant.any()
    assert np.array_equal(t.p, permutation_test(B, n_samples=300, seed=1).p)


def test_a_pair_that_only_just_made_the_cut_is_never_evidence():
    """p-values are conditional on a pair reaching min_count: skills extracted together
    once (min_count=1), or seen twice (the default 2), have p = 1; pairs seen once are
    not tested by default."""
    B = np.eye(4, dtype=np.int8)[[0, 0, 1, 2, 3]]  # skills 0 and 1 share trajectory 0 only
    t = permutation_test(B, n_samples=200, seed=0, min_count=1)
    assert t.observed.tolist() == [1] and t.p.tolist() == [1.0]
    assert permutation_test(B, n_samples=200, seed=0).observed.size == 0


def test_too_few_samples_are_said_not_hidden():
    B = _planted(np.random.default_rng(7))
    assert "cannot show any pair" in permutation_test(B, n_samples=10, seed=0).note


def test_on_a_memory_the_pairs_are_named_by_skill_id():
    mem = HypergraphMemory(HashingEncoder(dim=64))
    a, b = Skill("Check Units", "Convert first."), Skill("Cite Sources", "Link them.")
    rng = np.random.default_rng(0)
    others = [Skill(f"Other Skill {k}", f"Do thing {k}.") for k in range(12)]
    pair: set[str] = set()
    for t in range(40):
        pick = [others[k] for k in rng.choice(12, 2, replace=False)]
        mem.add_trajectory(f"task {t}", ["step"], pick + ([a, b] if t % 3 == 0 else []),
                           "lesson", True, 3)
        if t == 0:
            pair = {p["node"] for p in mem.last_update["skills"][2:]}
    res = cooccurrence_significance(mem, n_samples=2000, seed=0)
    assert len(pair) == 2 and pair <= set(res.ids)
    top = res.rows(only_significant=True)
    assert top and {top[0]["a"], top[0]["b"]} == pair and top[0]["observed"] == 14
