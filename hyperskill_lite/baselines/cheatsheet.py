"""Cheatsheet: Dynamic Cheatsheet with retrieval and synthesis (DC-RS), as EvolveLab runs it.

Mechanism (Suzgun et al., "Dynamic Cheatsheet: Test-Time Learning with Adaptive
Memory", 2025, the DC-RS variant; read as the HyperSkill paper ran it, in EvolveLab:
bingreeky/MemEvolve, Flash-Searcher-main/EvolveLab/providers/dynamic_cheatsheet_provider.py
and EvolveLab/config.py):

- store: every finished task as a record (the task and its trajectory), keyed by the task;
  one global cheatsheet besides;
- retrieve: *before* the task, the most similar past records (cosine between the tasks)
  are retrieved, and a curator model synthesises a new cheatsheet for the current task
  from the previous cheatsheet and those records (no outcome label of the current task:
  it has not run yet); the agent reads the new cheatsheet;
- update: the synthesised cheatsheet replaces the global one; the finished task is
  added as a record.

=============  ===========================  ===========================  ===================
               Dynamic Cheatsheet (DC-RS)   EvolveLab                    here
=============  ===========================  ===========================  ===================
stores         past inputs and outputs,     a model summary (with its    the task and its
               one cheatsheet               correctness) of every        trajectory, one
                                            trajectory, one cheatsheet   cheatsheet
retrieves (k)  top-k similar inputs, then   top 1 similar record, then   top k = 3 similar
               the curator rewrites the     the curator rewrites the     records (EvolveLab:
               cheatsheet                   cheatsheet (< 200 words)     ``k=1``), then the
                                                                         curator rewrites
                                                                         (<= 8 entries)
updates        cheatsheet before each task  cheatsheet before each task  cheatsheet committed
                                                                         in `end`
=============  ===========================  ===========================  ===================

Where this differs, and why: the new cheatsheet is synthesised in `begin` (a model call,
counted) but replaces the global one only in `end`, so a retrieval never rewrites the
memory and an abandoned `begin` leaves no trace (the rule of base.py); in a sequential
run this is the same as EvolveLab's immediate write. The stored record is the trajectory
itself, not EvolveLab's model summary (one model call per task fewer). The 200-word limit
becomes at most 8 entries. The cumulative variant (DC-Cu, whole cheatsheet curated after
each task) is ``cheatsheet-cu`` (cheatsheet_cu.py).

Its model operation, here beside the memory: `CheatsheetOps` (a `PromptedOps`, the
class's ``OPS``) declares ``synthesize_cheatsheet`` once: the prompt, reply schema
(``SCHEMAS``), canned reply for the scripted test server (``CANNED``), the prompted
implementation and the simulated one inside SkillWorld
(`simulated_synthesize_cheatsheet`).
"""

from __future__ import annotations

from typing import Any

from hyperskill_lite.agent.framing import frame_memory
from hyperskill_lite.agent.prompts import NAME, PARAGRAPH
from hyperskill_lite.baselines.base import BaselineMemory, note_item, register_baseline
from hyperskill_lite.baselines.ops.checks import _check_cheatsheet, framed_notes
from hyperskill_lite.baselines.ops.notes import MemoryNote
from hyperskill_lite.baselines.ops.prompted import PromptedOps
from hyperskill_lite.llm.structured import arr, obj
from hyperskill_lite.llm.text import clip_middle, fill
from hyperskill_lite.methods.operations import operation
from hyperskill_lite.types import Episode, MemoryContext, Task

__all__ = ["RetrievalSynthesisCheatsheet", "CheatsheetOps", "simulated_synthesize_cheatsheet"]


# ----------------------------------------------------------------- model operations
CHEATSHEET_SYNTHESIZE = """\
You keep a cheatsheet for an agent and rewrite it before each new task.

Previous cheatsheet:
{cheatsheet}

Earlier tasks similar to the new one, and how the agent worked on them:
{similar}

New task: {query}

Write the cheatsheet the agent should read for the new task: reusable heuristics, \
checklists, short "when X, first ... then ..." templates and typical pitfalls, drawn from \
the previous cheatsheet and the similar tasks. Keep it general (no answers, names or \
numbers of particular tasks) and short: at most {max_entries} entries.

Reply with ONLY JSON: {"entries": [{"title": "...", "content": "..."}]}"""

SCHEMAS: dict[str, dict[str, Any]] = {
    "cheatsheet:rs": obj(entries=arr(obj(title=NAME, content=PARAGRAPH), 0, 15)),
}
"""The JSON schema of each reply (keyed by the operation name its `CheatsheetOps` method
passes to ``chat_json``), the shape its prompt above asks for; sent as structured
output when the server supports it (llm/structured.py)."""

CANNED: list[tuple[str, Any]] = [
    (
        CHEATSHEET_SYNTHESIZE.splitlines()[0],
        {"entries": [{"title": "Source Before Summary", "content": "Open the primary source."}]},
    ),
]
"""A valid reply per prompt above, by its first line (`baselines.prompts.scripted_reply`,
for the scripted test server)."""


