"""HyperSkill's prompts (the paper's Appendix "Prompts") as plain-text templates, their
builders and the JSON schemas of their replies.

Templates hold ``{name}`` placeholders that `fill` (llm/text.py) replaces in a single
pass, so text inserted for one placeholder (a task, a trajectory) is never scanned again:
braces in a task or a reply stay as they are. The templates follow the paper's boxes word
for word (LaTeX markup turned into plain text):

- task decomposition for GAIA, WebWalkerQA and xBench (`decomposition_prompt`),
- skill extraction after a success and mistake extraction after a failure
  (`extraction_prompt`; the paper abbreviates the failure prompt's rules as "same as
  success extraction", here they are written out),
- structure-informed merging (`merge_prompt`, ``{type}`` = "skill" or "mistake").

Untrusted text quoted as data (our addition, not the paper's): the trajectory an
extraction prompt quotes holds what pages and files said, so it is filled in fenced as
quoted data (``<quoted_data what="trajectory">...</quoted_data>``, agent/framing.py
`quote`), with chat-template tokens and fence tags inside it defused; the paper's wording
around it is unchanged. The result line gets the tokens defused too. A merge prompt
quotes stored memory (two skills or mistakes and their shared trajectory fragments,
written from pages and replies of earlier episodes): the paper's block for them
(`MERGE_PAIR`, word for word) is fenced as stored memory (``<memory_data
source=...>``, agent/framing.py `fence_memory`), each stored piece with its tokens and
role lines defused. A decomposition
prompt quotes only the task (the benchmark's own text, not the web's) and is filled as it
is.

A decomposition prompt lists exactly the tools the run has (`decomposition_prompt`'s
`tools`): the paper's line for each tool its box names, the line another box of the
paper gives it otherwise, and ours for inspect_file_as_audio, which no box names. The
text of an extraction prompt's ``{result}`` slot (`result_text`: "SUCCESS"/"FAILURE", the
final answer and any error) is our choice: the paper names the slot but not its text.

>>> p = decomposition_prompt("Who wrote {X}?", "gaia")
>>> "Task: Who wrote {X}?" in p
True

Not here: sending prompts (ops.py over the client, llm/client.py), the reply checks
(replies.py), the agent's own prompts (agent/prompts.py), the self-judge's
(bench/judges.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from hyperskill_lite.agent.framing import defuse, fence_memory, neutralise_tokens, quote
from hyperskill_lite.agent.prompts import NAME, PARAGRAPH, SENTENCES
from hyperskill_lite.llm.client import BENCHMARKS
from hyperskill_lite.llm.structured import arr, obj
from hyperskill_lite.llm.text import clip_middle, fill

__all__ = [
    "DECOMPOSE_GAIA",
    "DECOMPOSE_WEBWALKERQA",
    "DECOMPOSE_XBENCH",
    "EXTRACT_SUCCESS",
    "EXTRACT_FAILURE",
    "MERGE",
    "MERGE_PAIR",
    "decomposition_prompt",
    "tool_lines",
    "TOOL_LINES",
    "extraction_prompt",
    "merge_prompt",
    "result_text",
    "SCHEMAS",
]

DECOMPOSE_GAIA = """\
Decompose this task into 1-3 SHORT steps. Minimize steps to save context window.

Available tools:
- web_search(query): Search with SPECIFIC keywords (names, dates, exact phrases)
- crawl_page(url): Read a URL - use ONLY when you need specific page content
- inspect_file_as_text(path): Read attached files - START HERE if task has a file
- inspect_file_as_image(path): View images/figures
- python code: Calculations, counting, data processing

Key principles:
- If a file is attached, read it FIRST
- Use web_search with the MOST specific terms possible
- Prefer python code for calculations over searching

Task: {query}

Return ONLY a JSON array: [{"name": "action_name", "description": "use <tool> to <specific action>"}]"""

DECOMPOSE_WEBWALKERQA = """\
Decompose this web navigation task into 2-4 steps.

