"""compare.py: the Table-1 comparison over methods and seeds, its aggregation (checked
against numbers worked by hand), resumable run directories and clear refusals."""

from __future__ import annotations

import json
import zlib

import numpy as np
import pytest

from hyperskill_lite.compare import DEFAULT_METHODS, compare
from hyperskill_lite.compare_tables import aggregate, format_table, retention
from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.methods import BASELINES
from hyperskill_lite.runner import read_records

ENC = HashingEncoder(dim=128, seed=0)


def test_aggregate_hand_example():
    rows = [
        {"method": "no-memory", "seed": 0, "SR": 40.0, "Steps": 6.0},
        {"method": "no-memory", "seed": 1, "SR": 50.0, "Steps": 5.0},
        {"method": "no-memory", "seed": 2, "SR": 60.0, "Steps": 4.0},
        {"method": "awm", "seed": 0, "SR": 70.0, "Steps": 3.5},
    ]
    agg = aggregate(rows, keys=("SR", "Steps"))
    assert list(agg) == ["no-memory", "awm"]
    # mean 50, sample sd sqrt(((-10)^2 + 0 + 10^2) / 2) = 10
    assert agg["no-memory"]["SR"] == pytest.approx((50.0, 10.0))
    assert agg["no-memory"]["Steps"] == pytest.approx((5.0, 1.0))
    assert agg["awm"]["SR"] == (70.0, 0.0)  # one seed: no spread


def test_aggregate_matches_numpy_reference():
    rng = np.random.default_rng(0)
    rows = [
        {"method": m, "seed": s, "SR": float(rng.uniform(0, 100))}
        for m in ("a", "b")
        for s in range(5)
    ]
    agg = aggregate(rows, keys=("SR",))
    for m in ("a", "b"):
        x = [r["SR"] for r in rows if r["method"] == m]
        assert agg[m]["SR"] == pytest.approx((np.mean(x), np.std(x, ddof=1)))


def test_table_deltas_are_against_no_memory():
    agg = {
        "no-memory": {
            "SR": (40.0, 1.0),
            "Steps": (5.0, 0.0),
            "Calls": (5.0, 0.0),
            "Tokens": (1000.0, 0.0),
            "MemCalls": (0.0, 0.0),
        },
        "x": {
            "SR": (37.5, 2.5),
            "Steps": (5.25, 0.0),
            "Calls": (4.0, 0.0),
            "Tokens": (1500.0, 10.0),
            "MemCalls": (1.0, 0.0),
        },
    }
    lines = format_table(agg).splitlines()
    assert lines[0].split() == ["method", "SR", "(%)", "#Steps", "#Calls", "Tokens", "MemCalls",
                                "tokens/task", "s/task"]
    assert "40.00 ± 1.00 " in lines[1] and "(+" not in lines[1]
    assert "37.50 ± 2.50 (-2.50)" in lines[2] and "5.25 ± 0.00 (+0.25)" in lines[2]
    # rows without the cost measures (older compare.json files) show "-"
    assert "1500 ± 10 (+500)" in lines[2] and lines[2].split()[-3:] == ["1.00", "-", "-"]


