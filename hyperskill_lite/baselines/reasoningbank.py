"""ReasoningBank: a bank of reasoning strategies distilled from successes and failures.

Mechanism (Ouyang et al., "ReasoningBank: Scaling Agent Self-Evolving with Reasoning
Memory", arXiv 2509.25140, ICLR 2026):

- store: after every episode, judged success or failure, the model distils up to 3
  memory items, each a title, a one-line description and a content: why the trajectory
  worked, or why it failed and what prevents the failure. The items of one episode form
  one bank entry, keyed by the embedding of its task query;
- retrieve: phi(task) against the entry keys (cosine); the items of the top-k entries
  go into the agent's prompt;
- update: consolidation is plain addition (append the new entry); no maintenance.

Simplified here: the retrieval count is k = 3 entries (the shared setup of the HyperSkill
paper, Appendix A; ReasoningBank's own default is 1); the outcome label is the runner's
judge (the paper's LLM-as-judge, or our self-judge); no memory-aware test-time scaling
(MaTTS), which needs several rollouts per task.

=============  ===========================  ===========================  ===================
               ReasoningBank                EvolveLab                    here
=============  ===========================  ===========================  ===================
stores         1-3 items per episode,       -                            the same
               success or failure, keyed
               by the task
retrieves (k)  top-1 entry by cosine        -                            top k = 3 entries
updates        append only                  -                            append only
=============  ===========================  ===========================  ===================

EvolveLab ships no provider of this method.

Its model operation, here beside the memory: `ReasoningBankOps` (a `PromptedOps`, the
class's ``OPS``) declares ``reasoning_items`` once: the prompts, reply schema
(``SCHEMAS``), canned reply for the scripted test server (``CANNED``), the prompted
implementation and the simulated one inside SkillWorld (`simulated_reasoning_items`).
"""

from __future__ import annotations

from typing import Any

from hyperskill_lite.agent.prompts import NAME, PARAGRAPH, SENTENCES
from hyperskill_lite.baselines.base import BaselineMemory, note_item, register_baseline
from hyperskill_lite.baselines.ops.checks import check_notes
from hyperskill_lite.baselines.ops.notes import MemoryNote
from hyperskill_lite.baselines.ops.prompted import PromptedOps
from hyperskill_lite.core.records import Polarity
from hyperskill_lite.llm.structured import arr, obj
from hyperskill_lite.llm.text import fill
from hyperskill_lite.methods.operations import operation
from hyperskill_lite.types import Episode, MemoryContext, Task

__all__ = ["ReasoningBank", "ReasoningBankOps", "simulated_reasoning_items"]


# ----------------------------------------------------------------- model operations
_ITEM_RULES = """\
Write up to 3 memory items. Each item has:
- "title": a short name for the strategy (3-6 words), not specific to this task;
- "description": one sentence saying when the item applies;
- "content": 1-3 sentences of transferable reasoning: what to do and why.
Do not mention specific websites, names, numbers or queries of this task.

Reply with ONLY JSON: {"memory_items": [{"title": "...", "description": "...", "content": "..."}]}"""

REASONINGBANK_SUCCESS = (
    "You are distilling a memory bank of reasoning strategies from an agent trajectory.\n"
    "The agent SUCCEEDED at this task. First think about why the trajectory succeeded, "
    "then summarise the strategies that made it work and would help on similar tasks.\n\n"
    "Task: {query}\nTrajectory:\n{trajectory}\n\n" + _ITEM_RULES
)

REASONINGBANK_FAILURE = (
    "You are distilling a memory bank of reasoning strategies from an agent trajectory.\n"
    "The agent FAILED at this task. First reflect on why the trajectory failed, then "
    "summarise the lessons and the strategies that would prevent this failure next time.\n\n"
    "Task: {query}\nTrajectory:\n{trajectory}\n\n" + _ITEM_RULES
)

_NOTE = obj(title=NAME, description=SENTENCES, content=PARAGRAPH)
SCHEMAS: dict[str, dict[str, Any]] = {
    "reasoningbank": obj(memory_items=arr(_NOTE, 1, 3)),
}
"""The JSON schema of each reply (keyed by the operation name its `ReasoningBankOps` method
passes to ``chat_json``), the shape its prompt above asks for; sent as structured
output when the server supports it (llm/structured.py)."""

