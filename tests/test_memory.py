"""HypergraphMemory: the worked example (dedup, ids, incidence, gamma before and after
updates), removal and merging, bad input, and random operation sequences checked
against a pure-Python model with validate() after every operation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.meta import merge_meta
from hyperskill_lite.core.records import Skill
from hyperskill_lite.core.retrieval import retrieve

# ---------------------------------------------------------------- the worked example


def test_worked_structure(worked):
    worked.validate()
    assert worked.edge_ids() == ["e1", "e2", "e3", "e4"]
    assert worked.edge("e1").node_ids == ["u1", "s1", "s2", "s3"]
    # s1 and s2 are deduplicated (same text, cosine 1.0); subtask steps never are
    assert worked.edge("e2").node_ids == ["u2", "u3", "s1", "s2", "s4"]
    assert worked.edge("e3").node_ids == ["u4", "s1", "s4"]
    assert worked.edge("e4").node_ids == ["u5", "s5"]
    assert worked.node_ids("subtask") == ["u1", "u2", "u3", "u4", "u5"]
    assert worked.node_ids("skill", polarity="failure") == ["s4"]
    assert worked.node_ids(polarity="success") == ["s1", "s2", "s3", "s5"]
    assert worked.stats() == {
        "subtask_nodes": 5,
        "skill_nodes": 5,
        "success_skills": 4,
        "failure_skills": 1,
        "hyperedges": 4,
        "incidences": 14,
    }
    s1 = worked.node("s1")
    assert (s1.kind, s1.polarity, s1.name) == ("skill", "success", "Official Source First")
    assert s1.meta == {"latent": ["A"]}  # the existing node keeps its meta on dedup
    u2 = worked.node("u2")
    assert (u2.kind, u2.polarity, u2.name, u2.content) == ("subtask", None, "", "read table")
    e2 = worked.edge("e2")
    assert (e2.task, e2.lesson, e2.success, e2.steps, e2.calls) == ("T2", "L2", False, 9, 0)
    assert worked.edge("e1").meta == {"task_id": "t1"}
    # h_e = phi(task "\n" lesson); one embedding() serves nodes and hyperedges
    np.testing.assert_allclose(worked.embedding("e3"), [0.6, 0, 0.8, 0], atol=1e-7)
    np.testing.assert_allclose(worked.embedding("u5"), [0, 0.8, 0.6, 0], atol=1e-7)
    assert worked.t_range == (3.0, 9.0)


def test_worked_skill_incidence(worked):
    B, skill_ids, edge_ids, sizes = worked.skill_incidence()
    assert skill_ids == ["s1", "s2", "s3", "s4", "s5"]
    assert edge_ids == ["e1", "e2", "e3", "e4"]
    np.testing.assert_array_equal(
        B.toarray(),
        [[1, 1, 1, 0], [1, 1, 0, 0], [1, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 1]],
    )
    np.testing.assert_array_equal(sizes, [4, 5, 3, 2])  # |V_e| counts subtasks too


def test_worked_gamma_before_and_after_updates(worked):
    everything = worked.node_ids() + worked.edge_ids()
    np.testing.assert_array_equal(worked.gammas(everything), 0.5)  # nu = 0: prior
    r = retrieve(worked, "Q", ["qa", "qb"])
    # k_s = 2: S_q = [s1, s4]; s2 ties s4 on kappa = 2 and loses on cosine (see test_retrieval)
    used = ["u4", "u2", "s1", "s4", "e1", "e3", "e2"]
    assert r.retrieved_ids == used
    # episode 5: success in 4 steps; T range stays [3, 9]
    # gamma = 0.7 * 1/1 + 0.3 * (1 - (4 - 3) / 6) = 0.95
    assert worked.add_trajectory("T5", [], [], "L5", True, 4, retrieval=r) == "e5"
    np.testing.assert_allclose(worked.gammas(used), 0.95)
    untouched = ["u1", "u3", "u5", "s2", "s3", "s5", "e4", "e5"]
    np.testing.assert_array_equal(worked.gammas(untouched), 0.5)
    s1 = worked.node("s1")
    assert (s1.sigma, s1.nu, s1.mean_steps) == (1.0, 1, 4.0)
    # episode 6: failure in 9 steps; sigma/nu = 1/2, T_bar = 6.5
    # gamma = 0.7 * 0.5 + 0.3 * (1 - 3.5 / 6) = 0.475
    worked.add_trajectory("T6", [], [], "L6", False, 9, retrieval=r)
    np.testing.assert_allclose(worked.gammas(used), 0.475)
    assert worked.edge("e1").mean_steps == 6.5
    # episode 7, not retrieved-from, 15 steps: T_max = 15 changes gamma (derived state)
    # gamma = 0.35 + 0.3 * (1 - 3.5 / 12) = 0.5625
    worked.add_trajectory("T7", [], [], "L7", True, 15)
    assert worked.t_range == (3.0, 15.0)
    np.testing.assert_allclose(worked.gammas(used), 0.5625)
    assert worked.node("u4").gamma == pytest.approx(0.5625)
    worked.validate()


def test_config_beta_and_prior_are_used(table_encoder):
    enc = table_encoder({"a\nb": [1, 0], "x": [0, 1]})
    mem = HypergraphMemory(enc, HyperSkillConfig(beta=0.5, prior=0.3))
    e = mem.add_trajectory("a", [], [], "b", True, 2)
    assert mem.edge(e).gamma == pytest.approx(0.3)


# ---------------------------------------------------------------- dedup


def _dedup_table(table_encoder):
    return table_encoder(
        {
            "t\nl": [1, 0, 0],
            "A: a": [1, 0, 0],
            "B: b": [0.9, np.sqrt(1 - 0.81), 0],  # cosine 0.9 to A: merged
            "C: c": [0.89, np.sqrt(1 - 0.89**2), 0],  # cosine 0.89: a new node
            "D: d": [1, 0, 0],  # identical text vector, other polarity
        }
    )


def test_dedup_threshold_and_polarity_same_polarity_scope(table_encoder):
    mem = HypergraphMemory(_dedup_table(table_encoder), HyperSkillConfig(dedup_scope="same_polarity"))
    e1 = mem.add_trajectory("t", [], [Skill("A", "a")], "l", True, 1)
    e2 = mem.add_trajectory(
        "t", [], [Skill("B", "b"), Skill("C", "c"), Skill("D", "d", "failure")], "l", True, 1
    )
    assert mem.edge(e1).node_ids == ["s1"]
    assert mem.edge(e2).node_ids == ["s1", "s2", "s3"]  # D: other polarity, a new node
    assert mem.node("s1").name == "A"
    assert [mem.node(i).polarity for i in ("s2", "s3")] == ["success", "failure"]
    assert not any(p["cross_polarity"] for p in mem.last_update["skills"])
    mem.validate()


def test_dedup_scope_all_crosses_polarity(table_encoder):
    # the default: "similarity to all existing skill nodes" (§3.4)
    mem = HypergraphMemory(_dedup_table(table_encoder))
    assert mem.config.dedup_scope == "all"
    mem.add_trajectory("t", [], [Skill("A", "a")], "l", True, 1)
    e2 = mem.add_trajectory(
        "t", [], [Skill("B", "b"), Skill("C", "c"), Skill("D", "d", "failure")], "l", False, 1
    )
    assert mem.edge(e2).node_ids == ["s1", "s2"]  # D (cosine 1 to A) went into s1
    assert mem.node("s1").polarity == "success" and mem.node("s1").name == "A"  # s1 keeps its own
    placed = mem.last_update["skills"]
    assert [(p["node"], p["dedup"], p["cross_polarity"]) for p in placed] == [
        ("s1", True, False), ("s2", False, False), ("s1", True, True)]
    assert mem.node_ids(polarity="failure") == []
    # and the reverse: a strategy landing on an existing mistake keeps the mistake
    mem2 = HypergraphMemory(_dedup_table(table_encoder))
    mem2.add_trajectory("t", [], [Skill("D", "d", "failure")], "l", False, 1)
    mem2.add_trajectory("t", [], [Skill("A", "a")], "l", True, 1)
    assert mem2.node_ids(kind="skill") == ["s1"] and mem2.node("s1").polarity == "failure"
    mem.validate()
    mem2.validate()


def test_dedup_within_one_call_and_no_duplicate_membership(table_encoder):
    enc = table_encoder({"t\nl": [1, 0], "A: a": [1, 0], "A2: a": [1, 0], "step": [0, 1]})
    mem = HypergraphMemory(enc)
    e = mem.add_trajectory("t", ["step", "step"], [Skill("A", "a"), Skill("A2", "a")], "l", True, 2)
    assert mem.edge(e).node_ids == ["u1", "u2", "s1"]
    assert mem.stats()["incidences"] == 3


def test_add_embeds_each_text_once(hashing):
    mem = HypergraphMemory(hashing)
    mem.add_trajectory("task", ["a", "b"], [Skill("N", "c")], "lesson", True, 3)
    assert hashing.n_encoded == 4
    mem2 = HypergraphMemory(hashing)  # a second memory sharing the encoder
    mem2.add_trajectory("task", ["a", "b"], [Skill("N", "c")], "lesson", True, 3)
    assert hashing.n_encoded == 4


# ---------------------------------------------------------------- remove and merge


def test_remove_nodes(worked):
    worked.remove_nodes(["s1", "u5", "s5"])
    worked.validate()
    assert worked.edge("e1").node_ids == ["u1", "s2", "s3"]
    assert worked.edge("e4").node_ids == []  # left empty, kept with task and lesson
    assert (worked.edge("e4").task, worked.edge("e4").lesson) == ("T4", "L4")
    assert "s1" not in worked.node_ids()
    with pytest.raises(KeyError, match="'s1'"):
        worked.node("s1")
    with pytest.raises(KeyError, match="'s99'"):
        worked.remove_nodes(["s99"])
    with pytest.raises(ValueError, match="'e1' is a hyperedge"):
        worked.remove_nodes(["e1"])
    # ids are never reused
    e = worked.add_trajectory(
        "T5", [], [Skill("Official Source First", "Start from the official source.")], "L5", True, 3
    )
    assert worked.edge(e).node_ids == ["s6"]
    assert worked.stats()["skill_nodes"] == 4


def test_merge_nodes(worked, table_encoder):
    r = retrieve(worked, "Q", ["qa", "qb"], k_s=3)  # S_q = [s1, s4, s2]
    worked.add_trajectory("T5", [], [], "L5", True, 4, retrieval=r)  # s1, s2: nu 1, T_bar 4
    worked.add_trajectory("T6", [], [], "L6", False, 8, retrieval=r)  # nu 2, sigma 1, T_bar 6
    worked.encoder.table["Source Tables: Official tables first."] = np.array([0.6, 0, 0, 0.8])
    before = worked.encoder.n_encoded
    new = worked.merge_nodes(
        "s1", "s2", Skill("Source Tables", "Official tables first.", meta={"n": 1})
    )
    assert worked.encoder.n_encoded == before + 1  # only the new text is embedded
    assert new == "s6"
    v = worked.node(new)
    assert (v.name, v.polarity, v.sigma, v.nu, v.mean_steps) == (
        "Source Tables",
        "success",
        2.0,
        4,
        6.0,
    )
    assert v.meta == {"latent": ["A"], "n": 1}
    # e1 and e2 held both s1 and s2: one membership each now, at s1's position
    assert worked.edge("e1").node_ids == ["u1", "s6", "s3"]
    assert worked.edge("e2").node_ids == ["u2", "u3", "s6", "s4"]
    assert worked.edge("e3").node_ids == ["u4", "s6", "s4"]
    assert "s1" not in worked.node_ids() and "s2" not in worked.node_ids()
    worked.validate()


def test_merge_weighted_mean_and_zero_nu(worked):
    S = worked._skl  # set stats directly to check the weighting rule
    S.nu[0], S.sigma[0], S.tbar[0] = 1, 1.0, 3.0  # s1
    S.nu[2], S.sigma[2], S.tbar[2] = 3, 0.0, 7.0  # s3
    worked.encoder.table["M: m"] = np.array([1.0, 0, 0, 0])
    v = worked.node(worked.merge_nodes("s1", "s3", Skill("M", "m")))
    assert (v.nu, v.sigma, v.mean_steps) == (4, 1.0, 6.0)  # (1*3 + 3*7) / 4
    v = worked.node(worked.merge_nodes("s2", "s5", Skill("M", "m")))
    assert (v.nu, v.sigma, v.mean_steps) == (0, 0.0, 0.0)
    worked.validate()


def test_merge_errors(worked):
    with pytest.raises(ValueError, match="'s1' is a success skill and 's4' a failure skill"):
        worked.merge_nodes("s1", "s4", Skill("X", "x"))
    with pytest.raises(ValueError, match="itself"):
        worked.merge_nodes("s1", "s1", Skill("X", "x"))
    with pytest.raises(KeyError, match="no skill node with id 'u1'"):
        worked.merge_nodes("u1", "s1", Skill("X", "x"))


def test_merge_meta():
    assert merge_meta({"a": [1, 2], "k": "x"}, {"a": [2, 3], "k": "y", "z": 0}) == {
        "a": [1, 2, 3],
        "k": "x",
        "z": 0,
    }
    a = {"a": [1]}
    merge_meta(a, {"a": [2]})
    assert a == {"a": [1]}  # inputs untouched


# ---------------------------------------------------------------- accessors and errors


def test_lookup_errors_name_the_id(worked):
    with pytest.raises(KeyError, match="'x7'"):
        worked.embedding("x7")
    with pytest.raises(KeyError, match="'e1' is a hyperedge id"):
        worked.node("e1")
    with pytest.raises(KeyError, match="'s1' is a node id"):
        worked.edge("s1")
    with pytest.raises(KeyError, match="''"):
        worked.gammas([""])
    with pytest.raises(ValueError, match="kind"):
        worked.node_ids("mistake")
    with pytest.raises(ValueError, match="polarity"):
        worked.node_ids(polarity="bad")


def test_views_are_snapshots(worked):
    v = worked.node("s1")
    v.meta["latent"].append("Z")
    assert worked.node("s1").meta == {"latent": ["A"]}
    emb = worked.embedding("s1")
    emb[:] = 0
    assert np.linalg.norm(worked.embedding("s1")) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        ({"task": 3}, TypeError, "task and lesson"),
        ({"plan": "one step"}, TypeError, "plan must be a list"),
        ({"skills": ["text"]}, TypeError, "Skill objects"),
        ({"skills": [Skill("n", "c", "neutral")]}, ValueError, "polarity 'neutral'"),
        ({"success": "yes"}, TypeError, "success must be a bool"),
        ({"steps": -1}, ValueError, "steps must be an int >= 0"),
        ({"steps": 2.5}, ValueError, "steps"),
        ({"calls": -2}, ValueError, "calls"),
    ],
)
def test_add_trajectory_bad_input(hashing, kwargs, exc, message):
    mem = HypergraphMemory(hashing)
    args = {"task": "t", "plan": [], "skills": [], "lesson": "l", "success": True, "steps": 1}
    with pytest.raises(exc, match=message):
        mem.add_trajectory(**{**args, **kwargs})
    assert mem.stats()["hyperedges"] == 0  # nothing half-added


def test_growth_keeps_rows(hashing):
    mem = HypergraphMemory(hashing)
    for i in range(40):  # past the initial capacity of 16 rows, twice
        mem.add_trajectory(
            f"task {i}",
            [f"step {i} a", f"step {i} b"],
            [Skill(f"skill {i}", f"do thing {i} number")],
            f"lesson {i}",
            bool(i % 2),
            i,
        )
    mem.validate()
    assert mem.stats()["hyperedges"] == 40
    for i in (0, 17, 39):
        np.testing.assert_array_equal(
            mem.embedding(f"e{i + 1}"), hashing.encode([f"task {i}\nlesson {i}"])[0]
        )
    assert mem.edge("e33").node_ids[:2] == ["u65", "u66"]


def test_validate_catches_broken_invariants(worked):
    worked._skl.sigma[0] = 5.0  # more successes than retrievals
    with pytest.raises(AssertionError, match="sigma"):
        worked.validate()
    worked._skl.sigma[0] = 0.0
    worked._inc["skill"].node[0] = 99  # a membership pointing nowhere
    with pytest.raises(AssertionError, match="dangling node row"):
        worked.validate()


def test_retrieval_ids_gone_since_are_skipped(worked):
    r = retrieve(worked, "Q", ["qa", "qb"])
    worked.remove_nodes(["s1"])
    worked.add_trajectory("T5", [], [], "L5", True, 4, retrieval=r)
    assert worked.node("s4").nu == 1
    worked.validate()


# ---------------------------------------------------------------- random sequences vs a model


class Model:
    """A pure-Python memory: dicts and lists, no arrays."""

    def __init__(self, delta, scope="all"):
        self.delta = delta
        self.scope = scope  # dedup against all skills, or only those of the same polarity
        self.nodes = {}  # id -> dict(kind, polarity, vec, sigma, nu, tbar)
        self.edges = {}  # id -> dict(members, vec, sigma, nu, tbar)
        self.count = {"u": 0, "s": 0, "e": 0}
        self.t = []

    def new_id(self, p):
        self.count[p] += 1
        return f"{p}{self.count[p]}"

    def add(self, enc, task, plan, skills, lesson, success, steps, used):
        self.t.append(steps)
        for i in used:
            el = self.nodes.get(i) or self.edges.get(i)
            if el is not None:
                el["nu"] += 1
                el["sigma"] += success
                el["tbar"] += (steps - el["tbar"]) / el["nu"]
        members = []
        for p in plan:
            u = self.new_id("u")
            self.nodes[u] = dict(
                kind="subtask", polarity=None, vec=enc.encode([p])[0], sigma=0, nu=0, tbar=0.0
            )
            members.append(u)
        for s in skills:
            vec = enc.encode([s.text])[0]
            best, best_cos = None, -2.0
            for i, n in self.nodes.items():
                if n["kind"] == "skill" and (self.scope == "all" or n["polarity"] == s.polarity):
                    c = sum(float(a) * float(b) for a, b in zip(vec, n["vec"]))
                    if c > best_cos:
                        best, best_cos = i, c
            if best is None or best_cos < self.delta:
                best = self.new_id("s")
                self.nodes[best] = dict(
                    kind="skill", polarity=s.polarity, vec=vec, sigma=0, nu=0, tbar=0.0
                )
            if best not in members:
                members.append(best)
        e = self.new_id("e")
        self.edges[e] = dict(members=members, sigma=0, nu=0, tbar=0.0)
        return e

    def remove(self, ids):
        for i in ids:
            del self.nodes[i]
        for e in self.edges.values():
            e["members"] = [m for m in e["members"] if m not in ids]

    def merge(self, a, b, vec):
        na, nb = self.nodes.pop(a), self.nodes.pop(b)
        s = self.new_id("s")
        nu = na["nu"] + nb["nu"]
        tbar = (na["nu"] * na["tbar"] + nb["nu"] * nb["tbar"]) / nu if nu else 0.0
        self.nodes[s] = dict(
            kind="skill",
            polarity=na["polarity"],
            vec=vec,
            sigma=na["sigma"] + nb["sigma"],
            nu=nu,
            tbar=tbar,
        )
        for e in self.edges.values():
            out = []
            for m in e["members"]:
                m = s if m in (a, b) else m
                if m not in out:
                    out.append(m)
            e["members"] = out
        return s

    def gamma(self, el, beta=0.7, prior=0.5):
        if el["nu"] == 0:
            return prior
        lo, hi = min(self.t), max(self.t)
        eff = 1.0 if hi == lo else 1 - (el["tbar"] - lo) / (hi - lo)
        return min(1.0, max(0.0, beta * el["sigma"] / el["nu"] + (1 - beta) * eff))


WORDS = ["alpha", "beta", "gamma", "delta", "eps", "zeta"]
text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=2).map(" ".join)
skill = st.builds(
    Skill,
    name=st.sampled_from(["N1", "N2", "N3"]),
    content=text,
    polarity=st.sampled_from(["success", "failure"]),
)


def check_against(mem, model):
    mem.validate()
    assert mem.edge_ids() == list(model.edges)
    assert sorted(mem.node_ids()) == sorted(model.nodes)
    for e, el in model.edges.items():
        v = mem.edge(e)
        assert v.node_ids == sorted(el["members"], key=lambda i: (i[0] != "u",))  # subtasks first
        assert (v.sigma, v.nu) == (el["sigma"], el["nu"])
        assert v.mean_steps == pytest.approx(el["tbar"])
        assert v.gamma == pytest.approx(model.gamma(el))
    ids = list(model.nodes)
    np.testing.assert_allclose(mem.gammas(ids), [model.gamma(model.nodes[i]) for i in ids])
    for i in ids:
        n, v = model.nodes[i], mem.node(i)
        assert (v.kind, v.polarity, v.sigma, v.nu) == (
            n["kind"],
            n["polarity"],
            n["sigma"],
            n["nu"],
        )
        np.testing.assert_array_equal(mem.embedding(i), n["vec"])
    B, sids, eids, sizes = mem.skill_incidence()
    want = [[1.0 if s in model.edges[e]["members"] else 0.0 for e in eids] for s in sids]
    np.testing.assert_array_equal(
        B.toarray().reshape(len(sids), len(eids)), np.array(want).reshape(len(sids), len(eids))
    )
    np.testing.assert_array_equal(sizes, [len(model.edges[e]["members"]) for e in eids])


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_random_operations_match_model(discrete_encoder, data):
    enc = discrete_encoder()
    scope = data.draw(st.sampled_from(["all", "same_polarity"]), label="dedup_scope")
    mem = HypergraphMemory(enc, HyperSkillConfig(dedup_scope=scope))
    model = Model(mem.config.delta_dedup, scope)
    last = None
    for _ in range(data.draw(st.integers(1, 12), label="n_ops")):
        op = data.draw(st.sampled_from(["add", "add", "add", "remove", "merge"]), label="op")
        if op == "add":
            plan = data.draw(st.lists(text, max_size=3), label="plan")
            skills = data.draw(st.lists(skill, max_size=3), label="skills")
            task, lesson = data.draw(text, label="task"), data.draw(text, label="lesson")
            success, steps = data.draw(st.booleans()), data.draw(st.integers(0, 20))
            used = last.retrieved_ids if last is not None else []
            e = mem.add_trajectory(task, plan, skills, lesson, success, steps, retrieval=last)
            assert e == model.add(enc, task, plan, skills, lesson, success, steps, used)
            last = retrieve(mem,
                data.draw(text), data.draw(st.lists(text, max_size=2)), k_u=2, k_e=2, k_s=2
            )
        elif op == "remove" and model.nodes:
            ids = data.draw(st.lists(st.sampled_from(sorted(model.nodes)), max_size=3, unique=True))
            mem.remove_nodes(ids)
            model.remove(ids)
        elif op == "merge":
            pairs = [
                (a, b)
                for a in model.nodes
                for b in model.nodes
                if a < b
                and model.nodes[a]["kind"] == model.nodes[b]["kind"] == "skill"
                and model.nodes[a]["polarity"] == model.nodes[b]["polarity"]
            ]
            if pairs:
                a, b = data.draw(st.sampled_from(pairs))
                new = Skill("M", data.draw(text))
                got = mem.merge_nodes(a, b, new)
                assert got == model.merge(a, b, enc.encode([new.text])[0])
        check_against(mem, model)


def test_retrieval_counts(worked):
    r = retrieve(worked, "Q", ["qa", "qb"], k_s=3)  # R_u [u4, u2], S_q [s1, s4, s2], E* 4 edges
    worked.add_trajectory("T5", [], [], "L5", True, 4, retrieval=r)
    worked.add_trajectory("T6", [], [], "L6", False, 8, retrieval=r)
    ids = ["s1", "e5", "u4", "s3", "s4", "e1"]
    nu = worked.retrieval_counts(ids)
    assert nu.dtype == np.int64
    assert nu.tolist() == [worked.node(i).nu if i[0] != "e" else worked.edge(i).nu for i in ids]
    assert nu.tolist() == [2, 0, 2, 0, 2, 2]
    assert worked.retrieval_counts([]).tolist() == []
    with pytest.raises(KeyError, match="'s99'"):
        worked.retrieval_counts(["s1", "s99"])


def test_nodes_bulk_equals_one_by_one(worked):
    worked.add_trajectory("T5", [], [], "L5", True, 4, retrieval=retrieve(worked, "Q", ["qa", "qb"]))
    ids = ["s4", "u1", "s1", "u5", "s5"]
    views = worked.nodes(ids)
    assert views == [worked.node(i) for i in ids]
    assert [(v.id, v.kind, v.polarity, v.nu) for v in views[:3]] == [
        ("s4", "skill", "failure", 1),
        ("u1", "subtask", None, 0),
        ("s1", "skill", "success", 1),
    ]
    assert (views[1].content, views[0].name, views[1].gamma) == ("find page", "Unit Mixup", 0.5)
    assert worked.nodes([]) == []
    with pytest.raises(KeyError, match="'e2' is a hyperedge id"):
        worked.nodes(["s1", "e2"])
    with pytest.raises(KeyError, match="'u99'"):
        worked.nodes(["s1", "u99", "s98"])


# ---------------------------------------------------------------- issue 33 additions


def test_an_episode_without_steps_leaves_the_t_range_and_t_bar_alone(hashing):
    """record_use(steps_observed=False): an episode that errored before its first step
    counts the retrieval (nu) and the failure (sigma) but not its 0 steps (Eq. 3)."""
    mem = HypergraphMemory(hashing)
    s = Skill("Official Source First", "Prefer the statistics office.")
    mem.add_trajectory("T1 population of Lyon", ["search the office"], [s], "L", True, 4)
    mem.add_trajectory("T2 population of Nantes", ["search the office"], [s], "L", True, 8)
    r = retrieve(mem, "population of Lyon", ["search the office"])
    used = r.retrieved_ids
    before = {v.id: (v.nu, v.sigma, v.mean_steps) for v in mem.nodes(
        [i for i in used if not i.startswith("e")])}
    assert mem.record_use(r, False, 0, steps_observed=False) == len(set(used))
    assert mem.t_range == (4.0, 8.0)  # T_min did not drop to 0
    for i, (nu, sigma, tbar) in before.items():
        v = mem.node(i)
        assert (v.nu, v.sigma, v.mean_steps) == (nu + 1, sigma, tbar)
    mem.record_use(r, False, 0)  # an observed 0-step episode does widen the range
    assert mem.t_range == (0.0, 8.0)
    mem.validate()


def test_edge_ids_where_and_a_cross_polarity_merge_needs_a_polarity(hashing):
    mem = HypergraphMemory(hashing)
    mem.add_trajectory("T1", ["a"], [Skill("Check Twice", "Verify.", "success")], "L", True, 2,
                       meta={"task_id": "t1"})
    mem.add_trajectory("T2", ["b"], [Skill("Skip Checks", "Trust it.", "failure")], "L", False,
                       3, meta={"task_id": "t2"})
    mem.add_trajectory("T1", ["a"], [], "L", True, 2, meta={"task_id": "t1"})
    assert mem.edge_ids_where("task_id", "t1") == ["e1", "e3"]
    assert mem.edge_ids_where("task_id", "none") == []
    with pytest.raises(ValueError, match="give the merged node's polarity"):
        mem.merge_nodes("s1", "s2", Skill("M", "x."))
    new = mem.merge_nodes("s1", "s2", Skill("M", "x."), polarity="failure")
    assert mem.node(new).polarity == "failure" and mem.node(new).nu == 0
    mem.validate()
