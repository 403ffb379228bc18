"""The ten baselines (baselines/): their store -> retrieve -> update cycles on small
SkillWorld examples, the pitfalls of public reimplementations (a provider that never
stores what it extracts, retrieval that rewrites the memory, a key at retrieval that is
not the key at storage, counters reset every task, state lost on save/load), 40-episode
runs on every profile, the prompted (live) path against the scripted server, the
offline operations, and the vector store against a naive reference."""

from __future__ import annotations

import json

import numpy as np
import pytest

import hyperskill_lite.baselines.prompts as bp
from hyperskill_lite.baselines.awm import AgentWorkflowMemory
from hyperskill_lite.baselines.base import render_context, union_meta
from hyperskill_lite.baselines.cheatsheet import RetrievalSynthesisCheatsheet
from hyperskill_lite.baselines.cheatsheet_cu import CumulativeCheatsheet
from hyperskill_lite.baselines.dilu import _check_reflection
from hyperskill_lite.baselines.expel import InsightOp, check_insight_ops
from hyperskill_lite.baselines.generative import GenerativeMemory, best_case
from hyperskill_lite.baselines.generative_agents import GenerativeAgents, retrieval_scores
from hyperskill_lite.baselines.memevolve import (
    COLD_START,
    LIGHTWEIGHT_SHORTTERM,
    LightweightLongTerm,
    LightweightMemory,
    prune_order,
)
from hyperskill_lite.baselines.ops import MemoryNote, check_notes
from hyperskill_lite.baselines.plugmem import _check_guidance, _check_knowledge
from hyperskill_lite.baselines.prompts import scripted_reply
from hyperskill_lite.baselines.reasoningbank import ReasoningBankOps
from hyperskill_lite.baselines.store import VectorStore
from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.core.records import ContextItem
from hyperskill_lite.errors import LLMResponseError
from hyperskill_lite.llm.client import PromptedLLM
from hyperskill_lite.methods import BASELINES, DESCRIPTIONS, VARIANTS, make_method, registered
from hyperskill_lite.protocol import shuffled
from hyperskill_lite.runner import run_episodes
from hyperskill_lite.testing.scripted_replies import text
from hyperskill_lite.testing.scripted_server import ScriptedServer
from hyperskill_lite.types import Episode, MemoryContext, MemorySystem
from hyperskill_lite.world import SimExecutor, SimLLM, latent_of, make_tasks

ENC = HashingEncoder(dim=128, seed=0)
ALL = BASELINES + VARIANTS  # every baseline test runs on the variants too
WITHIN_TASK_ONLY = {"memevolve"}  # as shipped it shows nothing at the start of a task


class _SimOps:
    def __init__(self, llm: SimLLM) -> None:
        self._llm = llm
        self._ops = {op.name: op for s in registered() for op in s.model_operations}

    def __getattr__(self, name: str):
        return lambda *args, **kwargs: self._llm.simulate(self._ops[name], *args, **kwargs)


def sim_ops(llm: SimLLM) -> _SimOps:
    """Every baseline's operations inside SkillWorld over `llm`: each one's declared
    simulated implementation, run by ``llm.simulate`` (as a baseline built over it runs
    them)."""
    return _SimOps(llm)


def world(profile: str = "gaia", n: int = 12, seed: int = 1):
    return (
        shuffled(make_tasks(profile, seed=seed), seed=42)[:n],
        SimLLM(seed=seed),
        SimExecutor(seed=seed),
    )


def loop(system, tasks, executor):
    """The runner's loop without files: begin, run, end; returns (contexts, episodes)."""
    ctxs, eps = [], []
    for task in tasks:
        ctx = system.begin(task)
        ep = executor.run(task, ctx)
        system.end(task, ep)
        ctxs.append(ctx)
        eps.append(ep)
    return ctxs, eps


def trained(name: str, n: int = 12):
    tasks, llm, ex = world(n=n)
    system = make_method(name, llm, ENC)
    loop(system, tasks, ex)
    return system, tasks, llm, ex


def first_outcome(tasks, ex, success: bool):
    for t in tasks:
        ep = ex.run(t, MemoryContext())
        if ep.success == success:
            return t, ep
    raise AssertionError("no such episode in the fixture")


# --------------------------------------------------------------------------- vector store
def naive_topk(vecs, alive, q, k):
    scored = [(sum(a * b for a, b in zip(v, q)), i) for i, v in enumerate(vecs) if alive[i]]
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [i for _, i in scored[:k]]


def test_store_topk_matches_a_naive_reference():
    rng = np.random.default_rng(0)
    X = rng.integers(-2, 3, size=(40, 6)).astype(np.float32)  # many exact ties
    s = VectorStore(6)
    for i, v in enumerate(X):
        s.add(f"k{i}", v, {"even": i % 2 == 0})
    alive = [True] * 40
    for r in (3, 17, 22):
        s.remove(r)
        alive[r] = False
    for _ in range(20):
        q = rng.integers(-2, 3, size=6).astype(np.float32)
        for k in (0, 1, 5, 40):
            assert [r for r, _ in s.topk(q, k)] == naive_topk(X.tolist(), alive, q.tolist(), k)
        even = [i % 2 == 0 and alive[i] for i in range(40)]
        got = [r for r, _ in s.topk(q, 4, where=lambda p: p["even"])]
        assert got == naive_topk(X.tolist(), even, q.tolist(), 4)


