"""MemEvolve: the evolved "Lightweight" memory, as EvolveLab ships it and its long-term part.

MemEvolve (Zhang et al., "MemEvolve: Meta-Evolution of Agent Memory Systems", arXiv
2512.18746) is a framework that evolves memory architectures (encode, store, retrieve,
manage) in an outer loop; the HyperSkill paper compares against the memory system it
produced. Its codebase (EvolveLab) ships two evolved systems, Lightweight and Cerebra
Fusion; this is **Lightweight**, the first evolved architecture, whose long-term part
works as follows:

- encode: from a successful trajectory only, the model extracts at most 2 *strategic*
  learnings (planning, method selection) and 2 *operational* ones (tool use, edge
  cases), 1-2 sentences each;
- store: two JSON tiers with exact-duplicate detection by a normalised-text signature;
  every memory keeps a usage count and a success count;
- retrieve: at the start of a task the most relevant memories of both tiers are
  selected and given as guidance; each selected memory's usage count goes up, and its
  success count too when the task succeeds;
- manage: a tier may grow to 30 + a buffer of 20; when it exceeds 50 it is pruned back
  to 30, keeping the highest 2 * successes + usage (ties: older first).

Simplified here: Lightweight selects with an LLM (top 5, then synthesises guidance);
with the shared setup the top-k = 3 memories by cosine between phi(task) and the memory
are shown as they are, and pruning uses Lightweight's score rule (its fallback) instead
of asking the model which memories to drop. Its short-term, within-task memory (key
facts every 3 steps) has no place in a context assembled once per task and is left out.

=============  ===========================  ===========================  ===================
               MemEvolve (Lightweight)      EvolveLab as shipped         here
=============  ===========================  ===========================  ===================
stores         strategic / operational      the same, plus cold-start    strategic /
               learnings from successes;    seeds; short-term key facts  operational
               short-term facts per task    within each task             learnings only
retrieves (k)  long-term at the start,      long-term provision off      top k = 3 long-term
               short-term every N steps     (``enable_longterm_          memories at the
                                            provision`` False); short-   start
                                            term every 5 steps
updates        usage / success counts,      the same                     the same
               prune 50 -> 30
=============  ===========================  ===========================  ===================

EvolveLab column: read in bingreeky/MemEvolve,
Flash-Searcher-main/EvolveLab/providers/lightweight_memory_provider.py and config.py.
Two registered systems:

- ``memevolve`` (`LightweightMemory`): the configuration EvolveLab ships. The long-term
  tiers are built as below (with the cold-start seeds) but never shown; during a task,
  after every step the model notes up to 3 key facts of that step (short-term memory, at
  most 15 per task, oldest dropped first), and the notes are shown every 5 steps (the
  first time as soon as there are any). The notes reach the agent through the context's
  within-episode hook (`MemoryContext.during`), which the live agent loop calls; SkillWorld
  draws an episode whole and never calls it, so in SkillWorld this system gives the agent
  nothing: as shipped, Lightweight carries nothing from one task to the next.
- ``memevolve-longterm`` (`LightweightLongTerm`): the long-term part shown at the start of
  each task (top k = 3 by cosine), EvolveLab's ``enable_longterm_provision=True``.

Simplified here (short-term): EvolveLab asks the model to pick which notes to keep when
there are more than 15 and falls back to dropping the oldest; here the oldest are dropped;
its per-step summary of earlier steps is not kept (the prompt shows the notes so far).

Cold-start seeds (`COLD_START`, our words for the roles of EvolveLab's seven): strategic:
act rather than over-plan; read instructions and output formats literally; track units
through a calculation; follow an explicit directive over a meta-reading of it; label a
best-supported answer when no first-hand source exists. Operational: extract values with
their units, date and conditions; for several sources, go to the exact source, copy the
value, write the formula with units and format only at the end. ``memevolve`` starts with
them (usage and success counts 0, so they are the first pruned); ``memevolve-longterm``
starts empty, as this module's long-term system always has.

Its model operations, here beside the memory: `LightweightOps` (a `PromptedOps`, the
class's ``OPS``) declares ``strategic_operational``, ``shortterm_facts`` once each: the
prompts, reply schemas (``SCHEMAS``), canned replies for the scripted test server
(``CANNED``), the prompted implementation and the simulated one inside SkillWorld
(`simulated_strategic_operational`, `simulated_shortterm_facts`).
"""

from __future__ import annotations

import hashlib
from typing import Any