Available tools:
- web_search(query): Search for specific pages on the website
- crawl_page(url): Read content from a URL

Navigation strategy: ALWAYS start by crawling the root URL to understand site structure. \
Then navigate to the relevant section (News, Awards, Faculty, etc.) before searching for specifics.

Example for "Find what award Prof X won in 2021 on university.edu":
[{"name": "explore_site", "description": "crawl_page(root_url) to find navigation menu"},
 {"name": "navigate_section", "description": "crawl_page(root_url/awards)"},
 {"name": "find_target", "description": "web_search('Prof X award 2021 site:university.edu')"}]

Task: {query}

Return ONLY a JSON array."""

DECOMPOSE_XBENCH = """\
Decompose this data task into 2-4 steps. Each step must specify WHICH DATA to get and HOW to process it.

Available tools:
- web_search(query): Search for data sources
- crawl_page(url): Read data from specific URLs
- python code: Run calculations, unit conversions, comparisons

Task: {query}

Return ONLY a JSON array: [{"name": "action_name", "description": "use <tool> to <specific data action>"}]"""

_RULES = """\
CRITICAL RULES:
- Names must be SHORT reusable pattern names (3-5 words), NOT task-specific.
  Bad: "Search for Zip Codes". Good: "Targeted Database Search".
- Content must be a COMPLETE paragraph (2-4 sentences) that covers: WHAT to do, WHEN to apply it, and WHY it works.
- Extract 1-3 items max. Quality over quantity.
- Do NOT include task-specific details (exact names, IDs, URLs). Make knowledge transferable."""

EXTRACT_SUCCESS = (
    "Extract reusable knowledge from this SUCCESSFUL task.\n\n"
    + _RULES
    + """

Task: {query}
Trajectory: {trajectory}
Result: {result}

Extract skills (what strategies worked well).

Extract as JSON:
{
  "skills": [
    {"name": "Short Skill Name",
     "content": "2-4 sentence paragraph..."}],
  "knowledge_fragment": "ONE OR TWO sentences stating the core transferable lesson."
}"""
)

EXTRACT_FAILURE = (
    "Extract reusable lessons from this FAILED task.\n\n"
    + _RULES
    + """

Task: {query}
Trajectory: {trajectory}
Result: {result}

Extract mistakes (what went wrong and how to avoid it).

Extract as JSON:
{
  "mistakes": [{"name": "Short Mistake Name",
                "content": "2-4 sentence paragraph describing what fails, why, and what to do instead."}],
  "knowledge_fragment": "ONE OR TWO sentences stating the core failure mode to avoid."
}"""
)

MERGE = """\
These two {type}s are structurally and semantically related. Consolidate them into ONE \
higher-order {type} that captures the knowledge from both.

{pair}
Create a consolidated {type} that:
- Has a SHORT reusable name (3-5 words)
- Has content (2-4 sentences) covering BOTH strategies/patterns
- Is more general and widely applicable than either individual {type}

Reply with ONLY JSON: {"name": "...", "content": "..."}"""

MERGE_PAIR = """\
{TYPE} A:
Name: {name_a}
Content: {content_a}

{TYPE} B:
Name: {name_b}
Content: {content_b}
{fragments}"""
"""The paper's two-item block of the merge prompt, word for word; `merge_prompt` fences it
as stored memory (`fence_memory`, our addition) in `MERGE`'s ``{pair}`` slot."""

_ITEM = obj(name=NAME, content=PARAGRAPH)
SCHEMAS: dict[str, dict[str, Any]] = {
    "decompose": arr(obj(name=NAME, description=SENTENCES), 1, 6),
    "extract:success": obj(skills=arr(_ITEM, 1, 3), knowledge_fragment=SENTENCES),
    "extract:failure": obj(mistakes=arr(_ITEM, 1, 3), knowledge_fragment=SENTENCES),
    "merge": obj(name=NAME, content=PARAGRAPH),
}
"""The JSON schema of each operation's reply, the shape its prompt above asks for; sent as
structured output (llm/structured.py) when the server supports it. Strings are bounded a
little above what the prompt asks for (a name of 3-5 words, a content of 2-4 sentences),
so a token cap never cuts a reply inside a string."""


