"""Prompts of the ten baselines' model operations, written after each source paper.

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
`scripted_reply` (a canned valid reply per prompt, for the scripted test server) can
tell them apart.

>>> REASONINGBANK_SUCCESS.splitlines()[0]
'You are distilling a memory bank of reasoning strategies from an agent trajectory.'

Not here: sending prompts and checking replies (ops/), the HyperSkill prompts
(prompts.py).
"""

from __future__ import annotations

from typing import Any

from hyperskill_lite.agent.prompts import NAME, PARAGRAPH, SENTENCES, fill
from hyperskill_lite.llm.structured import arr, boolean, integer, obj

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

_ITEM_RULES = """\
Write up to 3 memory items. Each item has:
- "title": a short name for the strategy (3-6 words), not specific to this task;
- "description": one sentence saying when the item applies;
- "content": 1-3 sentences of transferable reasoning: what to do and why.
Do not mention specific websites, names, numbers or queries of this task.

Reply with ONLY JSON: {"memory_items": [{"title": "...", "description": "...", "content": "..."}]}"""

REASONINGBANK_SUCCESS = (
    "You are distilling a memory bank of reasoning strategies from an agent trajectory.\n"
    "The agent SUCCEEDED at this task. First think about why the trajectory succeeded, "
    "then summarise the strategies that made it work and would help on similar tasks.\n\n"
    "Task: {query}\nTrajectory:\n{trajectory}\n\n" + _ITEM_RULES
)

REASONINGBANK_FAILURE = (
    "You are distilling a memory bank of reasoning strategies from an agent trajectory.\n"
    "The agent FAILED at this task. First reflect on why the trajectory failed, then "
    "summarise the lessons and the strategies that would prevent this failure next time.\n\n"
    "Task: {query}\nTrajectory:\n{trajectory}\n\n" + _ITEM_RULES
)

EXPEL_INSIGHTS = """\
You maintain a list of general rules (insights) that help an agent solve research tasks.

Existing rules:
{rules}

New experience:
Task: {query}
Trajectory:
{trajectory}
Outcome: {result}
{contrast}
Compare the experience(s) and update the rules. Allowed operations:
- ADD: a new rule that is general and different from every existing rule;
- EDIT <rule number>: rewrite an existing rule to be more general or more correct;
- UPVOTE <rule number>: the experience confirms an existing rule;
- DOWNVOTE <rule number>: the experience contradicts a rule, or the rule duplicates another.
Use at most 4 operations. Rules must not mention task-specific names or values.

Reply with ONLY JSON: {"operations": [{"op": "ADD", "rule": "..."}, \
{"op": "EDIT", "rule_number": 1, "rule": "..."}, {"op": "UPVOTE", "rule_number": 2}]}"""

_CONTRAST = """\
A similar earlier experience, which {outcome}:
Task: {query}
Trajectory:
{trajectory}
"""

AWM_INDUCE = """\
You are inducing reusable workflows from an agent's successful trajectory.

Task: {query}
Trajectory:
{trajectory}

A workflow is a common sub-routine that recurs across tasks: give it a short snake_case \
name, a one-sentence description of the goal it achieves, and its steps. Replace every \
example-specific value (names, dates, URLs, numbers) with a {variable} in braces. Write \
1-2 workflows.

Reply with ONLY JSON: {"workflows": [{"name": "...", "description": "...", "steps": ["..."]}]}"""

GENERATIVE_RELEVANCE = """\
Below is a case the agent solved successfully, then a task it is about to start. Do not \
summarise either; judge how much the solved case would help with the new task, on a \
scale of 1 (no help at all) to 10 (it shows exactly how to proceed).

Solved case:
{case}

New task: {query}

Reply with ONLY JSON: {"score": <integer 1-10>}"""

GENERATIVE_IMPORTANCE = """\
On a scale of 1 to 10, where 1 is purely mundane (a routine lookup that taught nothing) \
and 10 is extremely poignant (a hard-won success or a costly failure that changes how \
similar tasks should be approached), rate the likely importance of this memory.

Memory:
{memory}

Reply with ONLY JSON: {"importance": <integer 1-10>}"""

GENERATIVE_REFLECT = """\
Here are recent memories of an agent that solves research tasks:
{memories}

What are the 1-3 most important high-level insights you can infer from these memories? \
Each insight must be general (useful for future tasks) and cite the numbers of the \
memories it rests on.

Reply with ONLY JSON: {"insights": [{"title": "...", "content": "...", "because_of": [1, 2]}]}"""

