"""The baselines' model operations inside SkillWorld: `SimBaselineOps`, a mixin of SimLLM.

Each operation writes real English from the template library in the shape its prompt
(baselines/prompts.py) asks for, and gives every note the hidden metadata of the latent
strategies, error patterns and spurious advice it expresses, so SimExecutor can judge
any baseline's context. What a note expresses follows the same rules as `extract`:

- knowledge drawn from an episode (`_picks`): after a success 1-3 helpful strategies of
  the task's archetypes, after a failure 1-3 of their error patterns (the one the
  executor reported first), and with probability ``extract_spurious`` one spurious item
  of the same polarity (a plausible over-generalisation);
- a raw trajectory (`trajectory_meta`) demonstrates the strategies of every archetype
  it went through when it succeeded, and the reported error when it failed (kind
  "trajectory" items weigh half in the executor);
- judging relevance is possible through the model's reading of the task (PlugMem's
  reasoning keeps knowledge that concerns the archetypes of the task's decomposition,
  noise included); telling sound from spurious advice is not, except when reviewing
  a failed episode: then the model notices that advice in memory which concerns the
  task was misleading with probability `NOTICE_MISLEADING`.

Every call draws from ``self.rng(op, ...)``; nothing is kept between calls.

PlugMem's operations are in plugmem_ops.py (`SimPlugMemOps`, mixed into SimLLM beside this).

Not here: the memory systems (baselines/), the prompted versions (baselines/ops/prompted.py).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from typing import Any

import numpy as np

from hyperskill_lite.baselines.ops import InsightOp, MemoryNote
from hyperskill_lite.types import Episode, Task
from hyperskill_lite.world.latent import latent_meta, latent_of, task_latent
from hyperskill_lite.world.library import split_sentences

__all__ = ["SimBaselineOps", "NOTICE_MISLEADING", "EDIT_RATE"]

NOTICE_MISLEADING = 0.5
"""Probability that a model reviewing a failed episode notices that a piece of advice in
memory which concerns the task was misleading (ExpeL downvotes it given a contrasting
success, the cheatsheet curator drops it, MemP's revision removes it). Set once: about
half the time a reflection pins a failure on the advice that caused it."""

EDIT_RATE = 0.3
"""Probability that ExpeL meets knowledge its rule list already holds with EDIT (a
rephrasing) rather than UPVOTE."""


def _ids(meta: dict[str, Any] | None) -> list[str]:
    lat = latent_of(meta)
    return lat["strategies"] + lat["errors"] + lat["spurious"]


def _union(*metas: dict[str, Any], source: str) -> dict[str, Any]:
    lats = [latent_of(m) for m in metas]
    return latent_meta(
        strategies=[i for la in lats for i in la["strategies"]],
        errors=[i for la in lats for i in la["errors"]],
        spurious=[i for la in lats for i in la["spurious"]],
        source=source,
    )


def _first(text: str) -> str:
    s = split_sentences(text)
    return s[0] if s else text


def _camel(name: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", name)
    return (words[0].lower() + "".join(w.capitalize() for w in words[1:])) if words else "skill"


class SimBaselineOps:
    """Offline implementations of `BaselineLLM`'s operations (see baselines/ops/protocol.py); mixed
    into `SimLLM`, whose helpers (`rng`, `phrase`, `lesson_text`, `plan`, `library`,
    `params`) they use."""

    library: Any  # provided by SimLLM
    params: Any
    rng: Any
    phrase: Any
    seen: Any
    lesson_text: Any
    plan: Any
    decompose: Any
    _count: Any

    # ------------------------------------------------------------------ shared pieces
    def _picks(self, task: Task, episode: Episode, rng: np.random.Generator) -> list[str]:
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

    def _note(
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

    def _concerns(self, note: MemoryNote, archetypes: list[str]) -> bool:
        lib = self.library
        wanted = set(archetypes)
        return any(
            wanted.intersection(lib.latents[i].affects) for i in _ids(note.meta) if i in lib.latents
        )

    def _misleading(self, note: MemoryNote, archetypes: list[str]) -> list[str]:
        """Spurious latents of `note` that concern `archetypes`."""
        lib = self.library
        sp = latent_of(note.meta)["spurious"]
        return [i for i in sp if i in lib.latents and set(archetypes) & set(lib.latents[i].affects)]

    def _steps(self, task: Task, hints: list[str], rng: np.random.Generator) -> list[str]:
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
                s += " " + _first(self.phrase(strat, rng).content)
            steps.append(s)
        for h in hints:
            if h not in used:
                steps.append(_first(self.phrase(h, rng).content))
        return steps

    def _outcome(self, episode: Episode) -> str:
        return "success" if episode.success else "failure"

    # ------------------------------------------------------------------ operations
    def reasoning_items(self, task: Task, episode: Episode) -> list[MemoryNote]:
        """ReasoningBank: one memory item (title, description, content) per pick."""
        rng = self.rng("reasoningbank", task.id, self._outcome(episode))
        out: list[MemoryNote] = []
        seen = self.seen(episode)
        for lid in self._picks(task, episode, rng):
            out.append(self._note(lid, rng, "reasoningbank", tuple(n.title for n in out), seen))
        return out

    def insight_ops(
        self,
        rules: list[MemoryNote],
        task: Task,
        episode: Episode,
        contrast: MemoryNote | None = None,
    ) -> list[InsightOp]:
        """ExpeL: UPVOTE (or, at `EDIT_RATE`, EDIT) a rule that already expresses a pick,
        ADD the others; after a failure with a contrasting success, DOWNVOTE rules that
        misled on this task (noticed at `NOTICE_MISLEADING`)."""
        rng = self.rng("expel", task.id, self._outcome(episode))
        archs = list(task_latent(task)["archetypes"])
        where: dict[str, int] = {}
        for i, r in enumerate(rules):
            for lid in _ids(r.meta):
                where.setdefault(lid, i)
        ops: list[InsightOp] = []
        seen = self.seen(episode)
        for lid in self._picks(task, episode, rng):
            if lid in where:
                i = where[lid]
                if rng.random() < EDIT_RATE:
                    new = self._note(lid, rng, "expel", avoid=(rules[i].title,), seen=seen)
                    new.meta = _union(rules[i].meta, new.meta, source="expel")
                    ops.append(InsightOp("EDIT", i, new))
                else:
                    ops.append(InsightOp("UPVOTE", i))
            else:
                note = self._note(lid, rng, "expel", seen=seen)
                note.count = 2
                ops.append(InsightOp("ADD", None, note))
        if contrast is not None and contrast.polarity == "success" and not episode.success:
            for i, r in enumerate(rules):
                if self._misleading(r, archs) and rng.random() < NOTICE_MISLEADING:
                    ops.append(InsightOp("DOWNVOTE", i))
        return ops

    def induce_workflows(self, task: Task, episode: Episode) -> list[MemoryNote]:
        """AWM: one workflow over the task's decomposition, example values abstracted,
        with the hints of the picked strategies; nothing from a failed episode."""
        if not episode.success:
            return []
        rng = self.rng("awm", task.id)
        lib = self.library
        picks = self._picks(task, episode, rng)
        archs = list(task_latent(task)["archetypes"])
        name = "_then_".join(a.split("_")[0] + "_" + a.split("_")[-1] for a in archs)
        desc = (
            "Workflow to "
            + ", then ".join(
                lib.archetypes[a].title[0].lower() + lib.archetypes[a].title[1:] for a in archs
            )
            + "."
        )
        steps = self._steps(task, picks, rng)
        content = "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
        meta = _union(*[self.phrase(x, rng).meta for x in picks], source="awm")
        return [MemoryNote(name, content, desc, "success", 1, meta)]

    def rate_relevance(self, case: MemoryNote, task: Task) -> int:
        """Generative (AgentSquare): 2 + 3 per archetype of the model's reading of the task
        (its decomposition, `plan`, noise included) that the case concerns, plus N(0, 1)
        noise, rounded and clipped to 1-10. Relevance is judged; soundness is not."""
        rng = self.rng("relevance", task.id, case.text)
        archs = list(dict.fromkeys(a for _, a in self.plan(task)))
        lib = self.library
        hit = {a for i in _ids(case.meta) if i in lib.latents for a in lib.latents[i].affects}
        score = 2.0 + 3.0 * len(hit & set(archs)) + rng.normal()
        return int(min(10, max(1, round(score))))

    def rate_importance(self, note: MemoryNote) -> int:
        """Generative Agents: 2 + 1.5 per latent the memory expresses (at most 4), +1 for
        a failure, plus N(0, 1) noise, rounded and clipped to 1-10."""
        rng = self.rng("importance", note.text)
        n = min(len(_ids(note.meta)), 4)
        score = 2.0 + 1.5 * n + (1.0 if note.polarity == "failure" else 0.0) + rng.normal()
        return int(min(10, max(1, round(score))))

    def reflect(self, notes: list[MemoryNote]) -> list[MemoryNote]:
        """Generative Agents: an insight for each latent that recurs in the memories
        (at least twice; else the most frequent one), at most 3, most frequent first."""
        if not notes:
            return []
        rng = self.rng("reflect", *[n.text for n in notes])
        counts = Counter(
            i for n in notes for i in dict.fromkeys(_ids(n.meta)) if i in self.library.latents
        )
        if not counts:
            return []
        ranked = [i for i, _ in counts.most_common()]
        chosen = [i for i in ranked if counts[i] >= 2][:3] or ranked[:1]
        return [self._note(i, rng, "reflection") for i in chosen]

    def describe_program(self, task: Task, episode: Episode) -> MemoryNote:
        """Voyager: the procedure of a verified success as a camelCase-named skill with a
        2-sentence description (its retrieval key) and the program steps."""
        if not episode.success:
            raise ValueError("Voyager adds only verified successful programs; got a failure")
        rng = self.rng("voyager", task.id)
        lib = self.library
        picks = self._picks(task, episode, rng)
        archs = list(task_latent(task)["archetypes"])
        lead = self.phrase(picks[0], rng, seen=self.seen(episode))
        name = _camel(lead.name)
        desc = (
            f"Solves tasks that {lib.archetypes[archs[0]].title[0].lower()}"
            f"{lib.archetypes[archs[0]].title[1:]}"
            + "".join(
                f", then {lib.archetypes[a].title[0].lower()}{lib.archetypes[a].title[1:]}"
                for a in archs[1:]
            )
            + f". {_first(lead.content)}"
        )
        steps = self._steps(task, picks, rng)
        program = "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
        meta = _union(*[self.phrase(x, rng).meta for x in picks], source="voyager")
        return MemoryNote(name, program, desc, "success", 1, meta)

    def reflect_decision(self, task: Task, episode: Episode) -> MemoryNote:
        """DILU: the reported error pattern as the wrong reasoning, with its lesson as
        the correction."""
        if episode.success:
            raise ValueError("DILU reflects on failed decisions; got a success")
        rng = self.rng("dilu", task.id)
        lid = self._picks(task, episode, rng)[0]
        n = self._note(lid, rng, "dilu", seen=self.seen(episode))
        return MemoryNote(
            "Correction", f"{n.content} {n.description}", _first(n.content), n.polarity, 1, n.meta
        )

    def synthesize_cheatsheet(
        self, sheet: list[MemoryNote], similar: list[MemoryNote], task: Task,
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
        rng = self.rng("cheatsheet-rs", task.id, *[n.text for n in similar])
        archs = list(dict.fromkeys(a for _, a in self.plan(task)))
        fresh: list[MemoryNote] = []
        for n in similar:
            for lid in _ids(n.meta):
                if lid in self.library.latents and set(archs) & set(
                    self.library.latents[lid].affects
                ):
                    fresh.append(self._note(lid, rng, "cheatsheet"))
        spurious = self.library.spurious_for(archs, "success")  # an over-generalisation,
        u = rng.random()  # with the same probability as in any extraction (`_picks`)
        if fresh and spurious and u < self.params.extract_spurious:
            fresh.append(self._note(spurious[int(rng.integers(len(spurious)))], rng, "cheatsheet"))
        kept = [e for e in sheet if self._concerns(e, archs)]
        other = [e for e in sheet if not self._concerns(e, archs)]
        out: list[MemoryNote] = []
        covered: set[str] = set()
        for e in fresh + kept + other:
            ids = set(_ids(e.meta))
            if ids and ids <= covered:
                continue
            covered |= ids
            out.append(MemoryNote.from_dict(e.to_dict()))
            if len(out) == max_entries:
                break
        return out

    def curate_cheatsheet(
        self, entries: list[MemoryNote], task: Task, episode: Episode, max_entries: int = 15
    ) -> list[MemoryNote]:
        """Dynamic Cheatsheet (DC-Cu) curator, which sees the attempt but no outcome
        label: it reads the outcome as the self-judge would (`judge`, noise included),
        and then after a believed success, count +1 for entries that concern the task;
        picks already present count +1, new picks are appended; after a believed failure,
        entries that misled on the task are dropped (`NOTICE_MISLEADING`); then the
        `max_entries` with the highest counts are kept (ties: older first)."""
        believed = self.judge(task, episode)
        episode = dataclasses.replace(episode, success=believed)
        rng = self.rng("cheatsheet", task.id, self._outcome(episode))
        archs = list(task_latent(task)["archetypes"])
        out = [MemoryNote.from_dict(e.to_dict()) for e in entries]
        if episode.success:
            for e in out:
                if self._concerns(e, archs) and not self._misleading(e, archs):
                    e.count += 1
        else:
            out = [
                e
                for e in out
                if not (self._misleading(e, archs) and rng.random() < NOTICE_MISLEADING)
            ]
        where = {lid: e for e in out for lid in _ids(e.meta)}
        seen = self.seen(episode)
        for lid in self._picks(task, episode, rng):
            if lid in where:
                where[lid].count += (
                    0 if episode.success and self._concerns(where[lid], archs) else 1
                )
            else:
                e = self._note(lid, rng, "cheatsheet", seen=seen)
                out.append(e)
                where[lid] = e
        order = sorted(range(len(out)), key=lambda i: (-out[i].count, i))
        return [out[i] for i in sorted(order[:max_entries])]

    def build_procedure(self, task: Task, episode: Episode) -> MemoryNote:
        """MemP: a script over the task's decomposition with the picked hints."""
        rng = self.rng("memp", task.id, self._outcome(episode))
        lib = self.library
        picks = self._picks(task, episode, rng)
        archs = list(task_latent(task)["archetypes"])
        title = " Then ".join(lib.archetypes[a].title.split()[0] for a in archs) + " Procedure"
        steps = (
            self._steps(task, picks, rng)
            if episode.success
            else [_first(self.phrase(x, rng).content) for x in picks]
        )
        content = "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
        meta = _union(*[self.phrase(x, rng).meta for x in picks], source="memp")
        return MemoryNote(title, content, "", self._outcome(episode), 1, meta)

    def revise_procedure(self, note: MemoryNote, task: Task, episode: Episode) -> MemoryNote:
        """MemP adjustment: append a check against the reported error; remove steps of
        spurious advice that concerns the task (`NOTICE_MISLEADING`)."""
        lib = self.library
        rng = self.rng("memp:revise", task.id, note.text)
        archs = list(task_latent(task)["archetypes"])
        drop = [i for i in self._misleading(note, archs) if rng.random() < NOTICE_MISLEADING]
        bad = {_first(p.content) for i in drop for p in lib.latents[i].phrasings}
        lines = [ln for ln in note.content.splitlines() if not any(b in ln for b in bad)]
        lines = [re.sub(r"^\d+\.\s*", "", ln) for ln in lines]
        picks = self._picks(task, episode, rng) if not episode.success else []
        for lid in picks[:1]:
            lines.append("Check: " + _first(self.phrase(lid, rng).content))
        lat = latent_of(note.meta)
        kept = latent_meta(
            lat["strategies"],
            lat["errors"],
            [i for i in lat["spurious"] if i not in drop],
            source="memp",
        )
        extra = [self.phrase(x, rng).meta for x in picks[:1]]
        content = "\n".join(f"{i}. {s}" for i, s in enumerate(lines, 1))
        return MemoryNote(
            note.title,
            content,
            note.description,
            note.polarity,
            note.count,
            _union(kept, *extra, source="memp"),
        )

    def strategic_operational(self, task: Task, episode: Episode) -> dict[str, list[MemoryNote]]:
        """MemEvolve Lightweight: from a success, a one-sentence strategic learning (a
        lesson) and a two-sentence operational one (a phrasing) per pick, at most 2 each;
        nothing from a failure."""
        if not episode.success:
            return {"strategic": [], "operational": []}
        rng = self.rng("lightweight", task.id)
        picks = self._picks(task, episode, rng)[:2]
        strategic, operational = [], []
        seen = self.seen(episode)
        for lid in picks:
            s = self.phrase(lid, rng, source="lightweight", seen=seen)
            strategic.append(
                MemoryNote("", self.lesson_text([lid], rng), "", s.polarity, 1, s.meta)
            )
            body = " ".join(split_sentences(s.content)[:2])
            operational.append(MemoryNote("", body, "", s.polarity, 1, s.meta))
        return {"strategic": strategic, "operational": operational}

    def shortterm_facts(self, task: Task, step: str, notes: list[str]) -> list[str]:
        """MemEvolve's short-term memory: the step's sentences that carry a value (a digit)
        and are not noted yet, at most 3, in their own words. SkillWorld draws an episode
        whole (SimExecutor never calls a context's `during` hook), so inside the world
        this runs only when a test or a live executor steps through a task."""
        have = set(notes)
        facts = [x for x in split_sentences(step) if any(c.isdigit() for c in x) and x not in have]
        return list(dict.fromkeys(facts))[:3]

    def trajectory_meta(self, task: Task, episode: Episode) -> dict[str, Any]:
        """Hidden metadata of a raw trajectory (no model call): the strategies of all
        its archetypes after a success, the reported error after a failure."""
        archs = list(task_latent(task)["archetypes"])
        if episode.success:
            return latent_meta(strategies=self.library.helpful_for(archs), source="trajectory")
        reported = (episode.meta or {}).get("skillworld", {}).get("error")
        return latent_meta(errors=[reported] if reported else [], source="trajectory")