def test_store_hand_worked_example_and_growth():
    s = VectorStore(2)
    for i, v in enumerate([[1, 0], [0.6, 0.8], [0, 1], [0.6, 0.8]]):
        s.add(f"k{i}", np.array(v), {})
    # q = (0.8, 0.6): cosines 0.8, 0.96, 0.6, 0.96 -> rows 1 and 3 tie, older first
    got = s.topk(np.array([0.8, 0.6]), 4)
    assert [r for r, _ in got] == [1, 3, 0, 2]
    assert [round(c, 2) for _, c in got] == [0.96, 0.96, 0.8, 0.6]
    for i in range(4, 40):  # past the initial capacity of 16
        s.add(f"k{i}", np.array([1.0, 0.0]), {})
    assert len(s) == 40 and s.vector(1).tolist() == pytest.approx([0.6, 0.8])


def test_store_save_load_round_trip(tmp_path):
    s = VectorStore(3)
    s.add("a", np.array([1.0, 0, 0]), {"x": [1, 2]})
    s.add("b", np.array([0, 1.0, 0]), {"x": []})
    s.remove(0)
    s.save(tmp_path, "st")
    t = VectorStore.load(tmp_path, "st")
    assert (t.keys, t.payloads, t.rows()) == (s.keys, s.payloads, s.rows())
    assert np.array_equal(t.matrix(), s.matrix())
    q = np.array([0.5, 0.5, 0.7])
    assert t.topk(q, 2) == s.topk(q, 2)


def test_store_bad_input_is_named(tmp_path):
    with pytest.raises(ValueError, match="dim must be >= 1"):
        VectorStore(0)
    s = VectorStore(2)
    with pytest.raises(ValueError, match=r"shape \(3,\), expected \(2,\)"):
        s.add("a", np.zeros(3), {})
    s.add("a", np.array([1.0, 0.0]), {})
    with pytest.raises(ValueError, match="k must be >= 0"):
        s.topk(np.array([1.0, 0.0]), -1)
    with pytest.raises(ValueError, match="a new key needs its vector"):
        s.update(0, key="b")
    s.remove(0)
    with pytest.raises(KeyError, match="row 0 does not exist or was removed"):
        s.remove(0)
    with pytest.raises(FileNotFoundError, match="missing"):
        VectorStore.load(tmp_path, "nothing")
    s.save(tmp_path, "x")
    (tmp_path / "x.json").write_text(json.dumps({"format": "other/1"}))
    with pytest.raises(ValueError, match="has format 'other/1'"):
        VectorStore.load(tmp_path, "x")


# --------------------------------------------------------------------------- shared helpers
def test_union_meta_unions_latent_lists_where_a_shallow_merge_would_not():
    a = {
        "skillworld": {
            "strategies": ["s1"],
            "errors": [],
            "spurious": [],
            "harmful": False,
            "source": "extract",
        }
    }
    b = {
        "skillworld": {
            "strategies": ["s2", "s1"],
            "errors": ["e1"],
            "spurious": ["x"],
            "harmful": True,
            "source": "merge",
        }
    }
    u = union_meta(a, b)["skillworld"]
    assert u == {
        "strategies": ["s1", "s2"],
        "errors": ["e1"],
        "spurious": ["x"],
        "harmful": True,
        "source": "extract",
    }
    assert a["skillworld"]["strategies"] == ["s1"]  # inputs untouched


def test_render_context_sections_and_other_kinds():
    items = [
        ContextItem("trajectory", "Task: q\nStep 1"),
        ContextItem("insight", "Verify."),
        ContextItem("odd", "x"),
    ]
    got = render_context(items, (("insight", "## Insights"), ("trajectory", "## Examples")))
    assert (
        got
        == "## Insights\n1. Verify.\n\n## Examples\n1. Task: q\n   Step 1\n\n## Other Memory\n1. x"
    )


# --------------------------------------------------------------------------- all ten
def test_registry_has_the_ten_baselines_as_memory_systems():
    assert BASELINES == (
        "reasoningbank",
        "expel",
        "awm",
        "generative",
        "voyager",
        "dilu",
        "cheatsheet",
        "memp",
        "memevolve",
        "plugmem",
    )
    assert VARIANTS == ("generative-agents", "cheatsheet-cu", "memevolve-longterm")
    for name in ALL:
        system = make_method(name, SimLLM(), ENC)
        assert isinstance(system, MemorySystem) and system.name == name and system.k == 3
        assert DESCRIPTIONS[name]


@pytest.fixture(scope="module")
def trained_all():
    return {name: trained(name) for name in ALL}


@pytest.mark.parametrize("name", ALL)
def test_cycle_gives_context_carrying_hidden_metadata(trained_all, name):
    system, tasks, llm, ex = trained_all[name]
    assert sum(system.stats().values()) > 0
    ctxs = [system.begin(t) for t in tasks]
    if name in WITHIN_TASK_ONLY:
        assert not any(c.items for c in ctxs) and all(c.during for c in ctxs)
        return
    assert any(c.items for c in ctxs)
    for c in ctxs:
        assert len(c.retrieved) >= len(c.items)
        for item in c.items:
            assert item.text and item.text.splitlines()[0] in c.text
            assert "skillworld" in item.meta  # every text shown carries its source's meta
            assert item.kind in (
                "insight",
                "trajectory",
                "workflow",
                "skill",
                "cheatsheet",
                "procedure",
                "guidance",
            )