CANNED: list[tuple[str, Any]] = [
    (
        REASONINGBANK_SUCCESS.splitlines()[0],
        {
            "memory_items": [
                {
                    "title": "Verify Before Answering",
                    "description": "When a value comes from one page.",
                    "content": "Cross-check the value on a second source before answering.",
                }
            ]
        },
    ),
]
"""A valid reply per prompt above, by its first line (`baselines.prompts.scripted_reply`,
for the scripted test server)."""


def reasoningbank_prompt(query: str, trajectory: str, success: bool) -> str:
    """ReasoningBank's extraction prompt for a judged success or failure."""
    template = REASONINGBANK_SUCCESS if success else REASONINGBANK_FAILURE
    return fill(template, query=query, trajectory=trajectory)


def simulated_reasoning_items(sim: Any, task: Task, episode: Episode) -> list[MemoryNote]:
    """ReasoningBank: one memory item (title, description, content) per pick."""
    rng = sim.rng("reasoningbank", task.id, sim.outcome(episode))
    out: list[MemoryNote] = []
    seen = sim.seen(episode)
    for lid in sim.picks(task, episode, rng):
        out.append(sim.note(lid, rng, "reasoningbank", tuple(n.title for n in out), seen))
    return out


class ReasoningBankOps(PromptedOps):
    """ReasoningBank's model operation (``reasoning_items``) over a prompted chat model."""

    @operation(
        prompts=(REASONINGBANK_SUCCESS,
        REASONINGBANK_FAILURE,
        ),
        schemas=SCHEMAS,
        canned=CANNED,
        simulated=simulated_reasoning_items,
    )
    def reasoning_items(self, task: Task, episode: Episode) -> list[MemoryNote]:
        """ReasoningBank: up to 3 memory items from a judged success or failure."""
        pol: Polarity = "success" if episode.success else "failure"
        prompt = reasoningbank_prompt(task.text, self._traj(episode), episode.success)
        return self.chat_json(
            "reasoningbank",
            prompt,
            lambda o: check_notes(o, ("memory_items", "items"), polarity=pol),
        )


class ReasoningBank(BaselineMemory):
    """ReasoningBank on the runner's interface (module docstring).

    `bank` rows: key = the task query; payload ``{"task_id", "success", "items": [note]}``.
    """

    name = "reasoningbank"
    OPS = ReasoningBankOps
    SECTIONS = (("insight", "## Memory Items (reasoning strategies from similar past tasks)"),)
    STORES = ("bank",)

    def __init__(self, llm: Any, encoder: Any = None, k: int = 3) -> None:
        super().__init__(llm, encoder, k)
        self.bank = self._new_store()

    def begin(self, task: Task) -> MemoryContext:
        if not len(self.bank):
            return MemoryContext()
        items, retrieved = [], []
        for row, _ in self.bank.topk(self._vec(task.text), self.k):
            for j, d in enumerate(self.bank.payloads[row]["items"]):
                n = MemoryNote.from_dict(d)
                text = f"{n.title}: {n.description}\n{n.content}" if n.description else n.text
                items.append(note_item("insight", n, text))
                retrieved.append(f"rb{row}.{j}")
        return self._context(items, retrieved)

    def end(self, task: Task, episode: Episode) -> None:
        notes = self._op("reasoning_items", task, episode)
        self.t += 1
        if notes:
            self.bank.add(
                task.text,
                self._vec(task.text),
                {
                    "task_id": task.id,
                    "success": bool(episode.success),
                    "items": [n.to_dict() for n in notes],
                },
            )

    def stats(self) -> dict[str, int]:
        rows = self.bank.rows()
        return {
            "entries": len(rows),
            "items": sum(len(self.bank.payloads[r]["items"]) for r in rows),
        }

    def _state(self) -> dict[str, Any]:
        return {}

    def _load_state(self, state: dict[str, Any]) -> None:
        return None


register_baseline(
    ReasoningBank, "baseline",
    "ReasoningBank: strategy items distilled from successes and failures",
)
