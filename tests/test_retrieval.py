"""Dual-path retrieval (Eq. 4-9): the worked example by hand (R_u with a tie, E_sub,
E_traj, E*, kappa, S_q with a kappa tie broken by similarity, the context, explain),
the ablation modes, helpers, bad input, and random memories against a pure-Python
reference."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.records import Skill
from hyperskill_lite.core.retrieval import Retrieval, format_context, kappa_counts, retrieve, top_k

# Worked example (tests/conftest.py): q_task = [1,0,0,0], q_plan = [0,0,1,0].
# Eq. 4: cos(q_plan, u) = u1 0, u2 .6, u3 0, u4 1, u5 .6 -> R_u = [u4, u2] (u5 ties
#        u2 at .6 and loses on creation order); E_sub = [e3 (via u4), e2 (via u2)]
# Eq. 5: cos(q_task, e) = e1 .8, e2 0, e3 .6, e4 0 -> E_traj = [e1, e3]
# Eq. 6: E* = [e1, e3, e2]
# Eq. 8: kappa s1 = 3 (e1 e2 e3), s2 = 2 (e1 e2), s3 = 1 (e1), s4 = 2 (e2 e3)
# Eq. 9: cos(q_task, s) = s1 .6, s2 0, s3 1, s4 .8; s4 and s2 tie on kappa = 2 and s4
#        wins on cosine (though s2 is older): ranking s1, s4, s2, s3; S_q(k_s=2) = [s1, s4]

CONTEXT = """## Past Experience
1. [success] L1
2. [success] L3
3. [failure] L2

## Relevant Skills
1. **Official Source First**: Start from the official source.

