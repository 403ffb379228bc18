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

Its model operation, here beside the memory: `DiLuOps` (a `PromptedOps`, the class's
``OPS``) declares ``reflect_decision`` once: the prompt, reply schema (``SCHEMAS``),
canned reply for the scripted test server (``CANNED``), the prompted implementation and
the simulated one inside SkillWorld (`simulated_reflect_decision`).
"""

from __future__ import annotations

from typing import Any

from hyperskill_lite.agent.prompts import PARAGRAPH, SENTENCES
from hyperskill_lite.baselines.base import BaselineMemory, register_baseline, union_meta
from hyperskill_lite.baselines.ops.checks import _outcome
from hyperskill_lite.baselines.ops.notes import MAX_NOTE_CHARS, MemoryNote, _clean
from hyperskill_lite.baselines.ops.prompted import PromptedOps
from hyperskill_lite.core.records import ContextItem
from hyperskill_lite.llm.structured import obj
from hyperskill_lite.llm.text import fill
from hyperskill_lite.methods.operations import operation
from hyperskill_lite.types import Episode, MemoryContext, Task

__all__ = ["DiLu", "DiLuOps", "simulated_reflect_decision"]


# ----------------------------------------------------------------- model operations
DILU_REFLECT = """\
You are reviewing a decision process that went wrong, to correct it for the memory.

Task: {query}
Trajectory (the agent's reasoning and decisions):
{trajectory}
Outcome: {result}

Identify the reasoning or decision that caused the failure, and write the corrected \
reasoning the agent should have followed, so that similar situations are handled right.

Reply with ONLY JSON: {"mistake": "one sentence", "corrected_reasoning": "2-4 sentences"}"""

SCHEMAS: dict[str, dict[str, Any]] = {
    "dilu": obj(mistake=SENTENCES, corrected_reasoning=PARAGRAPH),
}
"""The JSON schema of each reply (keyed by the operation name its `DiLuOps` method
passes to ``chat_json``), the shape its prompt above asks for; sent as structured
output when the server supports it (llm/structured.py)."""

CANNED: list[tuple[str, Any]] = [
    (
        DILU_REFLECT.splitlines()[0],
        {
            "mistake": "The agent trusted one page.",
            "corrected_reasoning": "Confirm the value on a second page.",
        },
    ),
]
"""A valid reply per prompt above, by its first line (`baselines.prompts.scripted_reply`,
for the scripted test server)."""


def _check_reflection(obj: Any) -> MemoryNote:
    """DILU's reply: the mistake and the corrected reasoning, as one correction note."""
    if not isinstance(obj, dict):
        raise ValueError(f'expected {{"mistake", "corrected_reasoning"}}, got {type(obj).__name__}')
    mistake = _clean(obj.get("mistake") or "")
    fix = _clean(obj.get("corrected_reasoning") or obj.get("correction") or "")
    if not fix:
        raise ValueError('"corrected_reasoning" is empty')
    return MemoryNote(
        "Correction", fix[:MAX_NOTE_CHARS], description=mistake[:MAX_NOTE_CHARS], polarity="failure"
    )


def simulated_reflect_decision(sim: Any, task: Task, episode: Episode) -> MemoryNote:
    """DILU: the reported error pattern as the wrong reasoning, with its lesson as
    the correction."""
    if episode.success:
        raise ValueError("DILU reflects on failed decisions; got a success")
    rng = sim.rng("dilu", task.id)
    lid = sim.picks(task, episode, rng)[0]
    n = sim.note(lid, rng, "dilu", seen=sim.seen(episode))
    return MemoryNote(
        "Correction", f"{n.content} {n.description}", sim.first_sentence(n.content), n.polarity, 1, n.meta
    )


class DiLuOps(PromptedOps):
    """DILU's model operation (``reflect_decision``) over a prompted chat model."""

    @operation(prompts=(DILU_REFLECT,), schemas=SCHEMAS, canned=CANNED,
               simulated=simulated_reflect_decision)
    def reflect_decision(self, task: Task, episode: Episode) -> MemoryNote:
        """DILU: what went wrong in a failed episode and the corrected reasoning."""
        prompt = fill(
            DILU_REFLECT,
            query=task.text,
            trajectory=self._traj(episode),
            result=_outcome(episode),
        )
        return self.chat_json("dilu", prompt, _check_reflection)


class DiLu(BaselineMemory):
    """DILU's experience memory on the runner's interface (module docstring).

    `experiences` rows: key = task text; payload ``{"task_id", "task", "success",
    "record", "meta"}`` (record = trajectory, plus the correction after a failure).
    """

    name = "dilu"
    OPS = DiLuOps
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
