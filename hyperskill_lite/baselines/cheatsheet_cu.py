"""Cheatsheet-Cu: Dynamic Cheatsheet's cumulative variant (registered as ``cheatsheet-cu``).

Not the paper's "Cheatsheet" row: EvolveLab, and the paper's "Semantic" retrieval column,
run the retrieval-synthesis variant, `cheatsheet` (cheatsheet.py). This is the other
variant of the same paper, kept for comparison.

Mechanism (Suzgun et al., "Dynamic Cheatsheet: Test-Time Learning with Adaptive
Memory", 2025, DC-Cu):

- memory: one evolving cheatsheet of reusable strategies, pitfalls and shortcuts, each
  entry with a usage count;
- retrieve: the whole cheatsheet is given to the model with every task (no search);
- update: after each task a curator model rewrites the whole cheatsheet from the
  previous one, the task and the model's attempt (its trajectory and final answer; no
  correctness label, which DC-Cu never has): it keeps valid entries, counts the ones
  that were used, adds new insights, merges duplicates and drops wrong entries, within a
  size budget.

=============  ===========================  ===========================  ===================
               Dynamic Cheatsheet (DC-Cu)   EvolveLab                    here
=============  ===========================  ===========================  ===================
stores         one cheatsheet               (runs DC-RS instead)         one cheatsheet of
                                                                         <= 15 entries with
                                                                         counts
retrieves (k)  the whole cheatsheet         -                            the whole cheatsheet
                                                                         (k unused)
updates        curator after each task,     -                            curator after each
               sees the attempt only                                     task, sees the
                                                                         attempt only
=============  ===========================  ===========================  ===================

Simplified here: the size budget is at most 15 entries (DC bounds the cheatsheet by the
curator's output length). Without a label, the curator judges the attempt itself: the
live prompt shows the trajectory and final answer only; in SkillWorld the curator's
reading of the outcome is the self-judge's verdict (`SimLLM.judge`), noise included.

Its model operation, here beside the memory: `CumulativeCheatsheetOps` (a `PromptedOps`,
the class's ``OPS``) declares ``curate_cheatsheet`` once: the prompt, reply schema
(``SCHEMAS``), canned reply for the scripted test server (``CANNED``), the prompted
implementation and the simulated one inside SkillWorld (`simulated_curate_cheatsheet`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from hyperskill_lite.agent.prompts import NAME, PARAGRAPH
from hyperskill_lite.baselines.base import BaselineMemory, note_item, register_baseline
from hyperskill_lite.baselines.ops.checks import _check_cheatsheet, framed_notes
from hyperskill_lite.baselines.ops.notes import MemoryNote
from hyperskill_lite.baselines.ops.prompted import PromptedOps
from hyperskill_lite.llm.structured import arr, integer, obj
from hyperskill_lite.llm.text import fill
from hyperskill_lite.methods.operations import operation
from hyperskill_lite.types import Episode, MemoryContext, Task

__all__ = ["CumulativeCheatsheet", "CumulativeCheatsheetOps", "simulated_curate_cheatsheet"]


# ----------------------------------------------------------------- model operations
CHEATSHEET_CURATE = """\
You are the curator of a cheatsheet that an agent reads before every task.

Current cheatsheet (with how often each entry proved useful):
{cheatsheet}

The agent just worked on:
Task: {query}
Trajectory:
{trajectory}
{answer}

Nobody has told you whether this attempt was right; judge that from the trajectory \
yourself. Rewrite the whole cheatsheet: keep entries that remain valid, increase the \
count of entries this episode used successfully, add new reusable strategies, pitfalls or \
shortcuts it revealed, merge duplicates, and drop entries shown to be wrong. Keep at \
most {max_entries} entries, most useful first; each entry is general, not about this task.

