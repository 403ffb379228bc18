"""The baselines' operations over a prompted chat model (`PromptedBaselineOps`, one method
per operation, with the prompts of baselines/prompts.py), the list of operations
(`OPERATIONS`) and `baseline_ops(llm)`, which picks the prompted or the offline
implementation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import hyperskill_lite.baselines.prompts as bp
from hyperskill_lite.baselines.ops.checks import (
    _check_cheatsheet,
    _check_guidance,
    _check_knowledge,
    _check_reflection,
    _dict_of_lists,
    _need_description,
    _numbered,
    _outcome,
    check_importance,
    check_insight_ops,
    check_notes,
)
from hyperskill_lite.baselines.ops.notes import (
    InsightOp,
    KnowledgeUpdate,
    MemoryNote,
    _clean,
)
from hyperskill_lite.llm.text import clip_middle
from hyperskill_lite.types import Episode, Polarity, Task

# --------------------------------------------------------------------------- prompted
OPERATIONS = (
    "reasoning_items",
    "insight_ops",
    "induce_workflows",
    "rate_relevance",
    "rate_importance",
    "reflect",
    "describe_program",
    "reflect_decision",
    "synthesize_cheatsheet",
    "curate_cheatsheet",
    "build_procedure",
    "revise_procedure",
    "strategic_operational",
    "shortterm_facts",
    "structure_knowledge",
    "plugmem_query",
    "distill_guidance",
    "trajectory_meta",
)
"""Every operation of `BaselineLLM`, in the order of the module docstring's table."""


