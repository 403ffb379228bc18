"""Tests for cassette.py: record a live run against the scripted server, replay it offline."""

from __future__ import annotations

import hashlib
import json

import pytest

from hyperskill_lite.bench.judges import self_judge_verdict
from hyperskill_lite.core.records import Skill
from hyperskill_lite.errors import CassetteMiss, LLMConnectionError
from hyperskill_lite.llm.cassette import Cassette, env_secrets, request_key
from hyperskill_lite.llm.client import PromptedLLM
from hyperskill_lite.methods.hyperskill.ops import PromptedHyperSkillOps as ops
from hyperskill_lite.testing.scripted_replies import error, text
from hyperskill_lite.testing.scripted_server import ScriptedServer
from hyperskill_lite.types import Episode, Task

SENTINEL = "sk-test-SENTINEL-123456789012345678"
TASK = Task(id="t1", question="Which year was the registry founded?")
EPISODE = Episode(task_id="t1", success=True, steps=2, answer="1999", trajectory="Step 1 ...")


def responder(request: dict, leak: str = "") -> str:
    """Answers by prompt type, like a model would; `leak` is put in extractions."""
    prompt = request["messages"][-1]["content"]
    if prompt.startswith("Decompose"):
        return json.dumps([{"name": "search", "description": "use web_search to find it"}])
    if prompt.startswith("Extract"):
        return json.dumps(
            {
                "skills": [{"name": "Registry First", "content": f"Query registries. {leak}"}],
                "knowledge_fragment": "Registries are authoritative.",
            }
        )
    if prompt.startswith("These two"):
        return json.dumps({"name": "Merged Skill", "content": "Both."})
    return json.dumps({"success": True, "reason": "ok"})


def run_all(llm: PromptedLLM) -> list:
    a, b = Skill("A", "a."), Skill("B", "b.")
    return [
        ops(llm).decompose(TASK),
        ops(llm).extract(TASK, EPISODE),
        ops(llm).merge(a, b),
        self_judge_verdict(llm, TASK, EPISODE)[0],
    ]


