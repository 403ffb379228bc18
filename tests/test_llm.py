"""Tests for llm/client.py and HyperSkill's prompted operations over it
(methods/hyperskill/ops.py): the real openai client against the scripted server (no mocks)."""

from __future__ import annotations

import json
import time

import pytest

from hyperskill_lite.bench.judges import self_judge_verdict
from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.core.records import Skill
from hyperskill_lite.errors import LLMConnectionError, LLMRequestError, LLMResponseError
from hyperskill_lite.llm.client import PromptedLLM
from hyperskill_lite.llm.usage import UsageSnapshot
from hyperskill_lite.llm.wire import ChatReply
from hyperskill_lite.methods.hyperskill.ops import PromptedHyperSkillOps as ops
from hyperskill_lite.testing.scripted_replies import error, raw, slow, text
from hyperskill_lite.testing.scripted_server import ScriptedServer
from hyperskill_lite.types import Episode, Task

SENTINEL = "sk-test-SENTINEL-123456789012345678"
STEPS = [
    {"name": "find_registry", "description": "use web_search to find the registry"},
    {"name": "compute_ratio", "description": "use python to compute the ratio"},
]
EXTRACTION = {
    "skills": [
        {"name": "Targeted Registry Search", "content": "Query the official registry first."}
    ],
    "knowledge_fragment": "Official registries beat aggregators.",
}
MISTAKES = {
    "mistakes": [{"name": "Unverified Aggregators", "content": "Aggregators mislead; verify."}],
    "knowledge_fragment": "Verify aggregator numbers.",
}
TASK = Task(id="t1", question="What share of the 2020 budget went to research?", benchmark="gaia")
EPISODE = Episode(
    task_id="t1",
    success=True,
    steps=3,
    calls=2,
    answer="12%",
    trajectory="Step 1\nAction: web_search(...)\nObservation: ...",
)


def llm_for(srv: ScriptedServer, **kw) -> PromptedLLM:
    kw = {"retry_base_delay": 0.001, "timeout": 5.0, "max_retries": 3, **kw}
    return PromptedLLM(srv.base_url, "scripted-model", SENTINEL, **kw)


def user_prompt(request: dict) -> str:
    return request["messages"][0]["content"]


def test_decompose_sends_the_benchmark_prompt_and_parses_steps():
    with ScriptedServer([text(json.dumps(STEPS))], api_key=SENTINEL) as srv:
        llm = llm_for(srv)
        steps = ops(llm).decompose(TASK)
    assert steps == [
        "find_registry: use web_search to find the registry",
        "compute_ratio: use python to compute the ratio",
    ]
    req = srv.requests[0]
    assert req["model"] == "scripted-model"
    assert req["temperature"] == 0.7
    assert user_prompt(req).startswith("Decompose this task into 1-3 SHORT steps.")
    assert "Task: What share of the 2020 budget went to research?" in user_prompt(req)


@pytest.mark.parametrize(
    ("benchmark", "task_benchmark", "first"),
    [
        ("webwalkerqa", "gaia", "Decompose this web navigation task"),
        ("xbench", "gaia", "Decompose this data task"),
        ("auto", "xbench", "Decompose this data task"),
        ("auto", "custom", "Decompose this task into 1-3"),
    ],
)
def test_benchmark_chooses_the_decomposition_prompt(benchmark, task_benchmark, first):
    task = Task(id="t", question="q", benchmark=task_benchmark)
    with ScriptedServer([text(json.dumps(STEPS))]) as srv:
        ops(llm_for(srv, benchmark=benchmark)).decompose(task)
    assert user_prompt(srv.requests[0]).startswith(first)