@pytest.mark.parametrize("name", ALL)
def test_every_row_is_stored_under_the_embedding_of_its_own_key(trained_all, name):
    system = trained_all[name][0]
    for store_name in system.STORES:
        store = getattr(system, store_name)
        for row in store.rows():
            key = store.keys[row]
            assert np.allclose(store.vector(row), ENC.encode([key])[0], atol=1e-6)
            top, _ = store.topk(ENC.encode([key])[0], 1)[0]
            assert store.keys[top] == key


@pytest.mark.parametrize("name", ALL)
def test_retrieval_never_rewrites_the_memory(trained_all, tmp_path, name):
    system, tasks = trained_all[name][:2]
    system.save(tmp_path / "a")
    first = [system.begin(t) for t in tasks[:4]]
    again = [system.begin(t) for t in tasks[:4]]
    system.save(tmp_path / "b")
    assert [(c.text, c.retrieved) for c in first] == [(c.text, c.retrieved) for c in again]
    files = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "b").iterdir())
    for f in files:
        a, b = (tmp_path / "a" / f).read_bytes(), (tmp_path / "b" / f).read_bytes()
        if f == "state.json":  # only the model-call counter may move (PlugMem calls in begin)
            a, b = json.loads(a), json.loads(b)
            a.pop("llm_calls"), b.pop("llm_calls")
        assert a == b, f


@pytest.mark.parametrize("name", ALL)
def test_save_load_round_trip_gives_the_same_retrieval(trained_all, tmp_path, name):
    system, tasks, llm = trained_all[name][:3]
    system.save(tmp_path / "m")
    enc = HashingEncoder(dim=128, seed=0)  # a fresh cache: nothing may be re-embedded
    fresh = make_method(name, llm, enc)
    fresh.load(tmp_path / "m")
    assert fresh.stats() == system.stats() and fresh.t == system.t
    for t in tasks:
        a, b = system.begin(t), fresh.begin(t)
        assert (a.text, a.retrieved) == (b.text, b.retrieved)
        assert [i.meta for i in a.items] == [i.meta for i in b.items]
    n_keys = sum(len(getattr(system, s).keys) for s in system.STORES)
    assert enc.cache_info()["size"] >= n_keys


@pytest.mark.parametrize("name", ALL)
def test_stopping_and_resuming_from_a_save_changes_nothing(tmp_path, name):
    tasks, llm, ex = world(n=14, seed=4)
    whole = make_method(name, llm, ENC)
    ctx_whole, _ = loop(whole, tasks, ex)
    first = make_method(name, llm, ENC)
    loop(first, tasks[:7], ex)
    first.save(tmp_path / "half")
    second = make_method(name, llm, ENC)  # a new process: counters come from the file
    second.load(tmp_path / "half")
    ctx_resumed, _ = loop(second, tasks[7:], ex)
    assert [c.text for c in ctx_whole[7:]] == [c.text for c in ctx_resumed]
    whole.save(tmp_path / "a")
    second.save(tmp_path / "b")
    for f in sorted(p.name for p in (tmp_path / "a").iterdir()):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f


def test_load_refuses_another_method_or_encoder(tmp_path):
    tasks, llm, ex = world(n=3)
    system = make_method("reasoningbank", llm, ENC)
    loop(system, tasks, ex)
    system.save(tmp_path / "rb")
    with pytest.raises(ValueError, match="holds a 'reasoningbank' memory, not 'dilu'"):
        make_method("dilu", llm, ENC).load(tmp_path / "rb")
    with pytest.raises(ValueError, match="was embedded with 'hashing"):
        make_method("reasoningbank", llm, HashingEncoder(dim=64)).load(tmp_path / "rb")
    with pytest.raises(FileNotFoundError, match="no saved memory"):
        make_method("reasoningbank", llm, ENC).load(tmp_path / "none")


def test_a_model_without_the_operation_is_a_clear_error():
    tasks, _, ex = world(n=1)
    system = make_method("expel", object(), ENC)  # type: ignore[arg-type]
    assert system.begin(tasks[0]).empty
    with pytest.raises(TypeError, match="needs the model operation 'insight_ops'"):
        system.end(tasks[0], ex.run(tasks[0], MemoryContext()))
    other = make_method("reasoningbank", PromptedLLM("http://127.0.0.1:9/v1", "m", "k"), ENC)
    system = type(system)(other.llm, ENC)  # ExpeL over another baseline's prompted operations
    with pytest.raises(TypeError, match="'insight_ops', which ReasoningBankOps does not"):
        system.end(tasks[0], ex.run(tasks[0], MemoryContext()))
    with pytest.raises(ValueError, match="retrieval count k must be >= 1"):
        LightweightMemory(SimLLM(), ENC, k=0)


@pytest.mark.parametrize("profile", ["gaia", "webwalker", "xbench"])
def test_forty_episodes_on_every_profile_with_memory_in_later_episodes(tmp_path, profile):
    tasks = shuffled(make_tasks(profile, seed=0), seed=42)[:40]
    for name in ALL:
        system = make_method(name, SimLLM(seed=0), ENC)
        recs = run_episodes(system, tasks, SimExecutor(seed=0), tmp_path / name, progress=False)
        assert len(recs) == 40 and not any(r["error"] for r in recs)
        if name in WITHIN_TASK_ONLY:  # learns across tasks, shows it only within one
            assert all(r["context_tokens"] == 0 for r in recs)
            assert system.stats() != make_method(name, SimLLM(seed=0), ENC).stats()
            continue
        with_memory = [r["context_tokens"] > 0 for r in recs[20:]]
        assert sum(with_memory) >= 15, (name, sum(with_memory))


