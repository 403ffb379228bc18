"""The performance harness (benchmarks/): a smoke run at a tiny N that writes well-formed
JSON and markdown, the peak-memory subprocess, the synthetic workload, and the tie that
makes its ratios meaningful: the naive reference retrieves, prunes and merges exactly as
HypergraphMemory does (on the worked example by hand, and on a random memory). No
timing is asserted."""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCH))

import report  # noqa: E402
import run_all  # noqa: E402
from naive_store import NaiveStore  # noqa: E402
from synthetic import LookupEncoder, make_workload, vocab_size  # noqa: E402

from hyperskill_lite.core.config import HyperSkillConfig  # noqa: E402
from hyperskill_lite.core.io import save_memory  # noqa: E402
from hyperskill_lite.core.maintenance import merge, prune  # noqa: E402
from hyperskill_lite.core.memory import HypergraphMemory  # noqa: E402
from hyperskill_lite.core.records import Skill  # noqa: E402
from hyperskill_lite.core.retrieval import Retrieval, retrieve  # noqa: E402
from hyperskill_lite.core.template_merger import TemplateMerger  # noqa: E402

# the worked example of tests/conftest.py, numbers as in tests/test_retrieval.py
WORKED_CONTEXT = """## Past Experience
1. [success] L1
2. [success] L3
3. [failure] L2

## Relevant Skills
1. **Official Source First**: Start from the official source.

## Mistakes to Avoid
1. **Unit Mixup**: Mixing units gives wrong totals."""


def naive_copy(mem: HypergraphMemory) -> NaiveStore:
    """The same trajectories added, in order, to a NaiveStore with the same encoder."""
    store = NaiveStore(mem.encoder, mem.config)
    for e in mem.edge_ids():
        v = mem.edge(e)
        nodes = [mem.node(i) for i in v.node_ids]
        plan = [n.content for n in nodes if n.kind == "subtask"]
        skills = [Skill(n.name, n.content, n.polarity) for n in nodes if n.kind == "skill"]
        assert store.add_trajectory(v.task, plan, skills, v.lesson, v.success, v.steps) == e
    return store


def test_naive_reference_on_the_worked_example(worked):
    store = naive_copy(worked)
    r = store.retrieve("Q", ["qa", "qb"])
    # Eq. 4: cos(q_plan, u): u4 1, u2 .6 = u5 .6 (u2 older); E_sub = [e3, e2]
    assert r["subtask_ids"] == ["u4", "u2"] and r["subtask_edge_ids"] == ["e3", "e2"]
    # Eq. 5: cos(q_task, e): e1 .8, e3 .6; Eq. 6: E* = [e1, e3, e2]
    assert r["trajectory_edge_ids"] == ["e1", "e3"] and r["edge_ids"] == ["e1", "e3", "e2"]
    # Eq. 8-9: kappa s1 3, s4 2 (cos .8) before s2 2 (cos 0), s3 1
    assert list(r["kappa"].items()) == [("s1", 3), ("s4", 2), ("s2", 2), ("s3", 1)]
    assert r["skill_ids"] == ["s1", "s4"] and r["context"] == WORKED_CONTEXT
    assert r["retrieved_ids"] == retrieve(worked, "Q", ["qa", "qb"]).retrieved_ids


@pytest.mark.parametrize("mode, rho", [("ratio", 0.1), ("ratio", 0.5), ("threshold", 0.1),
                                       ("fraction", 0.3)])