## Mistakes to Avoid
1. **Unit Mixup**: Mixing units gives wrong totals."""


def test_worked_full(worked):
    r = retrieve(worked, "Q", ["qa", "qb"])
    assert r.mode == "full"
    assert r.subtask_ids == ["u4", "u2"]
    assert r.subtask_scores == pytest.approx({"u4": 1.0, "u2": 0.6})
    assert r.subtask_edge_ids == ["e3", "e2"]
    assert r.trajectory_edge_ids == ["e1", "e3"]
    assert r.edge_ids == ["e1", "e3", "e2"]
    assert r.edge_scores == pytest.approx({"e1": 0.8, "e3": 0.6, "e2": 0.0}, abs=1e-7)
    assert list(r.kappa.items()) == [("s1", 3), ("s4", 2), ("s2", 2), ("s3", 1)]
    assert r.skill_ids == ["s1", "s4"]
    assert r.skill_scores == pytest.approx({"s1": 0.6, "s4": 0.8, "s2": 0.0, "s3": 1.0}, abs=1e-7)
    assert r.skill_edges == {"s1": ["e1", "e2", "e3"], "s4": ["e2", "e3"]}
    assert r.lessons == [("e1", "L1", True), ("e3", "L3", True), ("e2", "L2", False)]
    assert r.retrieved_ids == ["u4", "u2", "s1", "s4", "e1", "e3", "e2"]
    assert r.context == CONTEXT


def test_worked_kappa_tie_broken_by_similarity(worked):
    assert retrieve(worked, "Q", ["qa", "qb"], k_s=3).skill_ids == ["s1", "s4", "s2"]
    # s3 has the best cosine (1.0) but kappa 1: co-occurrence comes first
    assert retrieve(worked, "Q", ["qa", "qb"], k_s=4).skill_ids == ["s1", "s4", "s2", "s3"]


def test_worked_context_items_carry_meta(worked):
    r = retrieve(worked, "Q", ["qa", "qb"])
    assert [(i.kind, i.text) for i in r.context_items] == [
        ("lesson", "[success] L1"),
        ("lesson", "[success] L3"),
        ("lesson", "[failure] L2"),
        ("skill", "**Official Source First**: Start from the official source."),
        ("mistake", "**Unit Mixup**: Mixing units gives wrong totals."),
    ]
    assert r.context_items[0].meta == {"task_id": "t1"}
    assert r.context_items[3].meta == {"latent": ["A"]}
    assert (r.context, r.plan) == (CONTEXT, ["qa", "qb"])


def test_worked_explain(worked):
    text = retrieve(worked, "Q", ["qa", "qb"]).explain()
    assert text.splitlines() == [
        "Retrieval [full] for task: 'Q'",
        "Plan P_0: qa | qb",
        "Subtask path (Eq. 4): R_u = [u4 (1.000), u2 (0.600)] -> E_sub = [e3, e2]",
        "Trajectory path (Eq. 5): E_traj = [e1 (0.800), e3 (0.600)]",
        "E* (Eq. 6) = [e1, e3, e2]",
        "S_q (Eq. 9): top-2 of 4 candidates by kappa, then cosine to the task",
        "  1. s1 'Official Source First' [success]: cos=0.600, kappa=3, "
        "via e1 (trajectory), e2 (subtask), e3 (subtask+trajectory)",
        "  2. s4 'Unit Mixup' [failure]: cos=0.800, kappa=2, via e2 (subtask), e3 (subtask+trajectory)",
    ]


def test_worked_modes(worked):
    r = retrieve(worked, "Q", ["qa", "qb"], mode="no-subtask", k_s=3)
    assert (r.subtask_ids, r.edge_ids) == ([], ["e1", "e3"])
    assert r.kappa == {"s1": 2, "s3": 1, "s4": 1, "s2": 1}
    assert r.skill_ids == ["s1", "s3", "s4"]

    r = retrieve(worked, "Q", ["qa", "qb"], mode="no-trajectory", k_s=3)
    assert (r.trajectory_edge_ids, r.edge_ids) == ([], ["e3", "e2"])
    assert r.kappa == {"s4": 2, "s1": 2, "s2": 1}
    assert r.skill_ids == ["s4", "s1", "s2"]  # s4 beats s1 on cosine at kappa 2

    r = retrieve(worked, "Q", ["qa", "qb"], mode="flat", k_s=3)
    assert (r.subtask_ids, r.edge_ids, r.kappa, r.lessons) == ([], [], {}, [])
    assert r.skill_ids == ["s3", "s4", "s1"]
    assert r.context == (
        "## Relevant Skills\n1. **Direct Lookup**: Look the value up directly.\n"
        "2. **Official Source First**: Start from the official source.\n\n"
        "## Mistakes to Avoid\n1. **Unit Mixup**: Mixing units gives wrong totals."
    )
    assert "flat" in r.explain()


def test_empty_plan_means_no_subtask_path(worked):
    a = retrieve(worked, "Q", [])
    b = retrieve(worked, "Q", ["qa", "qb"], mode="no-subtask")
    assert (a.edge_ids, a.skill_ids, a.subtask_ids) == (b.edge_ids, b.skill_ids, [])


def test_budgets(worked):
    r = retrieve(worked, "Q", ["qa", "qb"], k_u=0, k_e=0, k_s=0)
    assert r.retrieved_ids == [] and r.context == ""
    r = retrieve(worked, "Q", ["qa", "qb"], k_u=50, k_e=50, k_s=50)
    assert len(r.subtask_ids) == 5 and len(r.edge_ids) == 4
    assert set(r.skill_ids) == {"s1", "s2", "s3", "s4", "s5"}


def test_removed_nodes_are_never_retrieved(worked):
    worked.remove_nodes(["u4", "s1"])
    r = retrieve(worked, "Q", ["qa", "qb"], k_s=5)
    assert r.subtask_ids == ["u2", "u5"]  # tie at 0.6, creation order
    assert r.subtask_edge_ids == ["e2", "e4"]
    assert r.edge_ids == ["e1", "e3", "e2", "e4"]
    assert "s1" not in r.kappa
    r = retrieve(worked, "Q", [], mode="flat", k_s=5)
    assert r.skill_ids == ["s3", "s4", "s2", "s5"]


def test_empty_memory(hashing):
    mem = HypergraphMemory(hashing)
    r = retrieve(mem, "anything", ["a step"])
    assert r.context == "" and r.retrieved_ids == [] and r.context_items == []
    assert hashing.n_encoded == 0
    assert "(no skills)" in r.explain()


def test_memory_of_empty_hyperedges(hashing):
    mem = HypergraphMemory(hashing)
    mem.add_trajectory("task one", [], [], "lesson one", False, 2)
    r = retrieve(mem, "task one", ["a step"])
    assert r.edge_ids == ["e1"] and r.skill_ids == []
    assert r.context == "## Past Experience\n1. [failure] lesson one"


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        ({"mode": "hybrid"}, ValueError, "mode must be one of"),
        ({"k_u": -1}, ValueError, "k_u must be an int >= 0"),
        ({"k_s": 1.5}, ValueError, "k_s"),
        ({"plan": "one step"}, TypeError, "plan must be a list"),
        ({"task": None}, TypeError, "task must be a str"),
    ],
)
def test_bad_input(worked, kwargs, exc, message):
    with pytest.raises(exc, match=message):
        retrieve(worked, **{"task": "Q", "plan": [], **kwargs})


# ---------------------------------------------------------------- helpers


def test_top_k():
    s = np.array([0.5, 0.9, 0.5, -np.inf, 0.5, 0.1])
    np.testing.assert_array_equal(top_k(s, 3), [1, 0, 2])  # ties: lower index first
    np.testing.assert_array_equal(top_k(s, 10), [1, 0, 2, 4, 5, 3])
    assert top_k(s, 0).shape == (0,)
    assert top_k(np.array([]), 2).shape == (0,)


def test_kappa_counts():
    B = np.array([[1, 1, 0, 1], [0, 1, 1, 0], [0, 0, 0, 1]])  # 3 skills x 4 hyperedges
    rows, kappa = kappa_counts(B, [0, 1, 3])
    np.testing.assert_array_equal(rows, [0, 1, 2])
    np.testing.assert_array_equal(kappa, [3, 1, 1])
    rows, kappa = kappa_counts(B, [2])
    assert (rows.tolist(), kappa.tolist()) == ([1], [1])
    assert kappa_counts(B, [])[0].shape == (0,)
    with pytest.raises(ValueError, match="distinct"):
        kappa_counts(B, [1, 1])


def test_format_context_sections():
    assert format_context([], [], []) == ""
    assert format_context([], [], [("", "only content")]) == (
        "## Mistakes to Avoid\n1. only content"
    )
    text = format_context([("a", True), ("b", False)], [("N", "c")], [("M", "d")])
    assert text.split("\n\n") == [
        "## Past Experience\n1. [success] a\n2. [failure] b",
        "## Relevant Skills\n1. **N**: c",
        "## Mistakes to Avoid\n1. **M**: d",
    ]


def test_retrieval_defaults():
    r = Retrieval()
    assert r.retrieved_ids == [] and r.context == "" and r.mode == "full"


# ---------------------------------------------------------------- random memories vs reference


def reference(mem, enc, task, plan, mode, k_u, k_e, k_s):
    """Eq. 4-9 by the letter, with dicts and sorted(), from the public API only."""

    def dot(a, b):
        return sum(float(x) * float(y) for x, y in zip(a, b))

    def num(i):
        return int(i[1:])

    qt = enc.encode([task])[0]
    edges = mem.edge_ids()
    members = {e: mem.edge(e).node_ids for e in edges}
    r_u, e_sub, e_traj = [], [], []
    if mode in ("full", "no-trajectory") and plan:
        qp = enc.encode(["\n".join(plan)])[0]
        subs = mem.node_ids("subtask")
        r_u = sorted(subs, key=lambda u: (-dot(qp, mem.embedding(u)), num(u)))[:k_u]
        for u in r_u:
            e_sub += [e for e in edges if u in members[e] and e not in e_sub]
    if mode in ("full", "no-subtask"):
        e_traj = sorted(edges, key=lambda e: (-dot(qt, mem.embedding(e)), num(e)))[:k_e]
    e_star = e_traj + [e for e in e_sub if e not in e_traj]
    if mode == "flat":
        kappa = {}
        s_q = sorted(mem.node_ids("skill"), key=lambda s: (-dot(qt, mem.embedding(s)), num(s)))
    else:
        kappa = Counter(s for e in e_star for s in members[e] if s.startswith("s"))
        s_q = sorted(kappa, key=lambda s: (-kappa[s], -dot(qt, mem.embedding(s)), num(s)))
        kappa = {s: kappa[s] for s in s_q}
    return r_u, e_sub, e_traj, e_star, kappa, s_q[:k_s]


WORDS = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta"]
text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=2).map(" ".join)
trajectory = st.tuples(
    text,
    st.lists(text, max_size=3),
    st.lists(
        st.builds(
            Skill,
            name=st.sampled_from(["N1", "N2"]),
            content=text,
            polarity=st.sampled_from(["success", "failure"]),
        ),
        max_size=3,
    ),
    text,
    st.booleans(),
    st.integers(1, 15),
)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    trajs=st.lists(trajectory, min_size=1, max_size=10),
    query=st.tuples(text, st.lists(text, max_size=3)),
    mode=st.sampled_from(["full", "full", "no-subtask", "no-trajectory", "flat"]),
    ks=st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 4)),
    drop=st.lists(st.integers(0, 40), max_size=4),
)
def test_random_memories_match_reference(discrete_encoder, trajs, query, mode, ks, drop):
    enc = discrete_encoder()
    mem = HypergraphMemory(enc)
    last = None
    for task, plan, skills, lesson, ok, steps in trajs:
        mem.add_trajectory(task, plan, skills, lesson, ok, steps, retrieval=last)
        last = retrieve(mem, task, plan)
    ids = mem.node_ids()
    mem.remove_nodes(sorted({ids[i % len(ids)] for i in drop}) if ids else [])
    mem.validate()
    task, plan = query
    r = retrieve(mem, task, plan, mode=mode, k_u=ks[0], k_e=ks[1], k_s=ks[2])
    r_u, e_sub, e_traj, e_star, kappa, s_q = reference(mem, enc, task, plan, mode, *ks)
    assert r.subtask_ids == r_u
    assert r.subtask_edge_ids == e_sub
    assert r.trajectory_edge_ids == e_traj
    assert r.edge_ids == e_star
    assert list(r.kappa.items()) == list(kappa.items())
    assert r.skill_ids == s_q
    assert len(r.context_items) == sum(1 for e in e_star if mem.edge(e).lesson) + len(s_q)


def test_excluded_hyperedges_leave_both_paths_and_budgets_fill_from_the_rest(worked):
    """Own-task exclusion (issue 33): without e3, R_u loses u4 (e3's only subtask node)
    and takes u2 and u5 (tied at 0.6); E_traj takes e1 then e2 (e2 and e4 tie at 0,
    creation order); E* = [e1, e2, e4]."""
    r = retrieve(worked, "Q", ["qa", "qb"], exclude_edges=["e3", "e99"])
    assert r.excluded_edge_ids == ["e3"]  # an id not in the memory is ignored
    assert r.subtask_ids == ["u2", "u5"]
    assert (r.subtask_edge_ids, r.trajectory_edge_ids) == (["e2", "e4"], ["e1", "e2"])
    assert r.edge_ids == ["e1", "e2", "e4"] and "e3" not in r.retrieved_ids
    assert retrieve(worked, "Q", ["qa", "qb"], exclude_edges=()).edge_ids == ["e1", "e3", "e2"]
    every = retrieve(worked, "Q", ["qa", "qb"], exclude_edges=worked.edge_ids())
    assert every.retrieved_ids == [] and every.context == ""
    # flat mode: s3 (Direct Lookup) is held only by e1, so it goes; s1 and s2 stay
    flat = retrieve(worked, "Q", [], mode="flat", k_s=3, exclude_edges=["e1"])
    assert "s3" not in flat.skill_ids and flat.skill_ids[:2] == ["s4", "s1"]
