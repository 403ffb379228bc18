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

Its model operations, here beside the memory: `MemPOps` (a `PromptedOps`, the class's
``OPS``) declares ``build_procedure``, ``revise_procedure`` once each: the prompts,
reply schemas (``SCHEMAS``), canned replies for the scripted test server (``CANNED``),
the prompted implementation and the simulated one inside SkillWorld
(`simulated_build_procedure`, `simulated_revise_procedure`).
"""

from __future__ import annotations

import re
from typing import Any

from hyperskill_lite.agent.framing import frame_memory
from hyperskill_lite.agent.prompts import NAME
from hyperskill_lite.baselines.base import BaselineMemory, note_item, register_baseline
from hyperskill_lite.baselines.ops.checks import _outcome, check_notes
from hyperskill_lite.baselines.ops.notes import MemoryNote
from hyperskill_lite.baselines.ops.prompted import STEPS_SCHEMA, PromptedOps
from hyperskill_lite.llm.structured import arr, obj
from hyperskill_lite.llm.text import fill
from hyperskill_lite.methods.operations import operation
from hyperskill_lite.types import Episode, MemoryContext, Task

__all__ = ["MemP", "MemPOps", "simulated_build_procedure", "simulated_revise_procedure"]


# ----------------------------------------------------------------- model operations
MEMP_BUILD = """\
You are building procedural memory for an agent. Summarise how this task was solved as \
a script that can be followed on similar tasks.

Task: {query}
Trajectory:
{trajectory}

Write a short title and 2-6 abstract steps (no task-specific names or values), including \
any check that made the difference.

Reply with ONLY JSON: {"procedures": [{"title": "...", "steps": ["..."]}]}"""

MEMP_REVISE = """\
You are correcting procedural memory. This procedure was retrieved for a task, and the \
agent failed while following it:

Procedure:
{procedure}

Task: {query}
Trajectory:
{trajectory}
Outcome: {result}

Revise the procedure so it would have avoided this failure: fix or remove misleading \
steps and add the missing check. Keep it general.

Reply with ONLY JSON: {"procedures": [{"title": "...", "steps": ["..."]}]}"""

SCHEMAS: dict[str, dict[str, Any]] = {
    "memp": obj(procedures=arr(obj(title=NAME, steps=STEPS_SCHEMA), 1, 1)),
    "memp:revise": obj(procedures=arr(obj(title=NAME, steps=STEPS_SCHEMA), 1, 1)),
}
"""The JSON schema of each reply (keyed by the operation name its `MemPOps` method
passes to ``chat_json``), the shape its prompt above asks for; sent as structured
output when the server supports it (llm/structured.py)."""

CANNED: list[tuple[str, Any]] = [
    (
        MEMP_BUILD.splitlines()[0],
        {
            "procedures": [
                {"title": "Lookup Then Compute", "steps": ["find the source", "compute the answer"]}
            ]
        },
    ),
    (
        MEMP_REVISE.splitlines()[0],
        {
            "procedures": [
                {"title": "Lookup Then Verify", "steps": ["find the source", "verify", "compute"]}
            ]
        },
    ),
]
"""A valid reply per prompt above, by its first line (`baselines.prompts.scripted_reply`,
for the scripted test server)."""


def simulated_build_procedure(sim: Any, task: Task, episode: Episode) -> MemoryNote:
    """MemP: a script over the task's decomposition with the picked hints."""
    rng = sim.rng("memp", task.id, sim.outcome(episode))
    lib = sim.library
    picks = sim.picks(task, episode, rng)
    archs = sim.archetypes(task)
    title = " Then ".join(lib.archetypes[a].title.split()[0] for a in archs) + " Procedure"
    steps = (
        sim.steps(task, picks, rng)
        if episode.success
        else [sim.first_sentence(sim.phrase(x, rng).content) for x in picks]
    )
    content = "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
    meta = sim.union(*[sim.phrase(x, rng).meta for x in picks], source="memp")
    return MemoryNote(title, content, "", sim.outcome(episode), 1, meta)


def simulated_revise_procedure(sim: Any, note: MemoryNote, task: Task, episode: Episode) -> MemoryNote:
    """MemP adjustment: append a check against the reported error; remove steps of
    spurious advice that concerns the task (at the world's rate, `sim.notices`)."""
    lib = sim.library
    rng = sim.rng("memp:revise", task.id, note.text)
    archs = sim.archetypes(task)
    drop = [i for i in sim.misleading(note, archs) if sim.notices(rng)]
    bad = {sim.first_sentence(p.content) for i in drop for p in lib.latents[i].phrasings}
    lines = [ln for ln in note.content.splitlines() if not any(b in ln for b in bad)]
    lines = [re.sub(r"^\d+\.\s*", "", ln) for ln in lines]
    picks = sim.picks(task, episode, rng) if not episode.success else []
    for lid in picks[:1]:
        lines.append("Check: " + sim.first_sentence(sim.phrase(lid, rng).content))
    lat = sim.latents(note.meta)
    kept = sim.latent_meta(
        lat["strategies"],
        lat["errors"],
        [i for i in lat["spurious"] if i not in drop],
        source="memp",
    )
    extra = [sim.phrase(x, rng).meta for x in picks[:1]]
    content = "\n".join(f"{i}. {s}" for i, s in enumerate(lines, 1))
    return MemoryNote(
        note.title,
        content,
        note.description,
        note.polarity,
        note.count,
        sim.union(kept, *extra, source="memp"),
    )


class MemPOps(PromptedOps):
    """MemP's model operations (``build_procedure``, ``revise_procedure``) over a prompted chat
    model."""

    @operation(prompts=(MEMP_BUILD,), schemas={"memp": SCHEMAS["memp"]}, canned=CANNED,
               simulated=simulated_build_procedure)
    def build_procedure(self, task: Task, episode: Episode) -> MemoryNote:
        """MemP: the trajectory distilled into an abstract step-by-step script."""
        prompt = fill(MEMP_BUILD, query=task.text, trajectory=self._traj(episode))
        return self.chat_json(
            "memp", prompt, lambda o: check_notes(o, ("procedures",), max_items=1)[0]
        )

    @operation(
        prompts=(MEMP_REVISE,),
        schemas={"memp:revise": SCHEMAS["memp:revise"]},
        canned=CANNED,
        simulated=simulated_revise_procedure,
    )
    def revise_procedure(self, note: MemoryNote, task: Task, episode: Episode) -> MemoryNote:
        """MemP adjustment: the retrieved procedure corrected with a failed episode."""
        prompt = fill(
            MEMP_REVISE,
            procedure=frame_memory(note.text, "MemP's stored procedure"),
            query=task.text,
            trajectory=self._traj(episode),
            result=_outcome(episode),
        )
        return self.chat_json(
            "memp:revise", prompt, lambda o: check_notes(o, ("procedures",), max_items=1)[0]
        )


class MemP(BaselineMemory):
    """MemP on the runner's interface (module docstring). `procedures` rows: key = the
    source task query; payload ``{"task_id", "note", "revisions"}``."""

    name = "memp"
    OPS = MemPOps
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