Reply with ONLY JSON: {"entries": [{"title": "...", "content": "...", "count": 1}]}"""

SCHEMAS: dict[str, dict[str, Any]] = {
    "cheatsheet": obj(entries=arr(obj(("count",), title=NAME, content=PARAGRAPH,
                                      count=integer(minimum=1)), 0, 15)),
}
"""The JSON schema of each reply (keyed by the operation name its `CumulativeCheatsheetOps` method
passes to ``chat_json``), the shape its prompt above asks for; sent as structured
output when the server supports it (llm/structured.py)."""

CANNED: list[tuple[str, Any]] = [
    (
        CHEATSHEET_CURATE.splitlines()[0],
        {
            "entries": [
                {
                    "title": "Compute, Do Not Guess",
                    "content": "Use python for arithmetic.",
                    "count": 1,
                }
            ]
        },
    ),
]
"""A valid reply per prompt above, by its first line (`baselines.prompts.scripted_reply`,
for the scripted test server)."""


def simulated_curate_cheatsheet(sim: Any, entries: list[MemoryNote], task: Task, episode: Episode, max_entries: int = 15
) -> list[MemoryNote]:
    """Dynamic Cheatsheet (DC-Cu) curator, which sees the attempt but no outcome
    label: it reads the outcome as the self-judge would (`judge`, noise included),
    and then after a believed success, count +1 for entries that concern the task;
    picks already present count +1, new picks are appended; after a believed failure,
    entries that misled on the task are dropped (at the world's rate, `sim.notices`); then the
    `max_entries` with the highest counts are kept (ties: older first)."""
    believed = sim.judge(task, episode)
    episode = dataclasses.replace(episode, success=believed)
    rng = sim.rng("cheatsheet", task.id, sim.outcome(episode))
    archs = sim.archetypes(task)
    out = [MemoryNote.from_dict(e.to_dict()) for e in entries]
    if episode.success:
        for e in out:
            if sim.concerns(e, archs) and not sim.misleading(e, archs):
                e.count += 1
    else:
        out = [
            e
            for e in out
            if not (sim.misleading(e, archs) and sim.notices(rng))
        ]
    where = {lid: e for e in out for lid in sim.latent_ids(e.meta)}
    seen = sim.seen(episode)
    for lid in sim.picks(task, episode, rng):
        if lid in where:
            where[lid].count += (
                0 if episode.success and sim.concerns(where[lid], archs) else 1
            )
        else:
            e = sim.note(lid, rng, "cheatsheet", seen=seen)
            out.append(e)
            where[lid] = e
    order = sorted(range(len(out)), key=lambda i: (-out[i].count, i))
    return [out[i] for i in sorted(order[:max_entries])]


class CumulativeCheatsheetOps(PromptedOps):
    """Dynamic Cheatsheet's (DC-Cu) model operation (``curate_cheatsheet``) over a prompted chat
    model."""

    @operation(prompts=(CHEATSHEET_CURATE,), schemas=SCHEMAS, canned=CANNED,
               simulated=simulated_curate_cheatsheet)
    def curate_cheatsheet(
        self, entries: list[MemoryNote], task: Task, episode: Episode, max_entries: int = 15
    ) -> list[MemoryNote]:
        """Dynamic Cheatsheet (DC-Cu): the curated cheatsheet after this episode, from the
        attempt alone: the trajectory and final answer, not whether it was judged right."""
        answer = f"Final answer: {episode.answer}" if episode.answer else "No final answer."
        prompt = fill(
            CHEATSHEET_CURATE,
            cheatsheet=framed_notes(entries, "the cheatsheet", with_count=True),
            query=task.text,
            trajectory=self._traj(episode),
            answer=answer,
            max_entries=max_entries,
        )
        return self.chat_json("cheatsheet", prompt, lambda o: _check_cheatsheet(o, max_entries))


class CumulativeCheatsheet(BaselineMemory):
    """DC-Cu on the runner's interface (module docstring). `entries` is the cheatsheet
    (notes with counts), `ids` their stable ids (an entry the curator keeps with the same
    text keeps its id)."""

    name = "cheatsheet-cu"
    OPS = CumulativeCheatsheetOps
    SECTIONS = (("cheatsheet", "## Cheatsheet"),)
    STORES = ()

    def __init__(self, llm: Any, encoder: Any = None, k: int = 3, max_entries: int = 15) -> None:
        super().__init__(llm, encoder, k)
        if max_entries < 1:
            raise ValueError(f"cheatsheet-cu: max_entries must be >= 1, got {max_entries}")
        self.max_entries = int(max_entries)
        self.entries: list[MemoryNote] = []
        self.ids: list[str] = []
        self._next_id = 1
        self.curations = 0

    def begin(self, task: Task) -> MemoryContext:
        if not self.entries:
            return MemoryContext()
        items = [note_item("cheatsheet", n, f"{n.text} (count: {n.count})") for n in self.entries]
        return self._context(items, list(self.ids))

    def end(self, task: Task, episode: Episode) -> None:
        new = list(
            self._op("curate_cheatsheet", list(self.entries), task, episode, self.max_entries)
        )[: self.max_entries]
        old = {n.text: i for i, n in zip(self.ids, self.entries)}
        ids = []
        for n in new:
            if n.text in old and old[n.text] not in ids:
                ids.append(old[n.text])
            else:
                ids.append(f"cs{self._next_id}")
                self._next_id += 1
        self.entries, self.ids = new, ids
        self.curations += 1
        self.t += 1

    def stats(self) -> dict[str, int]:
        return {"entries": len(self.entries)}

    def _state(self) -> dict[str, Any]:
        return {
            "entries": [n.to_dict() for n in self.entries],
            "ids": self.ids,
            "next_id": self._next_id,
            "curations": self.curations,
            "max_entries": self.max_entries,
        }

    def _load_state(self, state: dict[str, Any]) -> None:
        self.entries = [MemoryNote.from_dict(d) for d in state["entries"]]
        self.ids = list(state["ids"])
        self._next_id = int(state["next_id"])
        self.curations = int(state["curations"])
        self.max_entries = int(state["max_entries"])


register_baseline(
    CumulativeCheatsheet, "variant",
    "Dynamic Cheatsheet (DC-Cu): the whole cheatsheet, curated after each task without "
    "the outcome label (variant)",
)
