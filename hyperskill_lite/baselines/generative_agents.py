"""Generative Agents: the memory stream of Park et al. (registered as ``generative-agents``).

Not the paper's "Generative" baseline: the HyperSkill paper cites AgentSquare's Generative
memory module, which is `generative` (generative.py). This is the memory architecture that
module is named after, kept as a variant for comparison.

Mechanism (Park et al., "Generative Agents: Interactive Simulacra of Human Behavior",
UIST 2023; their code, joonspk-research/generative_agents, reverie/backend_server/
persona/cognitive_modules/retrieve.py, weighs the terms 0.5 / 3 / 2 (recency, relevance,
importance) and ranks recency by access order; the paper's weights 1 are used here and
`weights` sets others):

- store: every episode is an observation in the memory stream (task, outcome and
  trajectory), with an importance score 1-10 rated by the model when it is stored and
  its creation and last-access times;
- retrieve: score = a_rec * recency + a_imp * importance + a_rel * relevance, each term
  min-max normalised over the stream, all weights 1; recency = decay^(t - last access),
  relevance = cosine(phi(task), phi(memory)); the top-k memories are shown, and their
  last-access time becomes now;
- reflection: when the importance of the memories stored since the last reflection
  sums past a threshold, the model infers 1-3 high-level insights from the most recent
  memories; they enter the stream as memories of their own (rated, retrievable).

=============  ==========================  ===========================  ====================
               Park et al.                 EvolveLab                    here
=============  ==========================  ===========================  ====================
stores         every observation, rated    (no provider of this         every episode, rated
               1-10, and reflections       design)                      1-10, reflections
retrieves (k)  recency + importance +      -                            the same score, k=3
               relevance, top-k                                         (settable)
updates        access times; reflect at    -                            access times in
               150 importance points                                    `end`; reflect at 50
=============  ==========================  ===========================  ====================

Simplified here: time is the episode count (one tick per finished task; decay 0.995 per
tick, Park et al.'s per-hour value); Park et al. reflect when 150 importance points
accumulate over hundreds of observations a day, here one memory per episode, so the
threshold is 50 (about one reflection every 8-10 episodes) over the last 20 memories;
the reflection is one call (the paper asks questions first, then answers them). Access
times change in `end`, from the pending retrieval (equivalent, as time only moves there).

Its model operations, here beside the memory: `GenerativeAgentsOps` (a `PromptedOps`,
the class's ``OPS``) declares ``rate_importance``, ``reflect`` once each: the prompts,
reply schemas (``SCHEMAS``), canned replies for the scripted test server (``CANNED``),
the prompted implementation and the simulated one inside SkillWorld
(`simulated_rate_importance`, `simulated_reflect`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from hyperskill_lite.agent.framing import frame_memory
from hyperskill_lite.agent.prompts import NAME, PARAGRAPH
from hyperskill_lite.baselines.base import BaselineMemory, note_item, register_baseline
from hyperskill_lite.baselines.ops.checks import (
    check_importance,
    check_notes,
    framed_notes,
)
from hyperskill_lite.baselines.ops.notes import MemoryNote
from hyperskill_lite.baselines.ops.prompted import PromptedOps
from hyperskill_lite.llm.structured import arr, integer, obj
from hyperskill_lite.llm.text import clip_middle, fill
from hyperskill_lite.methods.operations import operation
from hyperskill_lite.types import Episode, MemoryContext, Task

__all__ = ["GenerativeAgents", "GenerativeAgentsOps", "minmax", "retrieval_scores",
           "simulated_rate_importance", "simulated_reflect"]


def minmax(x: np.ndarray) -> np.ndarray:
    """Min-max normalise to [0, 1]; a constant vector maps to zeros.

    >>> minmax(np.array([2.0, 4.0, 3.0])).tolist(), minmax(np.array([5.0, 5.0])).tolist()
    ([0.0, 1.0, 0.5], [0.0, 0.0])
    """
    x = np.asarray(x, dtype=np.float64)
    span = x.max() - x.min() if len(x) else 0.0
    return (x - x.min()) / span if span > 0 else np.zeros_like(x)


def retrieval_scores(
    recency: np.ndarray,
    importance: np.ndarray,
    relevance: np.ndarray,
    weights: tuple[float, float, float] = (1.0, 1.0, 1.0),
) -> np.ndarray:
    """Generative Agents' retrieval score of each memory, all (n,) arrays:
    a_rec * minmax(recency) + a_imp * minmax(importance) + a_rel * minmax(relevance).

    >>> retrieval_scores(np.array([1.0, 0.5]), np.array([2, 8]), np.array([0.9, 0.1])).tolist()
    [2.0, 1.0]
    """
    a_rec, a_imp, a_rel = weights
    return a_rec * minmax(recency) + a_imp * minmax(importance) + a_rel * minmax(relevance)


# ----------------------------------------------------------------- model operations
GENERATIVE_IMPORTANCE = """\
On a scale of 1 to 10, where 1 is purely mundane (a routine lookup that taught nothing) \
and 10 is extremely poignant (a hard-won success or a costly failure that changes how \
similar tasks should be approached), rate the likely importance of this memory.