def simulated_synthesize_cheatsheet(sim: Any, sheet: list[MemoryNote], similar: list[MemoryNote], task: Task,
    max_entries: int = 8,
) -> list[MemoryNote]:
    """Dynamic Cheatsheet (DC-RS) curator, before the task: a note for each latent
    the similar records express (their trajectory meta: strategies of successes,
    reported errors of failures) that concerns the model's reading of the task
    (`plan`), then the previous entries that concern it, then the other previous
    entries (the sheet stays general), at most `max_entries`, without repeating a
    latent; with probability ``extract_spurious`` one spurious note for the task's
    archetypes joins the new ones, as in every extraction. Relevance is judged;
    soundness is not (no outcome of this task exists)."""
    rng = sim.rng("cheatsheet-rs", task.id, *[n.text for n in similar])
    archs = list(dict.fromkeys(a for _, a in sim.plan(task)))
    fresh: list[MemoryNote] = []
    for n in similar:
        for lid in sim.latent_ids(n.meta):
            if lid in sim.library.latents and set(archs) & set(
                sim.library.latents[lid].affects
            ):
                fresh.append(sim.note(lid, rng, "cheatsheet"))
    spurious = sim.library.spurious_for(archs, "success")  # an over-generalisation,
    u = rng.random()  # with the same probability as in any extraction (`_picks`)
    if fresh and spurious and u < sim.params.extract_spurious:
        fresh.append(sim.note(spurious[int(rng.integers(len(spurious)))], rng, "cheatsheet"))
    kept = [e for e in sheet if sim.concerns(e, archs)]
    other = [e for e in sheet if not sim.concerns(e, archs)]
    out: list[MemoryNote] = []
    covered: set[str] = set()
    for e in fresh + kept + other:
        ids = set(sim.latent_ids(e.meta))
        if ids and ids <= covered:
            continue
        covered |= ids
        out.append(MemoryNote.from_dict(e.to_dict()))
        if len(out) == max_entries:
            break
    return out


class CheatsheetOps(PromptedOps):
    """Dynamic Cheatsheet's (DC-RS) model operation (``synthesize_cheatsheet``) over a prompted
    chat model."""

    @operation(prompts=(CHEATSHEET_SYNTHESIZE,), schemas=SCHEMAS, canned=CANNED,
               simulated=simulated_synthesize_cheatsheet)
    def synthesize_cheatsheet(
        self, sheet: list[MemoryNote], similar: list[MemoryNote], task: Task,
        max_entries: int = 8,
    ) -> list[MemoryNote]:
        """Dynamic Cheatsheet (DC-RS): the cheatsheet for `task`, written before it from
        the previous cheatsheet and similar past tasks."""
        per = max(500, self.llm.max_trajectory_chars // max(1, len(similar)))
        shown = "\n\n".join(f"[{i}] {clip_middle(n.text, per)}" for i, n in enumerate(similar, 1))
        prompt = fill(
            CHEATSHEET_SYNTHESIZE,
            cheatsheet=framed_notes(sheet, "the previous cheatsheet"),
            similar=frame_memory(shown, "earlier similar tasks") if shown else "(none)",
            query=task.text,
            max_entries=max_entries,
        )
        return self.chat_json(
            "cheatsheet:rs", prompt, lambda o: _check_cheatsheet(o, max_entries)
        )


class RetrievalSynthesisCheatsheet(BaselineMemory):
    """DC-RS on the runner's interface (module docstring). `records` rows: key = the task
    text; payload ``{"note", "task_id"}``. `sheet` is the global cheatsheet; the one
    synthesised for a task waits in `_pending` until its `end`. A context's `retrieved`
    lists the similar records (``r<row>``), then the new sheet's entries by position
    (``cs1``, ``cs2``, ...)."""

    name = "cheatsheet"
    OPS = CheatsheetOps
    SECTIONS = (("cheatsheet", "## Cheatsheet"),)
    STORES = ("records",)

    def __init__(self, llm: Any, encoder: Any = None, k: int = 3, max_entries: int = 8) -> None:
        super().__init__(llm, encoder, k)
        if max_entries < 1:
            raise ValueError(f"cheatsheet: max_entries must be >= 1, got {max_entries}")
        self.max_entries = int(max_entries)
        self.records = self._new_store()
        self.sheet: list[MemoryNote] = []
        self.syntheses = 0

    def begin(self, task: Task) -> MemoryContext:
        if not len(self.records):
            return MemoryContext()
        top = self.records.topk(self._vec(task.text), self.k)
        similar = [MemoryNote.from_dict(self.records.payloads[r]["note"]) for r, _ in top]
        new = list(
            self._op("synthesize_cheatsheet", list(self.sheet), similar, task, self.max_entries)
        )[: self.max_entries]
        self._pending[task.id] = new
        items = [note_item("cheatsheet", n) for n in new]
        retrieved = [f"r{r}" for r, _ in top] + [f"cs{i}" for i in range(1, len(new) + 1)]
        return self._context(items, retrieved, llm_calls=1)

    def end(self, task: Task, episode: Episode) -> None:
        if task.id in self._pending:
            self.sheet = self._pending.pop(task.id)
            self.syntheses += 1
        self.t += 1
        outcome = "success" if episode.success else "failure"
        note = MemoryNote(
            "",
            f"Task: {task.text}\nOutcome: {outcome}\n{episode.trajectory}",
            polarity=outcome,
            meta=self._meta_of(task, episode),
        )
        self.records.add(task.text, self._vec(task.text), {"note": note.to_dict(), "task_id": task.id})

    def stats(self) -> dict[str, int]:
        return {"records": len(self.records), "entries": len(self.sheet)}

    def _state(self) -> dict[str, Any]:
        return {
            "sheet": [n.to_dict() for n in self.sheet],
            "syntheses": self.syntheses,
            "max_entries": self.max_entries,
        }

    def _load_state(self, state: dict[str, Any]) -> None:
        self.sheet = [MemoryNote.from_dict(d) for d in state["sheet"]]
        self.syntheses = int(state["syntheses"])
        self.max_entries = int(state["max_entries"])


register_baseline(
    RetrievalSynthesisCheatsheet, "baseline",
    "Dynamic Cheatsheet (DC-RS): a cheatsheet rewritten before each task from similar "
    "past tasks",
)
