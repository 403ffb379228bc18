"""MemP: procedural memory that is built, retrieved and updated (failure-driven).

Mechanism (Fang et al., "Memp: Exploring Agent Procedural Memory", 2025), with the
configuration the paper finds best:

- build: a finished trajectory is distilled into a procedure (a step-by-step script
  abstracted from the task), keyed by the task query ("query" key);
- retrieve: phi(task) against the keys; the top-k procedures are shown;
- update: "validation" adds only procedures from successful episodes; "adjustment"
  revises, after a failure, the procedure that was retrieved for that task: the model
  reflects on the failed trajectory and corrects the memory in place (same key).

Simplified here: proceduralisation stores the script only (the paper's "proceduralization"
keeps the raw trajectory next to the script); after a failure only the top retrieved
procedure is revised (one model call); k = 3 (the shared setup).

=============  ===========================  ===========================  ===================
               MemP                         EvolveLab                    here
=============  ===========================  ===========================  ===================
stores         procedures (script and       a script per correct         a script per success,
               trajectory) keyed by query   trajectory, keyed by query   keyed by the task
retrieves (k)  top-k by query               top 1 (hard-coded)           top k = 3
updates        validation, adjustment on    adjusts the provided         adjusts the top
               failure, deletion            memories after a failure     retrieved one after a
                                                                         failure
=============  ===========================  ===========================  ===================

EvolveLab column: read in bingreeky/MemEvolve,
Flash-Searcher-main/EvolveLab/providers/memp_memory_provider.py and config.py.

Not implemented: MemP's deletion of procedures used at least 3 times with a success
rate below 0.5 (reported by an audit of the paper; EvolveLab's provider deletes nothing,
and neither does this one).
"""

from __future__ import annotations

from typing import Any

from hyperskill_lite.baselines.base import BaselineMemory, note_item, register_baseline
from hyperskill_lite.baselines.ops import MemoryNote
from hyperskill_lite.types import Episode, MemoryContext, Task

__all__ = ["MemP"]


class MemP(BaselineMemory):
    """MemP on the runner's interface (module docstring). `procedures` rows: key = the
    source task query; payload ``{"task_id", "note", "revisions"}``."""

    name = "memp"
    SECTIONS = (("procedure", "## Procedures from similar past tasks"),)
    STORES = ("procedures",)

    def __init__(self, llm: Any, encoder: Any = None, k: int = 3) -> None:
        super().__init__(llm, encoder, k)
        self.procedures = self._new_store()
        self.revisions = 0

    def begin(self, task: Task) -> MemoryContext:
        if not len(self.procedures):
            return MemoryContext()
        rows = [r for r, _ in self.procedures.topk(self._vec(task.text), self.k)]
        self._pending[task.id] = rows
        items = [
            note_item("procedure", MemoryNote.from_dict(self.procedures.payloads[r]["note"]))
            for r in rows
        ]
        return self._context(items, [f"proc{r}" for r in rows])

    def end(self, task: Task, episode: Episode) -> None:
        used = [r for r in self._pending.pop(task.id, []) if r in self.procedures.rows()]
        self.t += 1
        if episode.success:
            note = self._op("build_procedure", task, episode)
            self.procedures.add(
                task.text,
                self._vec(task.text),
                {"task_id": task.id, "note": note.to_dict(), "revisions": 0},
            )
        elif used:
            row = used[0]
            p = self.procedures.payloads[row]
            revised = self._op("revise_procedure", MemoryNote.from_dict(p["note"]), task, episode)
            self.procedures.update(
                row,
                {
                    "task_id": p["task_id"],
                    "note": revised.to_dict(),
                    "revisions": p["revisions"] + 1,
                },
            )
            self.revisions += 1

    def stats(self) -> dict[str, int]:
        return {"procedures": len(self.procedures), "revisions": self.revisions}

    def _state(self) -> dict[str, Any]:
        return {"revisions": self.revisions}

    def _load_state(self, state: dict[str, Any]) -> None:
        self.revisions = int(state["revisions"])


register_baseline(
    MemP, "baseline",
    "MemP: procedures built from trajectories, revised after failures",
)