def test_naive_reference_matches_memory_on_a_random_memory(mode, rho):
    w = make_workload(150, n_queries=25, seed=5, dim=32)
    cfg = HyperSkillConfig(prune_mode=mode, rho=rho)
    mem, store = HypergraphMemory(w.encoder, cfg), NaiveStore(w.encoder, cfg)
    for e in w.episodes:
        a = mem.add_trajectory(
            e.task,
            e.plan,
            e.skills,
            e.lesson,
            e.success,
            e.steps,
            retrieval=Retrieval(edge_ids=e.used),
        )
        assert a == store.add_trajectory(
            e.task, e.plan, e.skills, e.lesson, e.success, e.steps, used=e.used
        )
    assert len(store.skills) == mem.stats()["skill_nodes"]

    def same_retrievals() -> None:
        for task, plan in w.queries:
            r, n = retrieve(mem, task, plan), store.retrieve(task, plan)
            for key in ("subtask_ids", "subtask_edge_ids", "trajectory_edge_ids", "edge_ids"):
                assert getattr(r, key) == n[key], key
            assert list(r.kappa.items()) == list(n["kappa"].items())
            assert (r.skill_ids, r.context) == (n["skill_ids"], n["context"])

    same_retrievals()
    pruned = [p["id"] for p in prune(mem)]
    assert pruned == store.prune() and pruned  # the workload's stats make prune work
    merged = [(m["a"], m["b"], m["new_id"]) for m in merge(mem, TemplateMerger())]
    assert merged == store.merge(TemplateMerger()) and merged  # planted near-duplicates
    same_retrievals()
    for i in mem.node_ids(kind="skill"):
        assert mem.node(i).nu == store.skills[i]["nu"]
        assert mem.node(i).gamma == pytest.approx(store.gamma(store.skills[i]))


def test_naive_store_save_load_roundtrip(tmp_path):
    w = make_workload(40, n_queries=3, seed=1, dim=16)
    store = NaiveStore(w.encoder)
    for e in w.episodes:
        store.add_trajectory(e.task, e.plan, e.skills, e.lesson, e.success, e.steps, used=e.used)
    store.save(tmp_path / "naive")
    back = NaiveStore.load(tmp_path / "naive", w.encoder)
    for task, plan in w.queries:
        assert back.retrieve(task, plan) == store.retrieve(task, plan)


def test_workload_shape_and_lookup_encoder():
    assert [vocab_size(n) for n in (1_000, 10_000, 100_000)] == [398, 1995, 10000]
    w = make_workload(60, n_queries=4, seed=2, dim=8)
    assert all(len(e.plan) == 3 and 2 <= len(e.skills) <= 5 for e in w.episodes)
    assert w.episodes[0].used == [] and w.episodes[0].skills_before == 0
    X = w.encoder.encode([w.episodes[0].task + "\n" + w.episodes[0].lesson, w.queries[1][0]])
    assert X.shape == (2, 8) and np.allclose(np.linalg.norm(X, axis=1), 1.0, atol=1e-5)
    assert w.encoder.n_fallback == 0
    w.encoder.encode(["a text nobody embedded"])  # goes to the fallback, and is counted
    assert w.encoder.n_fallback == 1
    assert make_workload(60, 4, seed=2, dim=8).episodes == w.episodes  # the seed fixes it


def test_lookup_encoder_errors():
    enc = LookupEncoder(["a"], np.ones((1, 2), dtype=np.float32) / np.sqrt(2))
    with pytest.raises(KeyError, match="no vector for text 'b'"):
        enc.encode(["a", "b"])
    with pytest.raises(ValueError, match="expected \\(2, d\\)"):
        LookupEncoder(["a", "b"], np.ones((1, 2)))
    with pytest.raises(ValueError, match="distinct"):
        LookupEncoder(["a", "a"], np.ones((2, 2)))
    with pytest.raises(TypeError, match="single str"):
        enc.encode("a")
    with pytest.raises(ValueError, match="make_workload: need n_edges >= 1"):
        make_workload(0)


