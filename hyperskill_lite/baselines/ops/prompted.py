"""The base of the baselines' model operations over a prompted chat model (`PromptedOps`).

Each baseline's module holds its own operations over `PromptedOps`, beside the memory that
uses them: ``class XOps(PromptedOps)`` with one method per operation, each declared a
model operation by `methods.operations.operation` with its prompt template(s), reply
schema(s), a canned valid reply (for the scripted test server) and its simulated
implementation (SkillWorld's; `ExpeLOps` in expel.py, `PlugMemOps` in plugmem.py, ...).
The memory class names the class (``OPS``) and builds its operations for the model it is
given with `methods.operations.operations_over`, once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hyperskill_lite.agent.prompts import SENTENCES
from hyperskill_lite.llm.structured import arr
from hyperskill_lite.llm.text import clip_middle
from hyperskill_lite.methods.operations import operation, schemas_of
from hyperskill_lite.types import Episode, Task

__all__ = ["PromptedOps", "STEPS_SCHEMA"]

STEPS_SCHEMA = arr(SENTENCES, 1, 12)
"""The reply schema of a list of steps (AWM's workflows, Voyager's programs, MemP's
procedures)."""


def _simulated_trajectory_meta(sim: Any, task: Task, episode: Episode) -> dict[str, Any]:
    """Inside SkillWorld: the hidden metadata of the raw trajectory (`SimLLM.trajectory_meta`)."""
    return sim.trajectory_meta(task, episode)


class PromptedOps:
    """Base of a baseline's operations over a prompted chat model: anything with
    ``chat_json(op, prompt, validate)`` and ``max_trajectory_chars``, i.e.
    `llm.client.PromptedLLM` (its usage counters and cassette see every call). A subclass
    adds one method per operation, each declared with `methods.operations.operation`
    (module docstring). Live notes carry no hidden metadata."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.SCHEMAS = schemas_of([cls])

    SCHEMAS: dict[str, dict[str, Any]] = {}
    """The JSON schema of each reply, by the operation name passed to `chat_json`: every
    declared operation's (set when a subclass is created)."""

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

    @operation(model_call=False, simulated=_simulated_trajectory_meta)
    def trajectory_meta(self, task: Task, episode: Episode) -> dict[str, Any]:
        """A live trajectory carries no hidden metadata (no model call)."""
        return {}
