"""What a simulated model operation is made of: `SimToolkit`, a mixin of SimLLM.

A memory method declares each of its model operations once, with a simulated
implementation ``simulated(sim, *args)`` beside its prompted one (methods/operations.py;
every baseline's module holds its own). That implementation writes real English in the
shape its prompt asks for by composing the public helpers here and SimLLM's own (`rng`,
`phrase`, `lesson_text`, `seen`, `plan`, `decompose`, `judge`, `library`, `params`), so
that every note carries the hidden metadata of the latent strategies, error patterns and
spurious advice it expresses and SimExecutor can judge any method's context. The rules
for what a note expresses are SkillWorld's, the same for every method, as for
`SimLLM.extract`:

- knowledge drawn from an episode (`picks`): after a success 1-3 helpful strategies of
  the task's archetypes, after a failure 1-3 of their error patterns (the one the
  executor reported first), and with probability ``extract_spurious`` one spurious item
  of the same polarity (a plausible over-generalisation);
- a raw trajectory (`trajectory_meta`) demonstrates the strategies of every archetype
  it went through when it succeeded, and the reported error when it failed (kind
  "trajectory" items weigh half in the executor);
- judging relevance is possible through the model's reading of the task (`plan`, noise
  included); telling sound from spurious advice is not, except when reviewing a failed
  episode: then the model notices that advice in memory which concerns the task
  (`misleading`) was misleading with probability `NOTICE_MISLEADING` (`notices`).

Every call draws from ``self.rng(op, ...)``; nothing is kept between calls.

Not here: any method's operations (each method's module), the memory systems
(baselines/), the model's own operations (simllm.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from hyperskill_lite.baselines.ops.notes import MemoryNote
from hyperskill_lite.types import Episode, Task
from hyperskill_lite.world.latent import latent_meta, latent_of, task_latent
from hyperskill_lite.world.library_types import split_sentences

__all__ = ["SimToolkit", "NOTICE_MISLEADING"]

NOTICE_MISLEADING = 0.5
"""Probability that a model reviewing a failed episode notices that a piece of advice in
memory which concerns the task was misleading (ExpeL downvotes it given a contrasting
success, the cheatsheet curator drops it, MemP's revision removes it). Set once: about
half the time a reflection pins a failure on the advice that caused it."""


class SimToolkit:
    """The helpers a simulated operation composes (module docstring); mixed into
    `SimLLM`, whose `rng`, `phrase`, `lesson_text`, `plan`, `library` and `params` they
    use."""

    library: Any  # provided by SimLLM
    params: Any
    rng: Any
    phrase: Any
    seen: Any
    lesson_text: Any
    plan: Any
    _count: Any

    # ------------------------------------------------------------------ hidden metadata
    @staticmethod
    def latent_ids(meta: dict[str, Any] | None) -> list[str]:
        """Every latent id a note's meta carries: strategies, errors, spurious."""
        lat = latent_of(meta)
        return lat["strategies"] + lat["errors"] + lat["spurious"]

    @staticmethod
    def latents(meta: dict[str, Any] | None) -> dict[str, list[str]]:
        """A note's latent ids by field: "strategies", "errors", "spurious"."""
        return latent_of(meta)

    @staticmethod
    def latent_meta(strategies: Iterable[str] = (), errors: Iterable[str] = (),
                    spurious: Iterable[str] = (), source: str = "") -> dict[str, Any]:
        """The hidden meta of a note expressing these latent ids."""
        return latent_meta(strategies, errors, spurious, source=source)

    @staticmethod
    def union(*metas: dict[str, Any], source: str) -> dict[str, Any]:
        """One meta expressing every latent of `metas`."""
        lats = [latent_of(m) for m in metas]
        return latent_meta(
            strategies=[i for la in lats for i in la["strategies"]],
            errors=[i for la in lats for i in la["errors"]],
            spurious=[i for la in lats for i in la["spurious"]],
            source=source,
        )

    @staticmethod
    def task_latent(task: Task) -> dict[str, Any]:
        """The task's hidden structure: its "archetypes" and "topic"."""
        return task_latent(task)

    @staticmethod
    def archetypes(task: Task) -> list[str]:
        """The task's archetypes (its true structure, not the model's reading, `plan`)."""
        return list(task_latent(task)["archetypes"])

    # ------------------------------------------------------------------ text
    @staticmethod
    def sentences(text: str) -> list[str]:
        """`text` split into sentences."""
        return split_sentences(text)

    @staticmethod
    def first_sentence(text: str) -> str:
        """The first sentence of `text` (all of it when it has none)."""
        s = split_sentences(text)
        return s[0] if s else text

    @staticmethod
    def outcome(episode: Episode) -> str:
        """The episode's outcome as a word: "success" or "failure"."""
        return "success" if episode.success else "failure"

    # ------------------------------------------------------------------ what a note expresses
    def picks(self, task: Task, episode: Episode, rng: np.random.Generator) -> list[str]:
        """Latent ids one extraction from `episode` expresses (module docstring)."""
        lat = task_latent(task)
        lib, p = self.library, self.params
        archs = list(lat["archetypes"])
        if episode.success:
            pool = lib.helpful_for(archs)
        else:
            pool = lib.errors_for(archs)
        pool = [pool[int(i)] for i in rng.permutation(len(pool))]
        reported = (episode.meta or {}).get("skillworld", {}).get("error")
        if not episode.success and reported in pool:
            pool.remove(reported)
            pool.insert(0, reported)
        picks = pool[: self._count(rng)]
        spurious = lib.spurious_for(archs, "success" if episode.success else "failure")
        u = rng.random()
        sp = spurious[int(rng.integers(len(spurious)))] if spurious else None
        if sp is not None and u < p.extract_spurious:
            picks = picks + [sp] if len(picks) < 3 else picks[:2] + [sp]
        return picks

    def note(
        self,
        latent_id: str,
        rng: np.random.Generator,
        source: str,
        avoid: tuple[str, ...] = (),
        seen: Any = (),
    ) -> MemoryNote:
        """A note expressing one latent; `seen` are the skills of the episode's context
        (`SimLLM.seen`), which the calibrated phrasing may re-emit."""
        s = self.phrase(latent_id, rng, avoid=avoid, source=source, seen=seen)
        desc = self.lesson_text([latent_id], rng)
        return MemoryNote(s.name, s.content, desc, s.polarity, 1, s.meta)

    def concerns(self, note: MemoryNote, archetypes: list[str]) -> bool:
        """Whether `note` expresses a latent that affects one of `archetypes`."""
        lib = self.library
        wanted = set(archetypes)
        return any(
            wanted.intersection(lib.latents[i].affects)
            for i in self.latent_ids(note.meta) if i in lib.latents
        )

    def misleading(self, note: MemoryNote, archetypes: list[str]) -> list[str]:
        """Spurious latents of `note` that concern `archetypes`."""
        lib = self.library
        sp = latent_of(note.meta)["spurious"]
        return [i for i in sp if i in lib.latents and set(archetypes) & set(lib.latents[i].affects)]

    @staticmethod
    def notices(rng: np.random.Generator) -> bool:
        """One draw: does the model reviewing a failure notice misleading advice
        (`NOTICE_MISLEADING`)?"""
        return bool(rng.random() < NOTICE_MISLEADING)

    def steps(self, task: Task, hints: list[str], rng: np.random.Generator) -> list[str]:
        """The task's decomposition with its topic abstracted to {target}, each step
        followed by the first sentence of the hinted strategy of its archetype; hinted
        latents that belong to no step (spurious advice) become steps of their own."""
        lib = self.library
        topic = task_latent(task)["topic"]
        used: set[str] = set()
        steps = []
        for text, arch in self.plan(task):
            s = text.replace(topic, "{target}")
            strat = lib.archetypes[arch].strategy
            if strat in hints and strat not in used:
                used.add(strat)
                s += " " + self.first_sentence(self.phrase(strat, rng).content)
            steps.append(s)
        for h in hints:
            if h not in used:
                steps.append(self.first_sentence(self.phrase(h, rng).content))
        return steps

    def trajectory_meta(self, task: Task, episode: Episode) -> dict[str, Any]:
        """Hidden metadata of a raw trajectory (no model call): the strategies of all
        its archetypes after a success, the reported error after a failure."""
        archs = list(task_latent(task)["archetypes"])
        if episode.success:
            return latent_meta(strategies=self.library.helpful_for(archs), source="trajectory")
        reported = (episode.meta or {}).get("skillworld", {}).get("error")
        return latent_meta(errors=[reported] if reported else [], source="trajectory")
