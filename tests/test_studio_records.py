"""What a run folder records for the memory studio: the health figures in run.json,
`report` printing them, each maintenance cycle's pruned nodes and merges with their
texts and both cosines, and each episode's whole retrieval, whose explain() equals a
fresh retrieval on the memory the task saw."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hyperskill_lite.cli import main
from hyperskill_lite.core.io import load_memory
from hyperskill_lite.core.retrieval import Retrieval, retrieve
from hyperskill_lite.runner import read_records
from hyperskill_lite.runner.health import run_health


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "hs"
    assert main(["run", "--method", "hyperskill", "--profile", "gaia", "--episodes", "60",
                 "--encoder", "hashing", "--no-progress", "--out", str(out)]) == 0
    return out


def test_run_json_carries_the_health_figures_and_a_resume_still_works(run, capsys):
    info = json.loads((run / "run.json").read_text())
    records = read_records(run)
    assert info["health"] == json.loads(json.dumps(run_health(records)))
    assert info["health"]["episodes"] == 60 and info["health"]["Inserted"] > 0
    before = (run / "run.json").read_bytes()
    assert main(["run", "--method", "hyperskill", "--profile", "gaia", "--episodes", "60",
                 "--encoder", "hashing", "--no-progress", "--out", str(run)]) == 0
    assert (run / "run.json").read_bytes() == before  # complete: nothing changed


def test_report_prints_the_health_figures(run, tmp_path, capsys):
    assert main(["report", str(run), "--out", str(tmp_path / "fig")]) == 0
    out = capsys.readouterr().out
    h = json.loads((run / "run.json").read_text())["health"]
    line = next(x for x in out.splitlines() if x.startswith("hyperskill memory:"))
    assert f"{h['Inserted']:.0f} inserted, {h['Dedup']:.0f} deduplicated" in line
    assert f"{h['Merged']:.0f} merged, {h['Pruned']:.0f} pruned" in line
    assert f"non-empty in {h['NonEmpty']:.1f}%" in line
    assert line in (tmp_path / "fig" / "summary.txt").read_text()


def test_maintenance_records_keep_what_was_pruned_and_merged(run):
    cycles = [r["maintenance"] for r in read_records(run) if "maintenance" in r]
    assert len(cycles) == 10
    merges = [m for c in cycles for m in c["merges"]]
    pruned = [p for c in cycles for p in c["pruned_nodes"]]
    assert merges and pruned, "the run should merge and prune at least once"
    assert all(c["pruned"] == len(c["pruned_nodes"]) for c in cycles)
    for m in merges:
        assert {"a_name", "b_name", "a_content", "b_content", "name", "content",
                "similarity", "plain_similarity"} <= set(m)
        assert m["similarity"] >= 0.85 and -1 <= m["plain_similarity"] <= 1
    for p in pruned:
        assert p["nu"] >= 3 and p["gamma"] < 0.2  # Eq. 11's N_min and tau


def test_a_recorded_retrieval_explains_what_a_fresh_one_on_its_memory_gives(run):
    """The task right after a maintenance checkpoint saw exactly the checkpoint's memory:
    retrieving again there (its recorded plan) gives the same explanation and context."""
    records = read_records(run)
    checked = 0
    for ck in sorted((run / "checkpoints").iterdir()):
        k = int(ck.name.split("-")[1])
        if k >= len(records):
            continue
        rec = records[k]
        saved = Retrieval.from_record(rec["explain"])
        fresh = retrieve(load_memory(ck), saved.task, saved.plan)
        assert fresh.explain() == saved.explain()
        assert fresh.context == saved.context == rec["explain"]["context"]
        assert fresh.retrieved_ids == rec["retrieved"]
        checked += 1
    assert checked == 9
    assert np.mean([bool(r["explain"]["skill_ids"]) for r in records]) > 0.5
