"""DILU: a memory of past decisions, with reflection correcting the failed ones.

Mechanism (Wen et al., "DiLu: A Knowledge-Driven Approach to Autonomous Driving with
Large Language Models", ICLR 2024):

- store: each experience is a scenario description (the key) with the reasoning and
  decision taken; a successful decision is stored as it is; after a failure, the
  reflection module finds the wrong reasoning and writes the corrected reasoning, and
  the corrected experience is stored;
- retrieve: the scenario description is embedded and the top-k most similar
  experiences are given to the reasoning module as few-shot examples;
- update: addition only; no maintenance.

Simplified here: a scenario is the task text and the decision record is the episode's
trajectory (the agent's steps and answer); a corrected experience is that trajectory
followed by the reflection; k = 3 few-shot experiences (the shared setup).

=============  ===========================  ===========================  ===================
               DiLu                         EvolveLab                    here
=============  ===========================  ===========================  ===================
stores         scenario + reasoning;        a model summary (with its    the trajectory;
               failures corrected by        correctness) of every        failures followed by
               reflection                   trajectory, keyed by task    their correction
retrieves (k)  top-k few-shot experiences   top 1 (k = 1 in code)        top k = 3
updates        addition                     addition                     addition
=============  ===========================  ===========================  ===================

EvolveLab column: read in bingreeky/MemEvolve,
Flash-Searcher-main/EvolveLab/providers/dilu_memory_provider.py and config.py.

A corrected experience keeps the failed trajectory followed by its correction (DiLu
stores the corrected reasoning in its place): the agent sees what went wrong next to
the fix.
"""

from __future__ import annotations

from typing import Any

from hyperskill_lite.baselines.base import BaselineMemory, register_baseline, union_meta
from hyperskill_lite.types import ContextItem, Episode, MemoryContext, Task

__all__ = ["DiLu"]


class DiLu(BaselineMemory):
    """DILU's experience memory on the runner's interface (module docstring).

    `experiences` rows: key = task text; payload ``{"task_id", "task", "success",
    "record", "meta"}`` (record = trajectory, plus the correction after a failure).
    """

    name = "dilu"
    SECTIONS = (("trajectory", "## Similar past experiences (few-shot)"),)
    STORES = ("experiences",)

    def __init__(self, llm: Any, encoder: Any = None, k: int = 3) -> None:
        super().__init__(llm, encoder, k)
        self.experiences = self._new_store()

    def begin(self, task: Task) -> MemoryContext:
        if not len(self.experiences):
            return MemoryContext()
        rows = [r for r, _ in self.experiences.topk(self._vec(task.text), self.k)]
        items = []
        for r in rows:
            p = self.experiences.payloads[r]
            items.append(
                ContextItem("trajectory", f"Task: {p['task']}\n{p['record']}", dict(p["meta"]))
            )
        return self._context(items, [f"exp{r}" for r in rows])

    def end(self, task: Task, episode: Episode) -> None:
        record, meta = episode.trajectory, self._meta_of(task, episode)
        if not episode.success:
            fix = self._op("reflect_decision", task, episode)
            record = (
                f"{episode.trajectory}\nReflection: {fix.description}\n"
                f"Corrected reasoning: {fix.content}"
            )
            meta = union_meta(meta, fix.meta)
        self.t += 1
        self.experiences.add(
            task.text,
            self._vec(task.text),
            {
                "task_id": task.id,
                "task": task.text,
                "success": bool(episode.success),
                "record": record,
                "meta": meta,
            },
        )

    def stats(self) -> dict[str, int]:
        corrected = sum(
            1 for r in self.experiences.rows() if not self.experiences.payloads[r]["success"]
        )
        return {"experiences": len(self.experiences), "corrected": corrected}

    def _state(self) -> dict[str, Any]:
        return {}

    def _load_state(self, state: dict[str, Any]) -> None:
        return None


register_baseline(
    DiLu, "baseline",
    "DiLu: corrected reasoning from failed episodes, with successful ones",
)
