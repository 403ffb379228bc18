"""Reading the agent's reply as an action, and the step it makes (agent/loop.py's parts).

A reply of the live agent either answers or calls a tool. `parse_final_answer` finds a
"FINAL ANSWER: ..." in text; `text_action` finds a JSON action written in the text (the
"json" protocol's ``{"tool", "arguments"}`` or ``{"final_answer"}``, or a hermes-style
``<tool_call>`` a server without a tool parser passes through); `FINAL_ANSWER_TOOL` is the
tool the "tools" protocol answers with. A reply that is neither raises `Malformed` (the
loop re-asks once). `Step` is what one step adds to the history and to the trajectory;
`failed_calls` lists a failed tool call as ``meta["tool_errors"]`` does.

>>> text_action('{"tool": "web_search", "arguments": {"query": "hypergraph"}}')["tool"]
'web_search'
>>> text_action('<tool_call>{"name": "python", "arguments": "{\\\\"code\\\\": \\\\"1\\\\"}"}</tool_call>')
{'tool': 'python', 'arguments': {'code': '1'}, 'thought': ''}

Not here: the loop, its messages and running the tools (loop.py), the JSON extraction
and the reply clean-up it uses (llm/replies.py).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from hyperskill_lite.llm.replies import extract_json, scrub_surrogates, strip_thinking

__all__ = ["FINAL_ANSWER_TOOL", "parse_final_answer", "text_action", "Step", "Malformed",
           "failed_calls", "short"]

FINAL_ANSWER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "final_answer",
        "description": "Give the final answer to the task and stop.",
        "parameters": {
            "type": "object",
            "properties": {"answer": {"type": "string"}},
            "required": ["answer"],
        },
    },
}
_FINAL = re.compile(r"final\s*answer\s*[:：]\s*(.+)", re.I | re.S)
_TEXT_TOOL_CALL = re.compile(r"<tool_call>\s*(\{.*?\})\s*</tool_call>", re.S)


def parse_final_answer(text: str) -> str | None:
    """The answer in a "FINAL ANSWER: ..." reply, or None.

    >>> parse_final_answer("<think>x</think>I checked both sources.\\nFINAL ANSWER: 42")
    '42'
    >>> parse_final_answer("still searching") is None
    True
    """
    m = _FINAL.search(strip_thinking(text))
    return m.group(1).strip().strip("*").strip() if m else None


@dataclass
class Step:
    """One step: the messages it adds to the history and a readable rendering."""

    messages: list[dict[str, Any]]
    text: str
    tool_calls: list[str] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    """Tool calls of the step that failed: step, tool, the line the agent read."""


class Malformed(ValueError):
    """A reply that is neither an answer nor a well-formed action (the loop re-asks)."""


def text_action(text: str) -> dict[str, Any] | None:
    """A JSON action written in the text, or None: ``{"tool", "arguments"}``,
    ``{"final_answer"}``, or a hermes-style ``<tool_call>{"name", "arguments"}</tool_call>``
    that a server without a tool parser passes through as text."""
    found: list[tuple[str, Any]] = []
    m = _TEXT_TOOL_CALL.search(text)
    if m:
        try:
            found.append(("hermes", json.loads(m.group(1))))
        except json.JSONDecodeError:
            pass
    try:
        found.append(("json", extract_json(text)))
    except ValueError:
        pass
    for kind, c in found:
        if not isinstance(c, dict):
            continue
        if "final_answer" in c:
            return {"final_answer": c["final_answer"], "thought": c.get("thought", "")}
        name = c.get("tool") or (c.get("name") if kind == "hermes" else None)
        if isinstance(name, str) and name:
            args = c.get("arguments", c.get("parameters", {}))
            if isinstance(args, str):
                try:
                    args = scrub_surrogates(json.loads(args))
                except (json.JSONDecodeError, RecursionError):
                    continue
            if isinstance(args, dict):
                return {"tool": name, "arguments": args, "thought": c.get("thought", "")}
    return None


def failed_calls(step: int, name: str, obs: str) -> list[dict[str, Any]]:
    """The failed call as ``meta["tool_errors"]`` lists it (from the observation, so a
    replay, which runs no tool, records the same)."""
    if not obs.startswith("Error:"):
        return []
    return [{"step": step, "tool": name, "error": short(obs.splitlines()[0], 400)}]


def short(text: str, n: int) -> str:
    """`text`, cut to `n` characters with a note of how many were cut."""
    return text if len(text) <= n else text[:n] + f" [... {len(text) - n} more characters]"
