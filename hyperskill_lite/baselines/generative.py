"""Generative: AgentSquare's Generative memory module, the paper's "Generative" baseline.

Mechanism (Shang et al., "AgentSquare: Automatic LLM Agent Search in Modular Design
Space", ICLR 2025; read in tsinghua-fib-lab/AgentSquare,
module_pool/memory/MEMORY_GENERATIVE.py, and in EvolveLab, the codebase the HyperSkill
paper builds on: bingreeky/MemEvolve, Flash-Searcher-main/EvolveLab/providers/
generative_memory_provider.py):

- store: a finished task's trajectory, keyed by the task (its embedding is phi(task));
- retrieve: the 3 stored cases whose task is most similar to the new task (cosine); the
  model scores each 1-10 for how much it helps with the new task; only the best-scored
  case is shown (ties: the more similar one), as "the trajectory from a similar task";
- update: none beyond adding cases (no importance at storage time, no reflection: that
  is Park et al.'s design, registered as ``generative-agents``).

=============  ===========================  =============================  ===================
               AgentSquare                  EvolveLab                      here
=============  ===========================  =============================  ===================
stores         successful trajectories,     a model summary (under 150     successful
               key = task name              words, with its correctness)   trajectories, key =
                                            of every trajectory, key =     task (``keep=
                                            task                           "all"``: every one)
retrieves (k)  top 3 by similarity, model   top 3 by cosine, model         top k = 3 by cosine,
               scores 1-10, shows the best  scores 1-10, shows the best    model scores 1-10,
                                                                           shows the best
updates        adds cases                   adds cases                     adds cases
=============  ===========================  =============================  ===================

Simplified here: the stored case is the trajectory itself (clipped to what the runner
records), not EvolveLab's model summary (one model call per task fewer); a reply without a
usable score counts 0, as in both sources. Each retrieval costs k model calls (counted in
`llm_calls` and in the context's ``llm_calls``).

Its model operation, here beside the memory: `GenerativeOps` (a `PromptedOps`, the
class's ``OPS``) declares ``rate_relevance`` once: the prompt, reply schema
(``SCHEMAS``), canned reply for the scripted test server (``CANNED``), the prompted
implementation and the simulated one inside SkillWorld (`simulated_rate_relevance`).
"""

from __future__ import annotations

from typing import Any

from hyperskill_lite.agent.framing import frame_memory
from hyperskill_lite.baselines.base import BaselineMemory, note_item, register_baseline
from hyperskill_lite.baselines.ops.checks import check_importance
from hyperskill_lite.baselines.ops.notes import MemoryNote
from hyperskill_lite.baselines.ops.prompted import PromptedOps
from hyperskill_lite.llm.structured import integer, obj
from hyperskill_lite.llm.text import clip_middle, fill
from hyperskill_lite.methods.operations import operation
from hyperskill_lite.types import Episode, MemoryContext, Task

__all__ = ["GenerativeMemory", "GenerativeOps", "best_case", "KEEP", "simulated_rate_relevance"]

KEEP = ("success", "all")
"""What ``keep`` may be: "success" (AgentSquare: successful trajectories become cases) or
"all" (EvolveLab: every finished task's)."""


def best_case(scores: list[int], similarity: list[float]) -> int:
    """Index of the case to show: the highest model score, ties broken by the higher
    similarity, then by order (the sources take the first maximum of a list already
    sorted by similarity).

    >>> best_case([7, 9, 9], [0.9, 0.5, 0.7]), best_case([3, 3], [0.8, 0.8])
    (2, 0)
    """
    return min(range(len(scores)), key=lambda i: (-scores[i], -similarity[i], i))


# ----------------------------------------------------------------- model operations
GENERATIVE_RELEVANCE = """\
Below is a case the agent solved successfully, then a task it is about to start. Do not \
summarise either; judge how much the solved case would help with the new task, on a \
scale of 1 (no help at all) to 10 (it shows exactly how to proceed).

Solved case:
{case}

New task: {query}

Reply with ONLY JSON: {"score": <integer 1-10>}"""

SCHEMAS: dict[str, dict[str, Any]] = {
    "relevance": obj(score=integer(minimum=1, maximum=10)),
}
"""The JSON schema of each reply (keyed by the operation name its `GenerativeOps` method
passes to ``chat_json``), the shape its prompt above asks for; sent as structured
output when the server supports it (llm/structured.py)."""