VOYAGER_SKILL = """\
You are adding a verified skill to an agent's skill library. The agent solved this task:

Task: {query}
Trajectory:
{trajectory}

Write the procedure it followed as a reusable program: a camelCase function name, a \
description of what the function does in 2-3 sentences (it is used to retrieve the \
skill later), and the program as a list of steps with task-specific values turned into \
parameters.

Reply with ONLY JSON: {"skills": [{"name": "camelCaseName", "description": "...", \
"program": ["..."]}]}"""

DILU_REFLECT = """\
You are reviewing a decision process that went wrong, to correct it for the memory.

Task: {query}
Trajectory (the agent's reasoning and decisions):
{trajectory}
Outcome: {result}

Identify the reasoning or decision that caused the failure, and write the corrected \
reasoning the agent should have followed, so that similar situations are handled right.

Reply with ONLY JSON: {"mistake": "one sentence", "corrected_reasoning": "2-4 sentences"}"""

CHEATSHEET_SYNTHESIZE = """\
You keep a cheatsheet for an agent and rewrite it before each new task.

Previous cheatsheet:
{cheatsheet}

Earlier tasks similar to the new one, and how the agent worked on them:
{similar}

New task: {query}

Write the cheatsheet the agent should read for the new task: reusable heuristics, \
checklists, short "when X, first ... then ..." templates and typical pitfalls, drawn from \
the previous cheatsheet and the similar tasks. Keep it general (no answers, names or \
numbers of particular tasks) and short: at most {max_entries} entries.

Reply with ONLY JSON: {"entries": [{"title": "...", "content": "..."}]}"""

CHEATSHEET_CURATE = """\
You are the curator of a cheatsheet that an agent reads before every task.

Current cheatsheet (with how often each entry proved useful):
{cheatsheet}

The agent just worked on:
Task: {query}
Trajectory:
{trajectory}
{answer}

Nobody has told you whether this attempt was right; judge that from the trajectory \
yourself. Rewrite the whole cheatsheet: keep entries that remain valid, increase the \
count of entries this episode used successfully, add new reusable strategies, pitfalls or \
shortcuts it revealed, merge duplicates, and drop entries shown to be wrong. Keep at \
most {max_entries} entries, most useful first; each entry is general, not about this task.

Reply with ONLY JSON: {"entries": [{"title": "...", "content": "...", "count": 1}]}"""

MEMP_BUILD = """\
You are building procedural memory for an agent. Summarise how this task was solved as \
a script that can be followed on similar tasks.

Task: {query}
Trajectory:
{trajectory}

Write a short title and 2-6 abstract steps (no task-specific names or values), including \
any check that made the difference.

Reply with ONLY JSON: {"procedures": [{"title": "...", "steps": ["..."]}]}"""

MEMP_REVISE = """\
You are correcting procedural memory. This procedure was retrieved for a task, and the \
agent failed while following it:

Procedure:
{procedure}

Task: {query}
Trajectory:
{trajectory}
Outcome: {result}

Revise the procedure so it would have avoided this failure: fix or remove misleading \
steps and add the missing check. Keep it general.

Reply with ONLY JSON: {"procedures": [{"title": "...", "steps": ["..."]}]}"""

LIGHTWEIGHT_EXTRACT = """\
You are extracting reusable learnings from a successful execution for long-term memory.

Task: {query}
Trajectory:
{trajectory}
Result: {result}

Extract two types (at most 2 each, 1-2 sentences each):
- "strategic": task planning and method selection (when and why to choose an approach);
- "operational": tool usage and edge-case handling (techniques that worked).
Only reusable patterns, no task-specific data; skip the obvious.

Reply with ONLY JSON: {"strategic": ["..."], "operational": ["..."]}"""

LIGHTWEIGHT_SHORTTERM = """\
You keep the working notes of an agent during one task. Note only what the task itself \
needs later: constraints or required formats found on the way, key values or results, \
discoveries such as two sources disagreeing. Do not note tool usage, answer formats of \
the agent protocol or general advice, and nothing already noted.

Task: {query}

Already noted:
{notes}

What the agent just did and saw:
{step}

Write at most 3 new notes, each one short sentence that keeps the source's own wording \
where it can (an empty list when nothing new matters).

Reply with ONLY JSON: {"key_facts": ["..."]}"""

