"""The model operations the ten baselines need, and their prompted implementation.

`MemoryNote` is the unit most baselines store: a ReasoningBank memory item, an ExpeL
insight, an AWM workflow, a Voyager skill, a Dynamic Cheatsheet entry, a MemP
procedure, a PlugMem knowledge unit. It has a title, a description, a content, a
polarity (advice to follow or a mistake to avoid), a count (importance, votes, usage)
and hidden `meta` (SkillWorld's latent ids). `BaselineLLM` names every operation;
`PromptedBaselineOps` implements them over a `PromptedLLM`'s ``chat_json`` with the
prompts of prompts.py and reply checks that repair what they can and reject the rest
(then the one re-ask). `SimLLM` implements the same operations offline
(world/baseline_ops.py), so every baseline runs live and in SkillWorld; `baseline_ops(llm)`
picks which.

===========================  ==============  =========================================
operation                    used by         returns
===========================  ==============  =========================================
reasoning_items              ReasoningBank   1-3 notes (title, description, content)
insight_ops                  ExpeL           ADD / EDIT / UPVOTE / DOWNVOTE operations
induce_workflows             AWM             1-2 workflow notes (steps in content)
rate_relevance               Generative      how much a stored case helps the task, 1-10
rate_importance              Generative-     an importance score 1-10
                             Agents
reflect                      Generative-     1-3 higher-level insight notes
                             Agents
describe_program             Voyager         one skill note (name, description, program)
reflect_decision             DILU            one correction note for a failed episode
synthesize_cheatsheet        Cheatsheet      the cheatsheet for the task at hand (notes)
curate_cheatsheet            Cheatsheet-Cu   the whole new cheatsheet (list of notes)
build_procedure              MemP            one procedure note (script)
revise_procedure             MemP            the procedure corrected after a failure
strategic_operational        MemEvolve       {"strategic": [...], "operational": [...]}
shortterm_facts              MemEvolve       up to 3 key facts of the current step (short-
                                             term memory, within one task)
structure_knowledge          PlugMem         `KnowledgeUpdate` (intents, facts, how-tos)
plugmem_query                PlugMem         {"intents": [...], "concepts": [...]}
distill_guidance             PlugMem         one guidance note, or None
trajectory_meta              DILU, ExpeL,    hidden meta of a raw trajectory (no model
                             Generative(s),  call: {} for a live model)
                             Cheatsheet
===========================  ==============  =========================================

Not here: the memory systems (one module each), requests and retries (llm/client.py),
prompt texts (prompts.py), the offline implementations (world/baseline_ops.py).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

import hyperskill_lite.baselines.prompts as bp
from hyperskill_lite.agent.replies import clean_name
from hyperskill_lite.llm.text import clip_middle
from hyperskill_lite.types import Episode, MemoryLLM, Polarity, Task

__all__ = [
    "MemoryNote",
    "InsightOp",
    "KnowledgeUpdate",
    "BaselineLLM",
    "OPERATIONS",
    "PromptedBaselineOps",
    "baseline_ops",
    "INSIGHT_OPS",
    "check_notes",
    "check_insight_ops",
    "check_importance",
]

INSIGHT_OPS = ("ADD", "EDIT", "UPVOTE", "DOWNVOTE")
_OP_SYNONYMS = {"AGREE": "UPVOTE", "REMOVE": "DOWNVOTE", "DISAGREE": "DOWNVOTE"}
MAX_NOTE_CHARS = 1500


def _clean(s: Any) -> str:
    return " ".join(str(s).split()) if s is not None else ""


def _count(v: Any) -> int:
    """A count from a reply: an integer in 1..10**6, 1 when unreadable."""
    try:
        return min(10**6, max(1, int(v)))
    except (TypeError, ValueError, OverflowError):
        return 1


def _as_list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else [v] if isinstance(v, str) else []


@dataclass
class MemoryNote:
    """One stored unit of a baseline memory.

    `polarity` is "success" (advice to follow) or "failure" (a mistake to avoid);
    `count` is what the method counts for it (ExpeL importance, cheatsheet usage);
    `meta` is hidden metadata, carried untouched (SkillWorld's latent ids).

    >>> MemoryNote("Rare Clue First", "Search the rarest clue first.").text
    'Rare Clue First: Search the rarest clue first.'
    """

    title: str
    content: str
    description: str = ""
    polarity: Polarity = "success"
    count: int = 1
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """What the agent reads: ``"title: content"`` (or the content alone)."""
        return f"{self.title}: {self.content}" if self.title else self.content

    def to_dict(self) -> dict[str, Any]:
        return copy.deepcopy(asdict(self))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MemoryNote:
        return cls(**copy.deepcopy(d))


@dataclass
class InsightOp:
    """One ExpeL rule operation on the list the model was shown: ``ADD`` a new rule
    (`note`), ``EDIT`` rule `index` into `note`, ``UPVOTE`` or ``DOWNVOTE`` rule `index`
    (0-based)."""

    op: str
    index: int | None = None
    note: MemoryNote | None = None


@dataclass
class KnowledgeUpdate:
    """What PlugMem structures out of one episode: the subgoal `intents` it pursued,
    `prescriptions` (how-to knowledge) as ``(intent index, note)`` and `propositions`
    (facts) as ``(concept, note)``."""

    intents: list[str] = field(default_factory=list)
    prescriptions: list[tuple[int, MemoryNote]] = field(default_factory=list)
    propositions: list[tuple[str, MemoryNote]] = field(default_factory=list)


@runtime_checkable
class BaselineLLM(MemoryLLM, Protocol):
    """`MemoryLLM` plus the baselines' operations (table in the module docstring)."""

    def reasoning_items(self, task: Task, episode: Episode) -> list[MemoryNote]: ...

    def insight_ops(
        self, rules: list[MemoryNote], task: Task, episode: Episode, contrast: MemoryNote | None
    ) -> list[InsightOp]: ...

    def induce_workflows(self, task: Task, episode: Episode) -> list[MemoryNote]: ...

    def rate_relevance(self, case: MemoryNote, task: Task) -> int: ...

    def rate_importance(self, note: MemoryNote) -> int: ...

    def reflect(self, notes: list[MemoryNote]) -> list[MemoryNote]: ...

    def describe_program(self, task: Task, episode: Episode) -> MemoryNote: ...

    def reflect_decision(self, task: Task, episode: Episode) -> MemoryNote: ...

    def synthesize_cheatsheet(
        self, sheet: list[MemoryNote], similar: list[MemoryNote], task: Task, max_entries: int
    ) -> list[MemoryNote]: ...

    def curate_cheatsheet(
        self, entries: list[MemoryNote], task: Task, episode: Episode, max_entries: int
    ) -> list[MemoryNote]: ...

    def build_procedure(self, task: Task, episode: Episode) -> MemoryNote: ...

    def revise_procedure(self, note: MemoryNote, task: Task, episode: Episode) -> MemoryNote: ...

    def strategic_operational(
        self, task: Task, episode: Episode
    ) -> dict[str, list[MemoryNote]]: ...

    def shortterm_facts(self, task: Task, step: str, notes: list[str]) -> list[str]: ...

    def structure_knowledge(self, task: Task, episode: Episode) -> KnowledgeUpdate: ...

    def plugmem_query(self, task: Task) -> dict[str, list[str]]: ...

    def distill_guidance(self, task: Task, notes: list[MemoryNote]) -> MemoryNote | None: ...

    def trajectory_meta(self, task: Task, episode: Episode) -> dict[str, Any]: ...


# --------------------------------------------------------------------------- reply checks
def _items(obj: Any, keys: tuple[str, ...]) -> list[Any]:
    if isinstance(obj, list):
        return obj
    if isinstance(obj, dict):
        for k in keys:
            if isinstance(obj.get(k), list):
                return obj[k]
        if any(k in obj for k in ("title", "name", "content")):
            return [obj]
    raise ValueError(
        f"expected a JSON array or an object with {' / '.join(keys)}, got {type(obj).__name__}"
    )


def _body(it: dict[str, Any]) -> str:
    steps = it.get("steps") or it.get("program")
    if isinstance(steps, list):
        lines = [
            _clean(s if not isinstance(s, dict) else " ".join(map(str, s.values()))) for s in steps
        ]
        return "\n".join(f"{i}. {s}" for i, s in enumerate((x for x in lines if x), 1))
    for k in (
        "content",
        "how_to",
        "text",
        "rule",
        "insight",
        "fact",
        "guidance",
        "steps",
        "program",
        "corrected_reasoning",
    ):
        if it.get(k):
            return _clean(it[k])
    return ""


def check_notes(
    obj: Any,
    keys: tuple[str, ...],
    *,
    polarity: Polarity = "success",
    max_items: int = 3,
    min_items: int = 1,
) -> list[MemoryNote]:
    """Validate a list of notes: items with a title/name, an optional description and a
    content (or a list of steps, numbered into the content). Items beyond `max_items`
    and items with no content are dropped; fewer than `min_items` is an error.

    >>> [n.text for n in check_notes({"items": [{"title": "Rare Clue", "content": "Go."}]},
    ...                              ("items",))]
    ['Rare Clue: Go.']
    >>> check_notes({"workflows": [{"name": "find_then_compute", "steps": ["a", "b"]}]},
    ...             ("workflows",))[0].content
    '1. a\\n2. b'
    """
    out = []
    for it in _items(obj, keys):
        if isinstance(it, str):
            it = {"content": it}
        if not isinstance(it, dict):
            continue
        content = _body(it)[:MAX_NOTE_CHARS]
        if not content:
            continue
        title = clean_name(it.get("title") or it.get("name") or "")
        desc = _clean(it.get("description") or "")[:MAX_NOTE_CHARS]
        count = _count(it.get("count", 1))
        out.append(MemoryNote(title, content, desc, polarity, count))
    if len(out) < min_items:
        raise ValueError(
            f"expected at least {min_items} usable item(s) under {keys[0]!r} "
            "(each needs a non-empty content)"
        )
    return out[:max_items]


def check_insight_ops(obj: Any, n_rules: int) -> list[InsightOp]:
    """Validate ExpeL operations ``[{"op", "rule_number", "rule"}]`` (rule numbers are
    1-based as shown to the model). AGREE/REMOVE are read as UPVOTE/DOWNVOTE; an
    operation naming a rule that does not exist is dropped.

    >>> ops = check_insight_ops({"operations": [{"op": "AGREE", "rule_number": 2},
    ...     {"op": "ADD", "rule": "Verify totals twice."}]}, n_rules=3)
    >>> [(o.op, o.index, o.note and o.note.content) for o in ops]
    [('UPVOTE', 1, None), ('ADD', None, 'Verify totals twice.')]
    """
    out = []
    for it in _items(obj, ("operations", "ops")):
        if not isinstance(it, dict):
            continue
        op = str(it.get("op") or it.get("operation") or "").strip().upper()
        op = _OP_SYNONYMS.get(op, op)
        if op not in INSIGHT_OPS:
            continue
        index = None
        if op != "ADD":
            try:
                index = int(it.get("rule_number") or it.get("index")) - 1
            except (TypeError, ValueError):
                continue
            if not 0 <= index < n_rules:
                continue
        note = None
        if op in ("ADD", "EDIT"):
            text = _clean(it.get("rule") or it.get("text") or it.get("insight") or "")
            if not text:
                continue
            note = MemoryNote(title="", content=text[:MAX_NOTE_CHARS], count=2)
        out.append(InsightOp(op, index, note))
    return out


def check_importance(obj: Any) -> int:
    """An importance score, clipped to 1-10.

    >>> check_importance({"importance": 12}), check_importance(3)
    (10, 3)
    """
    v = obj.get("importance", obj.get("score")) if isinstance(obj, dict) else obj
    try:
        score = int(round(float(v)))
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f'expected {{"importance": 1-10}}, got {obj!r}') from None
    return min(10, max(1, score))


