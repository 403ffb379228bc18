"""The command line end to end: live runs against the scripted server, record/replay,
benchmark files, and clear refusals. The real openai client talks to a real HTTP server
on 127.0.0.1; nothing of ours is mocked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperskill_lite.cli import main
from hyperskill_lite.runner import read_records
from hyperskill_lite.testing.scripted_replies import prompt_aware_responder
from hyperskill_lite.testing.scripted_server import ScriptedServer

ROOT = Path(__file__).resolve().parents[1]
SENTINEL = "sk-test-SENTINEL-123456789012345678"
VOLATILE = {"memory_seconds", "seconds", "setup_seconds"}


@pytest.fixture()
def env(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("HYPERSKILL_MODEL", raising=False)


def _tasks_file(tmp_path: Path) -> Path:
    path = tmp_path / "tasks.jsonl"
    rows = [{"id": f"t{i}", "question": f"What is six times seven, asked for the {i}th time?",
             "answer": "42" if i % 2 == 0 else "41"} for i in range(4)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _strip(records):
    out = []
    for r in records:
        r = {k: v for k, v in r.items() if k not in VOLATILE}
        if r.get("maintenance"):
            r["maintenance"] = {k: v for k, v in r["maintenance"].items() if k != "seconds"}
        out.append(r)
    return out


def _no_secret_under(path: Path) -> None:
    for f in path.rglob("*"):
        if f.is_file():
            assert SENTINEL.encode() not in f.read_bytes(), f"API key leaked into {f}"


def test_help_lists_the_subcommands(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for sub in ("run", "demo", "compare", "methods"):
        assert sub in out


def test_live_run_records_then_replays_offline(tmp_path, env, capsys):
    tasks = _tasks_file(tmp_path)
    cassette = tmp_path / "cassette.jsonl"
    with ScriptedServer(prompt_aware_responder, api_key=SENTINEL, model="scripted") as server:
        args = ["run", "--sandbox", "process", "--backend", "openai", "--base-url", server.base_url, "--model", "scripted",
                "--tasks", str(tasks), "--method", "hyperskill", "--episodes", "4",
                "--encoder", "hashing", "--no-progress", "--judge", "exact"]
        assert main([*args, "--out", str(tmp_path / "live"), "--record", str(cassette)]) == 0
        n_requests = len(server.requests)
    live = read_records(tmp_path / "live")
    assert len(live) == 4 and n_requests > 0
    # the model answers "42"; the gold is "42" for even ids (order is the seed-42 shuffle)
    assert {r["task_id"]: r["success"] for r in live} == {f"t{i}": i % 2 == 0 for i in range(4)}
    assert all(r["error"] is None for r in live)
    assert all(r["usage"]["calls"] >= 3 for r in live)  # decompose + agent + extract
    assert any(r["retrieved"] for r in live[1:])
    # the server is gone: replay serves every call from the cassette
    assert main([*args, "--out", str(tmp_path / "replay"), "--replay", str(cassette)]) == 0
    assert _strip(read_records(tmp_path / "replay")) == _strip(live)
    _no_secret_under(tmp_path)
    assert SENTINEL not in capsys.readouterr().out


def test_malformed_reply_is_recorded_and_the_run_goes_on(tmp_path, env):
    def responder(request):
        last = str(request["messages"][-1].get("content") or "")
        if last.startswith("Extract") and "first" in last:
            return "I would rather not answer in JSON."  # and again after the re-ask
        return prompt_aware_responder(request)

    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps({"id": "a", "question": "The first question?", "answer": "42"})
                    + "\n" + json.dumps({"id": "b", "question": "The second one?", "answer": "42"})
                    + "\n")
    with ScriptedServer(responder, model="m") as server:
        rc = main(["run", "--sandbox", "process", "--backend", "openai", "--base-url", server.base_url, "--model", "m",
                   "--tasks", str(path), "--method", "hyperskill", "--encoder", "hashing",
                   "--no-progress", "--out", str(tmp_path / "run")])
    assert rc == 0
    recs = {r["task_id"]: r for r in read_records(tmp_path / "run")}
    assert set(recs) == {"a", "b"}
    assert "extract" in recs["a"]["error"] and "end:" in recs["a"]["error"]
    assert recs["b"]["error"] is None


def test_synthetic_webwalkerqa_run_against_the_scripted_server(tmp_path, env):
    data = ROOT / "data" / "fixtures" / "webwalkerqa_synthetic.jsonl"
    with ScriptedServer(prompt_aware_responder, model="m") as server:
        rc = main(["run", "--sandbox", "process", "--benchmark", "webwalkerqa", "--data", str(data), "--subset", "all",
                   "--backend", "openai", "--base-url", server.base_url, "--model", "m",
                   "--method", "hyperskill", "--encoder", "hashing", "--no-progress",
                   "--out", str(tmp_path / "wqa")])
    assert rc == 0
    recs = read_records(tmp_path / "wqa")
    assert len(recs) == 6
    assert all(r["judge"]["kind"] == "llm" for r in recs)  # the default judge for benchmarks
    assert all(r["error"] is None for r in recs)


def test_self_judge_run_scores_with_the_gt_runs_judge_and_keeps_both_verdicts(tmp_path, env,
                                                                          capsys):
    data = ROOT / "data" / "fixtures" / "webwalkerqa_synthetic.jsonl"
    base = ["run", "--sandbox", "process", "--benchmark", "webwalkerqa", "--data", str(data), "--subset", "all",
            "--backend", "openai", "--model", "m", "--method", "hyperskill",
            "--encoder", "hashing", "--no-progress"]
    with ScriptedServer(prompt_aware_responder, model="m") as server:
        url = ["--base-url", server.base_url]
        assert main([*base, *url, "--out", str(tmp_path / "gt")]) == 0
        assert main([*base, *url, "--judge", "self", "--out", str(tmp_path / "self")]) == 0
        assert main([*base, *url, "--score-judge", "exact", "--out", str(tmp_path / "x")]) == 2
        assert "error: --score-judge applies to --judge self" in capsys.readouterr().err
        assert not (tmp_path / "x").exists()
    gt, sj = read_records(tmp_path / "gt"), read_records(tmp_path / "self")
    assert {r["judge"]["kind"] for r in gt} == {r["judge"]["kind"] for r in sj} == {"llm"}
    assert all(r["learn_judge"]["kind"] == "self" for r in sj)  # not overwritten: both kept
    assert all(r["success"] == r["judge"]["correct"] for r in sj)
    assert all(r["learned_success"] == r["learn_judge"]["correct"] for r in sj)
    assert all("learn_judge" not in r for r in gt)
    info = json.loads((tmp_path / "self" / "run.json").read_text())
    assert (info["score_judge"], info["learn_judge"]) == ("llm", "self")
    info = json.loads((tmp_path / "gt" / "run.json").read_text())
    assert (info["score_judge"], info["learn_judge"]) == ("llm", "llm")


def test_missing_benchmark_file_is_a_clear_error(tmp_path, env, capsys):
    rc = main(["run", "--sandbox", "process", "--benchmark", "gaia", "--data", str(tmp_path / "nope"), "--backend",
               "openai", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
               "--out", str(tmp_path / "o")])
    assert rc == 2
    err = capsys.readouterr().err
    assert "nope" in err and "error:" in err


def test_skillworld_run_prints_the_summary(tmp_path, capsys):
    rc = main(["run", "--world", "skillworld", "--profile", "webwalker", "--episodes", "12",
               "--encoder", "hashing", "--no-progress", "--out", str(tmp_path / "sw")])
    assert rc == 0
    out = capsys.readouterr().out
    assert "hyperskill" in out and "SR (%)" in out
    assert len(read_records(tmp_path / "sw")) == 12


def test_compare_prints_a_table_with_deltas(capsys):
    rc = main(["compare", "--profile", "xbench", "--episodes", "6", "--seeds", "1",
               "--methods", "no-memory", "hyperskill", "expel", "--encoder", "hashing"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "NOT the paper's numbers" in out
    for name in ("no-memory", "hyperskill", "expel"):
        assert name in out


def test_a_gaia_run_reads_pages_over_http_without_extra_flags(tmp_path, env):
    """The paper's harness gives the agent crawl_page on every benchmark; so does `run`."""
    data = ROOT / "data" / "fixtures" / "gaia"
    with ScriptedServer(prompt_aware_responder, model="m") as server:
        rc = main(["run", "--sandbox", "process", "--benchmark", "gaia", "--data", str(data), "--backend", "openai",
                   "--base-url", server.base_url, "--model", "m", "--method", "hyperskill",
                   "--encoder", "hashing", "--no-progress", "--episodes", "1",
                   "--protocol", "tools", "--out", str(tmp_path / "g")])
        sent = [t["function"]["name"] for r in server.requests for t in (r.get("tools") or [])]
        decompose = [m["content"] for r in server.requests for m in r["messages"]
                     if "crawl_page" in str(m.get("content"))]
    assert rc == 0
    assert "crawl_page" in sent and "inspect_file_as_text" in sent
    assert decompose  # the decomposition prompt names the tool the run has
    info = json.loads((tmp_path / "g" / "run.json").read_text())
    assert info["tools"]["http"] is True and info["tools"]["allow_local_urls"] is False


