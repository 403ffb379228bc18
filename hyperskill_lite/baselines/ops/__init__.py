"""What the baselines' model operations share.

`MemoryNote` is the unit most baselines store: a ReasoningBank memory item, an ExpeL
insight, an AWM workflow, a Voyager skill, a Dynamic Cheatsheet entry, a MemP
procedure, a PlugMem knowledge unit. It has a title, a description, a content, a
polarity (advice to follow or a mistake to avoid), a count (importance, votes, usage)
and hidden `meta` (SkillWorld's latent ids).

Each baseline declares its own model operations, in its module, once each
(`methods.operations.operation`): ``class ExpeLOps(PromptedOps)`` in expel.py has
``insight_ops`` with its prompt, reply schema, canned reply, its prompted implementation
(over a `PromptedLLM`'s ``chat_json``, checked by a reply check that repairs what it can
and rejects the rest, then the one re-ask) and its simulated one (SkillWorld's), so
every baseline runs live and in SkillWorld from its one file. The operations every
baseline has are on `PromptedOps` (``trajectory_meta``: a raw trajectory's hidden
metadata, {} live).

This package: notes.py (`MemoryNote`), checks.py (the reply checks several baselines
share), prompted.py (the base `PromptedOps`, `STEPS_SCHEMA`).

Not here: the memory systems and their operations and prompts (one module each;
baselines/prompts.py indexes the prompts), requests and retries (llm/client.py), the
declaration of an operation and what performs it for a model (methods/operations.py).
"""

from __future__ import annotations

from hyperskill_lite.baselines.ops.checks import check_importance, check_notes
from hyperskill_lite.baselines.ops.notes import MemoryNote
from hyperskill_lite.baselines.ops.prompted import STEPS_SCHEMA, PromptedOps

__all__ = [
    "MemoryNote",
    "PromptedOps",
    "STEPS_SCHEMA",
    "check_notes",
    "check_importance",
]