def test_with_minilm_keys_hold_and_every_baseline_gives_context(minilm):
    tasks, _, _ = world("xbench", n=10, seed=2)
    for name in ALL:
        system = make_method(name, SimLLM(seed=2), minilm)
        ctxs, _ = loop(system, tasks, SimExecutor(seed=2))
        assert any(c.items for c in ctxs[5:]) or name in WITHIN_TASK_ONLY, name
        for store_name in system.STORES:
            store = getattr(system, store_name)
            for row in store.rows()[:5]:
                assert np.allclose(
                    store.vector(row), minilm.encode([store.keys[row]])[0], atol=1e-6
                )


# --------------------------------------------------------------------------- one per method
def test_reasoningbank_stores_what_it_extracts_under_the_task_key():
    tasks, llm, ex = world(n=6)
    system = make_method("reasoningbank", llm, ENC)
    for t in tasks[:3]:
        ep = ex.run(t, MemoryContext())
        system.end(t, ep)
        row = system.bank.rows()[-1]
        assert system.bank.keys[row] == t.text
        expected = [n.to_dict() for n in sim_ops(llm).reasoning_items(t, ep)]
        assert system.bank.payloads[row]["items"] == expected
    ctx = system.begin(tasks[1])  # the task's own entry is the nearest key
    items = system.bank.payloads[system.bank.rows()[1]]["items"]
    assert ctx.retrieved[: len(items)] == [f"rb1.{j}" for j in range(len(items))]
    assert system.stats()["entries"] == 3  # update = append
    assert system.llm_calls == 3


def test_each_provider_stores_what_its_operation_returned():
    tasks, llm, ex = world(n=10)
    ts, es = first_outcome(tasks, ex, success=True)
    expel = make_method("expel", llm, ENC)
    expel.end(ts, es)
    added = [o.note.text for o in sim_ops(llm).insight_ops([], ts, es, None) if o.op == "ADD"]
    assert [expel.rules.keys[r] for r in expel.rules.rows()] == added
    memp = make_method("memp", llm, ENC)
    memp.end(ts, es)
    assert memp.procedures.payloads[0]["note"] == sim_ops(llm).build_procedure(ts, es).to_dict()
    got = sim_ops(llm).strategic_operational(ts, es)
    want = [(tier, n.content) for tier in ("strategic", "operational") for n in got[tier]]
    seeds = [(tier, text) for tier, texts in COLD_START.items() for text in texts]
    for name, before in (("memevolve-longterm", []), ("memevolve", seeds)):
        lw = make_method(name, llm, ENC)
        lw.end(ts, es)
        rows = lw.longterm.rows()
        stored = [(lw.longterm.payloads[r]["tier"], lw.longterm.keys[r]) for r in rows]
        assert stored == before + want, name
    gen = make_method("generative-agents", llm, ENC)
    gen.end(ts, es)
    assert gen.stream.keys[0] == f"Task: {ts.text}\nOutcome: success\n{es.trajectory}"
    assert gen.stream.payloads[0]["note"]["meta"] == sim_ops(llm).trajectory_meta(ts, es)
    pm = make_method("plugmem", llm, ENC)
    pm.end(ts, es)
    ku = sim_ops(llm).structure_knowledge(ts, es)
    assert {n.text for _, n in ku.prescriptions + ku.propositions} == set(pm.knowledge.keys)


def test_expel_rule_operations_hand_example():
    system = make_method("expel", SimLLM(), ENC)
    a, b = MemoryNote("", "Check the official source."), MemoryNote("", "Read every clue.")
    system._apply([InsightOp("ADD", note=a), InsightOp("ADD", note=b)], [])
    assert [p["count"] for p in system.rules.payloads] == [2, 2]
    shown = system._rule_list()
    system._apply([InsightOp("UPVOTE", 0), InsightOp("DOWNVOTE", 1)], shown)
    assert [p["count"] for p in system.rules.payloads] == [3, 1]
    shown = system._rule_list()  # by importance: a (3), b (1)
    edited = MemoryNote("", "Check the official source first, then a second one.")
    system._apply(
        [InsightOp("DOWNVOTE", 1), InsightOp("EDIT", 0, edited), InsightOp("UPVOTE", 1)], shown
    )  # b removed; the vote on it is skipped
    assert system.rules.rows() == [0] and system.removed_rules == 1
    assert system.rules.payloads[0]["count"] == 4
    assert system.rules.keys[0] == edited.text
    assert np.allclose(system.rules.vector(0), ENC.encode([edited.text])[0])


def test_expel_downvote_costs_three_once_the_list_is_full():
    system = make_method("expel", SimLLM(), ENC)
    system.max_rules = 2  # full at 2 + 5 = 7 rules
    notes = [MemoryNote("", f"Rule number {i} about sources.") for i in range(7)]
    system._apply([InsightOp("ADD", note=n) for n in notes[:6]], [])
    system._apply([InsightOp("DOWNVOTE", 0)], system._rule_list())  # 6 rules: -1
    assert sorted(p["count"] for p in system.rules.payloads) == [1, 2, 2, 2, 2, 2]
    system._apply([InsightOp("ADD", note=notes[6])], [])
    shown = system._rule_list()  # 7 rules: full
    system._apply([InsightOp("DOWNVOTE", 0)], shown)  # 2 - 3 < 0: removed
    assert len(system.rules) == 6 and system.removed_rules == 1


