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
`scripted_reply` (a canned valid reply per prompt, each module's ``CANNED``, for the
scripted test server) can tell them apart. `SCHEMAS` merges the modules' reply schemas;
both come from every registered baseline's operations (`ops.every_baseline_ops`), so a
new baseline's are included without an edit here.

>>> REASONINGBANK_SUCCESS.splitlines()[0]
'You are distilling a memory bank of reasoning strategies from an agent trajectory.'

Not here: the templates themselves and sending them (each baseline's module), checking
replies (ops/checks.py), the HyperSkill prompts (methods/hyperskill/prompts.py).
"""

from __future__ import annotations

from typing import Any

from hyperskill_lite.agent.prompts import fill
from hyperskill_lite.baselines.awm import AWM_INDUCE
from hyperskill_lite.baselines.cheatsheet import CHEATSHEET_SYNTHESIZE
from hyperskill_lite.baselines.cheatsheet_cu import CHEATSHEET_CURATE
from hyperskill_lite.baselines.dilu import DILU_REFLECT
from hyperskill_lite.baselines.expel import EXPEL_INSIGHTS, expel_prompt
from hyperskill_lite.baselines.generative import GENERATIVE_RELEVANCE
from hyperskill_lite.baselines.generative_agents import GENERATIVE_IMPORTANCE, GENERATIVE_REFLECT
from hyperskill_lite.baselines.memevolve import LIGHTWEIGHT_EXTRACT, LIGHTWEIGHT_SHORTTERM
from hyperskill_lite.baselines.memp import MEMP_BUILD, MEMP_REVISE
from hyperskill_lite.baselines.ops.prompted import every_baseline_ops
from hyperskill_lite.baselines.plugmem import PLUGMEM_QUERY, PLUGMEM_REASON, PLUGMEM_STRUCTURE
from hyperskill_lite.baselines.reasoningbank import (
    REASONINGBANK_FAILURE,
    REASONINGBANK_SUCCESS,
    reasoningbank_prompt,
)
from hyperskill_lite.baselines.voyager import VOYAGER_SKILL

__all__ = [
    "SCHEMAS",
    "REASONINGBANK_SUCCESS",
    "REASONINGBANK_FAILURE",
    "EXPEL_INSIGHTS",
    "AWM_INDUCE",
    "GENERATIVE_RELEVANCE",
    "GENERATIVE_IMPORTANCE",
    "GENERATIVE_REFLECT",
    "VOYAGER_SKILL",
    "DILU_REFLECT",
    "CHEATSHEET_SYNTHESIZE",
    "CHEATSHEET_CURATE",
    "MEMP_BUILD",
    "MEMP_REVISE",
    "LIGHTWEIGHT_EXTRACT",
    "LIGHTWEIGHT_SHORTTERM",
    "PLUGMEM_STRUCTURE",
    "PLUGMEM_QUERY",
    "PLUGMEM_REASON",
    "fill",
    "reasoningbank_prompt",
    "expel_prompt",
    "scripted_reply",
]

SCHEMAS: dict[str, dict[str, Any]] = dict(every_baseline_ops().SCHEMAS)
"""The JSON schema of each operation's reply (keyed by the operation name its prompted
method passes to ``chat_json``), every baseline's ``SCHEMAS`` merged."""

_CANNED: list[tuple[str, Any]] = list(every_baseline_ops().CANNED)


def scripted_reply(prompt: str) -> Any:
    """A valid canned JSON reply for any baseline prompt, None for other prompts
    (for the scripted server: ``text(json.dumps(scripted_reply(p)))``).

    >>> scripted_reply(fill(GENERATIVE_IMPORTANCE, memory="m"))
    {'importance': 6}
    >>> scripted_reply("Decompose this task") is None
    True
    """
    first = prompt.lstrip().splitlines()[0] if prompt.strip() else ""
    for head, reply in _CANNED:
        if first == head:
            return reply
    return None