Memory:
{memory}

Reply with ONLY JSON: {"importance": <integer 1-10>}"""

GENERATIVE_REFLECT = """\
Here are recent memories of an agent that solves research tasks:
{memories}

What are the 1-3 most important high-level insights you can infer from these memories? \
Each insight must be general (useful for future tasks) and cite the numbers of the \
memories it rests on.

Reply with ONLY JSON: {"insights": [{"title": "...", "content": "...", "because_of": [1, 2]}]}"""

SCHEMAS: dict[str, dict[str, Any]] = {
    "importance": obj(importance=integer(minimum=1, maximum=10)),
    "reflect": obj(insights=arr(obj(("because_of",), title=NAME, content=PARAGRAPH,
                                    because_of=arr(integer(), 0, 10)), 1, 3)),
}
"""The JSON schema of each reply (keyed by the operation name its `GenerativeAgentsOps` method
passes to ``chat_json``), the shape its prompt above asks for; sent as structured
output when the server supports it (llm/structured.py)."""

CANNED: list[tuple[str, Any]] = [
    (GENERATIVE_IMPORTANCE.splitlines()[0], {"importance": 6}),
    (
        GENERATIVE_REFLECT.splitlines()[0],
        {
            "insights": [
                {
                    "title": "Official Sources Win",
                    "content": "Official pages were reliable.",
                    "because_of": [1],
                }
            ]
        },
    ),
]
"""A valid reply per prompt above, by its first line (`baselines.prompts.scripted_reply`,
for the scripted test server)."""


def simulated_rate_importance(sim: Any, note: MemoryNote) -> int:
    """Generative Agents: 2 + 1.5 per latent the memory expresses (at most 4), +1 for
    a failure, plus N(0, 1) noise, rounded and clipped to 1-10."""
    rng = sim.rng("importance", note.text)
    n = min(len(sim.latent_ids(note.meta)), 4)
    score = 2.0 + 1.5 * n + (1.0 if note.polarity == "failure" else 0.0) + rng.normal()
    return int(min(10, max(1, round(score))))


def simulated_reflect(sim: Any, notes: list[MemoryNote]) -> list[MemoryNote]:
    """Generative Agents: an insight for each latent that recurs in the memories
    (at least twice; else the most frequent one), at most 3, most frequent first."""
    if not notes:
        return []
    rng = sim.rng("reflect", *[n.text for n in notes])
    counts = Counter(
        i for n in notes for i in dict.fromkeys(sim.latent_ids(n.meta)) if i in sim.library.latents
    )
    if not counts:
        return []
    ranked = [i for i, _ in counts.most_common()]
    chosen = [i for i in ranked if counts[i] >= 2][:3] or ranked[:1]
    return [sim.note(i, rng, "reflection") for i in chosen]


class GenerativeAgentsOps(PromptedOps):
    """Generative Agents' model operations (``rate_importance``, ``reflect``) over a prompted
    chat model."""

    @operation(
        prompts=(GENERATIVE_IMPORTANCE,),
        schemas={"importance": SCHEMAS["importance"]},
        canned=CANNED,
        simulated=simulated_rate_importance,
    )
    def rate_importance(self, note: MemoryNote) -> int:
        """Generative Agents: importance (poignancy) of a memory, 1-10."""
        prompt = fill(GENERATIVE_IMPORTANCE,
                      memory=frame_memory(clip_middle(note.text, 4000), "the memory stream"))
        return self.chat_json("importance", prompt, check_importance)

    @operation(
        prompts=(GENERATIVE_REFLECT,),
        schemas={"reflect": SCHEMAS["reflect"]},
        canned=CANNED,
        simulated=simulated_reflect,
    )
    def reflect(self, notes: list[MemoryNote]) -> list[MemoryNote]:
        """Generative Agents: 1-3 high-level insights inferred from recent memories."""
        memories = framed_notes(notes, "the memory stream", limit=self.llm.max_trajectory_chars)
        prompt = fill(GENERATIVE_REFLECT, memories=memories)
        return self.chat_json("reflect", prompt, lambda o: check_notes(o, ("insights",)))


class GenerativeAgents(BaselineMemory):
    """The Generative Agents memory stream on the runner's interface (module doc).

    `stream` rows: key = the memory text; payload ``{"kind", "note", "importance",
    "created", "last_access", "task_id"}``.
    """

    name = "generative-agents"
    OPS = GenerativeAgentsOps
    SECTIONS = (("insight", "## Reflections"), ("trajectory", "## Relevant memories"))
    STORES = ("stream",)

    def __init__(
        self,
        llm: Any,
        encoder: Any = None,
        k: int = 3,
        decay: float = 0.995,
        reflect_threshold: float = 50.0,
        reflect_window: int = 20,
        weights: tuple[float, float, float] = (1.0, 1.0, 1.0),
    ) -> None:
        super().__init__(llm, encoder, k)
        if not 0.0 < decay <= 1.0:
            raise ValueError(f"generative: decay must be in (0, 1], got {decay}")
        if reflect_threshold <= 0 or reflect_window < 1:
            raise ValueError("generative: reflect_threshold must be > 0 and reflect_window >= 1")
        self.decay, self.reflect_threshold = float(decay), float(reflect_threshold)
        self.reflect_window, self.weights = int(reflect_window), tuple(weights)
        self.stream = self._new_store()
        self.importance_since_reflection = 0.0
        """Importance stored since the last reflection (kept across tasks)."""
        self.reflections = 0

    def scores(self, task: Task) -> tuple[np.ndarray, np.ndarray]:
        """(live rows (n,), their retrieval scores (n,)) for `task` at the current time."""
        rows, rel = self.stream.cosine(self._vec(task.text))
        pl = [self.stream.payloads[r] for r in rows]
        rec = self.decay ** np.array([self.t - p["last_access"] for p in pl], dtype=np.float64)
        imp = np.array([p["importance"] for p in pl], dtype=np.float64)
        return rows, retrieval_scores(rec, imp, rel, self.weights)  # type: ignore[arg-type]

    def begin(self, task: Task) -> MemoryContext:
        if not len(self.stream):
            return MemoryContext()
        rows, s = self.scores(task)
        top = [int(rows[i]) for i in np.argsort(-s, kind="stable")[: self.k]]
        self._pending[task.id] = top
        items = []
        for r in top:
            p = self.stream.payloads[r]
            items.append(note_item(p["kind"], MemoryNote.from_dict(p["note"])))
        return self._context(items, [f"m{r}" for r in top])

    def _remember(self, kind: str, note: MemoryNote, task_id: str) -> float:
        importance = float(self._op("rate_importance", note))
        self.stream.add(
            note.text,
            self._vec(note.text),
            {
                "kind": kind,
                "note": note.to_dict(),
                "importance": importance,
                "created": self.t,
                "last_access": self.t,
                "task_id": task_id,
            },
        )
        return importance

    def end(self, task: Task, episode: Episode) -> None:
        for r in self._pending.pop(task.id, []):
            if r in self.stream.rows():
                p = dict(self.stream.payloads[r])
                p["last_access"] = self.t
                self.stream.update(r, p)
        self.t += 1
        outcome = "success" if episode.success else "failure"
        note = MemoryNote(
            "",
            f"Task: {task.text}\nOutcome: {outcome}\n{episode.trajectory}",
            polarity=outcome,
            meta=self._meta_of(task, episode),
        )
        self.importance_since_reflection += self._remember("trajectory", note, task.id)
        if self.importance_since_reflection >= self.reflect_threshold:
            self._reflect(task.id)

    def _reflect(self, task_id: str) -> None:
        rows = sorted(self.stream.rows(), key=lambda r: (self.stream.payloads[r]["created"], r))
        recent = [
            MemoryNote.from_dict(self.stream.payloads[r]["note"])
            for r in rows[-self.reflect_window :]
        ]
        for insight in self._op("reflect", recent):
            self._remember("insight", insight, task_id)
        self.importance_since_reflection = 0.0
        self.reflections += 1

    def stats(self) -> dict[str, int]:
        kinds = [self.stream.payloads[r]["kind"] for r in self.stream.rows()]
        return {"memories": kinds.count("trajectory"), "reflections": kinds.count("insight")}

    def _state(self) -> dict[str, Any]:
        return {
            "importance_since_reflection": self.importance_since_reflection,
            "reflections": self.reflections,
        }

    def _load_state(self, state: dict[str, Any]) -> None:
        self.importance_since_reflection = float(state["importance_since_reflection"])
        self.reflections = int(state["reflections"])


register_baseline(
    GenerativeAgents, "variant",
    "Generative Agents (Park et al.): memory stream scored by recency, importance and "
    "relevance, with reflections (variant)",
)