def test_extract_success_and_failure():
    failed = Episode(
        task_id="t1", success=False, steps=5, answer=None, error="timeout", trajectory="..."
    )
    with ScriptedServer([text(json.dumps(EXTRACTION)), text(json.dumps(MISTAKES))]) as srv:
        llm = llm_for(srv)
        ok = ops(llm).extract(TASK, EPISODE)
        bad = ops(llm).extract(TASK, failed)
    assert [(s.name, s.polarity) for s in ok.skills] == [("Targeted Registry Search", "success")]
    assert ok.lesson == "Official registries beat aggregators."
    assert [(s.name, s.polarity) for s in bad.skills] == [("Unverified Aggregators", "failure")]
    p_ok, p_bad = user_prompt(srv.requests[0]), user_prompt(srv.requests[1])
    assert "SUCCESSFUL task" in p_ok and "Result: SUCCESS. Final answer: 12%" in p_ok
    assert "Trajectory: <quoted_data what=\"trajectory\">\nStep 1\nAction: web_search(...)" in p_ok
    assert (
        "FAILED task" in p_bad and "Result: FAILURE. Final answer: (none). Error: timeout" in p_bad
    )


def test_extract_clips_long_trajectories():
    long_ep = Episode(task_id="t1", success=True, steps=1, trajectory="x" * 50_000)
    with ScriptedServer([text(json.dumps(EXTRACTION))]) as srv:
        ops(llm_for(srv, max_trajectory_chars=1000)).extract(TASK, long_ep)
    assert "characters omitted" in user_prompt(srv.requests[0])
    assert len(user_prompt(srv.requests[0])) < 3000


def test_merge_uses_the_structure_informed_prompt():
    a = Skill("Alpha Check", "Check alpha.", "failure")
    b = Skill("Beta Check", "Check beta.", "failure")
    merged = {"name": "Consolidated Checking", "content": "Check alpha and beta."}
    with ScriptedServer([text(json.dumps(merged))]) as srv:
        llm = llm_for(srv)
        s = ops(llm).merge(a, b)
        with pytest.raises(ValueError, match="one polarity"):
            ops(llm).merge(a, Skill("S", "c", "success"))
    assert (s.name, s.content, s.polarity) == (
        "Consolidated Checking",
        "Check alpha and beta.",
        "failure",
    )
    assert s.meta == {"merged_from": ["Alpha Check", "Beta Check"]}
    assert user_prompt(srv.requests[0]).startswith("These two mistakes are structurally")


def test_merge_prompt_carries_the_shared_trajectory_fragments():
    from hyperskill_lite.core.records import Fragment

    a = Skill("Alpha Check", "Check alpha.", "success")
    b = Skill("Beta Check", "Check beta.", "success")
    frags = [Fragment("Find the 2019 census total", "Tables beat news.", True),
             Fragment("Count the stations", "The map was stale.", False)]
    merged = {"name": "Consolidated Checking", "content": "Check alpha and beta."}
    with ScriptedServer([text(json.dumps(merged)), text(json.dumps(merged))]) as srv:
        llm = llm_for(srv)
        ops(llm).merge(a, b, fragments=frags)
        ops(llm).merge(a, b)
    with_frags, without = user_prompt(srv.requests[0]), user_prompt(srv.requests[1])
    assert "Shared trajectory fragments (tasks in which both were used):" in with_frags
    assert ("- Task: Find the 2019 census total | Outcome: success | Lesson: Tables beat news."
            in with_frags)
    assert "- Task: Count the stations | Outcome: failure | Lesson: The map was stale." in with_frags
    assert "Shared trajectory" not in without  # the paper's prompt, word for word
    assert with_frags.index("Content: Check beta.") < with_frags.index("Shared trajectory")
    assert with_frags.index("Shared trajectory") < with_frags.index("Create a consolidated")


def test_judge_is_a_self_judge_with_a_json_verdict():
    with ScriptedServer(
        [
            text('{"success": true, "reason": "cited"}'),
            text('Verdict:\n```json\n{"success": false, "reason": "guess"}\n```'),
        ]
    ) as srv:
        llm = llm_for(srv)
        assert self_judge_verdict(llm, TASK, EPISODE)[0] is True
        assert self_judge_verdict(llm, TASK, EPISODE) == (False, "guess")
    assert "You do not know the correct answer" in user_prompt(srv.requests[0])


