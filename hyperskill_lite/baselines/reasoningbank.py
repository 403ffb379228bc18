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
"""

from __future__ import annotations

from typing import Any

from hyperskill_lite.baselines.base import BaselineMemory, note_item, register_baseline
from hyperskill_lite.baselines.ops import MemoryNote
from hyperskill_lite.types import Episode, MemoryContext, Task

__all__ = ["ReasoningBank"]


class ReasoningBank(BaselineMemory):
    """ReasoningBank on the runner's interface (module docstring).

    `bank` rows: key = the task query; payload ``{"task_id", "success", "items": [note]}``.
    """

    name = "reasoningbank"
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