class PromptedBaselineOps:
    """The baselines' operations over a prompted chat model: anything with
    ``chat_json(op, prompt, validate)`` and ``max_trajectory_chars``, i.e.
    `llm.client.PromptedLLM` (its usage counters and cassette see every call). Live notes
    carry no hidden metadata."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm

    @property
    def usage(self) -> Any:
        """The wrapped model's usage counters (the runner reads ``system.llm.usage``)."""
        return getattr(self.llm, "usage", None)

    def chat_json(self, op: str, prompt: Any, validate: Callable[[Any], Any] | None = None) -> Any:
        """The wrapped model's ``chat_json`` with the operation's schema (prompts.SCHEMAS):
        send, parse, validate, re-ask once."""
        return self.llm.chat_json(op, prompt, validate, schema=bp.SCHEMAS.get(op))

    def _traj(self, episode: Episode) -> str:
        return clip_middle(
            episode.trajectory or "(no trajectory recorded)", self.llm.max_trajectory_chars
        )

    def reasoning_items(self, task: Task, episode: Episode) -> list[MemoryNote]:
        """ReasoningBank: up to 3 memory items from a judged success or failure."""
        pol: Polarity = "success" if episode.success else "failure"
        prompt = bp.reasoningbank_prompt(task.text, self._traj(episode), episode.success)
        return self.chat_json(
            "reasoningbank",
            prompt,
            lambda o: check_notes(o, ("memory_items", "items"), polarity=pol),
        )

    def insight_ops(
        self,
        rules: list[MemoryNote],
        task: Task,
        episode: Episode,
        contrast: MemoryNote | None = None,
    ) -> list[InsightOp]:
        """ExpeL: rule operations from this episode (and a contrasting one, if any)."""
        prompt = bp.expel_prompt(
            _numbered(rules),
            task.text,
            self._traj(episode),
            _outcome(episode),
            contrast.title if contrast else None,
            contrast.content if contrast else None,
            contrast.polarity == "success" if contrast else None,
        )
        return self.chat_json("expel", prompt, lambda o: check_insight_ops(o, len(rules)))

    def induce_workflows(self, task: Task, episode: Episode) -> list[MemoryNote]:
        """AWM: 1-2 reusable workflows induced from a successful trajectory."""
        prompt = bp.fill(bp.AWM_INDUCE, query=task.text, trajectory=self._traj(episode))
        return self.chat_json("awm", prompt, lambda o: check_notes(o, ("workflows",), max_items=2))

    def rate_relevance(self, case: MemoryNote, task: Task) -> int:
        """Generative (AgentSquare): how much a stored successful case helps with `task`,
        1-10 (a reply without a usable score is an error, then the one re-ask)."""
        prompt = bp.fill(bp.GENERATIVE_RELEVANCE, case=clip_middle(case.text, 4000),
                         query=task.text)
        return self.chat_json("relevance", prompt, check_importance)

    def rate_importance(self, note: MemoryNote) -> int:
        """Generative Agents: importance (poignancy) of a memory, 1-10."""
        prompt = bp.fill(bp.GENERATIVE_IMPORTANCE, memory=clip_middle(note.text, 4000))
        return self.chat_json("importance", prompt, check_importance)

    def reflect(self, notes: list[MemoryNote]) -> list[MemoryNote]:
        """Generative Agents: 1-3 high-level insights inferred from recent memories."""
        memories = clip_middle(_numbered(notes), self.llm.max_trajectory_chars)
        prompt = bp.fill(bp.GENERATIVE_REFLECT, memories=memories)
        return self.chat_json("reflect", prompt, lambda o: check_notes(o, ("insights",)))

    def describe_program(self, task: Task, episode: Episode) -> MemoryNote:
        """Voyager: the verified procedure as a named skill with a description."""
        prompt = bp.fill(bp.VOYAGER_SKILL, query=task.text, trajectory=self._traj(episode))
        return self.chat_json(
            "voyager",
            prompt,
            lambda o: _need_description(check_notes(o, ("skills",), max_items=1)[0]),
        )

    def reflect_decision(self, task: Task, episode: Episode) -> MemoryNote:
        """DILU: what went wrong in a failed episode and the corrected reasoning."""
        prompt = bp.fill(
            bp.DILU_REFLECT,
            query=task.text,
            trajectory=self._traj(episode),
            result=_outcome(episode),
        )
        return self.chat_json("dilu", prompt, _check_reflection)

    def synthesize_cheatsheet(
        self, sheet: list[MemoryNote], similar: list[MemoryNote], task: Task,
        max_entries: int = 8,
    ) -> list[MemoryNote]:
        """Dynamic Cheatsheet (DC-RS): the cheatsheet for `task`, written before it from
        the previous cheatsheet and similar past tasks."""
        per = max(500, self.llm.max_trajectory_chars // max(1, len(similar)))
        shown = "\n\n".join(f"[{i}] {clip_middle(n.text, per)}" for i, n in enumerate(similar, 1))
        prompt = bp.fill(
            bp.CHEATSHEET_SYNTHESIZE,
            cheatsheet=_numbered(sheet),
            similar=shown or "(none)",
            query=task.text,
            max_entries=max_entries,
        )
        return self.chat_json(
            "cheatsheet:rs", prompt, lambda o: _check_cheatsheet(o, max_entries)
        )

    def curate_cheatsheet(
        self, entries: list[MemoryNote], task: Task, episode: Episode, max_entries: int = 15
    ) -> list[MemoryNote]:
        """Dynamic Cheatsheet (DC-Cu): the curated cheatsheet after this episode, from the
        attempt alone: the trajectory and final answer, not whether it was judged right."""
        answer = f"Final answer: {episode.answer}" if episode.answer else "No final answer."
        prompt = bp.fill(
            bp.CHEATSHEET_CURATE,
            cheatsheet=_numbered(entries, with_count=True),
            query=task.text,
            trajectory=self._traj(episode),
            answer=answer,
            max_entries=max_entries,
        )
        return self.chat_json("cheatsheet", prompt, lambda o: _check_cheatsheet(o, max_entries))

    def build_procedure(self, task: Task, episode: Episode) -> MemoryNote:
        """MemP: the trajectory distilled into an abstract step-by-step script."""
        prompt = bp.fill(bp.MEMP_BUILD, query=task.text, trajectory=self._traj(episode))
        return self.chat_json(
            "memp", prompt, lambda o: check_notes(o, ("procedures",), max_items=1)[0]
        )

    def revise_procedure(self, note: MemoryNote, task: Task, episode: Episode) -> MemoryNote:
        """MemP adjustment: the retrieved procedure corrected with a failed episode."""
        prompt = bp.fill(
            bp.MEMP_REVISE,
            procedure=note.text,
            query=task.text,
            trajectory=self._traj(episode),
            result=_outcome(episode),
        )
        return self.chat_json(
            "memp:revise", prompt, lambda o: check_notes(o, ("procedures",), max_items=1)[0]
        )

    def strategic_operational(self, task: Task, episode: Episode) -> dict[str, list[MemoryNote]]:
        """MemEvolve's Lightweight memory: up to 2 strategic and 2 operational learnings."""
        prompt = bp.fill(
            bp.LIGHTWEIGHT_EXTRACT,
            query=task.text,
            trajectory=self._traj(episode),
            result=_outcome(episode),
        )

        def check(o: Any) -> dict[str, list[MemoryNote]]:
            d = _dict_of_lists(o, ("strategic", "operational"), 2)
            return {k: [MemoryNote("", s) for s in v] for k, v in d.items()}

        return self.chat_json("lightweight", prompt, check)

    def shortterm_facts(self, task: Task, step: str, notes: list[str]) -> list[str]:
        """MemEvolve's short-term memory: up to 3 new key facts of the step just taken."""
        prompt = bp.fill(
            bp.LIGHTWEIGHT_SHORTTERM,
            query=task.text,
            notes="\n".join(f"- {n}" for n in notes) or "(nothing yet)",
            step=clip_middle(step, self.llm.max_trajectory_chars),
        )

        def check(o: Any) -> list[str]:
            if not isinstance(o, dict) or not isinstance(o.get("key_facts", []), list):
                raise ValueError('expected {"key_facts": [...]}')
            return [f for f in (_clean(x) for x in o.get("key_facts", [])) if len(f) > 10][:3]

        return self.chat_json("lightweight:shortterm", prompt, check)

    def structure_knowledge(self, task: Task, episode: Episode) -> KnowledgeUpdate:
        """PlugMem: subgoal intents, prescriptive (how-to) and propositional (fact)
        knowledge structured out of one episode."""
        prompt = bp.fill(
            bp.PLUGMEM_STRUCTURE,
            query=task.text,
            trajectory=self._traj(episode),
            result=_outcome(episode),
        )
        return self.chat_json("plugmem", prompt, lambda o: _check_knowledge(o, episode.success))

    def plugmem_query(self, task: Task) -> dict[str, list[str]]:
        """PlugMem retrieval, step 1: the task's subgoal intents and key concepts."""
        prompt = bp.fill(bp.PLUGMEM_QUERY, query=task.text)
        return self.chat_json(
            "plugmem:query", prompt, lambda o: _dict_of_lists(o, ("intents", "concepts"), 6)
        )

    def distill_guidance(self, task: Task, notes: list[MemoryNote]) -> MemoryNote | None:
        """PlugMem retrieval, step 2: reason over retrieved knowledge into guidance;
        None when the model judges none of it relevant."""
        prompt = bp.fill(bp.PLUGMEM_REASON, query=task.text, knowledge=_numbered(notes))
        return self.chat_json("plugmem:reason", prompt, _check_guidance)

    def trajectory_meta(self, task: Task, episode: Episode) -> dict[str, Any]:
        """A live trajectory carries no hidden metadata (no model call)."""
        return {}


def baseline_ops(llm: Any) -> Any:
    """What performs the baselines' operations for `llm`: `llm` itself when it has every
    operation (SimLLM), a `PromptedBaselineOps` over it when it is a prompted chat model
    (it has ``chat_json``), else `llm` as it is (a baseline then names the operation it
    lacks when it needs it)."""
    if all(callable(getattr(llm, op, None)) for op in OPERATIONS):
        return llm
    if callable(getattr(llm, "chat_json", None)):
        return PromptedBaselineOps(llm)
    return llm
