"""Tests for agent/loop.py: the real agent loop and openai client against the scripted server."""

from __future__ import annotations

import json

import pytest

from hyperskill_lite.agent.actions import parse_final_answer
from hyperskill_lite.agent.framing import frame
from hyperskill_lite.agent.loop import AgentExecutor
from hyperskill_lite.agent.tools import LocalCorpus, PythonSandbox, Toolbox
from hyperskill_lite.bench.judges import self_judge_verdict
from hyperskill_lite.core.records import ContextItem
from hyperskill_lite.errors import LLMError
from hyperskill_lite.llm.cassette import Cassette
from hyperskill_lite.llm.client import PromptedLLM
from hyperskill_lite.methods.hyperskill.ops import PromptedHyperSkillOps as ops
from hyperskill_lite.testing.scripted_replies import error, prompt_aware_responder, text, tool_call
from hyperskill_lite.testing.scripted_server import ScriptedServer
from hyperskill_lite.types import MemoryContext, Task

SENTINEL = "sk-test-SENTINEL-123456789012345678"
TASK = Task(id="t1", question="What is 6 times 7?")
MEMORY = MemoryContext(
    text="## Relevant Skills\n1. **Compute Don't Guess**: Use python for arithmetic.",
    items=[ContextItem("skill", "Compute Don't Guess: Use python for arithmetic.")],
)


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    (root / "facts.example.org").mkdir()
    (root / "facts.example.org" / "tower.html").write_text(
        "<title>Tower facts</title><p>The Example Tower is 330 metres tall.</p>"
    )
    return Toolbox(corpus=LocalCorpus(root), python=PythonSandbox(timeout=5, memory_mb=512,
                                                                 isolation="process"))


def llm_for(srv: ScriptedServer, **kw) -> PromptedLLM:
    return PromptedLLM(
        srv.base_url, "m", SENTINEL, retry_base_delay=0.001, timeout=5, max_retries=1, **kw
    )


def test_tool_loop_end_to_end(tools):
    with ScriptedServer(
        [
            tool_call("python", {"code": "print(6 * 7)"}, content="I will compute it."),
            text("The product is known now.\nFINAL ANSWER: 42"),
        ]
    ) as srv:
        ep = AgentExecutor(llm_for(srv), tools).run(TASK, MEMORY)
    assert (ep.success, ep.answer, ep.steps, ep.calls, ep.error) == (True, "42", 2, 1, None)
    assert ep.meta["stopped"] == "answer" and ep.meta["protocol"] == "tools"
    assert ep.meta["tools_used"] == ["python"]
    assert ep.tokens == ep.meta["prompt_tokens"] + ep.meta["completion_tokens"] > 0
    assert ep.meta["context_tokens"] > 0 and ep.meta["llm_calls"] == 2
    assert "Action: python(" in ep.trajectory and "Observation: 42" in ep.trajectory
    assert ep.trajectory.endswith("Final answer: 42")
    first, second = srv.requests
    assert {t["function"]["name"] for t in first["tools"]} == {
        "web_search",
        "crawl_page",
        "python",
        "inspect_file_as_text",
        "final_answer",
    }
    assert second["messages"][2]["tool_calls"][0]["function"]["name"] == "python"
    assert second["messages"][3] == {"role": "tool", "tool_call_id": "call_1_0",
                                     "content": frame("42\n", "python")}


def test_search_crawl_and_final_answer_tool(tools):
    script = [
        tool_call("web_search", {"query": "Example Tower height"}),
        tool_call("crawl_page", {"url": "https://facts.example.org/tower.html"}),
        tool_call("final_answer", {"answer": "330 metres"}),
    ]
    with ScriptedServer(script) as srv:
        ep = AgentExecutor(llm_for(srv), tools).run(
            Task("t2", "How tall is the Example Tower?"), MemoryContext()
        )
    assert (ep.answer, ep.steps, ep.calls) == ("330 metres", 3, 2)
    search_result = srv.requests[1]["messages"][-1]["content"]
    assert search_result.startswith('<tool_output tool="web_search" source="web search: '
                                    'Example Tower height">\n1. Tower facts\n'
                                    "   https://facts.example.org/tower.html")
    assert "330 metres tall" in srv.requests[2]["messages"][-1]["content"]


def test_memory_is_injected_once_at_the_start(tools):
    with ScriptedServer(
        [tool_call("python", {"code": "print(1)"}), text("FINAL ANSWER: 1")]
    ) as srv:
        AgentExecutor(llm_for(srv), tools).run(TASK, MEMORY)
    for req in srv.requests:
        blob = json.dumps(req["messages"])
        assert blob.count("Compute Don't Guess") == 1
        assert "Compute Don't Guess" in req["messages"][0]["content"]  # the system message