def test_a_benchmark_run_with_the_llm_judge_replays_offline(tmp_path, env):
    """The GT judge on the agent's model shares the agent's structured-output probe, in the
    recorded run (through the preflight) and in its replay (which checks no server): the
    replay asks the cassette exactly what the run recorded (found by make live-smoke)."""
    data = ROOT / "data" / "fixtures" / "webwalkerqa_synthetic.jsonl"
    cassette = tmp_path / "c.jsonl"
    args = ["run", "--sandbox", "process", "--benchmark", "webwalkerqa", "--data", str(data), "--subset", "all",
            "--backend", "openai", "--model", "m", "--method", "hyperskill", "--episodes", "3",
            "--encoder", "hashing", "--no-progress", "--search", "none"]
    with ScriptedServer(prompt_aware_responder, model="m") as server:
        assert main([*args, "--base-url", server.base_url, "--record", str(cassette),
                     "--out", str(tmp_path / "live")]) == 0
    assert main([*args, "--base-url", "http://127.0.0.1:9/v1", "--replay", str(cassette),
                 "--out", str(tmp_path / "replay")]) == 0
    assert all(r["judge"]["kind"] == "llm" for r in read_records(tmp_path / "replay"))
    assert _strip(read_records(tmp_path / "replay")) == _strip(read_records(tmp_path / "live"))