def _outcome(episode: Episode) -> str:
    return ("SUCCESS" if episode.success else "FAILURE") + (
        f". Final answer: {episode.answer}" if episode.answer else ". No final answer."
    )


def _numbered(notes: list[MemoryNote], with_count: bool = False) -> str:
    if not notes:
        return "(none yet)"
    rows = []
    for i, n in enumerate(notes, 1):
        extra = f" (count {n.count})" if with_count else ""
        rows.append(f"{i}.{extra} {n.text}")
    return "\n".join(rows)


def _dict_of_lists(obj: Any, keys: tuple[str, ...], limit: int) -> dict[str, list[str]]:
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object with {', '.join(keys)}, got {type(obj).__name__}")
    out = {}
    for k in keys:
        v = obj.get(k) or []
        if isinstance(v, str):
            v = [v]
        if not isinstance(v, list):
            raise ValueError(f'"{k}" must be a list of strings')
        out[k] = [s for s in (_clean(x) for x in v) if s][:limit]
    if not any(out.values()):
        raise ValueError(f"all of {', '.join(keys)} are empty")
    return out


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


def _need_description(note: MemoryNote) -> MemoryNote:
    if not note.title:
        raise ValueError('the skill needs a "name"')
    if not note.description:
        note.description = note.content.splitlines()[0]
    return note