def test_sliding_window_keeps_the_last_three_steps(tools):
    script = [tool_call("python", {"code": f"print({i})"}, id=f"step{i}") for i in range(1, 7)]
    with ScriptedServer([*script, text("FINAL ANSWER: done")]) as srv:
        ep = AgentExecutor(llm_for(srv), tools, window=3).run(TASK, MEMORY)
    assert ep.steps == 7 and ep.calls == 6
    for k, req in enumerate(srv.requests, start=1):  # request k sees steps max(1, k-3) .. k-1
        ids = [m["tool_call_id"] for m in req["messages"] if m["role"] == "tool"]
        assert ids == [f"step{i}" for i in range(max(1, k - 3), k)]
        assert len(req["messages"]) == 2 + 2 * min(k - 1, 3)
    assert "(Steps 1-3 are no longer shown" in srv.requests[6]["messages"][1]["content"]
    # the trajectory keeps every step
    assert all(f"Step {i}" in ep.trajectory for i in range(1, 8))


def test_json_in_text_protocol(tools):
    script = [
        text(
            'Let me compute.\n{"thought": "use python", "tool": "python", "arguments": {"code": "print(2+2)"}}'
        ),
        text('```json\n{"thought": "done", "final_answer": "4"}\n```'),
    ]
    with ScriptedServer(script) as srv:
        ep = AgentExecutor(llm_for(srv), tools, protocol="json").run(TASK, MemoryContext())
    assert (ep.answer, ep.steps, ep.calls, ep.meta["protocol"]) == ("4", 2, 1, "json")
    assert all("tools" not in r for r in srv.requests)
    system = srv.requests[0]["messages"][0]["content"]
    assert '{"thought": "<why>", "tool": "<tool name>", "arguments": {<arguments>}}' in system
    assert "- python(code: string)" in system
    assert srv.requests[1]["messages"][-1] == {
        "role": "user",
        "content": "Observation from python:\n" + frame("4\n", "python"),
    }


def test_auto_detects_a_server_without_tool_calling(tools):
    script = [
        text('{"tool": "python", "arguments": {"code": "print(3)"}}'),
        text('{"final_answer": "3"}'),
    ]
    with ScriptedServer(script, tools_supported=False) as srv:
        agent = AgentExecutor(llm_for(srv), tools)
        ep = agent.run(TASK, MemoryContext())
    assert (ep.answer, ep.meta["protocol"], ep.steps, ep.error) == ("3", "json", 2, None)
    # one tool-call probe, refused; then the JSON-in-text protocol for every step
    assert [bool(p.get("tools")) for p in srv.probes if p.get("tools")] == [True]
    assert all("tools" not in r for r in srv.requests)
    assert agent.protocol == "json"  # remembered for the next tasks


def test_malformed_reply_is_reasked_then_recorded_as_the_episode_error(tools):
    script = [
        text("I am not sure what to do."),
        text("Still thinking..."),  # task 1: fails
        text('{"final_answer": "ok"}'),
    ]  # task 2 goes on
    with ScriptedServer(script) as srv:
        agent = AgentExecutor(llm_for(srv), tools, protocol="json")
        bad = agent.run(TASK, MemoryContext())
        good = agent.run(Task("t2", "q2"), MemoryContext())
    assert bad.success is False and bad.answer is None
    assert bad.error.startswith(
        "LLMResponseError: agent: step 1: reply still malformed after a re-ask"
    )
    assert bad.meta["stopped"] == "error" and "Run failed: LLMResponseError" in bad.trajectory
    assert srv.requests[1]["messages"][-1]["content"].startswith(
        "Your previous reply could not be used"
    )
    assert good.answer == "ok" and good.error is None


def test_api_failure_is_recorded_not_raised(tools):
    with ScriptedServer([tool_call("python", {"code": "print(1)"}), error(500), error(500)]) as srv:
        ep = AgentExecutor(llm_for(srv), tools).run(TASK, MEMORY)
    assert ep.success is False and ep.steps == 1 and ep.calls == 1
    assert ep.error.startswith("LLMConnectionError: agent: gave up after 2 attempt(s)")
    assert SENTINEL not in ep.error


def test_max_steps_and_the_last_step_nudge(tools):
    with ScriptedServer(default=tool_call("python", {"code": "print(0)"})) as srv:
        ep = AgentExecutor(llm_for(srv), tools, max_steps=3).run(TASK, MemoryContext())
    assert (ep.steps, ep.answer, ep.success, ep.meta["stopped"]) == (3, None, False, "max_steps")
    assert "This is your last step" in srv.requests[2]["messages"][-1]["content"]
    assert "last step" not in json.dumps(srv.requests[1]["messages"])
    assert ep.trajectory.endswith("No final answer within 3 steps.")


