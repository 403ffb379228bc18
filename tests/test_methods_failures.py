"""HyperSkillMemory when a model call fails (issue 33), against a real OpenAI-compatible
server on loopback (ScriptedServer) and the real client: a failed decomposition still
runs the trajectory path (E_traj from the task text) and the record says so; an episode
that errored before its first step adds no hyperedge and leaves T_min / T_max alone."""

from __future__ import annotations

import pytest

from hyperskill_lite.agent.loop import AgentExecutor
from hyperskill_lite.agent.tools import Toolbox
from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.llm.client import PromptedLLM
from hyperskill_lite.methods import make_method
from hyperskill_lite.runner import run_episodes
from hyperskill_lite.testing.scripted_replies import error, prompt_aware_responder, text
from hyperskill_lite.testing.scripted_server import ScriptedServer
from hyperskill_lite.types import Task

TASKS = [Task(f"t{i}", f"What is six times seven, variant {i}?", answer="42") for i in range(4)]


def _llm(srv: ScriptedServer) -> PromptedLLM:
    return PromptedLLM(srv.base_url, "scripted-model", "sk-test-key-0123456789",
                       retry_base_delay=0.001, max_retries=1, timeout=10)


def _is_last_task(request: dict) -> bool:
    return any(TASKS[-1].question in str(m.get("content") or "") for m in request["messages"])


def _run(tmp_path, responder, method: str = "hyperskill"):
    with ScriptedServer(responder) as srv:
        llm = _llm(srv)
        system = make_method(method, llm, HashingEncoder(dim=64, seed=0))
        executor = AgentExecutor(llm, Toolbox(python=False), max_steps=3)
        recs = run_episodes(system, TASKS, executor, tmp_path / method, progress=False,
                            maintain_every=0)
    return recs, system


@pytest.mark.parametrize("method", ["hyperskill", "hyperskill-no-trajectory"])
def test_a_failed_decomposition_still_runs_the_trajectory_path(tmp_path, method):
    def responder(request):
        last = str(request["messages"][-1].get("content") or "")
        if last.startswith("Decompose") and _is_last_task(request):
            return text("I cannot split this task.")  # not JSON, and again on the re-ask
        return prompt_aware_responder(request)

    recs, system = _run(tmp_path, responder, method)
    rec = recs[-1]
    assert "begin: decompose" in rec["error"]
    if method == "hyperskill":
        assert rec["retrieval"]["fallback"] == ("decomposition failed: retrieval ran the "
                                                "trajectory path only (E_traj from the task "
                                                "text)")
        edges = [i for i in rec["retrieved"] if i.startswith("e")]
        assert edges and not any(i.startswith("u") for i in rec["retrieved"])  # E_traj only
        assert rec["injected"] > 0  # the agent got memory, not nothing
    else:  # the ablation has no trajectory path: nothing is left, and the record says so
        assert "no path" in rec["retrieval"]["fallback"] and rec["retrieved"] == []
    # the episode still taught the memory: a hyperedge without subtask nodes
    edge = system.memory.edge(rec["update"]["edge"])
    assert not any(n.startswith("u") for n in edge.node_ids)
    assert all("retrieval" not in r and not r["error"] for r in recs[:-1])
    system.memory.validate()


def test_an_episode_that_errored_before_its_first_step_leaves_the_t_range_alone(tmp_path):
    def responder(request):
        if request["messages"][0].get("role") == "system" and _is_last_task(request):
            return error(400, "context length exceeded")  # the agent's call is refused
        return prompt_aware_responder(request)

    recs, system = _run(tmp_path, responder)
    *ok, bad = recs
    assert bad["steps"] == 0 and "agent: the model server refused" in bad["error"]
    assert bad["update"] == {"edge": None, "skills": [], "dedup": 0, "no_steps": True}
    assert system.memory.stats()["hyperedges"] == len(ok)  # nothing extracted from it
    steps = [r["steps"] for r in ok]
    assert system.memory.t_range == (min(steps), max(steps)) and min(steps) > 0
    # the elements it retrieved still count the failed retrieval (nu), not its 0 steps
    used = [i for i in bad["retrieved"] if i.startswith("s")]
    assert used and all(system.memory.node(i).mean_steps >= min(steps) for i in used)
    system.memory.validate()