def test_compare_runs_every_method_and_every_seed(tmp_path):
    table, rows = compare("webwalker", 8, 2, encoder=ENC, out=tmp_path)
    assert DEFAULT_METHODS == ("no-memory", "hyperskill", *BASELINES)
    assert [(r["method"], r["seed"]) for r in rows] == [
        (m, s) for m in DEFAULT_METHODS for s in (0, 1)
    ]
    assert all(r["N"] == 8 for r in rows)
    main, paired = table.split("\n\n")
    lines = main.splitlines()
    assert "NOT the paper's numbers" in lines[0]
    assert [ln.split()[0] for ln in lines[2:]] == list(DEFAULT_METHODS)
    # then each method's paired SR difference to no-memory, one row per method
    assert [ln.split()[0] for ln in paired.splitlines()[2:]] == list(DEFAULT_METHODS[1:])
    # the no-memory row is the reference: its figures are the records' means
    recs = read_records(tmp_path / "webwalker" / "no-memory" / "seed-1")
    nm = next(r for r in rows if r["method"] == "no-memory" and r["seed"] == 1)
    assert nm["SR"] == pytest.approx(100 * np.mean([r["success"] for r in recs]))
    assert nm["MemCalls"] == 0 and nm["context_share"] == 0
    assert all(r["MemCalls"] > 0 for r in rows if r["method"] == "hyperskill")
    # the paper's per-task cost: agent tokens plus the memory model's (estimated from the
    # prompts SkillWorld's model is sent), and wall-clock seconds per task
    assert nm["MemTokens"] == 0 and nm["TotalTokens"] == nm["Tokens"]
    hs = next(r for r in rows if r["method"] == "hyperskill" and r["seed"] == 1)
    hs_recs = read_records(tmp_path / "webwalker" / "hyperskill" / "seed-1")
    assert hs["MemTokens"] == pytest.approx(np.mean([r["memory_tokens"] for r in hs_recs]))
    assert hs["MemTokens"] > 0
    assert hs["TotalTokens"] == pytest.approx(hs["Tokens"] + hs["MemTokens"])
    assert all(r["Latency"] > 0 for r in rows)
    doc = json.loads((tmp_path / "compare.json").read_text())
    assert doc["rows"] == rows and (tmp_path / "table.txt").read_text() == table + "\n"
    # a rerun resumes from the finished run directories and gives the same table
    again, _ = compare("webwalker", 8, 2, encoder=ENC, out=tmp_path)
    assert again == table


def test_compare_adds_the_reference_and_takes_explicit_seeds():
    table, rows = compare("gaia", 5, [3], methods=["memp"], encoder=ENC)
    assert [(r["method"], r["seed"]) for r in rows] == [("no-memory", 3), ("memp", 3)]
    assert "(" in table.split("\n\n")[0].splitlines()[-1]  # memp's row carries deltas


def test_compare_refuses_bad_input():
    with pytest.raises(ValueError, match="unknown profile 'mars'"):
        compare("mars", 5, 1, encoder=ENC)
    with pytest.raises(ValueError, match="episodes must be >= 1"):
        compare("gaia", 0, 1, encoder=ENC)
    with pytest.raises(ValueError, match="seeds must be >= 1"):
        compare("gaia", 5, 0, encoder=ENC)
    with pytest.raises(ValueError, match=r"unknown method\(s\) \['nope'\]"):
        compare("gaia", 5, 1, methods=["nope"], encoder=ENC)
    with pytest.raises(ValueError, match="judge must be 'gt' or 'self'"):
        compare("gaia", 5, 1, encoder=ENC, judge="oracle")


def test_self_judge_compare_scores_by_the_truth_and_learns_from_the_self_judge(tmp_path):
    _, gt = compare("gaia", 40, [0, 1], methods=["hyperskill"], encoder=ENC, out=tmp_path)
    _, sj = compare("gaia", 40, [0, 1], methods=["hyperskill"], encoder=ENC, out=tmp_path,
                    judge="self")
    assert {r["judge"] for r in gt} == {"gt"} and {r["judge"] for r in sj} == {"self"}
    # no-memory learns nothing: its SR cannot depend on the judge it learns from
    nm = lambda rows: [r["SR"] for r in rows if r["method"] == "no-memory"]  # noqa: E731
    assert nm(gt) == nm(sj)
    recs = read_records(tmp_path / "gaia" / "hyperskill+self-judge" / "seed-0")
    assert len(recs) == 40
    flipped = [r for r in recs if r["learned_success"] != r["success"]]
    assert len(flipped) == 4  # the self-judge was wrong on 4 of 40 (flip probability 0.10)
    assert all(r["learn_judge"]["correct"] == r["learned_success"] for r in recs)
    gt_recs = read_records(tmp_path / "gaia" / "hyperskill" / "seed-0")
    assert all(r["learned_success"] == r["success"] for r in gt_recs)
    ret = retention(gt, sj)
    assert ret["seeds"] == 2
    assert ret["Retention"] == pytest.approx(100 * ret["Self-judge"] / ret["GT-judge"])
    assert ret["Delta"] == pytest.approx(ret["Self-judge"] - ret["GT-judge"])