def test_retries_on_429_and_500_then_success():
    with ScriptedServer([error(429), error(500), error(503), text(json.dumps(STEPS))]) as srv:
        llm = llm_for(srv, structured="off")  # text mode: exact call counts
        assert len(ops(llm).decompose(TASK)) == 2
    assert len(srv.requests) == 4
    assert llm.usage.retries == 3
    assert llm.usage.calls == 1  # only the successful reply is a call with usage


def test_retries_on_timeout_and_unreadable_body():
    with ScriptedServer(
        [slow(json.dumps(STEPS), 1.5), raw("{not json"), text(json.dumps(STEPS))]
    ) as srv:
        llm = llm_for(srv, timeout=0.3)
        assert len(ops(llm).decompose(TASK)) == 2
    assert llm.usage.retries == 2


def test_retries_wait_with_full_jitter_from_the_clients_own_generator():
    import random

    state = random.getstate()
    with ScriptedServer([error(500), error(500), text(json.dumps(STEPS))]) as srv:
        llm = llm_for(srv, retry_base_delay=0.05, retry_seed=7)
        ops(llm).decompose(TASK)
        times = list(srv.times)
    assert random.getstate() == state  # the global generator was not touched
    assert len(times) == 3 and llm.usage.retries == 2
    # the same seed draws the same waits; each lies in [0, base * 2**i]
    from hyperskill_lite.llm.retry import Backoff

    b = Backoff(0.05, 30.0, seed=7)
    waits = [b.delay(0), b.delay(1)]
    assert 0 <= waits[0] <= 0.05 and 0 <= waits[1] <= 0.1
    assert times[1] - times[0] >= waits[0] and times[2] - times[1] >= waits[1]


def test_two_clients_built_alike_do_not_retry_in_lock_step():
    from hyperskill_lite.llm.retry import Backoff

    a, b = Backoff(1.0, 30.0), Backoff(1.0, 30.0)  # no seed: each from the OS
    assert [a.delay(i) for i in range(6)] != [b.delay(i) for i in range(6)]
    seeded = [Backoff(1.0, 30.0, seed=3).delay(i) for i in range(6)]
    assert seeded == [Backoff(1.0, 30.0, seed=3).delay(i) for i in range(6)]
    assert all(0 <= d <= min(30.0, 2.0**i) for i, d in enumerate(seeded))


@pytest.mark.parametrize("header", ["seconds", "http-date"])
def test_a_429_with_retry_after_is_honoured(header):
    """The client waits at least what Retry-After asks (measured from the server's own
    arrival times), although its jittered backoff alone would wait at most 1 ms."""
    from email.utils import formatdate

    wait = 1.0
    value = "1" if header == "seconds" else formatdate(time.time() + 3.0, usegmt=True)
    with ScriptedServer([error(429, headers={"Retry-After": value}),
                         text(json.dumps(STEPS))]) as srv:
        llm = llm_for(srv, retry_base_delay=0.001)
        assert len(ops(llm).decompose(TASK)) == 2
        times = list(srv.times)
    assert len(times) == 2
    # an HTTP date has one-second resolution: it asks for at least one second from now
    assert times[1] - times[0] >= wait


def test_reasoning_content_is_kept_apart_from_the_answer():
    from hyperskill_lite.testing.scripted_replies import Reply

    with ScriptedServer([Reply(content=json.dumps(STEPS), reasoning="Let me think: two steps.")]
                        ) as srv:
        llm = llm_for(srv)
        reply = llm.chat([{"role": "user", "content": "plan"}], op="decompose")
    assert reply.reasoning == "Let me think: two steps."
    assert "reasoning_content" not in reply.message and "think" not in reply.content
    assert ChatReply.from_dict(reply.to_dict()) == reply


