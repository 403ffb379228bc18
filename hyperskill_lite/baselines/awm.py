"""AWM (Agent Workflow Memory): workflows induced from successful trajectories.

Mechanism (Wang et al., "Agent Workflow Memory", ICML 2025), online setting:

- store: after a task the agent judges solved, the model induces 1-2 workflows from
  its trajectory: reusable sub-routines with a name, a goal description and steps in
  which example-specific values are abstracted into {variables}; they are added to the
  workflow memory (M_{t+1} = M_t + W_t); failed episodes induce nothing;
- retrieve: AWM integrates the workflow memory into the agent's prompt;
- update: only addition (an identical workflow is not added twice); no maintenance.

Simplified here: AWM puts every workflow in the prompt; with the HyperSkill paper's
shared setup the top-k = 3 workflows by cosine between phi(task) and phi("name:
description") are shown (`k=None` restores all-in-prompt). The success label is the
runner's learning judge (the paper's online AWM uses an LLM evaluator).

=============  ===========================  ===========================  ===================
               AWM                          EvolveLab                    here
=============  ===========================  ===========================  ===================
stores         1-2 workflows induced from   a workflow induced from a    1-2 workflows from a
               a success                    correct trajectory           judged success
retrieves (k)  every workflow in the        top_k = 1 by cosine          top k = 3 by cosine
               prompt                                                    (``k=None``: all)
updates        addition                     addition                     addition (no
                                                                         duplicates)
=============  ===========================  ===========================  ===================

EvolveLab column: read in bingreeky/MemEvolve,
Flash-Searcher-main/EvolveLab/providers/agent_workflow_memory_provider.py and config.py.

Its model operation, here beside the memory: `AWMOps` (a `PromptedOps`, the class's
``OPS``) declares ``induce_workflows`` once: the prompt, reply schema (``SCHEMAS``),
canned reply for the scripted test server (``CANNED``), the prompted implementation and
the simulated one inside SkillWorld (`simulated_induce_workflows`).
"""

from __future__ import annotations

from typing import Any

from hyperskill_lite.agent.prompts import NAME, SENTENCES
from hyperskill_lite.baselines.base import BaselineMemory, note_item, register_baseline
from hyperskill_lite.baselines.ops.checks import check_notes
from hyperskill_lite.baselines.ops.notes import MemoryNote
from hyperskill_lite.baselines.ops.prompted import STEPS_SCHEMA, PromptedOps
from hyperskill_lite.llm.structured import arr, obj
from hyperskill_lite.llm.text import fill
from hyperskill_lite.methods.operations import operation
from hyperskill_lite.types import Episode, MemoryContext, Task

__all__ = ["AgentWorkflowMemory", "AWMOps", "simulated_induce_workflows"]


def _key(note: MemoryNote) -> str:
    return f"{note.title}: {note.description}" if note.description else note.title or note.content


# ----------------------------------------------------------------- model operations
AWM_INDUCE = """\
You are inducing reusable workflows from an agent's successful trajectory.

Task: {query}
Trajectory:
{trajectory}

A workflow is a common sub-routine that recurs across tasks: give it a short snake_case \
name, a one-sentence description of the goal it achieves, and its steps. Replace every \
example-specific value (names, dates, URLs, numbers) with a {variable} in braces. Write \
1-2 workflows.

Reply with ONLY JSON: {"workflows": [{"name": "...", "description": "...", "steps": ["..."]}]}"""

SCHEMAS: dict[str, dict[str, Any]] = {
    "awm": obj(workflows=arr(obj(name=NAME, description=SENTENCES, steps=STEPS_SCHEMA), 1, 2)),
}
"""The JSON schema of each reply (keyed by the operation name its `AWMOps` method
passes to ``chat_json``), the shape its prompt above asks for; sent as structured
output when the server supports it (llm/structured.py)."""

