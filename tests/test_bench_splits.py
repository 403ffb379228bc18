"""GAIA's test split and Hugging Face snapshots (bench/loaders.py, bench/submission.py):
withheld answers ("?") are never gold, a test-split run writes submission.jsonl and makes
no judge call (the scripted server sees no judge prompt), GAIA's parquet layout and a
snapshot or cache folder are read as downloaded, and WebWalkerQA's main split is found in
its snapshot. The fixtures are invented (data/fixtures/make_bench_fixtures.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hyperskill_lite.bench import (
    BenchmarkDataError,
    NoJudge,
    OutcomeJudge,
    load_benchmark,
    load_gaia,
    load_webwalkerqa,
    make_judge,
    resolve_snapshot,
    submission_rows,
    write_submission,
)
from hyperskill_lite.cli import main
from hyperskill_lite.runner import read_records
from hyperskill_lite.testing.scripted_replies import prompt_aware_responder
from hyperskill_lite.testing.scripted_server import ScriptedServer
from hyperskill_lite.types import Episode, Task

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "fixtures"
SNAPSHOT = FIXTURES / "gaia_hf"
KEY = "sk-test-SPLITS-0123456789abcdef"


def test_the_snapshot_root_reads_each_split():
    val = load_gaia(SNAPSHOT)
    test = load_gaia(SNAPSHOT, split="test")
    assert [t.id for t in val] == ["syn-gaia-001", "syn-gaia-002", "syn-gaia-003", "syn-gaia-004"]
    assert all(t.answer is not None and t.meta["split"] == "validation" for t in val)
    assert [t.id for t in test] == [f"syn-test-00{i}" for i in range(1, 5)]
    assert all(t.answer is None and t.meta["split"] == "test" for t in test)  # "?" is no gold
    assert Path(test[1].meta["file_path"]).read_text().startswith("ferry,departs")


def test_the_test_folder_is_recognised_and_a_validation_request_refused(tmp_path):
    assert all(t.answer is None for t in load_gaia(SNAPSHOT / "2023" / "test"))
    with pytest.raises(BenchmarkDataError, match="this is the test split but --split validation"):
        load_gaia(SNAPSHOT / "2023" / "test", split="validation")
    # withheld answers in a folder with another name: still never gold
    copy = tmp_path / "mine"
    shutil.copytree(SNAPSHOT / "2023" / "test", copy)
    assert all(t.answer is None for t in load_gaia(copy))
    with pytest.raises(BenchmarkDataError, match="every answer is withheld"):
        load_gaia(copy, split="validation")


def test_gaias_parquet_layout_with_file_path(tmp_path):
    pytest.importorskip("pyarrow")
    root = tmp_path / "snap"
    shutil.copytree(SNAPSHOT, root)
    for f in root.rglob("metadata.jsonl"):
        f.unlink()  # parquet only, as the current GAIA repository has it
    tasks = load_gaia(root, split="test")
    assert [t.id for t in tasks][1] == "syn-test-002"
    attachment = root / "2023" / "test" / "ferry_times.csv"
    assert tasks[1].meta["file_path"] == str(attachment.resolve())
    assert tasks[0].meta["level"] == 1 and tasks[0].answer is None


def test_a_hugging_face_cache_folder_is_resolved(tmp_path):
    repo = tmp_path / "datasets--gaia-benchmark--GAIA"
    snap = repo / "snapshots" / "abc123"
    shutil.copytree(SNAPSHOT, snap)
    (repo / "snapshots" / "old999").mkdir()
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123\n")
    assert resolve_snapshot(repo) == snap
    assert len(load_benchmark("gaia", repo, split="test")) == 4
    (repo / "refs" / "main").unlink()
    with pytest.raises(BenchmarkDataError, match="2 snapshots and no usable refs/main"):
        load_gaia(repo)


def test_webwalkerqa_main_split_from_its_snapshot():
    main_rows = load_webwalkerqa(FIXTURES / "webwalkerqa_hf", subset=None)
    silver = load_webwalkerqa(FIXTURES / "webwalkerqa_hf", subset=None, split="silver")
    assert len(main_rows) == 6 and len(silver) == 2
    same = load_webwalkerqa(FIXTURES / "webwalkerqa_synthetic.jsonl", subset=None)
    assert [t.question for t in main_rows] == [t.question for t in same]
    with pytest.raises(BenchmarkDataError, match="no WebWalkerQA 'main' split file"):
        load_webwalkerqa(FIXTURES / "gaia_hf", subset=None)


def test_webwalkerqa_parquet(tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rows = [json.loads(x) for x in (FIXTURES / "webwalkerqa_hf" / "main.jsonl").read_text()
            .splitlines()]
    rows = [{k.lower(): v for k, v in r.items()} for r in rows]
    (tmp_path / "data").mkdir()
    pd.DataFrame(rows).to_parquet(tmp_path / "data" / "main-00000-of-00001.parquet")
    tasks = load_webwalkerqa(tmp_path, subset=None)
    assert len(tasks) == 6 and isinstance(tasks[0].meta["info"], dict)
    json.dumps(tasks[0].meta)  # plain Python values, not numpy


def test_only_gaia_has_a_test_split():
    with pytest.raises(ValueError, match="--split test applies to GAIA only"):
        load_benchmark("webwalkerqa", FIXTURES / "webwalkerqa_hf", split="test", subset=None)


def test_the_test_split_judges_score_nothing_and_call_no_model():
    task = Task("t1", "q", answer=None)
    ep = Episode("t1", success=True, steps=2, answer="42", trajectory="Step 1\nThought: x")
    assert NoJudge()(task, ep) is False
    assert ep.meta["judge"] == {"kind": "none", "correct": None, "reason": ep.meta["judge"][
        "reason"], "reasoning_trace": "Step 1\nThought: x"}
    assert OutcomeJudge()(task, Episode("t1", success=True, steps=1, answer="7")) is True
    assert OutcomeJudge()(task, Episode("t1", success=False, steps=1, error="x")) is False
    assert isinstance(make_judge("none"), NoJudge) and isinstance(make_judge("outcome"),
                                                                   OutcomeJudge)


def test_write_submission(tmp_path):
    records = [{"task_id": "a", "answer": "42", "judge": {"reasoning_trace": "t"}},
               {"task_id": "b", "answer": None, "trajectory": "tb"}]
    path = write_submission(records, tmp_path)
    assert path == tmp_path / "submission.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    assert rows == submission_rows(records) == [
        {"task_id": "a", "model_answer": "42", "reasoning_trace": "t"},
        {"task_id": "b", "model_answer": "", "reasoning_trace": "tb"}]


def test_a_gaia_test_split_run_writes_a_submission_and_makes_no_judge_call(tmp_path,
                                                                          monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    out = tmp_path / "run"
    with ScriptedServer(prompt_aware_responder, models=["m"], api_key=KEY) as srv:
        rc = main(["run", "--sandbox", "process", "--benchmark", "gaia", "--data", str(SNAPSHOT), "--split", "test",
                   "--backend", "openai", "--base-url", srv.base_url, "--model", "m",
                   "--method", "hyperskill", "--encoder", "hashing", "--no-progress",
                   "--out", str(out)])
        prompts = [str(r["messages"][-1].get("content") or "") for r in srv.requests]
    assert rc == 0
    assert prompts and not any(p.startswith(("You are grading", "You are judging"))
                               for p in prompts)
    rows = [json.loads(x) for x in (out / "submission.jsonl").read_text().splitlines()]
    assert sorted(r["task_id"] for r in rows) == [f"syn-test-00{i}" for i in range(1, 5)]
    assert all(r["model_answer"] == "42" and "Final answer: 42" in r["reasoning_trace"]
               for r in rows)
    records = read_records(out)
    assert all(r["judge"]["kind"] == "none" and r["judge"]["correct"] is None for r in records)
    assert all(r["learn_judge"]["kind"] == "outcome" for r in records)
    info = json.loads((out / "run.json").read_text())
    assert (info["split"], info["score_judge"], info["learn_judge"]) == ("test", "none", "outcome")
    assert "submission.jsonl" in capsys.readouterr().out
    # a GT judge makes no sense on withheld answers: refused before anything runs
    assert main(["run", "--sandbox", "process", "--benchmark", "gaia", "--data", str(SNAPSHOT), "--split", "test",
                 "--backend", "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
                 "--judge", "llm", "--out", str(tmp_path / "x")]) == 2
    assert "never judged" in capsys.readouterr().err and not (tmp_path / "x").exists()