def test_each_call_is_logged_with_operation_status_latency_and_tokens(caplog):
    with ScriptedServer([error(503), text(json.dumps(STEPS))]) as srv:
        llm = llm_for(srv)
        with caplog.at_level("INFO", logger="hyperskill_lite"):
            ops(llm).decompose(TASK)
    calls = [r.getMessage() for r in caplog.records
             if r.getMessage().startswith("call op=decompose")]
    assert len(calls) == 1
    line = calls[0]
    for part in ("op=decompose", "status=200", "latency_ms=", "prompt_tokens=",
                 "completion_tokens=", "retries=1"):
        assert part in line
    assert any(r.getMessage().startswith("retry op=decompose") for r in caplog.records)
    assert SENTINEL not in caplog.text


def test_persistent_failure_gives_a_clear_error_without_the_key():
    with ScriptedServer([error(500, f"overloaded, key was {SENTINEL}")] * 4) as srv:
        llm = llm_for(srv, max_retries=3)
        with pytest.raises(LLMConnectionError) as ei:
            ops(llm).decompose(TASK)
    msg = str(ei.value)
    assert msg.startswith("decompose: gave up after 4 attempt(s)")
    assert "HTTP 500" in msg and llm.base_url in msg
    assert SENTINEL not in msg and SENTINEL not in repr(ei.value) and SENTINEL not in repr(llm)
    assert ei.value.op == "decompose"


def test_unreachable_server():
    srv = ScriptedServer().start()
    url = srv.base_url
    srv.stop()
    llm = PromptedLLM(url, "m", SENTINEL, max_retries=1, retry_base_delay=0.001, timeout=2)
    with pytest.raises(LLMConnectionError, match="connection failed") as ei:
        llm.chat([{"role": "user", "content": "hi"}], op="ping")
    assert SENTINEL not in str(ei.value)


def test_refused_request_is_not_retried_and_hides_the_key():
    with ScriptedServer(api_key="a-different-key") as srv:
        llm = llm_for(srv)
        with pytest.raises(LLMRequestError) as ei:
            ops(llm).decompose(TASK)
    assert ei.value.status == 401
    assert len(srv.requests) == 0  # rejected before the script
    assert "HTTP 401" in str(ei.value) and SENTINEL not in str(ei.value)