CANNED: list[tuple[str, Any]] = [
    (
        AWM_INDUCE.splitlines()[0],
        {
            "workflows": [
                {
                    "name": "find_then_compute",
                    "description": "Find a value and compute the answer.",
                    "steps": ["search for {entity}", "read the value", "compute with python"],
                }
            ]
        },
    ),
]
"""A valid reply per prompt above, by its first line (`baselines.prompts.scripted_reply`,
for the scripted test server)."""


def simulated_induce_workflows(sim: Any, task: Task, episode: Episode) -> list[MemoryNote]:
    """AWM: one workflow over the task's decomposition, example values abstracted,
    with the hints of the picked strategies; nothing from a failed episode."""
    if not episode.success:
        return []
    rng = sim.rng("awm", task.id)
    lib = sim.library
    picks = sim.picks(task, episode, rng)
    archs = sim.archetypes(task)
    name = "_then_".join(a.split("_")[0] + "_" + a.split("_")[-1] for a in archs)
    desc = (
        "Workflow to "
        + ", then ".join(
            lib.archetypes[a].title[0].lower() + lib.archetypes[a].title[1:] for a in archs
        )
        + "."
    )
    steps = sim.steps(task, picks, rng)
    content = "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
    meta = sim.union(*[sim.phrase(x, rng).meta for x in picks], source="awm")
    return [MemoryNote(name, content, desc, "success", 1, meta)]


class AWMOps(PromptedOps):
    """AWM's model operation (``induce_workflows``) over a prompted chat model."""

    @operation(prompts=(AWM_INDUCE,), schemas=SCHEMAS, canned=CANNED,
               simulated=simulated_induce_workflows)
    def induce_workflows(self, task: Task, episode: Episode) -> list[MemoryNote]:
        """AWM: 1-2 reusable workflows induced from a successful trajectory."""
        prompt = fill(AWM_INDUCE, query=task.text, trajectory=self._traj(episode))
        return self.chat_json("awm", prompt, lambda o: check_notes(o, ("workflows",), max_items=2))


class AgentWorkflowMemory(BaselineMemory):
    """AWM on the runner's interface (module docstring). `workflows` rows: key =
    ``"name: description"``; payload ``{"task_id", "note"}``. ``k=None`` shows all."""

    name = "awm"
    OPS = AWMOps
    SECTIONS = (("workflow", "## Workflows"),)
    STORES = ("workflows",)

    def __init__(self, llm: Any, encoder: Any = None, k: int | None = 3) -> None:
        super().__init__(llm, encoder, 3 if k is None else k)
        self.all_in_prompt = k is None
        self.workflows = self._new_store()

    def begin(self, task: Task) -> MemoryContext:
        if not len(self.workflows):
            return MemoryContext()
        if self.all_in_prompt:
            rows = self.workflows.rows()
        else:
            rows = [r for r, _ in self.workflows.topk(self._vec(task.text), self.k)]
        items = []
        for r in rows:
            n = MemoryNote.from_dict(self.workflows.payloads[r]["note"])
            items.append(note_item("workflow", n, f"{_key(n)}\n{n.content}"))
        return self._context(items, [f"wf{r}" for r in rows])

    def end(self, task: Task, episode: Episode) -> None:
        self.t += 1
        if not episode.success:
            return
        existing = {self.workflows.keys[r] for r in self.workflows.rows()}
        for note in self._op("induce_workflows", task, episode):
            key = _key(note)
            if key in existing:
                continue
            existing.add(key)
            self.workflows.add(key, self._vec(key), {"task_id": task.id, "note": note.to_dict()})

    def stats(self) -> dict[str, int]:
        return {"workflows": len(self.workflows)}

    def _state(self) -> dict[str, Any]:
        return {"all_in_prompt": self.all_in_prompt}

    def _load_state(self, state: dict[str, Any]) -> None:
        self.all_in_prompt = bool(state["all_in_prompt"])


register_baseline(
    AgentWorkflowMemory, "baseline",
    "Agent Workflow Memory: reusable workflows induced from successes",
)
