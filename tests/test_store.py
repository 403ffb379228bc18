"""Tests for store.py: growable rows and the incidence store, against plain Python."""

from __future__ import annotations

import numpy as np
import pytest

from hyperskill_lite.core.store import Incidence, Rows


def test_rows_grow_keep_everything_and_ids_are_never_reused():
    rows = Rows("e", 3, ("task",), {"steps": np.int64})
    vecs = np.random.default_rng(0).normal(size=(40, 3)).astype(np.float32)
    for i, v in enumerate(vecs):  # 40 > the initial capacity 16: two doublings
        assert rows.add(v, {"i": i}, task=f"T{i}", steps=i) == i
    assert len(rows.emb) == 64 and rows.n == 40
    np.testing.assert_array_equal(rows.emb[:40], vecs)
    assert rows.steps[:40].tolist() == list(range(40))
    assert rows.text["task"][39] == "T39" and rows.meta[7] == {"i": 7}
    rows.kill([0, 5])
    assert rows.live().tolist() == [r for r in range(40) if r not in (0, 5)]
    assert "e1" not in rows.row and rows.row["e7"] == 6
    assert rows.add(vecs[0], {}, task="new", steps=0) == 40
    assert rows.ids[40] == "e41"  # the counter moves on; e1 and e6 stay retired
    with pytest.raises(AttributeError, match="nope"):
        _ = rows.nope


def test_incidence_matches_dense_reference():
    rng = np.random.default_rng(1)
    n_nodes, n_edges = 7, 30
    inc = Incidence()
    dense = np.zeros((n_nodes, n_edges))
    for j in range(n_edges):  # 30 edges x up to 4 members: grows past capacity 64
        members = rng.choice(n_nodes, size=int(rng.integers(0, 5)), replace=False).tolist()
        inc.extend(members, j)
        dense[members, j] = 1.0
    B = inc.csc(n_nodes, n_edges)
    np.testing.assert_array_equal(B.toarray(), dense)
    np.testing.assert_array_equal(inc.csr(n_nodes, n_edges).toarray(), dense)
    assert inc.csc(n_nodes, n_edges) is B  # cached until the next change
    node, edge = inc.pairs()
    keep = node != 3
    inc.set_pairs(node[keep], edge[keep])
    dense[3] = 0.0
    assert inc.csc(n_nodes, n_edges) is not B
    np.testing.assert_array_equal(inc.csc(n_nodes, n_edges).toarray(), dense)


def test_incidence_keeps_membership_order_within_an_edge():
    inc = Incidence()
    inc.extend([2, 0, 1], 0)  # hand-worked: column 0 lists rows 2, 0, 1 in that order
    inc.extend([1], 1)
    B = inc.csc(3, 2)
    assert B.indices.tolist() == [2, 0, 1, 1] and B.indptr.tolist() == [0, 3, 4]


def test_replace_nodes_matches_a_list_model():
    rng = np.random.default_rng(2)
    for _ in range(30):
        inc, model = Incidence(), []  # model: one member list per edge
        for j in range(int(rng.integers(1, 12))):
            members = rng.choice(6, size=int(rng.integers(0, 4)), replace=False).tolist()
            inc.extend(members, j)
            model.append(members)
        old = rng.choice(6, size=2, replace=False).tolist()
        inc.replace_nodes(old, 9)
        want = []
        for members in model:
            out = []
            for m in members:
                m = 9 if m in old else m
                if m not in out:
                    out.append(m)
            want.append(out)
        node, edge = inc.pairs()
        got = [node[edge == j].tolist() for j in range(len(model))]
        assert got == want


def test_replace_nodes_by_hand():
    inc = Incidence()
    inc.extend([0, 1, 2], 0)  # edge 0 holds both 0 and 1: one membership of 5 remains
    inc.extend([3, 1], 1)
    B = inc.csc(6, 2)
    inc.replace_nodes([0, 1], 5)
    assert inc.pairs()[0].tolist() == [5, 2, 3, 5] and inc.pairs()[1].tolist() == [0, 0, 1, 1]
    assert inc.csc(6, 2) is not B  # the cache was dropped


def test_problem_names_the_broken_invariant():
    rows = Rows("s", 2, ("name",), {})
    for k in range(3):
        rows.add(np.array([0.6, 0.8]), {}, name=f"n{k}")
    assert rows.problem(2) is None
    assert rows.problem(3) == "embedding width 2 != dim 3"
    rows.sigma[1], rows.nu[1] = 2.0, 1  # more successes than retrievals
    assert rows.problem(2) == "0<=sigma<=nu"
    rows.sigma[1] = 0.0
    rows.ids[2] = "u3"
    assert rows.problem(2) == "bad ids/counter"
    inc = Incidence()
    inc.extend([0, 1], 0)
    alive = np.array([True, True, False])
    assert inc.problem(3, 1, alive) is None
    inc.extend([2], 1)
    assert inc.problem(3, 2, alive) == "dangling node row"  # row 2 is tombstoned
    inc.set_pairs(np.array([0, 1]), np.array([1, 0]))
    assert inc.problem(3, 2, alive) == "membership not sorted by edge"
