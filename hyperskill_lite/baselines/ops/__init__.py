"""The model operations the ten baselines need, and their prompted implementation.

`MemoryNote` is the unit most baselines store: a ReasoningBank memory item, an ExpeL
insight, an AWM workflow, a Voyager skill, a Dynamic Cheatsheet entry, a MemP
procedure, a PlugMem knowledge unit. It has a title, a description, a content, a
polarity (advice to follow or a mistake to avoid), a count (importance, votes, usage)
and hidden `meta` (SkillWorld's latent ids). `BaselineLLM` names every operation.
Each baseline implements its own over a `PromptedLLM`'s ``chat_json``, in its module
(``class ExpeLOps(PromptedOps)`` in expel.py, with its prompt, reply schema and canned
reply), with the reply checks here that repair what they can and reject the rest (then the
one re-ask); `PromptedBaselineOps` composes all of them. `SimLLM` implements the same
operations offline (world/baseline_ops.py), so every baseline runs live and in SkillWorld;
`baseline_ops(llm, ops)` picks which.

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

This package: notes.py (`MemoryNote`, `InsightOp`, `KnowledgeUpdate`), protocol.py
(`BaselineLLM`), checks.py (the reply checks of the prompted operations), prompted.py
(`OPERATIONS`, the base `PromptedOps`, `baseline_ops`, and `every_baseline_ops`, which
composes `PromptedBaselineOps`: every built-in baseline's class in one).

Not here: the memory systems and their prompted operations and prompts (one module each;
baselines/prompts.py gathers the prompts), requests and retries (llm/client.py), the
offline implementations (world/baseline_ops.py).
"""

from __future__ import annotations

from hyperskill_lite.baselines.ops.checks import check_importance, check_insight_ops, check_notes
from hyperskill_lite.baselines.ops.notes import INSIGHT_OPS, InsightOp, KnowledgeUpdate, MemoryNote
from hyperskill_lite.baselines.ops.prompted import (
    OPERATIONS,
    PromptedOps,
    baseline_ops,
    every_baseline_ops,
)
from hyperskill_lite.baselines.ops.protocol import BaselineLLM

__all__ = [
    "MemoryNote",
    "InsightOp",
    "KnowledgeUpdate",
    "BaselineLLM",
    "OPERATIONS",
    "PromptedOps",
    "PromptedBaselineOps",
    "baseline_ops",
    "every_baseline_ops",
    "INSIGHT_OPS",
    "check_notes",
    "check_insight_ops",
    "check_importance",
]



def __getattr__(name: str) -> object:
    """`PromptedBaselineOps` (`every_baseline_ops()`, composed on first use)."""
    if name == "PromptedBaselineOps":
        return every_baseline_ops()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