from hyperskill_lite.agent.framing import frame_memory
from hyperskill_lite.agent.prompts import SENTENCES
from hyperskill_lite.baselines.base import BaselineMemory, note_item, register_baseline
from hyperskill_lite.baselines.ops.checks import _dict_of_lists, _outcome
from hyperskill_lite.baselines.ops.notes import MemoryNote, _clean
from hyperskill_lite.baselines.ops.prompted import PromptedOps
from hyperskill_lite.llm.structured import arr, obj
from hyperskill_lite.llm.text import clip_middle, fill
from hyperskill_lite.methods.operations import operation
from hyperskill_lite.types import Episode, MemoryContext, Task

__all__ = ["LightweightMemory", "LightweightLongTerm", "LightweightOps", "signature", "prune_order",
           "COLD_START", "simulated_strategic_operational", "simulated_shortterm_facts"]

TIERS = ("strategic", "operational")

COLD_START: dict[str, tuple[str, ...]] = {
    "strategic": (
        "Act on the task with concrete steps instead of planning at length before the first "
        "search.",
        "Read the instructions literally, including the required output format: units, "
        "separators and capitalisation.",
        "In numerical tasks, name every unit and carry each conversion through the "
        "calculation step by step.",
        "When an instruction seems to contradict itself on purpose, follow the explicit "
        "directive rather than reasoning about the contradiction.",
        "When no first-hand source can be found, give the best-supported answer and say "
        "clearly that it is an estimate.",
    ),
    "operational": (
        "When reading web pages, search with specific terms and copy each number together "
        "with its unit, date and conditions.",
        "With several sources, open the exact page, copy the value as written, write the "
        "formula with units, and format the answer only at the end.",
    ),
}
"""The cold-start seeds of both Lightweight systems (module docstring: their roles)."""


def signature(text: str) -> str:
    """Exact-duplicate signature: hash of the lower-cased, whitespace-collapsed text.

    >>> signature("Verify  twice.") == signature("verify twice.")
    True
    """
    norm = " ".join(text.lower().split())
    return hashlib.blake2b(norm.encode("utf-8"), digest_size=8).hexdigest()


def prune_order(success: list[int], usage: list[int]) -> list[int]:
    """Indices by Lightweight's keep score 2 * success + usage, best first, ties older
    (lower index) first; prune by keeping a prefix.

    >>> prune_order([0, 2, 1, 0], [3, 2, 4, 0])
    [1, 2, 0, 3]
    """
    return sorted(range(len(success)), key=lambda i: (-(2 * success[i] + usage[i]), i))


# ----------------------------------------------------------------- model operations
LIGHTWEIGHT_EXTRACT = """\
You are extracting reusable learnings from a successful execution for long-term memory.

Task: {query}
Trajectory:
{trajectory}
Result: {result}

Extract two types (at most 2 each, 1-2 sentences each):
- "strategic": task planning and method selection (when and why to choose an approach);
- "operational": tool usage and edge-case handling (techniques that worked).
Only reusable patterns, no task-specific data; skip the obvious.

Reply with ONLY JSON: {"strategic": ["..."], "operational": ["..."]}"""

LIGHTWEIGHT_SHORTTERM = """\
You keep the working notes of an agent during one task. Note only what the task itself \
needs later: constraints or required formats found on the way, key values or results, \
discoveries such as two sources disagreeing. Do not note tool usage, answer formats of \
the agent protocol or general advice, and nothing already noted.

Task: {query}

Already noted:
{notes}

What the agent just did and saw:
{step}

Write at most 3 new notes, each one short sentence that keeps the source's own wording \
where it can (an empty list when nothing new matters).

Reply with ONLY JSON: {"key_facts": ["..."]}"""

SCHEMAS: dict[str, dict[str, Any]] = {
    "lightweight": obj(strategic=arr(SENTENCES, 0, 2), operational=arr(SENTENCES, 0, 2)),
    "lightweight:shortterm": obj(key_facts=arr(SENTENCES, 0, 3)),
}
"""The JSON schema of each reply (keyed by the operation name its `LightweightOps` method
passes to ``chat_json``), the shape its prompt above asks for; sent as structured
output when the server supports it (llm/structured.py)."""

CANNED: list[tuple[str, Any]] = [
    (
        LIGHTWEIGHT_EXTRACT.splitlines()[0],
        {
            "strategic": ["Plan the lookup before searching broadly."],
            "operational": ["Use python for any arithmetic on extracted values."],
        },
    ),
    (
        LIGHTWEIGHT_SHORTTERM.splitlines()[0],
        {"key_facts": ["The census table lists the 1990 population as 12,400."]},
    ),
]
"""A valid reply per prompt above, by its first line (`baselines.prompts.scripted_reply`,
for the scripted test server)."""