def test_expel_cycle_keeps_votes_across_tasks_and_retrieves_successes_only():
    system, tasks, llm, ex = trained("expel", n=24)
    counts = [system.rules.payloads[r]["count"] for r in system.rules.rows()]
    assert max(counts) > 2  # upvotes accumulated over tasks
    for t in tasks[:6]:
        for tid in system.begin(t).retrieved:
            if tid.startswith("traj"):
                assert system.pool.payloads[int(tid[4:])]["success"]
    assert system.stats()["experiences"] == 24


def test_awm_induces_from_successes_only_and_can_show_all():
    tasks, llm, ex = world(n=10)
    system = AgentWorkflowMemory(llm, ENC)
    t, ep = first_outcome(tasks, ex, success=False)
    system.end(t, ep)
    assert len(system.workflows) == 0 and system.llm_calls == 0
    t, ep = first_outcome(tasks, ex, success=True)
    system.end(t, ep)
    system.end(t, ep)  # the same workflow again is not added twice
    assert len(system.workflows) == 1 and system.llm_calls == 2
    note = sim_ops(llm).induce_workflows(t, ep)[0]
    assert system.workflows.keys[0] == f"{note.title}: {note.description}"
    every = AgentWorkflowMemory(llm, ENC, k=None)
    loop(every, tasks, ex)
    assert len(every.begin(tasks[0]).items) == len(every.workflows) > 3


def test_generative_agents_retrieval_score_hand_example():
    # recency 1, .5, .25; importance 2, 8, 5; relevance .9, .1, .5
    s = retrieval_scores(
        np.array([1.0, 0.5, 0.25]), np.array([2.0, 8.0, 5.0]), np.array([0.9, 0.1, 0.5])
    )
    # minmax: rec [1, 1/3, 0], imp [0, 1, .5], rel [1, 0, .5]
    assert s.tolist() == pytest.approx([2.0, 4 / 3, 1.0])


def test_generative_agents_importance_accumulates_across_tasks_then_reflects():
    tasks, llm, ex = world(n=12)
    system = GenerativeAgents(llm, ENC, reflect_threshold=1000.0)
    total = 0.0
    for t in tasks[:4]:
        system.end(t, ex.run(t, MemoryContext()))
        total += system.stream.payloads[-1]["importance"]
        assert system.importance_since_reflection == pytest.approx(total)  # not reset per task
    system.reflect_threshold = total + 1.0
    t = tasks[4]
    system.end(t, ex.run(t, MemoryContext()))
    assert system.reflections == 1 and system.importance_since_reflection == 0.0
    assert system.stats()["reflections"] >= 1
    ctx = system.begin(tasks[5])
    rows = system._pending[tasks[5].id]
    system.end(tasks[5], ex.run(tasks[5], ctx))
    assert [system.stream.payloads[r]["last_access"] for r in rows] == [5] * len(rows)


def test_voyager_keys_skills_by_description_and_replaces_same_name():
    tasks, llm, ex = world(n=10)
    system = make_method("voyager", llm, ENC)
    t, ep = first_outcome(tasks, ex, success=False)
    system.end(t, ep)
    assert len(system.library) == 0
    t, ep = first_outcome(tasks, ex, success=True)
    system.end(t, ep)
    system.end(t, ep)
    note = sim_ops(llm).describe_program(t, ep)
    assert len(system.library) == 1 and system.library.payloads[0]["version"] == 2
    assert system.library.keys[0] == note.description
    assert system.begin(t).items[0].text.startswith(note.title)


def test_dilu_stores_corrected_failures_and_raw_successes():
    tasks, llm, ex = world(n=10)
    system = make_method("dilu", llm, ENC)
    tf, ef = first_outcome(tasks, ex, success=False)
    ts, es = first_outcome(tasks, ex, success=True)
    system.end(tf, ef)
    system.end(ts, es)
    fix = sim_ops(llm).reflect_decision(tf, ef)
    assert system.experiences.payloads[0]["record"].endswith(f"Corrected reasoning: {fix.content}")
    assert system.experiences.payloads[1]["record"] == es.trajectory
    assert latent_of(system.experiences.payloads[1]["meta"])["strategies"]
    assert system.llm_calls == 1  # a success is stored without a model call
    assert system.begin(tf).retrieved[0] == "exp0"


def test_generative_stores_successes_by_task_and_shows_the_best_scored_of_three():
    tasks, llm, ex = world(n=30)
    system = GenerativeMemory(llm, ENC)
    ctxs, eps = loop(system, tasks, ex)
    wins = [(t, e) for t, e in zip(tasks, eps) if e.success]
    assert len(system.cases) == len(wins) < len(tasks)  # AgentSquare keeps successes only
    assert system.cases.keys == [t.text for t, _ in wins]  # keyed by the task
    assert system.cases.payloads[0]["note"]["content"].endswith(wins[0][1].trajectory)
    t = tasks[0]
    calls = system.llm_calls
    ctx = system.begin(t)
    assert system.llm_calls - calls == 3 == ctx.llm_calls  # one score per candidate
    top = system.cases.topk(ENC.encode([t.text])[0], 3)
    notes = [MemoryNote.from_dict(system.cases.payloads[r]["note"]) for r, _ in top]
    scores = [sim_ops(llm).rate_relevance(n, t) for n in notes]
    want = top[best_case(scores, [s for _, s in top])][0]
    assert len(ctx.items) == 1 and ctx.retrieved == [f"c{want}"]
    every = GenerativeMemory(llm, ENC, keep="all")  # EvolveLab keeps every trajectory
    loop(every, tasks[:10], ex)
    assert len(every.cases) == 10
    with pytest.raises(ValueError, match="keep must be one of"):
        GenerativeMemory(llm, ENC, keep="some")


