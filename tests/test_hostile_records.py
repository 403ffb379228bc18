"""What a run records of its tools' bounds: run.json holds the limits (ToolSettings) and
the readers the run used (its ``observed`` list), episodes.jsonl the tool errors of each
episode, ``check`` prints the readers; a run written before the limits existed resumes."""

from __future__ import annotations

import json

import pytest

from hyperskill_lite.agent.tools.settings import LIMIT_FIELDS, ToolSettings
from hyperskill_lite.cli import main
from hyperskill_lite.testing.scripted_replies import prompt_aware_responder, text, tool_call
from hyperskill_lite.testing.scripted_server import ScriptedServer


@pytest.fixture()
def env(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("HYPERSKILL_CACHE", "off")


def agent(request: dict):
    msgs = request["messages"]
    if msgs[0].get("role") != "system":
        return prompt_aware_responder(request)
    if any(m.get("role") == "tool" for m in msgs):
        return text("FINAL ANSWER: 42")
    return tool_call("inspect_file_as_text", {"path": "../secret.txt"})


def run(srv: ScriptedServer, tasks, out) -> int:
    return main(["run", "--backend", "openai", "--base-url", srv.base_url, "--model", "m",
                 "--tasks", str(tasks), "--encoder", "hashing", "--no-progress",
                 "--search", "none", "--protocol", "tools", "--sandbox", "process",
                 "--out", str(out)])


def test_run_json_and_the_records_hold_the_bounds(env, tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"id": f"t{i}", "question": f"Six times seven ({i})?",
                                         "answer": "42"}) + "\n" for i in range(2)))
    with ScriptedServer(responder=agent, model="m") as srv:
        assert run(srv, tasks, tmp_path / "r") == 0
    info = json.loads((tmp_path / "r" / "run.json").read_text())
    assert {k: info["tools"][k] for k in LIMIT_FIELDS} == ToolSettings().limits()
    assert info["tools"]["fetch_deadline"] == 30.0 and info["tools"]["file_scope"] == "attachments"
    readers = info["observed"][-1]["readers"]
    assert readers["html"]["extractor"] == "trafilatura" and readers["missing"] == []
    assert set(readers["converters"]) == {"pdf", "docx", "pptx", "xlsx", "xls"}
    records = [json.loads(ln) for ln in (tmp_path / "r" / "episodes.jsonl").read_text().splitlines()]
    assert [r["tool_errors"] for r in records] == [[{
        "step": 1, "tool": "inspect_file_as_text",
        "error": "Error: ../secret.txt is outside the files of this task"}]] * 2


def test_a_run_recorded_before_the_limits_existed_resumes(env, tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"id": f"t{i}", "question": f"Six times seven ({i})?",
                                         "answer": "42"}) + "\n" for i in range(2)))
    with ScriptedServer(responder=agent, model="m") as srv:
        assert run(srv, tasks, tmp_path / "r") == 0
        path = tmp_path / "r" / "run.json"
        info = json.loads(path.read_text())
        for k in (*LIMIT_FIELDS[2:], "file_scope"):  # what an older version wrote
            del info["tools"][k]
        path.write_text(json.dumps(info))
        assert run(srv, tasks, tmp_path / "r") == 0  # the same settings: resumes (done)


def test_check_prints_the_readers(env, capsys):
    with ScriptedServer([], model="m") as srv:
        assert main(["check", "--base-url", srv.base_url, "--model", "m"]) == 0
        out = capsys.readouterr().out
        assert "page reader trafilatura " in out and "(main content, then links)" in out
        assert "documents   pdf (pypdf " in out and "in a limited child process" in out
        assert main(["check", "--base-url", srv.base_url, "--model", "m", "--json"]) == 0
        found = json.loads(capsys.readouterr().out)
        assert found["readers"]["html"]["extractor"] == "trafilatura"


def test_limits_are_set_from_the_command_line():
    import argparse

    from hyperskill_lite.cli.tool_options import add_arguments, settings_from_args

    p = argparse.ArgumentParser()
    add_arguments(p)
    s = settings_from_args(p.parse_args(["--tool-limit", "fetch_deadline=60",
                                         "--tool-limit", "max_inflated_bytes=300000000"]))
    assert (s.fetch_deadline, s.max_inflated_bytes) == (60.0, 300_000_000)
    assert isinstance(s.max_inflated_bytes, int) and s.to_dict()["fetch_deadline"] == 60.0
    with pytest.raises(SystemExit):
        p.parse_args(["--tool-limit", "max_rows=5"])