def test_retention_refuses_unpaired_seeds_and_a_zero_gt_sr():
    gt = [{"method": "hyperskill", "seed": 0, "SR": 50.0}]
    with pytest.raises(ValueError, match="same seeds"):
        retention(gt, [{"method": "hyperskill", "seed": 1, "SR": 40.0}])
    with pytest.raises(ValueError, match="GT-judge SR of 0"):
        retention([{"method": "hyperskill", "seed": 0, "SR": 0.0}],
                  [{"method": "hyperskill", "seed": 0, "SR": 0.0}])


def test_compare_in_parallel_processes_gives_the_same_rows(tmp_path):
    methods = ["hyperskill", "memp"]
    _, serial = compare("gaia", 6, 2, methods=methods, encoder=ENC, jobs=1)
    lines: list[str] = []
    table, parallel = compare("gaia", 6, 2, methods=methods, encoder=ENC, jobs=2,
                              out=tmp_path, log=lines.append)
    wall = lambda rows: [{k: v for k, v in r.items() if k != "Latency"} for r in rows]  # noqa: E731
    assert wall(parallel) == wall(serial)  # same rows, same (method, seed) order
    assert all(r["Latency"] > 0 for r in parallel)
    assert lines[0] == "[compare] 6 run(s) on 2 worker process(es)"  # the pool is up
    assert len(lines) == 7 and all(" SR " in ln for ln in lines[1:])
    assert len(read_records(tmp_path / "gaia" / "memp" / "seed-1")) == 6


def test_compare_in_parallel_needs_an_encoder_a_worker_can_rebuild():
    custom = HashingEncoder(dim=8)
    custom.name = "my-encoder"
    with pytest.raises(ValueError, match="jobs=2 needs an encoder a worker can rebuild"):
        compare("gaia", 2, 2, methods=["no-memory"], encoder=custom, jobs=2)


def test_the_paired_table_is_the_bootstrap_of_the_records(tmp_path):
    """compare's paired differences are stats.paired_differences over the runs' records,
    paired by (seed, order) cell and task, each pair drawn from its own generator seeded
    by (stats_seed, crc32 of the reference, crc32 of the method): an interval does not
    depend on which other methods were compared."""
    from hyperskill_lite.compare_tables import paired_table
    from hyperskill_lite.stats import outcome_map, pair_rng, paired_differences

    table, rows = compare("xbench", 30, 2, methods=["hyperskill", "flat"], encoder=ENC,
                          out=tmp_path, reference="flat", stats_seed=3, n_boot=500)
    outcomes = {m: {(s, 42): outcome_map(read_records(tmp_path / "xbench" / m / f"seed-{s}"))
                    for s in (0, 1)} for m in ("no-memory", "hyperskill", "flat")}
    def rng(ref, m):
        return np.random.default_rng([3, zlib.crc32(ref.encode()), zlib.crc32(m.encode())])

    assert (rng("a", "b").integers(99, size=4) == pair_rng(3, "a", "b").integers(99, size=4)).all()

    want = [d for ref, m in (("no-memory", "hyperskill"), ("no-memory", "flat"),
                             ("flat", "hyperskill"))
            for d in paired_differences(outcomes, ref, rng(ref, m), [m], n_boot=500)]
    text, got = paired_table(rows, reference="flat", stats_seed=3, n_boot=500)
    assert got == want and text in table
    alone = paired_table([r for r in rows if r["method"] != "flat"], stats_seed=3, n_boot=500)[1]
    assert alone[0] == got[0]  # hyperskill vs no-memory: the same with or without flat
    hs = next(r for r in rows if r["method"] == "hyperskill" and r["seed"] == 0)
    nm = next(r for r in rows if r["method"] == "no-memory" and r["seed"] == 0)
    assert got[0].diff == pytest.approx(
        (sum(r["SR"] for r in rows if r["method"] == "hyperskill")
         - sum(r["SR"] for r in rows if r["method"] == "no-memory")) / 2)
    assert [o[1] for o in hs["outcomes"]] == [o[1] for o in nm["outcomes"]]  # same tasks
    doc = json.loads((tmp_path / "compare.json").read_text())
    assert [(d["method"], d["reference"]) for d in doc["paired"]] == [
        ("hyperskill", "no-memory"), ("flat", "no-memory"), ("hyperskill", "flat")]
    with pytest.raises(ValueError, match="the reference 'awm' must be one of the methods"):
        compare("xbench", 3, 1, methods=["flat"], encoder=ENC, reference="awm")