TOOL_LINES: dict[str, dict[str, str]] = {
    "gaia": {
        "web_search": "web_search(query): Search with SPECIFIC keywords (names, dates, exact phrases)",
        "crawl_page": "crawl_page(url): Read a URL - use ONLY when you need specific page content",
        "inspect_file_as_text": "inspect_file_as_text(path): Read attached files - START HERE if task has a file",
        "inspect_file_as_image": "inspect_file_as_image(path): View images/figures",
        "python": "python code: Calculations, counting, data processing",
    },
    "webwalkerqa": {
        "web_search": "web_search(query): Search for specific pages on the website",
        "crawl_page": "crawl_page(url): Read content from a URL",
    },
    "xbench": {
        "web_search": "web_search(query): Search for data sources",
        "crawl_page": "crawl_page(url): Read data from specific URLs",
        "python": "python code: Run calculations, unit conversions, comparisons",
    },
}
"""Each decomposition box's tool lines, word for word (the paper's Appendix "Prompts")."""

EXTRA_TOOL_LINES = {
    "inspect_file_as_audio": "inspect_file_as_audio(path): Listen to audio files (transcribed)",
}
"""Lines for tools no box of the paper names (ours)."""

TOOL_ORDER = ("web_search", "crawl_page", "inspect_file_as_text", "inspect_file_as_image",
              "inspect_file_as_audio", "python")
_TOOLS_BLOCK = re.compile(r"(Available tools:\n)((?:- .*\n)+)")


def tool_lines(benchmark: str, tools: Sequence[str]) -> list[str]:
    """The "Available tools" lines of `benchmark`'s box for exactly `tools`: the box's
    own line for a tool it names, else the line another box gives it (GAIA's first),
    else ours; in the box's order, then the order of `TOOL_ORDER`. Unknown tool names
    are listed by name.

    >>> tool_lines("webwalkerqa", ["crawl_page", "python"])
    ['crawl_page(url): Read content from a URL', 'python code: Calculations, counting, data processing']
    """
    own = TOOL_LINES[benchmark]
    wanted = list(dict.fromkeys(tools))
    order = [t for t in own if t in wanted]
    order += [t for t in TOOL_ORDER if t in wanted and t not in order]
    order += [t for t in wanted if t not in order]
    lines = []
    for t in order:
        line = own.get(t) or next((box[t] for box in TOOL_LINES.values() if t in box), None)
        lines.append(line or EXTRA_TOOL_LINES.get(t) or f"{t}: see its description")
    return lines


def decomposition_prompt(query: str, benchmark: str = "gaia",
                         tools: Sequence[str] | None = None) -> str:
    """The task-decomposition prompt of `benchmark` ("gaia", "webwalkerqa", "xbench").

    With `tools` (the run's tool names, e.g. ``Toolbox.names``), the "Available tools"
    list holds exactly those tools (`tool_lines`); without, it is the paper's box as is.

    >>> p = decomposition_prompt("q", "gaia", ["web_search", "python"])
    >>> p.split("Available tools:\\n")[1].split("\\n\\n")[0].splitlines()
    ['- web_search(query): Search with SPECIFIC keywords (names, dates, exact phrases)', '- python code: Calculations, counting, data processing']
    """
    templates = {
        "gaia": DECOMPOSE_GAIA,
        "webwalkerqa": DECOMPOSE_WEBWALKERQA,
        "xbench": DECOMPOSE_XBENCH,
    }
    key = benchmark.lower().replace("-", "").replace("_", "")
    key = {"webwalker": "webwalkerqa"}.get(key, key)
    if key not in templates:
        raise ValueError(
            f"unknown benchmark {benchmark!r} for decomposition; expected one of {BENCHMARKS}"
        )
    template = templates[key]
    if tools is not None:
        lines = "".join(f"- {ln}\n" for ln in tool_lines(key, tools)) or "- (none)\n"
        template = _TOOLS_BLOCK.sub(lambda m: m.group(1) + lines, template, count=1)
    return fill(template, query=query)


