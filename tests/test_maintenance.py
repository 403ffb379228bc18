"""Tests for hyperskill_lite.core.maintenance: W (Eq. 12), propagation (Eq. 13), merge
candidates (Eq. 14), pruning (Eq. 11), the schedule, TemplateMerger, and a full
maintenance cycle on a real HypergraphMemory with the HashingEncoder."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from hyperskill_lite.core.config import HyperSkillConfig, maintenance_due, maintenance_period
from hyperskill_lite.core.cooccurrence import cooccurrence_matrix, propagate
from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.core.maintenance import maintain, merge_candidates, prune_selection
from hyperskill_lite.core.records import Skill
from hyperskill_lite.core.retrieval import retrieve
from hyperskill_lite.core.template_merger import TemplateMerger

# ---------------------------------------------------------------------------------------
# naive references (pure Python / dense numpy)
# ---------------------------------------------------------------------------------------


def naive_w(edges: list[tuple[list[int], int]], gamma: list[float], n_s: int) -> np.ndarray:
    """Eq. 12 by loops: edges are (skill indices, |V_e|)."""
    W = [[0.0] * n_s for _ in range(n_s)]
    for skills, size in edges:
        for i in skills:
            for j in skills:
                if i != j:
                    W[i][j] += 1.0 / size
    for i in range(n_s):
        for j in range(n_s):
            W[i][j] *= min(gamma[i], gamma[j])
    return np.array(W)


def dense_propagate(W: np.ndarray, Z: np.ndarray, alpha: float, L: int) -> np.ndarray:
    """Eq. 13 with S formed densely."""
    n = W.shape[0]
    A = W + np.eye(n)
    d = A.sum(axis=1)
    Wh = A / np.sqrt(np.outer(d, d))
    S = (1 - alpha) ** L * np.linalg.matrix_power(Wh, L)
    for step in range(L):
        S += alpha * (1 - alpha) ** step * np.linalg.matrix_power(Wh, step)
    return S @ Z


def naive_candidates(Z: np.ndarray, pol: list[str], delta: float) -> list[tuple[int, int, float]]:
    n = len(Z)
    pairs = []
    for i in range(n):
        for j in range(i + 1, n):
            if pol[i] != pol[j]:
                continue
            ni, nj = float(np.linalg.norm(Z[i])), float(np.linalg.norm(Z[j]))
            if ni == 0 or nj == 0:
                continue
            sim = float(Z[i] @ Z[j]) / (ni * nj)
            if sim >= delta:
                pairs.append((i, j, sim))
    pairs.sort(key=lambda p: (-p[2], p[0], p[1]))
    taken: set[int] = set()
    out = []
    for i, j, s in pairs:
        if i in taken or j in taken:
            continue
        taken |= {i, j}
        out.append((i, j, s))
    return out


def random_hypergraph(rng: np.random.Generator, n_s: int, n_e: int):
    """Random skill memberships; |V_e| = skills + a random number of subtasks."""
    edges = []
    for _ in range(n_e):
        k = int(rng.integers(0, min(n_s, 5) + 1))
        skills = sorted(rng.choice(n_s, size=k, replace=False).tolist()) if k else []
        edges.append((skills, len(skills) + int(rng.integers(0, 4))))
    rows = [i for skills, _ in edges for i in skills]
    cols = [e for e, (skills, _) in enumerate(edges) for _ in skills]
    B = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_s, n_e))
    sizes = np.array([size for _, size in edges])
    return edges, B, sizes


# ---------------------------------------------------------------------------------------
# Eq. 12: W
# ---------------------------------------------------------------------------------------

# Hand-worked example: 3 skills, 3 hyperedges
#   e0 = {s0, s1, u0}        |V_e| = 3
#   e1 = {s0, s1}            |V_e| = 2
#   e2 = {s1, s2, u1, u2}    |V_e| = 4
# gamma = (0.8, 0.5, 1.0)
#   W01 = min(0.8, 0.5) * (1/3 + 1/2) = 0.5 * 5/6 = 5/12
#   W12 = min(0.5, 1.0) * 1/4 = 1/8;  W02 = 0
HAND_B = np.array([[1, 1, 0], [1, 1, 1], [0, 0, 1]])
HAND_SIZES = np.array([3, 2, 4])
HAND_GAMMA = np.array([0.8, 0.5, 1.0])


def test_w_hand_worked_three_skills():
    W = cooccurrence_matrix(HAND_B, HAND_SIZES, HAND_GAMMA)
    expected = np.array([[0, 5 / 12, 0], [5 / 12, 0, 1 / 8], [0, 1 / 8, 0]])
    assert sp.issparse(W) and W.shape == (3, 3)
    np.testing.assert_allclose(W.toarray(), expected, atol=1e-12)
    assert W.nnz == 4  # zero diagonal and W02 not stored


def test_w_matches_naive_reference_on_random_hypergraphs():
    rng = np.random.default_rng(0)
    for _ in range(25):
        n_s, n_e = int(rng.integers(1, 15)), int(rng.integers(0, 20))
        edges, B, sizes = random_hypergraph(rng, n_s, n_e)
        gamma = rng.random(n_s)
        ref = naive_w(edges, gamma.tolist(), n_s)
        W = cooccurrence_matrix(B, sizes, gamma)
        np.testing.assert_allclose(W.toarray(), ref, atol=1e-12)
        assert np.all(W.diagonal() == 0)
        assert (W != W.T).nnz == 0
        # w_diagonal="formula": the same off-diagonal, W_ii = gamma_i * sum 1/|V_e|
        for i in range(n_s):
            ref[i, i] = gamma[i] * sum(1 / size for skills, size in edges if i in skills)
        W = cooccurrence_matrix(B, sizes, gamma, diagonal="formula")
        np.testing.assert_allclose(W.toarray(), ref, atol=1e-12)


def test_w_formula_diagonal_hand_worked_and_effect_on_propagation():
    # W_ii = gamma_i * sum over e containing i of 1/|V_e| (Eq. 12 read for i = j)
    #   W00 = 0.8 * (1/3 + 1/2) = 2/3;  W11 = 0.5 * (1/3 + 1/2 + 1/4) = 13/24;  W22 = 1/4
    W = cooccurrence_matrix(HAND_B, HAND_SIZES, HAND_GAMMA, diagonal="formula")
    expected = np.array([[2 / 3, 5 / 12, 0], [5 / 12, 13 / 24, 1 / 8], [0, 1 / 8, 1 / 4]])
    np.testing.assert_allclose(W.toarray(), expected, atol=1e-12)
    zero = cooccurrence_matrix(HAND_B, HAND_SIZES, HAND_GAMMA)
    np.testing.assert_allclose((W - zero).toarray(), np.diag([2 / 3, 13 / 24, 1 / 4]), atol=1e-12)
    Z = np.eye(3)
    a, b = propagate(zero, Z), propagate(W, Z)
    assert not np.allclose(a, b)  # the option changes the structural embeddings
    assert np.all(np.diag(b) > np.diag(a))  # every skill keeps more of itself
    with pytest.raises(ValueError, match="diagonal must be"):
        cooccurrence_matrix(HAND_B, HAND_SIZES, HAND_GAMMA, diagonal="one")  # type: ignore[arg-type]


def test_w_empty_edges_and_no_skills():
    B = sp.csr_matrix((2, 3))  # no memberships; edge sizes 0 must not divide by zero
    W = cooccurrence_matrix(B, np.array([0, 0, 4]), np.array([0.5, 0.5]))
    assert W.shape == (2, 2) and W.nnz == 0
    assert cooccurrence_matrix(sp.csr_matrix((0, 0)), np.array([]), np.array([])).shape == (0, 0)


def test_w_membership_is_any_nonzero_and_input_untouched():
    B = sp.csr_matrix(HAND_B * np.array([[2.0], [1.0], [0.5]]))  # weights are not counts
    B.data[B.data == 0.5] = 0.0  # an explicitly stored zero: s2 is in no hyperedge
    data_before = B.data.copy()
    W = cooccurrence_matrix(B, HAND_SIZES, HAND_GAMMA)
    np.testing.assert_allclose(W.toarray(), [[0, 5 / 12, 0], [5 / 12, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(B.data, data_before)


def test_w_zero_gamma_removes_links():
    W = cooccurrence_matrix(HAND_B, HAND_SIZES, np.array([0.8, 0.0, 1.0]))
    assert W.nnz == 0  # every link goes through s1, whose utility is 0


@pytest.mark.parametrize(
    ("sizes", "gamma", "match"),
    [
        (np.array([3, 2]), HAND_GAMMA, "edge_sizes has length 2"),
        (HAND_SIZES, np.array([0.1, 0.2]), "gamma has length 2"),
        (np.array([3, 1, 4]), HAND_GAMMA, "must count all nodes"),
        (np.array([3, -2, 4]), HAND_GAMMA, "edge_sizes must be finite and >= 0"),
        (HAND_SIZES, np.array([0.1, np.nan, 0.3]), "gamma must be finite"),
    ],
)
def test_w_bad_input(sizes, gamma, match):
    with pytest.raises(ValueError, match=match):
        cooccurrence_matrix(HAND_B, sizes, gamma)


# ---------------------------------------------------------------------------------------
# Eq. 13: propagation
# ---------------------------------------------------------------------------------------


def test_propagate_hand_worked_three_skills():
    # W from the hand example; W + I has degrees (17/12, 37/24, 9/8);
    # W_hat01 = (5/12)/sqrt(17/12 * 37/24) = 0.281942, W_hat12 = (1/8)/sqrt(37/24 * 9/8)
    # = 0.094916, diagonal (12/17, 24/37, 8/9). With alpha = 0.5, L = 2:
    # Z~ = 0.5 Z + 0.25 W_hat Z + 0.25 W_hat^2 Z.
    W = cooccurrence_matrix(HAND_B, HAND_SIZES, HAND_GAMMA)
    Z = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    Zt = propagate(W, Z, alpha=0.5, L=2)
    expected = np.array([[0.827601, 0.172650], [0.226173, 0.849687], [0.928696, 0.982218]])
    np.testing.assert_allclose(Zt, expected, atol=1e-6)


def test_propagate_matches_dense_reference():
    rng = np.random.default_rng(1)
    for trial in range(25):
        n_s, n_e, d = int(rng.integers(1, 12)), int(rng.integers(0, 25)), int(rng.integers(1, 6))
        _, B, sizes = random_hypergraph(rng, n_s, n_e)
        W = cooccurrence_matrix(B, sizes, rng.random(n_s))
        Z = rng.normal(size=(n_s, d)).astype(np.float32)
        alpha, L = float(rng.random()), trial % 4
        expected = dense_propagate(W.toarray(), Z.astype(np.float64), alpha, L)
        np.testing.assert_allclose(propagate(W, Z, alpha=alpha, L=L), expected, atol=1e-10)


def test_propagate_edge_cases():
    assert propagate(sp.csr_matrix((0, 0)), np.zeros((0, 4))).shape == (0, 4)
    Z = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(propagate(sp.csr_matrix((3, 3)), Z, L=0), Z)
    # no links: W_hat = I, so Z~ = Z for any alpha and L
    np.testing.assert_allclose(propagate(sp.csr_matrix((3, 3)), Z, alpha=0.3, L=3), Z)
    # dense W input works too
    np.testing.assert_allclose(
        propagate(np.array([[0.0, 1.0], [1.0, 0.0]]), np.eye(2), alpha=0.5, L=1),
        [[0.75, 0.25], [0.25, 0.75]],
    )


@pytest.mark.parametrize(
    ("W", "Z", "kw", "match"),
    [
        (sp.csr_matrix((3, 3)), np.zeros((2, 4)), {}, r"W has shape \(3, 3\)"),
        (sp.csr_matrix((2, 2)), np.zeros(2), {}, "Z must be 2-D"),
        (sp.csr_matrix((2, 2)), np.zeros((2, 3)), {"alpha": 1.5}, "alpha must be in"),
        (sp.csr_matrix((2, 2)), np.zeros((2, 3)), {"L": -1}, "L must be an integer"),
        (sp.csr_matrix(np.array([[0, -1.0], [-1.0, 0]])), np.zeros((2, 3)), {}, "nonnegative"),
    ],
)
def test_propagate_bad_input(W, Z, kw, match):
    with pytest.raises(ValueError, match=match):
        propagate(W, Z, **kw)


# ---------------------------------------------------------------------------------------
# Eq. 14: merge candidates
# ---------------------------------------------------------------------------------------


def test_candidates_hand_worked():
    # cos(0,1) = 0.8, cos(0,2) = 0.6, cos(1,2) = 0.96 (3-4-5 triangles); s3 failure.
    Z = np.array([[1.0, 0.0], [0.8, 0.6], [0.6, 0.8], [0.8, 0.6]])
    pol = ["success", "success", "success", "failure"]
    got = merge_candidates(Z, pol, 0.7)
    # (1,2) first; (0,1) then conflicts; s3 has no same-polarity partner
    assert [(i, j) for i, j, _ in got] == [(1, 2)]
    assert got[0][2] == pytest.approx(0.96)
    assert merge_candidates(Z, pol, 0.97) == []
    assert all(isinstance(x, int) for x in got[0][:2]) and isinstance(got[0][2], float)


def test_candidates_match_naive_reference_and_block_size():
    rng = np.random.default_rng(2)
    for trial in range(20):
        n, d = int(rng.integers(0, 40)), int(rng.integers(2, 5))
        centers = rng.normal(size=(4, d))
        Z = centers[rng.integers(0, 4, size=n)] + 0.3 * rng.normal(size=(n, d))
        if n > 3:
            Z[2] = 0.0  # a zero row never pairs
        pol = rng.choice(["success", "failure"], size=n).tolist()
        ref = naive_candidates(Z, pol, 0.9)
        for block in (1, 3, 1024):
            got = merge_candidates(Z, pol, 0.9, block=block)
            assert [(i, j) for i, j, _ in got] == [(i, j) for i, j, _ in ref], (trial, block)
            np.testing.assert_allclose([s for *_, s in got], [s for *_, s in ref], atol=1e-12)


def test_candidates_ties_broken_by_index_and_each_node_once():
    Z = np.ones((5, 3))  # all identical: every pair has cosine 1
    got = merge_candidates(Z, ["success"] * 5, 0.85)
    assert [(i, j) for i, j, _ in got] == [(0, 1), (2, 3)]
    assert merge_candidates(Z, ["success", "failure"] * 2 + ["success"], 0.85)[0][:2] == (0, 2)


def test_candidates_never_cross_polarity():
    rng = np.random.default_rng(3)
    Z = np.repeat(rng.normal(size=(1, 4)), 30, axis=0)  # identical vectors
    pol = rng.choice(["success", "failure"], size=30)
    for i, j, _ in merge_candidates(Z, pol, 0.5):
        assert pol[i] == pol[j] and i < j


def test_candidates_bad_input():
    with pytest.raises(ValueError, match="polarity has length 1"):
        merge_candidates(np.ones((2, 2)), ["success"], 0.9)
    with pytest.raises(ValueError, match="Z_tilde must be 2-D"):
        merge_candidates(np.ones(3), ["success"] * 3, 0.9)
    with pytest.raises(ValueError, match="block must be >= 1"):
        merge_candidates(np.ones((2, 2)), ["success"] * 2, 0.9, block=0)


def test_pipeline_never_allocates_dense_n_by_n():
    # n = 4000 skills: an n x n float64 array would be 128 MB; the blockwise pipeline
    # (sparse W, L sparse products, 512-row cosine blocks) stays far below that.
    rng = np.random.default_rng(4)
    n, n_e, d = 4000, 12000, 16
    rows = rng.integers(0, n, size=3 * n_e)
    cols = np.repeat(np.arange(n_e), 3)
    B = sp.csr_matrix((np.ones(3 * n_e), (rows, cols)), shape=(n, n_e))
    B.data[:] = 1.0
    Z = rng.normal(size=(n, d))
    tracemalloc.start()
    W = cooccurrence_matrix(B, np.full(n_e, 5), rng.random(n))
    Zt = propagate(W, Z)
    merge_candidates(Zt, ["success", "failure"] * (n // 2), 0.85, block=512)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 0.5 * n * n * 8, f"peak {peak / 1e6:.1f} MB"


# ---------------------------------------------------------------------------------------
# Eq. 11: selection on arrays
# ---------------------------------------------------------------------------------------


def naive_prune(nu, gamma, mode, n_min, tau, rho) -> list[int]:
    low = [i for i in range(len(nu)) if nu[i] >= n_min and gamma[i] < tau]
    if mode == "threshold":
        return low
    if mode == "ratio":  # ceil of rho x |low|, in exact rational arithmetic
        from fractions import Fraction

        k = math.ceil(Fraction(str(rho)) * len(low))
        return sorted(sorted(low, key=lambda i: (gamma[i], i))[:k])
    eligible = [i for i in range(len(nu)) if nu[i] >= n_min]
    k = int(rho * len(eligible) // 1)
    return sorted(sorted(eligible, key=lambda i: (gamma[i], i))[:k])


def test_prune_selection_matches_naive_reference():
    rng = np.random.default_rng(5)
    for _ in range(50):
        n = int(rng.integers(0, 30))
        nu = rng.integers(0, 7, size=n)
        gamma = np.round(rng.random(n), 1)  # rounding creates ties
        for mode in ("ratio", "threshold", "fraction"):
            for rho in (0.0, 0.1, 0.3, 0.35, 1.0):
                got = prune_selection(nu, gamma, mode=mode, n_min=3, tau=0.3, rho=rho)
                ref = naive_prune(nu.tolist(), gamma.tolist(), mode, 3, 0.3, rho)
                assert got.tolist() == ref


def test_prune_selection_hand_worked():
    nu = np.array([3, 2, 10, 3, 5])
    gamma = np.array([0.19, 0.0, 0.2, 0.05, 0.9])
    # threshold: nu >= 3 and gamma < 0.2 -> nodes 0 and 3 (node 1 has nu 2; node 2 gamma = tau)
    assert prune_selection(nu, gamma, mode="threshold").tolist() == [0, 3]
    # ratio (the default): of those two low-utility entries, ceil(rho * 2) lowest gamma
    assert prune_selection(nu, gamma).tolist() == [3]  # rho 0.1 -> ceil(0.2) = 1: gamma 0.05
    assert prune_selection(nu, gamma, rho=0.5).tolist() == [3]  # ceil(1.0) = 1
    assert prune_selection(nu, gamma, rho=0.51).tolist() == [0, 3]  # ceil(1.02) = 2
    assert prune_selection(nu, gamma, rho=1.0).tolist() == [0, 3]  # = threshold
    assert prune_selection(nu, gamma, rho=0.0).tolist() == []
    # rho never reaches past tau: node 2 (gamma = tau) and node 4 stay at any rho
    assert 2 not in prune_selection(nu, gamma, rho=1.0).tolist()
    # fraction: 4 eligible (0, 2, 3, 4); rho = 0.5 -> floor(2.0) = 2 lowest gamma: 3, 0
    assert prune_selection(nu, gamma, mode="fraction", rho=0.5).tolist() == [0, 3]
    # rho = 0.6 -> floor(2.4) = 2, rho = 0.75 -> 3 (adds node 2)
    assert prune_selection(nu, gamma, mode="fraction", rho=0.6).tolist() == [0, 3]
    assert prune_selection(nu, gamma, mode="fraction", rho=0.75).tolist() == [0, 2, 3]
    assert prune_selection(nu, gamma, mode="fraction", rho=0.0).tolist() == []


def test_prune_selection_bad_input():
    with pytest.raises(ValueError, match="nu has length 2 but gamma has length 3"):
        prune_selection(np.array([1, 2]), np.array([0.1, 0.2, 0.3]))
    with pytest.raises(ValueError, match="prune mode must be"):
        prune_selection(np.array([1]), np.array([0.1]), mode="random")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rho must be in"):
        prune_selection(np.array([1]), np.array([0.1]), mode="fraction", rho=1.5)


# ---------------------------------------------------------------------------------------
# schedule
# ---------------------------------------------------------------------------------------


def test_schedule_matches_config_and_paper():
    for n in (1, 7, 10, 30, 100, 165, 170, 1000):
        for ratio in (0.0, 0.05, 0.1, 0.2, 1.0):
            cfg = HyperSkillConfig(maintain_ratio=ratio)
            assert maintenance_period(n, ratio) == cfg.maintain_every(n)
            want = 0 if ratio == 0.0 else max(1, math.ceil(ratio * n))  # 0: never
            assert maintenance_period(n, ratio) == want
            assert any(maintenance_due(i, n, ratio) for i in range(n)) == (ratio > 0)
    # GAIA validation has 165 tasks: every 17 tasks, after tasks 17, 34, ... (1-based)
    due = [i for i in range(165) if maintenance_due(i, 165)]
    assert due[:3] == [16, 33, 50] and len(due) == 9


def test_maintain_ratio_zero_runs_no_maintenance_and_k_is_applied(tmp_path):
    from hyperskill_lite.cli import build_parser
    from hyperskill_lite.cli.run import spec_from_args
    from hyperskill_lite.launch import config_of
    from hyperskill_lite.methods import make_method
    from hyperskill_lite.runner import run_episodes
    from hyperskill_lite.world import SimExecutor, SimLLM, make_tasks

    tasks = make_tasks("xbench", seed=0)[:12]
    cfg = HyperSkillConfig(maintain_ratio=0.0)
    system = make_method("hyperskill", SimLLM(seed=0), HashingEncoder(dim=32), cfg)
    recs = run_episodes(system, tasks, SimExecutor(seed=0), tmp_path / "r", progress=False,
                        maintain_every=cfg.maintain_every(len(tasks)))
    assert len(recs) == 12 and not any(r.get("maintenance") for r in recs)
    with pytest.raises(ValueError, match="maintain_every must be >= 0"):
        run_episodes(system, tasks, SimExecutor(seed=0), tmp_path / "s", progress=False,
                     maintain_every=-1)
    parse = build_parser().parse_args
    cfg = config_of(spec_from_args(parse(["run", "--out", str(tmp_path), "--k", "3"])))
    assert (cfg.k_u, cfg.k_e, cfg.k_s) == (3, 3, 3)
    unset = config_of(spec_from_args(parse(["run", "--out", str(tmp_path)])))
    assert unset.k_s == HyperSkillConfig().k_s
    with pytest.raises(SystemExit) as exc:  # a budget of 0 retrieves nothing: refused
        parse(["run", "--out", str(tmp_path), "--k", "0"])
    assert exc.value.code == 2


def test_schedule_bad_input():
    with pytest.raises(ValueError, match="n_tasks must be >= 1"):
        maintenance_period(0)
    with pytest.raises(ValueError, match="ratio must be in"):
        maintenance_period(10, 1.5)
    with pytest.raises(ValueError, match="episode_index must be >= 0"):
        maintenance_due(-1, 10)


# ---------------------------------------------------------------------------------------
# TemplateMerger
# ---------------------------------------------------------------------------------------


def test_template_merger_hand_worked():
    a = Skill(
        "Targeted Database Search",
        "Query the official registry first. Registries are exact. Avoid blogs.",
        "success",
        {"strategies": ["s1", "s2"], "source": "a"},
    )
    b = Skill(
        "Registry Lookup Before Browsing",
        "Registries are exact. Check the filing year. Cite the entry.",
        "success",
        {"strategies": ["s2", "s3"], "source": "b", "extra": 1},
    )
    m = TemplateMerger().merge(a, b)
    assert m.name == "Targeted Database Search Registry Lookup"
    assert m.content == (
        "Query the official registry first. Registries are exact. "
        "Check the filing year. Cite the entry."
    )
    assert m.polarity == "success"
    assert m.meta == {"strategies": ["s1", "s2", "s3"], "source": "a", "extra": 1}


def test_template_merger_sizes_and_determinism():
    rng = np.random.default_rng(6)
    vocab = ["Verify", "source", "dates", "table", "units", "Search", "first", "page", "cross"]
    for _ in range(30):

        def rand_skill(pol):
            name = " ".join(rng.choice(vocab, size=int(rng.integers(0, 6))))
            content = " ".join(
                " ".join(rng.choice(vocab, size=4)) + "." for _ in range(int(rng.integers(1, 5)))
            )
            return Skill(name, content, pol)

        pol = str(rng.choice(["success", "failure"]))
        a, b = rand_skill(pol), rand_skill(pol)
        m1, m2 = TemplateMerger().merge(a, b), TemplateMerger().merge(a, b)
        assert m1 == m2
        assert 3 <= len(m1.name.split()) <= 5, m1.name
        n_sent = m1.content.count(".") + m1.content.count("!") + m1.content.count("?")
        assert 2 <= n_sent <= 4, m1.content
        assert m1.polarity == pol


def test_template_merger_short_inputs_and_polarity_error():
    m = TemplateMerger().merge(Skill("Check", "Look twice", "failure"), Skill("", "", "failure"))
    assert m.name == "Check Combined Mistake"
    assert m.content == "Look twice. Apply it wherever either original skill applied."
    m = TemplateMerger().merge(Skill("", "", "success"), Skill("", "", "success"))
    assert m.name == "Combined Strategy Skill"
    assert m.content == (
        "Apply it wherever either original skill applied. "
        "It consolidates two similar skills into one."
    )
    with pytest.raises(ValueError, match="polarities must match"):
        TemplateMerger().merge(Skill("A", "x.", "success"), Skill("B", "y.", "failure"))


# ---------------------------------------------------------------------------------------
# On a real HypergraphMemory (HashingEncoder, no model)
# ---------------------------------------------------------------------------------------

STEPS = [
    "search the official statistics site",
    "open the yearly data table",
    "convert the units to metric",
    "compute the percentage change",
    "cross-verify with a second source",
    "read the attached spreadsheet file",
]
STRATEGIES = [
    ("Official Source First", "Prefer the official statistics office. Its tables are exact."),
    (
        "Official Source Priority",
        "Prefer the official statistics office. Its tables are exact and dated.",
    ),
    ("Unit Check Before Math", "Convert every quantity to one unit first. Then compute."),
    (
        "Unit Check Before Computing",
        "Convert every quantity to one unit first. Then compute the result.",
    ),
    ("Second Source Verification", "Confirm each number on a second independent page."),
]
MISTAKES = [
    ("Trusting Blog Summaries", "Blog summaries round numbers. Never cite them."),
    ("Trusting Blog Posts", "Blog summaries round numbers. Never cite them as sources."),
    # same text as a strategy: identical embedding, opposite polarity, must never merge
    ("Second Source Verification", "Confirm each number on a second independent page."),
]


def build_memory(config: HyperSkillConfig, n_tasks: int = 60, seed: int = 0):
    from hyperskill_lite.core.embed import HashingEncoder
    from hyperskill_lite.core.memory import HypergraphMemory

    rng = np.random.default_rng(seed)
    mem = HypergraphMemory(HashingEncoder(dim=128), config)
    for t in range(n_tasks):
        plan = [STEPS[i] for i in rng.choice(len(STEPS), size=2, replace=False)]
        domain = ["film", "finance", "sports", "geography"][t % 4]
        task = f"In {domain}, {plan[0]} then {plan[1]} for item {t}"
        retrieval = retrieve(mem, task, plan)
        success = bool(rng.random() < 0.45)
        pool = STRATEGIES if success else MISTAKES
        picks = rng.choice(len(pool), size=int(rng.integers(1, 3)), replace=False)
        skills = [
            Skill(*pool[i], "success" if success else "failure", {"latent": [f"k{i}", f"t{t}"]})
            for i in picks
        ]
        lesson = f"{'Worked' if success else 'Failed'}: {plan[0]} mattered for {domain}."
        steps = int(rng.integers(2, 14))
        mem.add_trajectory(
            task, plan, skills, lesson, success, steps, calls=steps, retrieval=retrieval
        )
    return mem


def snapshot(mem):
    return (
        {i: mem.node(i) for i in mem.node_ids()},
        {e: mem.edge(e) for e in mem.edge_ids()},
    )


CFG = HyperSkillConfig(k_u=3, k_e=3, k_s=3, tau_prune=0.45)


def test_prune_threshold_removes_exactly_the_rule():
    from hyperskill_lite.core.maintenance import prune

    mem = build_memory(CFG.replace(prune_mode="threshold"))
    nodes, edges = snapshot(mem)
    expected = [i for i, v in nodes.items() if v.nu >= CFG.n_min and v.gamma < CFG.tau_prune]
    assert 0 < len(expected) < len(nodes)  # the fixture exercises both sides of the rule
    rows = prune(mem)
    assert [r["id"] for r in rows] == expected
    for r in rows:
        v = nodes[r["id"]]
        assert (r["kind"], r["polarity"], r["nu"]) == (v.kind, v.polarity, v.nu)
        assert r["gamma"] == pytest.approx(v.gamma)
    gone = set(expected)
    assert set(mem.node_ids()) == set(nodes) - gone
    assert mem.edge_ids() == list(edges)  # hyperedges stay, with their task and lesson
    for e, before in edges.items():
        after = mem.edge(e)
        assert after.node_ids == [i for i in before.node_ids if i not in gone]
        assert (after.task, after.lesson) == (before.task, before.lesson)
    mem.validate()
    assert prune(mem) == []  # removal changes no gamma: a second pass finds nothing


def test_prune_ratio_mode_takes_the_lowest_rho_share_of_the_low_utility_entries():
    from hyperskill_lite.core.maintenance import prune

    for rho in (0.1, 0.3, 1.0):
        mem = build_memory(CFG.replace(rho=rho))  # prune_mode "ratio" is the default
        nodes, _ = snapshot(mem)
        low = [i for i, v in nodes.items() if v.nu >= CFG.n_min and v.gamma < CFG.tau_prune]
        assert len(low) >= 4  # enough that the ratios differ
        k = math.ceil(rho * len(low) - 1e-12)
        ranked = sorted(low, key=lambda i: (nodes[i].gamma, list(nodes).index(i)))[:k]
        rows = prune(mem)
        assert sorted(r["id"] for r in rows) == sorted(ranked)
        assert max(r["gamma"] for r in rows) <= min(
            nodes[i].gamma for i in low if i not in ranked
        ) if k < len(low) else True
        mem.validate()
    mem = build_memory(CFG.replace(rho=0.0))
    assert prune(mem) == [] and len(mem.node_ids()) == len(snapshot(mem)[0])


def test_prune_fraction_mode_and_rho_zero():
    from hyperskill_lite.core.maintenance import prune

    mem = build_memory(CFG.replace(prune_mode="fraction", rho=0.0))
    before = mem.stats()
    assert prune(mem) == []
    assert mem.stats() == before

    mem = build_memory(CFG.replace(prune_mode="fraction", rho=0.3))
    nodes, _ = snapshot(mem)
    order = list(nodes)  # node_ids order breaks gamma ties
    eligible = [i for i in order if nodes[i].nu >= CFG.n_min]
    k = math.floor(0.3 * len(eligible))
    expected = sorted(
        sorted(eligible, key=lambda i: (nodes[i].gamma, order.index(i)))[:k], key=order.index
    )
    assert k > 0
    assert [r["id"] for r in prune(mem)] == expected
    mem.validate()


def test_prune_everything_leaves_edges_with_task_and_lesson():
    from hyperskill_lite.core.maintenance import maintain

    mem = build_memory(CFG.replace(prune_mode="fraction", rho=1.0, n_min=0), n_tasks=12)
    _, edges = snapshot(mem)
    report = maintain(mem, TemplateMerger())
    assert (
        report.n_pruned == report.sizes_before["subtask_nodes"] + report.sizes_before["skill_nodes"]
    )
    assert report.n_merged == 0
    assert mem.node_ids() == []
    assert report.sizes_after["hyperedges"] == len(edges)
    for e, before in edges.items():
        assert mem.edge(e).node_ids == []
        assert (mem.edge(e).task, mem.edge(e).lesson) == (before.task, before.lesson)
    mem.validate()


def test_memory_w_matches_naive_reference_from_views():
    mem = build_memory(CFG)
    B_s, skill_ids, edge_ids, sizes = mem.skill_incidence()
    W = cooccurrence_matrix(B_s, sizes, mem.gammas(skill_ids))
    pos = {s: k for k, s in enumerate(skill_ids)}
    edges = []
    for e in mem.edge_ids():
        members = mem.edge(e).node_ids
        edges.append(([pos[i] for i in members if i in pos], len(members)))
    gamma = [mem.node(s).gamma for s in skill_ids]
    np.testing.assert_allclose(W.toarray(), naive_w(edges, gamma, len(skill_ids)), atol=1e-12)
    assert W.nnz > 0


def test_merge_keeps_invariants_and_never_crosses_polarity():
    from hyperskill_lite.core.maintenance import merge

    # paper defaults: delta_merge = 0.85, alpha = 0.5, L = 2; same-polarity dedup keeps
    # the opposite-polarity twins below apart at insertion, so merging must keep them apart
    cfg = CFG.replace(dedup_scope="same_polarity")
    mem = build_memory(cfg)
    nodes, edges = snapshot(mem)
    # the pure pipeline on the same snapshot names the pairs merge() must take
    B_s, skill_ids, _, sizes = mem.skill_incidence()
    Zt = propagate(
        cooccurrence_matrix(B_s, sizes, mem.gammas(skill_ids)),
        mem.skill_embeddings(skill_ids),
        alpha=cfg.alpha,
        L=cfg.L,
    )
    pol = [nodes[s].polarity for s in skill_ids]
    expected = [(skill_ids[i], skill_ids[j]) for i, j, _ in merge_candidates(Zt, pol, 0.85)]
    # identical text, opposite polarity: cosine 1, yet never a candidate
    twins = [s for s in skill_ids if nodes[s].name == "Second Source Verification"]
    assert len(twins) == 2 and {nodes[s].polarity for s in twins} == {"success", "failure"}

    rows = merge(mem, TemplateMerger())
    assert [(r["a"], r["b"]) for r in rows] == expected
    assert len(rows) == 3  # both paraphrase pairs of strategies and one of mistakes
    mem.validate()
    for r in rows:
        a, b, new = nodes[r["a"]], nodes[r["b"]], mem.node(r["new_id"])
        assert a.polarity == b.polarity == new.polarity == r["polarity"]
        assert r["similarity"] >= 0.85 and r["name"] == new.name
        assert r["a"] not in mem.node_ids() and r["b"] not in mem.node_ids()
        assert new.nu == a.nu + b.nu and new.sigma == a.sigma + b.sigma
        if a.nu + b.nu:
            t = (a.nu * a.mean_steps + b.nu * b.mean_steps) / (a.nu + b.nu)
            assert new.mean_steps == pytest.approx(t)
        assert new.meta["latent"] == list(
            dict.fromkeys(a.meta["latent"] + b.meta["latent"])
        )  # hidden metadata unioned
        # memberships: exactly the hyperedges that held a or b, each once
        held = [e for e, v in edges.items() if r["a"] in v.node_ids or r["b"] in v.node_ids]
        now = [e for e in mem.edge_ids() if r["new_id"] in mem.edge(e).node_ids]
        assert now == held
        assert all(mem.edge(e).node_ids.count(r["new_id"]) == 1 for e in now)
    assert all(mem.node(t).name == "Second Source Verification" for t in twins)


class FragmentLog:
    """A merger that condenses like TemplateMerger and keeps what each call was given."""

    def __init__(self):
        self.calls = []

    def merge(self, a, b, fragments=()):
        self.calls.append((a.name, b.name, list(fragments)))
        return TemplateMerger().merge(a, b)


class TwoArgMerger:
    def merge(self, a, b):
        return TemplateMerger().merge(a, b)


def test_merge_gives_the_merger_the_pairs_shared_trajectory_fragments():
    from hyperskill_lite.core.maintenance import merge, shared_fragments

    for cap in (3, 1):
        mem = build_memory(CFG.replace(merge_fragments=cap))
        nodes, edges = snapshot(mem)
        log = FragmentLog()
        rows = merge(mem, log)
        assert rows and len(log.calls) == len(rows)
        for r, (a_name, b_name, frags) in zip(rows, log.calls):
            assert (a_name, b_name) == (r["a_name"], r["b_name"])
            # naive: every hyperedge whose members hold both, newest first, capped
            both = [e for e, v in edges.items() if r["a"] in v.node_ids and r["b"] in v.node_ids]
            want = [(edges[e].task, edges[e].lesson, edges[e].success) for e in both[::-1][:cap]]
            assert [(f.task, f.lesson, f.success) for f in frags] == want
            assert r["fragments"] == len(want)
        assert any(r["fragments"] for r in rows)  # the fixture has pairs that co-occur
    mem = build_memory(CFG)
    a, b = mem.node_ids(kind="skill")[:2]
    assert shared_fragments(mem, a, b, limit=0) == []


def test_merge_fragments_zero_calls_a_two_argument_merger_and_else_says_why_not():
    from hyperskill_lite.core.maintenance import merge

    rows = merge(build_memory(CFG.replace(merge_fragments=0)), TwoArgMerger())
    assert rows and all(r["fragments"] == 0 for r in rows)
    with pytest.raises(TypeError, match="must accept fragments=.*merge_fragments=0"):
        merge(build_memory(CFG), TwoArgMerger())


def test_maintain_report_and_memory_delegation():
    mem = build_memory(CFG)
    before = mem.stats()
    report = maintain(mem, TemplateMerger())
    assert report.sizes_before == before and report.sizes_after == mem.stats()
    assert report.n_pruned > 0 and report.n_merged > 0
    assert report.sizes_after["skill_nodes"] == (
        before["skill_nodes"] - sum(r["kind"] == "skill" for r in report.pruned) - report.n_merged
    )
    assert report.seconds >= 0
    assert {r["op"] for r in report.rows()} == {"prune", "merge"}
    mem.validate()


def test_maintain_on_empty_memory_is_a_no_op():
    from hyperskill_lite.core.embed import HashingEncoder
    from hyperskill_lite.core.maintenance import maintain
    from hyperskill_lite.core.memory import HypergraphMemory

    mem = HypergraphMemory(HashingEncoder(dim=32))
    report = maintain(mem, TemplateMerger())
    assert report.pruned == [] and report.merged == []
    assert report.sizes_before == report.sizes_after == mem.stats()
    assert mem.stats()["hyperedges"] == 0
    mem.validate()


def test_maintain_flags_skip_steps():
    from hyperskill_lite.core.maintenance import maintain, prune

    mem = build_memory(CFG.replace(prune_mode="threshold"))
    report = maintain(mem, None, merge=False)  # a flat store: prune only, no merger needed
    assert report.n_pruned > 0 and report.n_merged == 0
    assert prune(mem) == []  # the same rule, already applied
    report = maintain(mem, TemplateMerger(), prune=False)
    assert report.n_pruned == 0 and report.n_merged > 0
    mem.validate()
    with pytest.raises(ValueError, match="merging needs a merger"):
        maintain(mem, None)


def test_candidates_decided_in_float64_at_the_threshold():
    # cosines 0.85 + 1e-9 (a pair) and 0.85 - 1e-9 (not a pair): float32 cannot tell
    # them apart, so the float32 screen must leave the decision to the exact cosine
    rng = np.random.default_rng(7)
    rows, pol = [], []
    for k, eps in enumerate((1e-9, -1e-9, 3e-9, -3e-9)):
        base = rng.normal(size=16)
        base /= np.linalg.norm(base)
        other = rng.normal(size=16)
        other -= (other @ base) * base
        other /= np.linalg.norm(other)
        c = 0.85 + eps
        rows += [3.0 * base, c * base + np.sqrt(1 - c * c) * other]
        pol += [f"group{k}"] * 2
    Z = np.array(rows)
    got = merge_candidates(Z, pol, 0.85, block=3)
    ref = naive_candidates(Z, pol, 0.85)
    assert [(i, j) for i, j, _ in got] == [(i, j) for i, j, _ in ref] == [(4, 5), (0, 1)]
    np.testing.assert_allclose([s for *_, s in got], [0.85 + 3e-9, 0.85 + 1e-9], atol=1e-13)


def test_merge_scope_all_is_eq_14_literally_and_may_merge_across_polarity():
    """merge_scope="all" compares every pair (Eq. 14 as written); a strategy-mistake pair
    merges into the polarity of the node retrieved more often, the row says so, and the
    memory stays valid. The default keeps polarities apart (our addition)."""
    from hyperskill_lite.core.maintenance import merge

    cfg = CFG.replace(dedup_scope="same_polarity", merge_scope="all")
    mem = build_memory(cfg)
    nodes, _ = snapshot(mem)
    B_s, skill_ids, _, sizes = mem.skill_incidence()
    Zt = propagate(cooccurrence_matrix(B_s, sizes, mem.gammas(skill_ids)),
                   mem.skill_embeddings(skill_ids), alpha=cfg.alpha, L=cfg.L)
    expected = [(skill_ids[i], skill_ids[j])
                for i, j, _ in merge_candidates(Zt, ["any"] * len(skill_ids), 0.85)]
    rows = merge(mem, TemplateMerger())
    assert [(r["a"], r["b"]) for r in rows] == expected
    cross = [r for r in rows if r["cross_polarity"]]
    assert cross  # the identical-text twins of opposite polarity are merged now
    mem.validate()
    for r in cross:
        a, b, new = nodes[r["a"]], nodes[r["b"]], mem.node(r["new_id"])
        assert a.polarity != b.polarity
        kept = a.polarity if a.nu >= b.nu else b.polarity
        assert new.polarity == r["polarity"] == kept
        assert new.nu == a.nu + b.nu
    default = merge(build_memory(CFG.replace(dedup_scope="same_polarity")), TemplateMerger())
    assert not any(r["cross_polarity"] for r in default)
    with pytest.raises(ValueError, match="merge_scope"):
        HyperSkillConfig(merge_scope="some")
