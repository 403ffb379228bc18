"""The prompts of the ten baselines' model operations, gathered: each is defined in its
baseline's module (expel.py holds ExpeL's), beside the memory and its prompted operations;
this index gathers them for tests, docs and the scripted test server.

Each template asks for JSON (the replies are checked in ops/checks.py) and follows what the
source paper's prompt asks the model to do; the wording is ours, shortened to what an
agent on web-research tasks needs:

- ReasoningBank: up to 3 memory items (title, description, content) from a success
  (why it worked) or a failure (why it failed, how to prevent it);
- ExpeL: rule operations ADD / EDIT / UPVOTE / DOWNVOTE on the numbered insight list,
  from one trajectory and, when there is one, a contrasting trajectory;
- AWM: reusable workflows with example-specific values abstracted into {variables};
- Generative (AgentSquare): a score 1-10 of how much a stored successful case helps with
  the task at hand;
- Generative Agents: an importance score 1-10, and reflections (high-level insights
  citing the memories they rest on);
- Voyager: a named, described skill program for a verified success;
- DILU: a reflection that names the wrong reasoning of a failed episode and corrects it;
- Dynamic Cheatsheet (DC-RS): the curator synthesising a cheatsheet for the task at hand
  from the previous one and similar past tasks, before the task;
- Dynamic Cheatsheet (DC-Cu): the curator rewriting the whole cheatsheet with usage
  counts after a task, from the attempt alone (no outcome label);
- MemP: a procedure script built from a trajectory, and its revision after a failure;
- MemEvolve (Lightweight): strategic and operational learnings from a success, and the
  key facts of the current step of a task (short-term memory);
- PlugMem: structuring an episode into intents, prescriptions and propositions; the
  query's intents and concepts; reasoning over retrieved knowledge into guidance.

Every template starts with a line no other prompt of this library starts with, so
`scripted_reply` (a canned valid reply per prompt, for the scripted test server) can tell
them apart. Nothing is listed here: `templates`, `schemas` and `scripted_reply` read every
registered method's declared model operations (`MethodSpec.model_operations`, each
declared once in its module with `methods.operations.operation`), so a new baseline's
prompts are included without an edit here.

>>> from hyperskill_lite.baselines.generative_agents import GENERATIVE_IMPORTANCE
>>> from hyperskill_lite.llm.text import fill
>>> scripted_reply(fill(GENERATIVE_IMPORTANCE, memory="m"))
{'importance': 6}
>>> scripted_reply("Decompose this task") is None
True

Not here: the templates themselves and sending them (each baseline's module), checking
replies (ops/checks.py and each module), the HyperSkill prompts
(methods/hyperskill/prompts.py).
"""

from __future__ import annotations

from typing import Any

from hyperskill_lite.methods.operations import ModelOperation
from hyperskill_lite.methods.registry import registered

__all__ = ["operations", "templates", "schemas", "scripted_reply"]


def operations() -> list[ModelOperation]:
    """Every model operation a registered method declares, in registration order."""
    return [op for spec in registered() for op in spec.model_operations]


def templates() -> list[str]:
    """Every prompt template of those operations (each once)."""
    return list(dict.fromkeys(p for op in operations() for p in op.prompts))


def schemas() -> dict[str, dict[str, Any]]:
    """The JSON schema of each reply, keyed by the operation name its prompted
    implementation passes to ``chat_json``."""
    return {key: schema for op in operations() for key, schema in op.schemas.items()}


def scripted_reply(prompt: str) -> Any:
    """A valid canned JSON reply for any declared prompt, None for other prompts (for the
    scripted server: ``text(json.dumps(scripted_reply(p)))``)."""
    first = prompt.lstrip().splitlines()[0] if prompt.strip() else ""
    for op in operations():
        for head, reply in op.canned_replies():
            if first == head:
                return reply
    return None