CANNED: list[tuple[str, Any]] = [
    (GENERATIVE_RELEVANCE.splitlines()[0], {"score": 7}),
]
"""A valid reply per prompt above, by its first line (`baselines.prompts.scripted_reply`,
for the scripted test server)."""


def simulated_rate_relevance(sim: Any, case: MemoryNote, task: Task) -> int:
    """Generative (AgentSquare): 2 + 3 per archetype of the model's reading of the task
    (its decomposition, `plan`, noise included) that the case concerns, plus N(0, 1)
    noise, rounded and clipped to 1-10. Relevance is judged; soundness is not."""
    rng = sim.rng("relevance", task.id, case.text)
    archs = list(dict.fromkeys(a for _, a in sim.plan(task)))
    lib = sim.library
    hit = {a for i in sim.latent_ids(case.meta) if i in lib.latents for a in lib.latents[i].affects}
    score = 2.0 + 3.0 * len(hit & set(archs)) + rng.normal()
    return int(min(10, max(1, round(score))))


class GenerativeOps(PromptedOps):
    """Generative's model operation (``rate_relevance``) over a prompted chat model."""

    @operation(prompts=(GENERATIVE_RELEVANCE,), schemas=SCHEMAS, canned=CANNED,
               simulated=simulated_rate_relevance)
    def rate_relevance(self, case: MemoryNote, task: Task) -> int:
        """Generative (AgentSquare): how much a stored successful case helps with `task`,
        1-10 (a reply without a usable score is an error, then the one re-ask)."""
        prompt = fill(GENERATIVE_RELEVANCE,
                      case=frame_memory(clip_middle(case.text, 4000), "a stored case"),
                      query=task.text)
        return self.chat_json("relevance", prompt, check_importance)


class GenerativeMemory(BaselineMemory):
    """AgentSquare's Generative memory on the runner's interface (module docstring).

    `cases` rows: key = the task text; payload ``{"note", "task_id", "success"}``.
    """

    name = "generative"
    OPS = GenerativeOps
    SECTIONS = (("trajectory", "## The trajectory from a similar task"),)
    STORES = ("cases",)

    def __init__(self, llm: Any, encoder: Any = None, k: int = 3, keep: str = "success") -> None:
        super().__init__(llm, encoder, k)
        if keep not in KEEP:
            raise ValueError(f"generative: keep must be one of {KEEP}, got {keep!r}")
        self.keep = keep
        """Which finished tasks become cases: "success" (AgentSquare) or "all" (EvolveLab)."""
        self.cases = self._new_store()

    def begin(self, task: Task) -> MemoryContext:
        if not len(self.cases):
            return MemoryContext()
        top = self.cases.topk(self._vec(task.text), self.k)
        notes = [MemoryNote.from_dict(self.cases.payloads[r]["note"]) for r, _ in top]
        scores = [int(self._op("rate_relevance", n, task)) for n in notes]
        i = best_case(scores, [float(s) for _, s in top])
        row = int(top[i][0])
        item = note_item("trajectory", notes[i])
        return self._context([item], [f"c{row}"], llm_calls=len(notes))

    def end(self, task: Task, episode: Episode) -> None:
        self.t += 1
        if self.keep == "success" and not episode.success:
            return
        outcome = "success" if episode.success else "failure"
        note = MemoryNote(
            "",
            f"Task: {task.text}\nOutcome: {outcome}\n{episode.trajectory}",
            polarity=outcome,
            meta=self._meta_of(task, episode),
        )
        self.cases.add(
            task.text,
            self._vec(task.text),
            {"note": note.to_dict(), "task_id": task.id, "success": bool(episode.success)},
        )

    def stats(self) -> dict[str, int]:
        return {"cases": len(self.cases)}

    def _state(self) -> dict[str, Any]:
        return {"keep": self.keep}

    def _load_state(self, state: dict[str, Any]) -> None:
        self.keep = str(state["keep"])


register_baseline(
    GenerativeMemory, "baseline",
    "Generative (AgentSquare): top-3 similar successful trajectories, model-scored, the "
    "best one shown",
)