def test_malformed_json_is_reasked_once_then_succeeds():
    with ScriptedServer(
        [text("I think the steps are: search, then compute."), text(json.dumps(STEPS))]
    ) as srv:
        llm = llm_for(srv, structured="off")  # text mode: exact call counts
        assert len(ops(llm).decompose(TASK)) == 2
    second = srv.requests[1]["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    assert second[1]["content"] == "I think the steps are: search, then compute."
    assert second[2]["content"].startswith("Your previous reply could not be used: no JSON found")
    assert llm.usage.reasks == 1
    assert set(llm.usage.by_op) == {"decompose", "decompose:reask"}


def test_malformed_json_twice_raises_naming_the_operation():
    with ScriptedServer([text("no json"), text('{"still": "wrong shape"}')]) as srv:
        llm = llm_for(srv)
        with pytest.raises(LLMResponseError) as ei:
            ops(llm).extract(TASK, EPISODE)
    assert ei.value.op == "extract"
    assert str(ei.value).startswith("extract: the model's reply was not usable after 1 re-ask(s)")
    assert 'no "skills" array' in str(ei.value)
    assert len(srv.requests) == 2  # one re-ask, bounded


def test_contract_check_rejection_triggers_the_reask():
    zero = {"skills": [], "knowledge_fragment": "x"}
    with ScriptedServer([text(json.dumps(zero)), text(json.dumps(EXTRACTION))]) as srv:
        x = ops(llm_for(srv)).extract(TASK, EPISODE)
    assert len(x.skills) == 1
    assert "no usable" in srv.requests[1]["messages"][-1]["content"]


def test_contract_repair_ten_skills_and_a_long_name_without_reask():
    many = {
        "skills": [
            {
                "name": " ".join(["long"] * 300) if i == 0 else f"Skill {i}",
                "content": f"Content {i}.",
            }
            for i in range(10)
        ],
        "knowledge_fragment": "Lesson.",
    }
    with ScriptedServer([text("```json\n" + json.dumps(many) + "\n```")]) as srv:
        x = ops(llm_for(srv)).extract(TASK, EPISODE)
    assert len(x.skills) == 3 and len(srv.requests) == 1
    assert x.skills[0].name == "long long long long long"


def test_chat_json_generic_with_a_validator_that_repairs_or_raises():
    def validate(obj):
        if "score" not in obj:
            raise ValueError('missing "score"')
        return min(1.0, float(obj["score"]))

    with ScriptedServer([text('{"s": 1}'), text('Score: {"score": 3}')]) as srv:
        llm = llm_for(srv)
        assert (
            llm.chat_json(
                "importance",
                [{"role": "system", "content": "rate"}, {"role": "user", "content": "x"}],
                validate,
            )
            == 1.0
        )
    assert 'missing "score"' in srv.requests[1]["messages"][-1]["content"]
    assert srv.requests[1]["messages"][0] == {"role": "system", "content": "rate"}


def test_usage_per_call_overall_and_per_episode():
    usage = {"prompt_tokens": 100, "completion_tokens": 7, "total_tokens": 107}
    with ScriptedServer(
        [
            text(json.dumps(STEPS), usage=usage),
            text('{"success": true}', usage=usage),
            text("hello"),
        ]
    ) as srv:
        llm = llm_for(srv, structured="off")  # text mode: exact call counts
        ops(llm).decompose(TASK)
        snap = llm.usage.snapshot()
        self_judge_verdict(llm, TASK, EPISODE)[0]
        reply = llm.chat([{"role": "user", "content": "hi"}])
    assert llm.usage.since(snap).calls == 2
    assert llm.usage.since(snap).prompt_tokens == 100 + reply.usage["prompt_tokens"]
    assert llm.usage.snapshot() - snap == llm.usage.since(snap)
    assert (llm.usage.calls, llm.usage.by_op["decompose"]["prompt_tokens"]) == (3, 100)
    assert reply.content == "hello" and reply.usage["total_tokens"] == (
        reply.usage["prompt_tokens"] + reply.usage["completion_tokens"]
    )
    assert UsageSnapshot(1, 2, 3).total_tokens == 5
    assert llm.usage.to_dict()["total_tokens"] == llm.usage.total_tokens


def test_configuration_from_environment(monkeypatch):
    with ScriptedServer([text(json.dumps(STEPS))], api_key=SENTINEL, model="env-model") as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
        monkeypatch.setenv("HYPERSKILL_MODEL", "env-model")
        llm = PromptedLLM(retry_base_delay=0.001)
        assert ops(llm).decompose(TASK)[0].startswith("find_registry")
        assert llm.models() == ["env-model"]
    assert srv.requests[0]["model"] == "env-model"
    assert SENTINEL not in repr(llm)


def test_missing_configuration_errors(monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "HYPERSKILL_MODEL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ValueError, match="no model name"):
        PromptedLLM()
    with pytest.raises(ValueError, match="unknown benchmark"):
        PromptedLLM(model="m", benchmark="mmlu")
    with pytest.raises(LLMRequestError, match="no API key"):
        PromptedLLM(model="m").chat([{"role": "user", "content": "x"}])


def test_hyperskill_memory_asks_its_operations_through_the_client():
    from hyperskill_lite.methods import make_method

    with ScriptedServer([text(json.dumps(STEPS))]) as srv:
        llm = llm_for(srv)
        memory = make_method("hyperskill", llm, encoder=HashingEncoder(dim=32))
        assert isinstance(memory.llm, ops) and memory.llm.client is llm
        assert memory.llm.usage is llm.usage  # the runner reads system.llm.usage
        assert memory.begin(TASK).plan == ["find_registry: use web_search to find the registry",
                                           "compute_ratio: use python to compute the ratio"]
    assert llm.usage.by_op["decompose"]["calls"] == 1