@pytest.mark.parametrize("name", ["synthetic", "naive_store", "report", "measure"])
def test_benchmark_doctests(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0


def test_fit_exponent_and_extrapolation_by_hand():
    # y = 3 x^1.5: slope 1.5; from (1e3, 1e4) to 1e5 the last value grows by 10^1.5
    x = [1e3, 1e4]
    y = [3 * v**1.5 for v in x]
    assert report.fit_exponent(x, y) == pytest.approx(1.5)
    assert report.extrapolate(x, y, 1e5) == pytest.approx(3 * 1e5**1.5)
    assert report.fit_exponent([1e3], [1.0]) is None


def test_harness_smoke_run_writes_json_and_markdown(tmp_path):
    out = tmp_path / "results"
    gc.freeze()  # the harness collects garbage before each timing: its own, not the test session's
    try:
        res = run_all.main(
            ["--sizes", "40", "80", "--queries", "6", "--naive-max", "40", "--no-structured",
             "--no-peak", "--no-workflow", "--skillworld-edges", "20", "--no-live", "--no-serve",
             "--out", str(out)]
        )  # fmt: skip
    finally:
        gc.unfreeze()
    data = json.loads((out / "perf.json").read_text())
    assert data["sizes"].keys() == {"40", "80"} and data == json.loads(json.dumps(res))
    small, big = data["sizes"]["40"], data["sizes"]["80"]
    assert small["tags"] == ["naive"] and big["tags"] == []
    assert small["retrieval"]["naive_agrees"] == "6/6"
    for r in (small, big):
        assert r["retrieval"]["ours"]["n"] == 6 and r["retrieval"]["ours"]["p95"] > 0
        assert r["files"]["roundtrip_ok"] and r["files"]["ours"]["bytes"] > 0
        assert r["maintenance"]["ours"]["total_s"] > 0 and r["maintenance"]["floor_s"] > 0
        f = r["files"]
        assert f["ours_f16"]["bytes"] < f["ours"]["bytes"] and f["ours_mmap"]["load_s"] > 0
        assert f["f16_agreement"]["queries"] == 6
        assert 0 <= f["f16_agreement"]["identical"] <= 6
    # the naive reference at 80 is extrapolated from 40 alone: impossible, so left out
    assert data["naive_extrapolated"] == {}
    assert data["exponents"]["retrieval p50"]["ours"] is not None
    assert data["skillworld"]["texts_embedded_in_timed_pass"] == 0
    status = {t["target"]: t["ok"] for t in data["targets"]}
    assert status["maintenance at 100k hyperedges under 10 s"] is None  # not run at 100k
    assert status["load at 100k under 1 s"] is None
    assert status["size on disk within 1.15× of the raw float32 arrays"] in (True, False)
    md = (out / "perf.md").read_text()
    assert md.startswith("# Performance") and "## Targets" in md and "## Side by side" in md
    rows = [line for line in md.splitlines() if line.startswith("| retrieval p50 |")]
    table = [line for line in rows if line.count("|") == 8]  # side by side, not exponents
    assert [line.split(" | ")[1] for line in table] == ["40", "80"]
    assert table[1].endswith("| – | – |")  # no naive reference at 80, none extrapolated
    run_all.main(["--report-only", "--out", str(out)])  # re-renders, measures nothing
    assert (out / "perf.md").read_text() == md


def test_harness_extrapolates_the_naive_reference_and_labels_it():
    res = {"sizes": {}}
    for n, t in ((1000, 0.01), (10000, 0.1), (100000, 1.0)):
        naive = n <= 10000
        r = {
            "tags": ["naive"] if naive else [],
            "insert": {"ours_per_edge_s": t, "floor_per_edge_s": t, "naive_per_edge_s": 4 * t},
            "retrieval": {k: {"p50": t, "p95": t} for k in ("ours", "floor", "naive")},
            "maintenance": {"ours": {"total_s": t, "prune_s": t, "W_s": t, "propagate_s": t,
                                     "candidates_s": t, "incidences": n}, "floor_s": t,
                            "naive": {"total_s": {1000: 1.0, 10000: 20.0}.get(n)}},
            "peak": {},
            "files": {k: {"save_s": t, "load_s": t, "bytes": n} for k in ("ours", "floor", "naive")},
        }  # fmt: skip
        if not naive:
            r["insert"].pop("naive_per_edge_s")
            r["retrieval"].pop("naive")
            r["maintenance"].pop("naive")
            r["files"].pop("naive")
        res["sizes"][str(n)] = r
    report.complete_naive(res)
    # naive maintenance: 1 s at 1k, 20 s at 10k -> exponent log10(20) = 1.30 -> 400 s at 100k
    assert res["naive_extrapolated"]["maintenance, one cycle"]["100000"] == pytest.approx(400.0)
    res["exponents"] = report.exponents(res)
    res["targets"] = report.targets(res)
    assert res["maintenance_vs_nnz"]["total_s"] == pytest.approx(1.0)
    res["meta"] = {"date": "d", "machine": "m", "python": "p", "numpy": "n", "scipy": "s",
                   "blas_threads": "1", "seed": 0, "dim": 384, "queries": 1}  # fmt: skip
    for r in res["sizes"].values():
        r["vocab"] = 1
    md = report.markdown(res, {})
    row = [x for x in md.splitlines() if x.startswith("| maintenance, one cycle | 100k")][0]
    assert "400 s*" in row and "400×*" in row  # extrapolated values carry the label


def test_peak_memory_child_process(tmp_path):
    w = make_workload(30, n_queries=1, seed=3, dim=384)
    mem = HypergraphMemory(w.encoder)
    for e in w.episodes:
        mem.add_trajectory(e.task, e.plan, e.skills, e.lesson, e.success, e.steps)
    save_memory(mem, tmp_path / "mem")
    peak = run_all.run_child("ours", tmp_path / "mem")
    assert peak["traced_bytes"] > 0 and peak["rss_before_bytes"] > 0
    assert peak["rss_increase_bytes"] is None or peak["rss_increase_bytes"] >= 0
    naive_copy(mem).save(tmp_path / "naive")  # the naive reference's child too
    peak = run_all.run_child("naive", tmp_path / "naive")
    assert peak["traced_bytes"] > 0 and peak["rss_before_bytes"] > 0


def test_workflow_targets_read_cold_and_warm_figures():
    wf = {
        "skillworld": {"episodes": 60, "cold_s": 50.0, "warm_s": 4.0, "speedup": 12.5,
                       "cold_encoded": 900, "warm_encoded": 0},
        "compare": {"command": "compare --profile gaia --seeds 3", "jobs": 2,
                    "cold_s": 600.0, "warm_s": 250.0},
        "notebooks": {"seconds": 170.0, "passed": True, "summary": "52 passed",
                      "cache_entries_before": 5000, "cache_entries_after": 5000},
    }
    got = {t["target"].split(" (")[0]: t["ok"] for t in report._workflow_targets(wf)}
    assert list(got.values()) == [True, False, True]
    # a cache that grew during the notebook run was not warm: no verdict
    wf["notebooks"]["cache_entries_after"] = 5100
    assert report._workflow_targets(wf)[-1]["ok"] is None


def test_structured_maintenance_benchmark_runs_at_a_tiny_size():
    import subprocess

    done = subprocess.run(
        [sys.executable, str(BENCH / "bench_maintenance.py"), "--skills", "100", "--edges",
         "300", "--no-trace"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "validate() after maintain: ok" in done.stdout


def test_live_throughput_smoke_run_and_its_report():
    """bench_live.py at a tiny size: two streams against the stand-in server in its own
    process, every episode done, the speed-up computed and rendered (no timing asserted)."""
    import bench_live

    res = bench_live.measure_all([2], latency=0.01, slots=2, llama=False)
    rows = res["streams"]["rows"]
    assert [r["streams"] for r in rows] == [1, 2]
    assert [r["episodes"] for r in rows] == [4, 8] and all(r["errors"] == 0 for r in rows)
    assert rows[0]["speedup"] == pytest.approx(1.0) and rows[1]["speedup"] > 0
    assert all(r["model_calls"] >= 4 * r["episodes"] for r in rows)  # decompose, act, ...
    assert res["llama"] == {"skipped": "--no-llama"}
    (target, llama) = report.live_targets(res)
    assert target["ok"] is None and "N = 2:" in target["measured"]  # N = 32 was not run
    assert llama["ok"] is None and "--no-llama" in llama["measured"]
    md = "\n".join(report.live_markdown(res))
    assert "## Live throughput" in md and md.count("\n| 2 |") == 1