def simulated_strategic_operational(sim: Any, task: Task, episode: Episode) -> dict[str, list[MemoryNote]]:
    """MemEvolve Lightweight: from a success, a one-sentence strategic learning (a
    lesson) and a two-sentence operational one (a phrasing) per pick, at most 2 each;
    nothing from a failure."""
    if not episode.success:
        return {"strategic": [], "operational": []}
    rng = sim.rng("lightweight", task.id)
    picks = sim.picks(task, episode, rng)[:2]
    strategic, operational = [], []
    seen = sim.seen(episode)
    for lid in picks:
        s = sim.phrase(lid, rng, source="lightweight", seen=seen)
        strategic.append(
            MemoryNote("", sim.lesson_text([lid], rng), "", s.polarity, 1, s.meta)
        )
        body = " ".join(sim.sentences(s.content)[:2])
        operational.append(MemoryNote("", body, "", s.polarity, 1, s.meta))
    return {"strategic": strategic, "operational": operational}


def simulated_shortterm_facts(sim: Any, task: Task, step: str, notes: list[str]) -> list[str]:
    """MemEvolve's short-term memory: the step's sentences that carry a value (a digit)
    and are not noted yet, at most 3, in their own words. SkillWorld draws an episode
    whole (SimExecutor never calls a context's `during` hook), so inside the world
    this runs only when a test or a live executor steps through a task."""
    have = set(notes)
    facts = [x for x in sim.sentences(step) if any(c.isdigit() for c in x) and x not in have]
    return list(dict.fromkeys(facts))[:3]


class LightweightOps(PromptedOps):
    """MemEvolve's (Lightweight) model operations (``strategic_operational``,
    ``shortterm_facts``) over a prompted chat model."""

    @operation(
        prompts=(LIGHTWEIGHT_EXTRACT,),
        schemas={"lightweight": SCHEMAS["lightweight"]},
        canned=CANNED,
        simulated=simulated_strategic_operational,
    )
    def strategic_operational(self, task: Task, episode: Episode) -> dict[str, list[MemoryNote]]:
        """MemEvolve's Lightweight memory: up to 2 strategic and 2 operational learnings."""
        prompt = fill(
            LIGHTWEIGHT_EXTRACT,
            query=task.text,
            trajectory=self._traj(episode),
            result=_outcome(episode),
        )

        def check(o: Any) -> dict[str, list[MemoryNote]]:
            d = _dict_of_lists(o, ("strategic", "operational"), 2)
            return {k: [MemoryNote("", s) for s in v] for k, v in d.items()}

        return self.chat_json("lightweight", prompt, check)

    @operation(
        prompts=(LIGHTWEIGHT_SHORTTERM,),
        schemas={"lightweight:shortterm": SCHEMAS["lightweight:shortterm"]},
        canned=CANNED,
        simulated=simulated_shortterm_facts,
    )
    def shortterm_facts(self, task: Task, step: str, notes: list[str]) -> list[str]:
        """MemEvolve's short-term memory: up to 3 new key facts of the step just taken."""
        prompt = fill(
            LIGHTWEIGHT_SHORTTERM,
            query=task.text,
            notes=frame_memory("\n".join(f"- {n}" for n in notes), "this task's notes")
            or "(nothing yet)",
            step=clip_middle(step, self.llm.max_trajectory_chars),
        )

        def check(o: Any) -> list[str]:
            if not isinstance(o, dict) or not isinstance(o.get("key_facts", []), list):
                raise ValueError('expected {"key_facts": [...]}')
            return [f for f in (_clean(x) for x in o.get("key_facts", [])) if len(f) > 10][:3]

        return self.chat_json("lightweight:shortterm", prompt, check)