def test_record_then_replay_offline_gives_equal_results(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    path = tmp_path / "run" / "cassette.jsonl"
    with ScriptedServer(responder) as srv:
        live = PromptedLLM(srv.base_url, "m", SENTINEL, cassette=Cassette(path, "record"))
        recorded = run_all(live)
    # the server is gone: a replay must not need it (nor a base URL or key)
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    replay = PromptedLLM(model="m", cassette=Cassette(path, "replay"))
    assert run_all(replay) == recorded
    assert replay.usage.to_dict() == live.usage.to_dict()
    assert replay._client is None  # no client was ever built


def test_the_api_key_never_reaches_the_file_or_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-abcdef-987654")
    path = tmp_path / "c.jsonl"
    with ScriptedServer(lambda req: responder(req, leak=SENTINEL)) as srv:
        llm = PromptedLLM(srv.base_url, "m", SENTINEL, cassette=Cassette(path, "record"))
        x = ops(llm).extract(TASK, EPISODE)
        llm.chat([{"role": "user", "content": "my token is tok-abcdef-987654"}], op="echo")
    assert SENTINEL in x.skills[0].content  # the reply really carried it
    data = path.read_text()
    assert SENTINEL not in data and "tok-abcdef-987654" not in data
    assert "[REDACTED]" in data
    assert "tok-abcdef-987654" in env_secrets()


def test_replay_miss_names_the_operation_and_first_message(tmp_path):
    path = tmp_path / "c.jsonl"
    with ScriptedServer(responder) as srv:
        ops(PromptedLLM(srv.base_url, "m", SENTINEL, cassette=Cassette(path, "record"))).decompose(TASK)
    replay = PromptedLLM(model="m", cassette=Cassette(path, "replay"))
    other = Task(id="t2", question="A question never recorded")
    with pytest.raises(CassetteMiss) as ei:
        ops(replay).decompose(other)
    msg = str(ei.value)
    assert "op 'decompose' never recorded" in msg
    assert "Decompose this task into 1-3 SHORT steps" in msg
    # a different model or temperature is a different request too
    with pytest.raises(CassetteMiss):
        ops(PromptedLLM(model="m", temperature=0.2, cassette=Cassette(path, "replay"))).decompose(TASK)


def test_repeated_identical_calls_replay_in_order(tmp_path):
    path = tmp_path / "c.jsonl"
    counter = iter(range(100))
    with ScriptedServer(lambda req: f"answer {next(counter)}") as srv:
        llm = PromptedLLM(srv.base_url, "m", SENTINEL, cassette=Cassette(path, "record"))
        live = [llm.chat([{"role": "user", "content": "same"}]).content for _ in range(3)]
    assert live == ["answer 0", "answer 1", "answer 2"]
    replay = PromptedLLM(model="m", cassette=Cassette(path, "replay"))
    assert [replay.chat([{"role": "user", "content": "same"}]).content for _ in range(3)] == live
    with pytest.raises(CassetteMiss, match="asked 4 times, recorded 3"):
        replay.chat([{"role": "user", "content": "same"}])


def test_failures_are_recorded_and_replayed(tmp_path):
    path = tmp_path / "c.jsonl"
    with ScriptedServer([error(500)] * 2) as srv:
        llm = PromptedLLM(
            srv.base_url,
            "m",
            SENTINEL,
            max_retries=1,
            retry_base_delay=0.001,
            cassette=Cassette(path, "record"),
        )
        with pytest.raises(LLMConnectionError) as live:
            ops(llm).decompose(TASK)
    replay = PromptedLLM(model="m", cassette=Cassette(path, "replay"))
    with pytest.raises(LLMConnectionError) as again:
        ops(replay).decompose(TASK)
    assert str(again.value) == str(live.value)
    assert replay.usage.retries == llm.usage.retries == 1


def test_record_mode_extends_an_existing_cassette_for_resumed_runs(tmp_path):
    path = tmp_path / "c.jsonl"
    with ScriptedServer([text("one"), text("two")]) as srv:
        first = PromptedLLM(srv.base_url, "m", SENTINEL, cassette=Cassette(path, "record"))
        first.chat([{"role": "user", "content": "q"}])
        resumed = PromptedLLM(srv.base_url, "m", SENTINEL, cassette=Cassette(path, "record"))
        resumed.chat([{"role": "user", "content": "q"}])
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert lines[0] == {"format": "hyperskill-cassette", "version": 1}
    assert [e["n"] for e in lines[1:]] == [0, 1]
    replay = PromptedLLM(model="m", cassette=Cassette(path, "replay"))
    assert [replay.chat([{"role": "user", "content": "q"}]).content for _ in range(2)] == [
        "one",
        "two",
    ]


def test_request_key_hand_worked():
    canonical = '{"kind":"chat","messages":[{"content":"hi","role":"user"}],"model":"m"}'
    expected = hashlib.sha256(canonical.encode()).hexdigest()
    assert (
        request_key("chat", {"model": "m", "messages": [{"role": "user", "content": "hi"}]})
        == expected
    )


def test_through_and_bad_files(tmp_path):
    path = tmp_path / "c.jsonl"
    rec = Cassette(path, "record")
    assert (
        rec.through(
            "tool", {"name": "python", "arguments": {"code": "1"}}, lambda: "1\n", op="python"
        )
        == "1\n"
    )
    assert len(rec) == 1
    with pytest.raises(RuntimeError, match="needs mode 'replay'"):
        rec.lookup("tool", {})
    rep = Cassette(path, "replay")
    assert (
        rep.through("tool", {"name": "python", "arguments": {"code": "1"}}, lambda: 1 / 0) == "1\n"
    )
    with pytest.raises(RuntimeError, match="needs mode 'record'"):
        rep.record("tool", {}, "x")
    with pytest.raises(ValueError, match="mode must be 'record' or 'replay'"):
        Cassette(path, "rw")
    with pytest.raises(FileNotFoundError, match="cassette to replay not found"):
        Cassette(tmp_path / "missing.jsonl", "replay")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "something-else"}\n')
    with pytest.raises(ValueError, match="is not a cassette"):
        Cassette(bad, "replay")
    bad.write_text('{"format": "hyperskill-cassette", "version": 99}\n')
    with pytest.raises(ValueError, match="format version 99"):
        Cassette(bad, "replay")
    bad.write_text('{"format": "hyperskill-cassette", "version": 1}\n{"key": "k"}\n')
    with pytest.raises(ValueError, match="line 2 is malformed"):
        Cassette(bad, "replay")