PLUGMEM_STRUCTURE = """\
You are structuring an agent's episode into knowledge for a memory graph.

Task: {query}
Trajectory:
{trajectory}
Outcome: {result}

1. List the subgoal intents the agent pursued (short phrases).
2. Prescriptive knowledge: for each intent, how to achieve it (or, if it failed there, \
what to avoid: set "avoid": true), as a general how-to.
3. Propositional knowledge: facts established in the episode, each under a concept.

Reply with ONLY JSON: {"intents": ["..."], "prescriptions": [{"intent": "...", \
"title": "...", "how_to": "...", "avoid": false}], "propositions": [{"concept": "...", \
"fact": "..."}]}"""

PLUGMEM_QUERY = """\
You are querying a knowledge memory for an agent about to start a task.

Task: {query}

List the subgoal intents the task will involve (short phrases) and the key concepts it \
is about.

Reply with ONLY JSON: {"intents": ["..."], "concepts": ["..."]}"""

PLUGMEM_REASON = """\
You are preparing memory for an agent about to start a task. From the retrieved \
knowledge below, keep only what is relevant and actionable for this task and distil it \
into concise guidance (2-4 sentences, phrased as suggestions).

Task: {query}
Retrieved knowledge:
{knowledge}

Reply with ONLY JSON: {"use": [<numbers of the knowledge used>], "guidance": "..."} \
(an empty guidance if nothing is relevant)"""


_NOTE = obj(title=NAME, description=SENTENCES, content=PARAGRAPH)
_STEPS = arr(SENTENCES, 1, 12)
SCHEMAS: dict[str, dict[str, Any]] = {
    "reasoningbank": obj(memory_items=arr(_NOTE, 1, 3)),
    "expel": obj(operations=arr(
        obj(("rule_number", "rule"), op={"type": "string",
                                         "enum": ["ADD", "EDIT", "UPVOTE", "DOWNVOTE"]},
            rule_number=integer(), rule=SENTENCES), 0, 4)),
    "awm": obj(workflows=arr(obj(name=NAME, description=SENTENCES, steps=_STEPS), 1, 2)),
    "importance": obj(importance=integer(minimum=1, maximum=10)),
    "reflect": obj(insights=arr(obj(("because_of",), title=NAME, content=PARAGRAPH,
                                    because_of=arr(integer(), 0, 10)), 1, 3)),
    "voyager": obj(skills=arr(obj(name=NAME, description=SENTENCES, program=_STEPS), 1, 1)),
    "dilu": obj(mistake=SENTENCES, corrected_reasoning=PARAGRAPH),
    "relevance": obj(score=integer(minimum=1, maximum=10)),
    "cheatsheet:rs": obj(entries=arr(obj(title=NAME, content=PARAGRAPH), 0, 15)),
    "cheatsheet": obj(entries=arr(obj(("count",), title=NAME, content=PARAGRAPH,
                                      count=integer(minimum=1)), 0, 15)),
    "memp": obj(procedures=arr(obj(title=NAME, steps=_STEPS), 1, 1)),
    "memp:revise": obj(procedures=arr(obj(title=NAME, steps=_STEPS), 1, 1)),
    "lightweight": obj(strategic=arr(SENTENCES, 0, 2), operational=arr(SENTENCES, 0, 2)),
    "lightweight:shortterm": obj(key_facts=arr(SENTENCES, 0, 3)),
    "plugmem": obj(
        intents=arr(NAME, 0, 6),
        prescriptions=arr(obj(intent=NAME, title=NAME, how_to=PARAGRAPH, avoid=boolean()),
                          0, 6),
        propositions=arr(obj(concept=NAME, fact=SENTENCES), 0, 6),
    ),
    "plugmem:query": obj(intents=arr(NAME, 1, 6), concepts=arr(NAME, 0, 6)),
    "plugmem:reason": obj(use=arr(integer(), 0, 10), guidance=PARAGRAPH),
}
"""The JSON schema of each operation's reply (keyed by the operation name its
`PromptedBaselineOps` method passes to ``chat_json``), the shape its prompt above asks
for; sent as structured output when the server supports it (llm/structured.py)."""


def reasoningbank_prompt(query: str, trajectory: str, success: bool) -> str:
    """ReasoningBank's extraction prompt for a judged success or failure."""
    template = REASONINGBANK_SUCCESS if success else REASONINGBANK_FAILURE
    return fill(template, query=query, trajectory=trajectory)


