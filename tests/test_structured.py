"""Structured outputs and native tool calls on the live path (llm/structured.py,
PromptedLLM.resolve_structured / chat_json, AgentExecutor.resolve_protocol), against the
scripted OpenAI-compatible server (the real openai client, no mocks). The real local
model tier is `make live-smoke` (tools/live_smoke.py)."""

from __future__ import annotations

import json

import pytest

from hyperskill_lite.agent.loop import AgentExecutor
from hyperskill_lite.agent.prompts import action_schema
from hyperskill_lite.agent.tools import Toolbox
from hyperskill_lite.errors import LLMResponseError
from hyperskill_lite.llm.cassette import Cassette
from hyperskill_lite.llm.client import PromptedLLM
from hyperskill_lite.llm.structured import obj, response_format, string
from hyperskill_lite.methods.hyperskill.ops import PromptedHyperSkillOps as ops
from hyperskill_lite.methods.hyperskill.prompts import SCHEMAS
from hyperskill_lite.testing.scripted_replies import error, text
from hyperskill_lite.testing.scripted_server import ScriptedServer
from hyperskill_lite.types import Episode, MemoryContext, Task

TASK = Task("t1", "What is 6 times 7?")
KEY = "sk-test-not-a-real-key-0001"
PLAN = json.dumps([{"name": "compute", "description": "use python to multiply"}])


def test_response_format_shapes():
    s = obj(name=string())
    assert response_format("json_schema", "merge op", s) == {
        "type": "json_schema", "json_schema": {"name": "merge_op", "schema": s, "strict": False}}
    assert response_format("json_object", "merge", s) == {"type": "json_object", "schema": s}
    assert response_format("off", "merge", s) is None
    with pytest.raises(ValueError, match="structured mode must be one of"):
        response_format("grammar", "merge", s)
    with pytest.raises(ValueError, match="structured must be one of"):
        PromptedLLM("http://127.0.0.1:1/v1", "m", KEY, structured="xml")


@pytest.mark.parametrize(
    "accepts, expected",
    [(("json_schema", "json_object"), "json_schema"), (("json_object",), "json_object"), ((), "off")],
)
def test_auto_probes_once_what_the_server_accepts(accepts, expected):
    with ScriptedServer([text(PLAN), text(PLAN)], structured=accepts) as srv:
        llm = PromptedLLM(srv.base_url, "m", KEY)
        assert ops(llm).decompose(TASK) == ["compute: use python to multiply"]
        ops(llm).decompose(TASK)
        assert llm.structured_mode == expected
        assert len(srv.probes) == {"json_schema": 1, "json_object": 2, "off": 2}[expected]
        sent = [r.get("response_format") for r in srv.requests]
    if expected == "off":
        assert sent == [None, None]
    else:
        assert all(f["type"] == expected for f in sent)
        schema = sent[0]["json_schema"]["schema"] if expected == "json_schema" else sent[0]["schema"]
        assert schema == SCHEMAS["decompose"]
    assert llm.usage.outcomes["decompose"] == {"first_try": 2, "after_reask": 0, "failed": 0}


def test_a_fixed_mode_sends_no_probe():
    with ScriptedServer([text(PLAN)]) as srv:
        llm = PromptedLLM(srv.base_url, "m", KEY, structured="json_object")
        ops(llm).decompose(TASK)
        assert srv.probes == [] and srv.requests[0]["response_format"]["type"] == "json_object"


def test_a_refused_schema_falls_back_once_and_says_so(caplog):
    refused = error(400, "response_format: this schema is not supported by the grammar compiler")
    with ScriptedServer([refused, text(PLAN), text(PLAN)]) as srv:
        llm = PromptedLLM(srv.base_url, "m", KEY)
        with caplog.at_level("WARNING", logger="hyperskill_lite"):
            assert ops(llm).decompose(TASK) == ["compute: use python to multiply"]
        assert any("falls back to text parsing" in r.getMessage() for r in caplog.records)
        ops(llm).decompose(TASK)  # the operation stays on text parsing: no second refusal
        formats = [r.get("response_format") for r in srv.requests]
    assert formats[0] is not None and formats[1:] == [None, None]
    assert "decompose" in llm.structured_refused


def test_an_unrelated_400_is_not_taken_for_a_refused_schema():
    with ScriptedServer([error(400, "the model 'm' does not exist")]) as srv:
        llm = PromptedLLM(srv.base_url, "m", KEY, retry_base_delay=0.001)
        with pytest.raises(Exception, match="does not exist"):
            ops(llm).decompose(TASK)
        assert len(srv.requests) == 1 and llm.structured_refused == {}


def test_a_schema_valid_but_empty_answer_still_fails_its_contract():
    empty = text(json.dumps({"skills": [], "knowledge_fragment": ""}))
    with ScriptedServer([empty, empty]) as srv:
        llm = PromptedLLM(srv.base_url, "m", KEY)
        ep = Episode("t1", True, 2, trajectory="Step 1: computed.", answer="42")
        with pytest.raises(LLMResponseError, match="extract"):
            ops(llm).extract(TASK, ep)
        assert srv.requests[0]["response_format"]["json_schema"]["schema"] == SCHEMAS[
            "extract:success"]
    assert llm.usage.outcomes["extract"]["failed"] == 1


def test_native_tools_are_detected_and_used():
    with ScriptedServer([text("FINAL ANSWER: 42")]) as srv:
        llm = PromptedLLM(srv.base_url, "m", KEY)
        ex = AgentExecutor(llm, Toolbox())
        assert ex.resolve_protocol() == "tools" and ex.protocol_probe == "tool call returned"
        ep = ex.run(TASK, MemoryContext())
        assert ep.meta["protocol"] == "tools" and srv.requests[0]["tools"]


def test_without_native_tools_the_json_protocol_is_constrained_by_the_action_schema():
    action = {"thought": "multiply", "tool": "python", "arguments": {"code": "print(6*7)"}}
    with ScriptedServer([text(json.dumps(action)), text(json.dumps({"final_answer": "42"}))],
                        tools_supported=False) as srv:
        llm = PromptedLLM(srv.base_url, "m", KEY)
        ex = AgentExecutor(llm, Toolbox())
        ep = ex.run(TASK, MemoryContext())
        assert ex.protocol == "json" and ex.protocol_probe == "refused (HTTP 400)"
        assert (ep.success, ep.answer, ep.calls) == (True, "42", 1)
        fmt = srv.requests[0]["response_format"]
    assert fmt["json_schema"]["schema"] == action_schema(Toolbox().schemas())


def test_the_probes_are_recorded_and_replay_offline(tmp_path):
    path = tmp_path / "c.jsonl"
    with ScriptedServer([text(PLAN)], tools_supported=False) as srv:
        llm = PromptedLLM(srv.base_url, "m", KEY, cassette=Cassette(path, mode="record"))
        ex = AgentExecutor(llm, Toolbox())
        ex.resolve_protocol()
        live = ops(llm).decompose(TASK)
    assert KEY not in path.read_text()
    replay = PromptedLLM(model="m", cassette=Cassette(path, mode="replay"))
    rex = AgentExecutor(replay, Toolbox())
    assert rex.resolve_protocol() == "json" and ops(replay).decompose(TASK) == live
    assert replay.structured_mode == llm.structured_mode == "json_schema"
