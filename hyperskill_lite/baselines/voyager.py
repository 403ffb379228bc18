"""Voyager: a skill library of verified programs, keyed by their descriptions.

Mechanism (Wang et al., "Voyager: An Open-Ended Embodied Agent with Large Language
Models", TMLR 2024):

- store: when self-verification confirms a task was completed, the program that did it
  becomes a skill: the model names it and writes a description of what it does, and
  the skill is indexed by the embedding of that description; a new skill with the name
  of an existing one replaces it (a newer version); failed attempts add nothing;
- retrieve: phi(task) against the description embeddings; the top-k skills (their
  programs) are put in the prompt as reusable code;
- update: addition and same-name replacement; no other maintenance.

Simplified here: web-research agents have no executable game API, so a "program" is the
procedure the agent followed, written as parameterised steps; verification is the
runner's learning judge; retrieval queries with the task alone (Voyager adds the
environment feedback of the current attempt, which a one-shot context does not have);
k = 3 (the shared setup; Voyager uses 5).

=============  ===========================  ===========================  ===================
               Voyager                      EvolveLab                    here
=============  ===========================  ===========================  ===================
stores         verified programs, keyed by  a model description of       verified procedures,
               their description            every trajectory (and a      keyed by description
                                            summary), keyed by it
retrieves (k)  top 5 by description         top 1 (k = 1 in code)        top k = 3
updates        addition, same name          addition                     addition, same name
               replaces                                                  replaces
=============  ===========================  ===========================  ===================

EvolveLab column: read in bingreeky/MemEvolve,
Flash-Searcher-main/EvolveLab/providers/voyager_memory_provider.py and config.py.

Its model operation, here beside the memory: `VoyagerOps` (a `PromptedOps`, the class's
``OPS``) declares ``describe_program`` once: the prompt, reply schema (``SCHEMAS``),
canned reply for the scripted test server (``CANNED``), the prompted implementation and
the simulated one inside SkillWorld (`simulated_describe_program`).
"""

from __future__ import annotations

import re
from typing import Any

from hyperskill_lite.agent.prompts import NAME, SENTENCES
from hyperskill_lite.baselines.base import BaselineMemory, note_item, register_baseline
from hyperskill_lite.baselines.ops.checks import _need_description, check_notes
from hyperskill_lite.baselines.ops.notes import MemoryNote
from hyperskill_lite.baselines.ops.prompted import STEPS_SCHEMA, PromptedOps
from hyperskill_lite.llm.structured import arr, obj
from hyperskill_lite.llm.text import fill
from hyperskill_lite.methods.operations import operation
from hyperskill_lite.types import Episode, MemoryContext, Task

__all__ = ["Voyager", "VoyagerOps", "simulated_describe_program"]


# ----------------------------------------------------------------- model operations
VOYAGER_SKILL = """\
You are adding a verified skill to an agent's skill library. The agent solved this task:

Task: {query}
Trajectory:
{trajectory}

Write the procedure it followed as a reusable program: a camelCase function name, a \
description of what the function does in 2-3 sentences (it is used to retrieve the \
skill later), and the program as a list of steps with task-specific values turned into \
parameters.

Reply with ONLY JSON: {"skills": [{"name": "camelCaseName", "description": "...", \
"program": ["..."]}]}"""

SCHEMAS: dict[str, dict[str, Any]] = {
    "voyager": obj(skills=arr(obj(name=NAME, description=SENTENCES, program=STEPS_SCHEMA), 1, 1)),
}
"""The JSON schema of each reply (keyed by the operation name its `VoyagerOps` method
passes to ``chat_json``), the shape its prompt above asks for; sent as structured
output when the server supports it (llm/structured.py)."""

CANNED: list[tuple[str, Any]] = [
    (
        VOYAGER_SKILL.splitlines()[0],
        {
            "skills": [
                {
                    "name": "findAndCompute",
                    "description": "Finds a value and computes the answer.",
                    "program": ["search(entity)", "read(value)", "python(compute)"],
                }
            ]
        },
    ),
]
"""A valid reply per prompt above, by its first line (`baselines.prompts.scripted_reply`,
for the scripted test server)."""