def test_generative_relevance_follows_the_tasks_archetypes():
    tasks, llm, ex = world(n=12)
    t = tasks[0]
    lib = llm.library
    archs = [a for _, a in llm.plan(t)]
    own = latent_of_note(llm, lib.archetypes[archs[0]].strategy)
    other_id = next(
        i for i in lib.of_kind("strategy") if not set(archs) & set(lib.latents[i].affects)
    )
    other = latent_of_note(llm, other_id)
    assert sim_ops(llm).rate_relevance(own, t) > sim_ops(llm).rate_relevance(other, t)


def latent_of_note(llm, latent_id):
    s = llm.phrase(latent_id, llm.rng("note", latent_id))
    return MemoryNote(s.name, s.content, meta=s.meta)


def test_cheatsheet_rs_synthesises_before_the_task_and_commits_in_end():
    tasks, llm, ex = world(n=20)
    system = RetrievalSynthesisCheatsheet(llm, ENC, max_entries=5)
    loop(system, tasks[:12], ex)
    assert len(system.records) == 12 and system.syntheses == 11  # none before the first record
    sheet = [n.text for n in system.sheet]
    t = tasks[12]
    ctx = system.begin(t)
    assert [n.text for n in system.sheet] == sheet  # begin leaves the sheet as it was
    assert 0 < len(ctx.items) <= 5 and ctx.llm_calls == 1
    assert [r[0] for r in ctx.retrieved[:3]] == ["r"] * 3
    assert ctx.retrieved[3:] == [f"cs{i}" for i in range(1, len(ctx.items) + 1)]
    system.end(t, ex.run(t, ctx))
    assert [n.text for n in system.sheet] == [i.text for i in ctx.items]  # now committed
    archs = {a for _, a in llm.plan(tasks[13])}
    ctx = system.begin(tasks[13])
    lib = llm.library
    first = ctx.items[0].meta
    assert archs & {a for i in latent_of(first)["strategies"] + latent_of(first)["errors"]
                    + latent_of(first)["spurious"] for a in lib.latents[i].affects}


def test_cheatsheet_cu_curator_reads_the_outcome_as_the_self_judge_would():
    tasks, llm, ex = world(n=20)
    flipped = SimLLM(llm.params.replace(self_judge_flip=1.0), seed=1)
    honest = SimLLM(llm.params.replace(self_judge_flip=0.0), seed=1)
    t, ep = first_outcome(tasks, ex, success=True)
    believed_fail = sim_ops(flipped).curate_cheatsheet([], t, ep)
    believed_win = sim_ops(honest).curate_cheatsheet([], t, ep)
    assert all(n.polarity == "failure" for n in believed_fail if not latent_of(n.meta)["spurious"])
    assert all(n.polarity == "success" for n in believed_win)


def test_cheatsheet_cu_is_shown_whole_and_curated_within_budget():
    tasks, llm, ex = world(n=20)
    system = CumulativeCheatsheet(llm, ENC, max_entries=4)
    loop(system, tasks, ex)
    assert len(system.entries) == 4 and system.curations == 20
    ctx = system.begin(tasks[0])
    assert len(ctx.items) == 4 and ctx.retrieved == system.ids
    kept = dict(zip([n.text for n in system.entries], system.ids))
    t = tasks[0]
    system.end(t, ex.run(t, ctx))
    for n, i in zip(system.entries, system.ids):
        if n.text in kept:
            assert i == kept[n.text]  # ids survive curation


def test_memp_revises_the_retrieved_procedure_in_place_after_a_failure():
    tasks, llm, ex = world(n=30)
    system = make_method("memp", llm, ENC)
    for t in tasks:
        ctx = system.begin(t)
        ep = ex.run(t, ctx)
        before = {
            r: (system.procedures.keys[r], system.procedures.payloads[r])
            for r in system.procedures.rows()
        }
        system.end(t, ep)
        if not ep.success and ctx.items:
            row = int(ctx.retrieved[0][4:])
            key, payload = before[row]
            assert system.procedures.keys[row] == key  # same key after revision
            assert system.procedures.payloads[row]["revisions"] == payload["revisions"] + 1
            return
    raise AssertionError("no failure with retrieved procedures in the fixture")


def test_memevolve_counters_persist_and_prune_hand_example():
    assert prune_order([0, 2, 1, 0], [3, 2, 4, 0]) == [1, 2, 0, 3]
    tasks, llm, ex = world(n=30)
    system = LightweightLongTerm(llm, ENC, max_per_tier=3, buffer=2)
    usage = 0
    for t in tasks:
        ctx = system.begin(t)
        system.end(t, ex.run(t, ctx))
        usage += len(ctx.items)
        for tier in ("strategic", "operational"):
            assert system.stats()[tier] <= 3 + 2
    live = system.longterm.rows()
    assert sum(system.longterm.payloads[r]["usage"] for r in live) <= usage
    assert system.pruned > 0
    sigs = [
        (system.longterm.payloads[r]["tier"], system.longterm.payloads[r]["signature"])
        for r in live
    ]
    assert len(sigs) == len(set(sigs))  # no duplicate within a tier