def test_bad_tool_arguments_and_hermes_text_calls(tools):
    script = [
        tool_call("python", "{not json"),
        text('<tool_call>\n{"name": "python", "arguments": {"code": "print(5)"}}\n</tool_call>'),
        text("5"),
    ]
    with ScriptedServer(script) as srv:
        ep = AgentExecutor(llm_for(srv), tools).run(TASK, MemoryContext())
    assert srv.requests[1]["messages"][-1]["content"].startswith(
        "Error: the arguments of python are not a JSON object"
    )
    assert srv.requests[2]["messages"][-1] == {
        "role": "user",
        "content": "Observation from python:\n" + frame("5\n", "python"),
    }
    assert (ep.answer, ep.calls, ep.steps) == ("5", 1, 3)


def test_constructor_checks():
    llm = PromptedLLM("http://127.0.0.1:9/v1", "m", SENTINEL)
    with pytest.raises(ValueError, match="max_steps must be >= 1"):
        AgentExecutor(llm, max_steps=0)
    with pytest.raises(ValueError, match="protocol must be"):
        AgentExecutor(llm, protocol="xml")
    assert parse_final_answer("**FINAL ANSWER:** Paris") == "Paris"


def _responder(request: dict):
    """The library's stand-in model, except that extraction for task b is never JSON."""
    msgs = request["messages"]
    extracting = str(msgs[0]["content"]).startswith("Extract")
    if extracting and "Task: b:" in msgs[0]["content"]:
        return "I cannot produce JSON today."
    return prompt_aware_responder(request)


def mini_run(llm: PromptedLLM, agent: AgentExecutor, tasks: list[Task], out) -> list[dict]:
    """What a runner does per episode: decompose, act, self-judge, extract; write JSONL."""
    records = []
    with out.open("w") as f:
        for task in tasks:
            snap = llm.usage.snapshot()
            plan = ops(llm).decompose(task)
            ep = agent.run(task, MemoryContext(plan=plan))
            ep.success = self_judge_verdict(llm, task, ep)[0] if ep.error is None else False
            try:
                lesson = ops(llm).extract(task, ep).lesson
            except LLMError as e:
                lesson, ep.error = None, f"{type(e).__name__}: {e}"
            rec = {
                **ep.to_dict(),
                "plan": plan,
                "lesson": lesson,
                "llm": llm.usage.since(snap).total_tokens,
            }
            f.write(json.dumps(rec) + "\n")
            f.flush()
            records.append(rec)
    return records


def test_live_run_records_and_offline_replay_reproduces_the_records(tmp_path, tools, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    tasks = [
        Task("a", "a: what is 6*7?"),
        Task("b", "b: what is 6*7?"),
        Task("c", "c: what is 6*7?"),
    ]
    cassette = tmp_path / "cassette.jsonl"
    with ScriptedServer(_responder) as srv:
        llm = PromptedLLM(
            srv.base_url,
            "m",
            SENTINEL,
            retry_base_delay=0.001,
            cassette=Cassette(cassette, "record"),
        )
        live = mini_run(llm, AgentExecutor(llm, tools), tasks, tmp_path / "live.jsonl")
    assert [r["task_id"] for r in live] == ["a", "b", "c"]
    assert live[1]["error"].startswith(
        "LLMResponseError: extract: the model's reply was not usable after 1 re-ask"
    )
    assert live[0]["error"] is None and live[2]["error"] is None  # the run went on after b
    assert live[0]["answer"] == "42" and live[0]["lesson"] == "Compute, do not guess."
    assert live[0]["success"] is True and live[0]["calls"] == 1

    # offline: no server, no key; the same tool names but backends that would give other
    # results if they ran (an empty corpus, a python that times out at once): tool results
    # must come from the cassette
    monkeypatch.delenv("OPENAI_API_KEY")
    replay_llm = PromptedLLM(model="m", cassette=Cassette(cassette, "replay"))
    (tmp_path / "empty").mkdir()
    offline_tools = Toolbox(
        corpus=LocalCorpus(tmp_path / "empty"), python=PythonSandbox(timeout=0.001)
    )
    replayed = mini_run(
        replay_llm, AgentExecutor(replay_llm, offline_tools), tasks, tmp_path / "replay.jsonl"
    )
    assert replayed == live
    for f in tmp_path.rglob("*"):
        assert not f.is_file() or SENTINEL not in f.read_text(), f.name


def test_the_stand_in_model_drives_the_json_protocol_too(tools):
    with ScriptedServer(prompt_aware_responder, tools_supported=False) as srv:
        ep = AgentExecutor(llm_for(srv), tools).run(TASK, MEMORY)
    assert (ep.answer, ep.calls, ep.meta["protocol"]) == ("42", 1, "json")
    assert len(srv.requests) == 2  # the python call, the answer
    assert [p for p in srv.probes if p.get("tools")]  # the refused tool-call probe