class LightweightLongTerm(BaselineMemory):
    """MemEvolve's Lightweight long-term memory shown at the start of each task (module
    docstring: ``memevolve-longterm``).

    `longterm` rows: key = the memory text; payload ``{"tier", "note", "signature",
    "usage", "success"}``.
    """

    name = "memevolve-longterm"
    OPS = LightweightOps
    COLD_START = False
    """Start with the cold-start seeds (the shipped system does; this one, as before, not)."""
    SECTIONS = (("insight", "## Guidance from long-term memory (strategic and operational)"),)
    STORES = ("longterm",)

    def __init__(
        self, llm: Any, encoder: Any = None, k: int = 3, max_per_tier: int = 30, buffer: int = 20
    ) -> None:
        super().__init__(llm, encoder, k)
        if max_per_tier < 1 or buffer < 0:
            raise ValueError("memevolve: max_per_tier must be >= 1 and buffer >= 0")
        self.max_per_tier, self.buffer = int(max_per_tier), int(buffer)
        self.longterm = self._new_store()
        self.pruned = 0
        if self.COLD_START:
            for tier, texts in COLD_START.items():
                for text in texts:
                    self._add(tier, MemoryNote("", text))

    def begin(self, task: Task) -> MemoryContext:
        if not len(self.longterm):
            return MemoryContext()
        rows = [r for r, _ in self.longterm.topk(self._vec(task.text), self.k)]
        self._pending[task.id] = rows
        items = []
        for r in rows:
            p = self.longterm.payloads[r]
            n = MemoryNote.from_dict(p["note"])
            items.append(note_item("insight", n, f"[{p['tier']}] {n.content}"))
        return self._context(items, [f"lt{r}" for r in rows])

    def end(self, task: Task, episode: Episode) -> None:
        live = set(self.longterm.rows())
        for r in self._pending.pop(task.id, []):
            if r in live:
                p = dict(self.longterm.payloads[r])
                p["usage"] += 1
                p["success"] += int(bool(episode.success))
                self.longterm.update(r, p)
        self.t += 1
        if not episode.success:
            return
        got = self._op("strategic_operational", task, episode)
        for tier in TIERS:
            seen = {
                self.longterm.payloads[r]["signature"]
                for r in self.longterm.rows()
                if self.longterm.payloads[r]["tier"] == tier
            }
            for note in got.get(tier, []):
                sig = signature(note.content)
                if len(note.content) < 20 or sig in seen:
                    continue
                seen.add(sig)
                self._add(tier, note)
            self._prune(tier)

    def _add(self, tier: str, note: MemoryNote) -> None:
        self.longterm.add(
            note.content,
            self._vec(note.content),
            {
                "tier": tier,
                "note": note.to_dict(),
                "signature": signature(note.content),
                "usage": 0,
                "success": 0,
            },
        )

    def _prune(self, tier: str) -> None:
        rows = [r for r in self.longterm.rows() if self.longterm.payloads[r]["tier"] == tier]
        if len(rows) <= self.max_per_tier + self.buffer:
            return
        pl = [self.longterm.payloads[r] for r in rows]
        order = prune_order([p["success"] for p in pl], [p["usage"] for p in pl])
        for i in order[self.max_per_tier :]:
            self.longterm.remove(rows[i])
            self.pruned += 1

    def stats(self) -> dict[str, int]:
        tiers = [self.longterm.payloads[r]["tier"] for r in self.longterm.rows()]
        return {t: tiers.count(t) for t in TIERS}

    def _state(self) -> dict[str, Any]:
        return {"pruned": self.pruned, "max_per_tier": self.max_per_tier, "buffer": self.buffer}

    def _load_state(self, state: dict[str, Any]) -> None:
        self.pruned = int(state["pruned"])
        self.max_per_tier, self.buffer = int(state["max_per_tier"]), int(state["buffer"])


class LightweightMemory(LightweightLongTerm):
    """MemEvolve's Lightweight memory as EvolveLab ships it (module docstring:
    ``memevolve``): long-term learnings stored but not shown; within a task, short-term
    notes through the context's `during` hook."""

    name = "memevolve"
    SECTIONS = ()
    COLD_START = True

    def __init__(
        self, llm: Any, encoder: Any = None, k: int = 3, max_per_tier: int = 30,
        buffer: int = 20, max_shortterm: int = 15, interval: int = 5,
    ) -> None:
        super().__init__(llm, encoder, k, max_per_tier, buffer)
        if max_shortterm < 1 or interval < 1:
            raise ValueError("memevolve: max_shortterm and interval must be >= 1")
        self.max_shortterm, self.interval = int(max_shortterm), int(interval)

    def begin(self, task: Task) -> MemoryContext:
        """No long-term memory is shown (provision off, as shipped); the context carries
        the short-term hook for this task only."""
        notes: list[str] = []
        last = [-(10**9)]  # the step (BEGIN = 1) at which notes were last shown

        def during(step: int, text: str) -> str | None:
            for fact in self._op("shortterm_facts", task, text, list(notes)):
                if fact not in notes:
                    notes.append(fact)
            del notes[: max(0, len(notes) - self.max_shortterm)]  # oldest first
            now = step + 1  # EvolveLab counts the BEGIN request as step 1
            if notes and now - last[0] >= self.interval:
                last[0] = now
                return "\n".join(f"{i}. {n}" for i, n in enumerate(notes, 1))
            return None

        return MemoryContext(during=during)

    def _state(self) -> dict[str, Any]:
        return super()._state() | {"max_shortterm": self.max_shortterm,
                                   "interval": self.interval}

    def _load_state(self, state: dict[str, Any]) -> None:
        super()._load_state(state)
        self.max_shortterm, self.interval = int(state["max_shortterm"]), int(state["interval"])


register_baseline(LightweightMemory, "baseline", "MemEvolve (Lightweight, as EvolveLab ships it): "
                  "short-term notes within a task; long-term learnings stored, not shown")
register_baseline(LightweightLongTerm, "variant", "MemEvolve (Lightweight): strategic and "
                  "operational learnings in two long-term tiers, top-3 shown per task (variant)")