def test_memevolve_as_shipped_notes_facts_within_a_task_every_five_steps():
    tasks, llm, _ = world(n=3)
    system = LightweightMemory(llm, ENC)
    assert system.stats() == {"strategic": 5, "operational": 2}  # the cold-start seeds
    ctx = system.begin(tasks[0])
    assert ctx.empty and ctx.text == "" and ctx.during is not None
    steps = ["Searched the archive.", "The census lists 12,400 people in 1990.",
             "Found 3 tables.", "Nothing new here.", "Opened page 2.", "Read 7 rows.",
             "Still reading.", "The 1991 figure is 12,650."]
    shown = {t: ctx.during(t, s) for t, s in enumerate(steps, 1)}
    # notes appear at the first step that has any (step 2 = EvolveLab step 3), then only
    # once 5 more steps have passed (step 7), with every fact noted so far
    assert [t for t, n in shown.items() if n] == [2, 7]
    assert shown[2] == "1. The census lists 12,400 people in 1990."
    assert shown[7].splitlines() == ["1. The census lists 12,400 people in 1990.",
                                     "2. Found 3 tables.", "3. Opened page 2.", "4. Read 7 rows."]
    assert system.llm_calls == len(steps)  # one extraction per step
    small = LightweightMemory(llm, ENC, max_shortterm=2, interval=1)
    c = small.begin(tasks[1])
    got = [c.during(t, s) for t, s in enumerate(steps, 1)]
    assert [n for n in got if n][-1] == "1. Read 7 rows.\n2. The 1991 figure is 12,650."  # oldest dropped
    fresh = system.begin(tasks[1])  # a new task starts with no notes
    assert fresh.during(1, "Nothing here.") is None


def test_memevolve_notes_reach_the_live_agent_in_later_steps():
    from hyperskill_lite.agent.loop import AgentExecutor
    from hyperskill_lite.agent.tools import Toolbox
    from hyperskill_lite.testing.scripted_replies import tool_call

    tasks, _, _ = world(n=1)

    def responder(request):
        last = request["messages"][-1]["content"] or ""
        if last.startswith(LIGHTWEIGHT_SHORTTERM.splitlines()[0]):
            return text(json.dumps({"key_facts": ["The archive lists 12,400 people in 1990."]}))
        n = sum(1 for m in request["messages"] if m["role"] == "tool")
        if n < 2:
            return tool_call("python", {"code": "print(1)"})
        return text("FINAL ANSWER: 12400")

    with ScriptedServer(responder) as srv:
        llm = PromptedLLM(srv.base_url, "m", "k", retry_base_delay=0.001)
        system = make_method("memevolve", llm, ENC)
        calls = system.llm_calls
        ctx = system.begin(tasks[0])
        ep = AgentExecutor(llm, Toolbox(), protocol="tools").run(tasks[0], ctx)
        agent = [r for r in srv.requests if r.get("tools")]
    assert ep.answer == "12400" and system.llm_calls - calls == 2  # two steps before the answer
    assert "Noted so far" not in agent[0]["messages"][1]["content"]
    assert "12,400 people in 1990" in agent[1]["messages"][1]["content"]  # shown from step 2


def test_plugmem_links_knowledge_under_shared_nodes_and_distils_guidance():
    tasks, llm, ex = world(n=16)
    system = make_method("plugmem", llm, ENC)
    loop(system, tasks, ex)
    n_links = sum(len(system.intents.payloads[r]["knowledge"]) for r in system.intents.rows())
    assert n_links >= system.stats()["prescriptions"] > 0
    t = tasks[0]
    calls = system.llm_calls
    ctx = system.begin(t)
    assert ctx.llm_calls == system.llm_calls - calls == 2
    assert len(ctx.items) == 1 and ctx.items[0].kind == "guidance"
    notes = [
        MemoryNote.from_dict(system.knowledge.payloads[int(r[1:])]["note"]) for r in ctx.retrieved
    ]
    assert ctx.items[0].meta == sim_ops(llm).distill_guidance(t, notes).meta
    # a node seen again is the same node: the same intent text maps to its own row
    text = system.intents.keys[0]
    assert system._node(system.intents, text) == 0


# --------------------------------------------------------------------------- SimLLM ops
def test_sim_operations_follow_the_outcome_and_carry_the_metadata_shape():
    tasks, llm, ex = world(n=10)
    ts, es = first_outcome(tasks, ex, success=True)
    tf, ef = first_outcome(tasks, ex, success=False)
    for note in sim_ops(llm).reasoning_items(ts, es):
        lat = latent_of(note.meta)
        assert lat["strategies"] or lat["spurious"]
        assert not lat["errors"] and note.polarity == "success"
    for note in sim_ops(llm).reasoning_items(tf, ef):
        assert not latent_of(note.meta)["strategies"] and note.polarity == "failure"
    assert latent_of(sim_ops(llm).trajectory_meta(tf, ef))["errors"] == [ef.meta["skillworld"]["error"]]
    assert sim_ops(llm).reasoning_items(ts, es) == sim_ops(SimLLM(seed=1)).reasoning_items(ts, es)
    assert sim_ops(llm).induce_workflows(tf, ef) == []
    with pytest.raises(ValueError, match="only verified successful programs"):
        sim_ops(llm).describe_program(tf, ef)
    with pytest.raises(ValueError, match="reflects on failed decisions"):
        sim_ops(llm).reflect_decision(ts, es)
    for note in sim_ops(llm).strategic_operational(ts, es)["strategic"]:
        assert set(note.meta["skillworld"]) == {
            "strategies",
            "errors",
            "spurious",
            "harmful",
            "source",
        }