def _check_reflection(obj: Any) -> MemoryNote:
    if not isinstance(obj, dict):
        raise ValueError(f'expected {{"mistake", "corrected_reasoning"}}, got {type(obj).__name__}')
    mistake = _clean(obj.get("mistake") or "")
    fix = _clean(obj.get("corrected_reasoning") or obj.get("correction") or "")
    if not fix:
        raise ValueError('"corrected_reasoning" is empty')
    return MemoryNote(
        "Correction", fix[:MAX_NOTE_CHARS], description=mistake[:MAX_NOTE_CHARS], polarity="failure"
    )


def _check_cheatsheet(obj: Any, max_entries: int) -> list[MemoryNote]:
    return check_notes(obj, ("entries", "cheatsheet"), max_items=max_entries, min_items=0)


def _check_knowledge(obj: Any, success: bool) -> KnowledgeUpdate:
    if not isinstance(obj, dict):
        raise ValueError(
            f'expected {{"intents", "prescriptions", "propositions"}}, got {type(obj).__name__}'
        )
    intents = [s for s in (_clean(x) for x in _as_list(obj.get("intents"))) if s][:6]
    pres, props = [], []
    for it in _as_list(obj.get("prescriptions")):
        if not isinstance(it, dict) or not _body(it):
            continue
        intent = _clean(it.get("intent") or "")
        if intent and intent not in intents:
            intents.append(intent)
        i = intents.index(intent) if intent else 0
        pol: Polarity = "success" if success or not it.get("avoid") else "failure"
        pres.append((i, MemoryNote(clean_name(it.get("title") or ""), _body(it), polarity=pol)))
    for it in _as_list(obj.get("propositions")):
        if isinstance(it, dict) and _body(it):
            props.append((_clean(it.get("concept") or "general"), MemoryNote("", _body(it))))
    if pres and not intents:
        raise ValueError('prescriptions need "intents" to attach to')
    if not pres and not props:
        raise ValueError("no prescriptions and no propositions")
    return KnowledgeUpdate(intents, pres, props)


def _check_guidance(obj: Any) -> MemoryNote | None:
    if not isinstance(obj, dict):
        raise ValueError(f'expected {{"use", "guidance"}}, got {type(obj).__name__}')
    text = _clean(obj.get("guidance") or "")
    return MemoryNote("Guidance", text[:MAX_NOTE_CHARS]) if text else None