def _camel(name: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", name)
    return (words[0].lower() + "".join(w.capitalize() for w in words[1:])) if words else "skill"


def simulated_describe_program(sim: Any, task: Task, episode: Episode) -> MemoryNote:
    """Voyager: the procedure of a verified success as a camelCase-named skill with a
    2-sentence description (its retrieval key) and the program steps."""
    if not episode.success:
        raise ValueError("Voyager adds only verified successful programs; got a failure")
    rng = sim.rng("voyager", task.id)
    lib = sim.library
    picks = sim.picks(task, episode, rng)
    archs = sim.archetypes(task)
    lead = sim.phrase(picks[0], rng, seen=sim.seen(episode))
    name = _camel(lead.name)
    desc = (
        f"Solves tasks that {lib.archetypes[archs[0]].title[0].lower()}"
        f"{lib.archetypes[archs[0]].title[1:]}"
        + "".join(
            f", then {lib.archetypes[a].title[0].lower()}{lib.archetypes[a].title[1:]}"
            for a in archs[1:]
        )
        + f". {sim.first_sentence(lead.content)}"
    )
    steps = sim.steps(task, picks, rng)
    program = "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
    meta = sim.union(*[sim.phrase(x, rng).meta for x in picks], source="voyager")
    return MemoryNote(name, program, desc, "success", 1, meta)


class VoyagerOps(PromptedOps):
    """Voyager's model operation (``describe_program``) over a prompted chat model."""

    @operation(prompts=(VOYAGER_SKILL,), schemas=SCHEMAS, canned=CANNED,
               simulated=simulated_describe_program)
    def describe_program(self, task: Task, episode: Episode) -> MemoryNote:
        """Voyager: the verified procedure as a named skill with a description."""
        prompt = fill(VOYAGER_SKILL, query=task.text, trajectory=self._traj(episode))
        return self.chat_json(
            "voyager",
            prompt,
            lambda o: _need_description(check_notes(o, ("skills",), max_items=1)[0]),
        )


class Voyager(BaselineMemory):
    """Voyager's skill library on the runner's interface (module docstring).

    `library` rows: key = the skill description; payload ``{"task_id", "note",
    "version"}`` (note.title is the skill name, note.content its program).
    """

    name = "voyager"
    OPS = VoyagerOps
    SECTIONS = (("skill", "## Skills from the skill library"),)
    STORES = ("library",)

    def __init__(self, llm: Any, encoder: Any = None, k: int = 3) -> None:
        super().__init__(llm, encoder, k)
        self.library = self._new_store()

    def begin(self, task: Task) -> MemoryContext:
        if not len(self.library):
            return MemoryContext()
        rows = [r for r, _ in self.library.topk(self._vec(task.text), self.k)]
        items = []
        for r in rows:
            n = MemoryNote.from_dict(self.library.payloads[r]["note"])
            items.append(note_item("skill", n, f"{n.title}: {n.description}\n{n.content}"))
        return self._context(items, [f"skill{r}" for r in rows])

    def end(self, task: Task, episode: Episode) -> None:
        self.t += 1
        if not episode.success:
            return
        note = self._op("describe_program", task, episode)
        key = note.description or note.title
        same = [
            r
            for r in self.library.rows()
            if self.library.payloads[r]["note"]["title"] == note.title
        ]
        if same:
            version = self.library.payloads[same[0]]["version"] + 1
            self.library.update(
                same[0],
                {"task_id": task.id, "note": note.to_dict(), "version": version},
                key=key,
                vec=self._vec(key),
            )
        else:
            self.library.add(
                key, self._vec(key), {"task_id": task.id, "note": note.to_dict(), "version": 1}
            )

    def stats(self) -> dict[str, int]:
        return {"skills": len(self.library)}

    def _state(self) -> dict[str, Any]:
        return {}

    def _load_state(self, state: dict[str, Any]) -> None:
        return None


register_baseline(
    Voyager, "baseline",
    "Voyager: a library of verified skill programs retrieved by description",
)