def result_text(success: bool, answer: str | None, error: str | None = None) -> str:
    """The outcome line of an extraction prompt's ``{result}`` slot (our choice: the
    paper names the slot but not its text).

    >>> result_text(False, None, "timeout")
    'FAILURE. Final answer: (none). Error: timeout'
    """
    text = f"{'SUCCESS' if success else 'FAILURE'}. Final answer: {answer if answer else '(none)'}"
    if error:
        text += f". Error: {error}"
    return text


def extraction_prompt(query: str, trajectory: str, result: str, success: bool) -> str:
    """Skill extraction (success) or mistake extraction (failure) prompt: the paper's
    text, with the trajectory fenced as quoted data (our addition; module docstring).

    >>> p = extraction_prompt("q", "Step 1\\nObservation: <|im_start|>system", "SUCCESS", True)
    >>> p.split("Trajectory: ")[1].splitlines()[:3]
    ['<quoted_data what="trajectory">', 'Step 1', 'Observation: < |im_start| >system']
    """
    return fill(
        EXTRACT_SUCCESS if success else EXTRACT_FAILURE,
        query=query,
        trajectory=quote(trajectory, "trajectory"),
        result=neutralise_tokens(result),
    )


MERGE_FRAGMENTS = """
Shared trajectory fragments (tasks in which both were used):
{lines}
"""
"""The merge prompt's fragment slot (ours: the paper's box has none, but §3.5 says the
merge "reasons over the contents of v_a, v_b, and their shared trajectory fragments").
Empty when the pair shares no hyperedge, which leaves the paper's prompt word for word."""

FRAGMENT_CHARS = 300
"""Each fragment's task and lesson are clipped to this many characters."""


def merge_prompt(
    name_a: str,
    content_a: str,
    name_b: str,
    content_b: str,
    kind: str = "skill",
    fragments: Sequence[Any] = (),
) -> str:
    """The structure-informed merging prompt; `kind` is "skill" or "mistake";
    `fragments` (objects with ``task``, ``lesson`` and ``success``, e.g.
    `core.records.Fragment`) fill the fragment slot, one line each.

    >>> merge_prompt("A", "a.", "B", "b.", "mistake").splitlines()[0][:40]
    'These two mistakes are structurally and '
    >>> from hyperskill_lite.core.records import Fragment
    >>> p = merge_prompt("A", "a.", "B", "b.", fragments=[Fragment("Find X", "Check Y.", True)])
    >>> "- Task: Find X | Outcome: success | Lesson: Check Y." in p
    True
    """
    if kind not in ("skill", "mistake"):
        raise ValueError(f"merge kind must be 'skill' or 'mistake', got {kind!r}")
    lines = [
        f"- Task: {defuse(clip_middle(f.task, FRAGMENT_CHARS))} | "
        f"Outcome: {'success' if f.success else 'failure'} | "
        f"Lesson: {defuse(clip_middle(f.lesson, FRAGMENT_CHARS))}"
        for f in fragments
    ]
    pair = fill(
        MERGE_PAIR,
        TYPE=kind.upper(),
        name_a=defuse(name_a),
        content_a=defuse(content_a),
        name_b=defuse(name_b),
        content_b=defuse(content_b),
        fragments=fill(MERGE_FRAGMENTS, lines="\n".join(lines)) if lines else "",
    )
    return fill(MERGE, type=kind, pair=fence_memory(pair, f"{kind}s A and B") + "\n")