def test_sim_distill_keeps_only_knowledge_that_concerns_the_task():
    tasks, llm, ex = world(n=10)
    t = tasks[0]
    lib = llm.library
    archs = [a for _, a in llm.plan(t)]  # relevance as the model reads the task
    own = llm.phrase(lib.archetypes[archs[0]].strategy, llm.rng("x"))
    other_id = next(
        i for i in lib.of_kind("strategy") if not set(archs) & set(lib.latents[i].affects)
    )
    other = llm.phrase(other_id, llm.rng("y"))
    notes = [MemoryNote(s.name, s.content, meta=s.meta) for s in (own, other)]
    g = sim_ops(llm).distill_guidance(t, notes)
    assert latent_of(g.meta)["strategies"] == [lib.archetypes[archs[0]].strategy]
    assert sim_ops(llm).distill_guidance(t, notes[1:]) is None


# --------------------------------------------------------------------------- prompted path
def _responder(request):
    reply = scripted_reply(request["messages"][-1]["content"])
    return text(json.dumps(reply))


def test_every_baseline_runs_live_against_the_scripted_server():
    tasks, _, ex = world(n=3)
    with ScriptedServer(_responder) as srv:
        llm = PromptedLLM(srv.base_url, "scripted-model", "k", retry_base_delay=0.001)
        for name in ALL:
            system = make_method(name, llm, ENC)
            if name == "generative-agents":
                system.reflect_threshold = 10.0
            ctxs, _ = loop(system, tasks, ex)
            later = system.begin(tasks[0])
            if name in WITHIN_TASK_ONLY:  # SimExecutor never steps: call the hook here
                assert later.during(1, "Step 1: the table lists 12,400 people in 1990.")
                continue
            assert later.items, name
            assert all(i.meta == {} for i in later.items)  # live notes carry no hidden meta
        assert not srv.errors
        heads = {r["messages"][-1]["content"].splitlines()[0] for r in srv.requests}
    assert heads == {t.splitlines()[0] for t in bp.templates()}  # every baseline prompt was sent


def test_prompted_operation_rejects_an_unusable_reply_after_one_reask():
    tasks, _, ex = world(n=1)
    t = tasks[0]
    ep = Episode(t.id, True, 3, trajectory="Step 1: searched.")
    with ScriptedServer([text('{"memory_items": []}'), text("no json")]) as srv:
        llm = PromptedLLM(srv.base_url, "m", "k", retry_base_delay=0.001)
        ops = make_method("reasoningbank", llm, ENC).llm
        assert isinstance(ops, ReasoningBankOps) and ops.llm is llm
        with pytest.raises(LLMResponseError, match="reasoningbank"):
            ops.reasoning_items(t, ep)
        assert len(srv.requests) == 2


_JUNK = [
    None,
    0,
    1e309,
    True,
    "",
    "text",
    [],
    {},
    [None, 3, "x"],
    {"x": 1},
    {"title": 5, "content": [1, 2]},
    {"content": {"a": 1}},
    {"steps": "abc"},
    {"steps": [None, 3, {"a": None}]},
    {"count": 1e309, "content": "c"},
]
_KEYS = (
    "memory_items",
    "operations",
    "workflows",
    "insights",
    "skills",
    "entries",
    "procedures",
    "intents",
    "prescriptions",
    "propositions",
    "strategic",
    "operational",
    "importance",
    "corrected_reasoning",
    "guidance",
    "op",
    "rule_number",
    "rule",
)
CORPUS = _JUNK + [shape for k in _KEYS for v in _JUNK for shape in ({k: v}, {k: [v, v]}, [{k: v}])]


def test_reply_checks_return_a_value_or_a_value_error_on_any_json():
    from hyperskill_lite.baselines.ops import checks as L

    checks = [
        lambda o: L.check_notes(o, ("memory_items", "items")),
        lambda o: L.check_notes(o, ("entries",), min_items=0),
        lambda o: check_insight_ops(o, 3),
        L.check_importance,
        _check_reflection,
        lambda o: _check_knowledge(o, False),
        _check_guidance,
        lambda o: L._need_description(L.check_notes(o, ("skills",), max_items=1)[0]),
        lambda o: L._dict_of_lists(o, ("strategic", "operational"), 2),
    ]
    for check in checks:
        for obj in CORPUS:
            try:
                check(obj)
            except ValueError:
                pass


def test_an_unusable_reply_fails_the_episode_not_the_run(tmp_path):
    tasks, _, ex = world(n=3)
    with ScriptedServer([], default=text("not json at all")) as srv:
        llm = PromptedLLM(srv.base_url, "m", "k", retry_base_delay=0.001)
        recs = run_episodes(
            make_method("reasoningbank", llm, ENC), tasks, ex, tmp_path, progress=False
        )
    assert len(recs) == 3
    assert all(r["error"].startswith("end: reasoningbank:") for r in recs)


def test_reply_checks_repair_or_reject():
    notes = check_notes(
        {"memory_items": [{"title": "**Verify Twice**", "content": "Check."}, {"title": "empty"}]},
        ("memory_items",),
    )
    assert [(n.title, n.content) for n in notes] == [("Verify Twice", "Check.")]
    with pytest.raises(ValueError, match="at least 1 usable item"):
        check_notes({"memory_items": [{"title": "x"}]}, ("memory_items",))
    ops = check_insight_ops(
        [
            {"op": "REMOVE", "rule_number": 1},
            {"op": "EDIT", "rule_number": 9, "rule": "x"},
            {"op": "SHOUT"},
        ],
        n_rules=2,
    )
    assert [(o.op, o.index) for o in ops] == [("DOWNVOTE", 0)]
