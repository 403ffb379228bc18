"""The base of the baselines' prompted operations (`PromptedOps`), the list of operations
(`OPERATIONS`) and `baseline_ops(llm, ops)`, which picks the prompted or the offline
implementation.

Each baseline's module holds its own operations over `PromptedOps`, beside the memory that
uses them: its prompt template(s), the reply schema(s) (``SCHEMAS``), a canned valid reply
(``CANNED``, for the scripted test server) and ``class XOps(PromptedOps)`` with one method
per operation (`ExpeLOps` in expel.py, `PlugMemOps` in plugmem.py, ...); the memory class
names it (``OPS``) and its registration hands it to the method registry.
`every_baseline_ops()` composes every built-in baseline's class into one, with every
operation (`PromptedBaselineOps`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from hyperskill_lite.agent.prompts import SENTENCES
from hyperskill_lite.llm.structured import arr
from hyperskill_lite.llm.text import clip_middle
from hyperskill_lite.methods.registry import registered
from hyperskill_lite.types import Episode, Task

__all__ = ["OPERATIONS", "PromptedOps", "STEPS_SCHEMA", "baseline_ops", "every_baseline_ops"]

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
"""Every operation of `BaselineLLM`, in the order of the package docstring's table."""

STEPS_SCHEMA = arr(SENTENCES, 1, 12)
"""The reply schema of a list of steps (AWM's workflows, Voyager's programs, MemP's
procedures)."""


class PromptedOps:
    """Base of a baseline's operations over a prompted chat model: anything with
    ``chat_json(op, prompt, validate)`` and ``max_trajectory_chars``, i.e.
    `llm.client.PromptedLLM` (its usage counters and cassette see every call). A subclass
    adds one method per operation, its reply schemas (`SCHEMAS`, keyed by the operation
    name it passes to `chat_json`) and canned replies (`CANNED`). Live notes carry no
    hidden metadata."""

    SCHEMAS: dict[str, dict[str, Any]] = {}
    """The JSON schema of each reply, by the operation name passed to `chat_json`."""
    CANNED: list[tuple[str, Any]] = []
    """(first line of a prompt, a valid reply to it): for the scripted test server
    (`baselines.prompts.scripted_reply`)."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm

    @property
    def usage(self) -> Any:
        """The wrapped model's usage counters (the runner reads ``system.llm.usage``)."""
        return getattr(self.llm, "usage", None)

    def chat_json(self, op: str, prompt: Any, validate: Callable[[Any], Any] | None = None) -> Any:
        """The wrapped model's ``chat_json`` with the operation's schema (`SCHEMAS`):
        send, parse, validate, re-ask once."""
        return self.llm.chat_json(op, prompt, validate, schema=self.SCHEMAS.get(op))

    def _traj(self, episode: Episode) -> str:
        return clip_middle(
            episode.trajectory or "(no trajectory recorded)", self.llm.max_trajectory_chars
        )

    def trajectory_meta(self, task: Task, episode: Episode) -> dict[str, Any]:
        """A live trajectory carries no hidden metadata (no model call)."""
        return {}


@functools.cache
def every_baseline_ops() -> type:
    """`PromptedBaselineOps`: the prompted operations of every built-in baseline in one
    class, with all their reply schemas and canned replies: each baseline's own class (the
    ``prompted_ops`` its registration names, methods/registry.py) composed, in
    registration order. Built once, on first use (the baselines register when
    `hyperskill_lite.baselines` is imported, which any import of this module does first);
    read from the registry (the baselines' modules import this one, so it cannot import
    them).

    >>> ops = every_baseline_ops()
    >>> ops.__name__, all(callable(getattr(ops, op, None)) for op in OPERATIONS)
    ('PromptedBaselineOps', True)
    """
    classes = tuple(dict.fromkeys(
        s.prompted_ops for s in registered()
        if s.source == "hyperskill_lite" and isinstance(s.prompted_ops, type)
        and issubclass(s.prompted_ops, PromptedOps)
    ))
    schemas = {op: schema for c in classes for op, schema in c.SCHEMAS.items()}
    canned = [row for c in classes for row in c.CANNED]
    doc = ("Every built-in baseline's operations over a prompted chat model "
           "(`every_baseline_ops`).")
    return type("PromptedBaselineOps", classes,
                {"SCHEMAS": schemas, "CANNED": canned, "__doc__": doc,
                 "__module__": "hyperskill_lite.baselines"})


def baseline_ops(llm: Any, ops: type | None = None) -> Any:
    """What performs the baselines' operations for `llm`: `llm` itself when it already is
    prompted operations (a `PromptedOps`) or has every operation (SimLLM); when it is a
    prompted chat model (it has ``chat_json``), `ops` over it (a baseline's own
    `PromptedOps` class; by default `PromptedBaselineOps`, every baseline's,
    `every_baseline_ops()`); else `llm` as it is (a baseline then names the operation it
    lacks when it needs it)."""
    if isinstance(llm, PromptedOps) or all(callable(getattr(llm, op, None)) for op in OPERATIONS):
        return llm
    if callable(getattr(llm, "chat_json", None)):
        return (ops or every_baseline_ops())(llm)
    return llm