def expel_prompt(
    rules: str,
    query: str,
    trajectory: str,
    result: str,
    contrast_query: str | None = None,
    contrast_trajectory: str | None = None,
    contrast_success: bool | None = None,
) -> str:
    """ExpeL's rule-update prompt; the contrasting experience is optional.

    >>> "A similar earlier experience" in expel_prompt("(none yet)", "q", "t", "SUCCESS")
    False
    """
    contrast = ""
    if contrast_query is not None:
        contrast = fill(
            _CONTRAST,
            outcome="succeeded" if contrast_success else "failed",
            query=contrast_query,
            trajectory=contrast_trajectory or "",
        )
    return fill(
        EXPEL_INSIGHTS,
        rules=rules,
        query=query,
        trajectory=trajectory,
        result=result,
        contrast=contrast,
    )


_CANNED: list[tuple[str, Any]] = [
    (
        REASONINGBANK_SUCCESS.splitlines()[0],
        {
            "memory_items": [
                {
                    "title": "Verify Before Answering",
                    "description": "When a value comes from one page.",
                    "content": "Cross-check the value on a second source before answering.",
                }
            ]
        },
    ),
    (
        EXPEL_INSIGHTS.splitlines()[0],
        {
            "operations": [
                {"op": "ADD", "rule": "Check the official source before secondary pages."}
            ]
        },
    ),
    (
        AWM_INDUCE.splitlines()[0],
        {
            "workflows": [
                {
                    "name": "find_then_compute",
                    "description": "Find a value and compute the answer.",
                    "steps": ["search for {entity}", "read the value", "compute with python"],
                }
            ]
        },
    ),
    (GENERATIVE_IMPORTANCE.splitlines()[0], {"importance": 6}),
    (
        GENERATIVE_REFLECT.splitlines()[0],
        {
            "insights": [
                {
                    "title": "Official Sources Win",
                    "content": "Official pages were reliable.",
                    "because_of": [1],
                }
            ]
        },
    ),
    (
        VOYAGER_SKILL.splitlines()[0],
        {
            "skills": [
                {
                    "name": "findAndCompute",
                    "description": "Finds a value and computes the answer.",
                    "program": ["search(entity)", "read(value)", "python(compute)"],
                }
            ]
        },
    ),
    (
        DILU_REFLECT.splitlines()[0],
        {
            "mistake": "The agent trusted one page.",
            "corrected_reasoning": "Confirm the value on a second page.",
        },
    ),
    (GENERATIVE_RELEVANCE.splitlines()[0], {"score": 7}),
    (
        CHEATSHEET_SYNTHESIZE.splitlines()[0],
        {"entries": [{"title": "Source Before Summary", "content": "Open the primary source."}]},
    ),
    (
        CHEATSHEET_CURATE.splitlines()[0],
        {
            "entries": [
                {
                    "title": "Compute, Do Not Guess",
                    "content": "Use python for arithmetic.",
                    "count": 1,
                }
            ]
        },
    ),
    (
        MEMP_BUILD.splitlines()[0],
        {
            "procedures": [
                {"title": "Lookup Then Compute", "steps": ["find the source", "compute the answer"]}
            ]
        },
    ),
    (
        MEMP_REVISE.splitlines()[0],
        {
            "procedures": [
                {"title": "Lookup Then Verify", "steps": ["find the source", "verify", "compute"]}
            ]
        },
    ),
    (
        LIGHTWEIGHT_EXTRACT.splitlines()[0],
        {
            "strategic": ["Plan the lookup before searching broadly."],
            "operational": ["Use python for any arithmetic on extracted values."],
        },
    ),
    (
        LIGHTWEIGHT_SHORTTERM.splitlines()[0],
        {"key_facts": ["The census table lists the 1990 population as 12,400."]},
    ),
    (
        PLUGMEM_STRUCTURE.splitlines()[0],
        {
            "intents": ["find the source"],
            "prescriptions": [
                {
                    "intent": "find the source",
                    "title": "Official Source First",
                    "how_to": "Search the official site first.",
                    "avoid": False,
                }
            ],
            "propositions": [{"concept": "sources", "fact": "Official sites list dates."}],
        },
    ),
    (PLUGMEM_QUERY.splitlines()[0], {"intents": ["find the source"], "concepts": ["sources"]}),
    (PLUGMEM_REASON.splitlines()[0], {"use": [1], "guidance": "Consider the official site."}),
]


def scripted_reply(prompt: str) -> Any:
    """A valid canned JSON reply for any prompt of this module, None for other prompts
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
