"""What the scripted server answers: one `Reply` per chat request (text, tool calls, an
HTTP error, a raw body, a delay, a vLLM-style ``reasoning_content``), and two stand-in
models that recognise this library's prompts (`prompt_aware_responder`,
`direct_responder`). Re-exported by scripted_server.py, which serves them.

>>> error(429, headers={"Retry-After": "2"}).status
429

Not here: the HTTP server (scripted_server.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Reply", "ReplyLike", "Responder", "text", "tool_call", "tool_calls", "error", "raw",
           "slow", "prompt_aware_responder", "direct_responder", "as_reply",
           "VLLM_NO_TOOLS_MESSAGE"]

VLLM_NO_TOOLS_MESSAGE = (
    '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
)
"""The 400 message a vLLM server started without tool calling gives to a request with tools."""


@dataclass
class Reply:
    """One scripted answer to a chat request.

    `content` and `tool_calls` make a normal 200 reply; each tool call is
    ``{"name": str, "arguments": dict | str, "id": str (optional)}`` (a str argument is
    sent verbatim, so malformed argument JSON can be scripted). `status` other than 200
    sends an OpenAI-style error body with `error_message`. `body` (raw text) replaces the
    whole response body, for malformed HTTP replies. `delay` sleeps before answering.
    `usage` overrides the approximate token counts. `reasoning` is sent as the message's
    ``reasoning_content`` (what vLLM's reasoning parsers return beside the answer).
    """

    content: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    status: int = 200
    error_message: str = ""
    body: str | None = None
    content_type: str = "application/json"
    delay: float = 0.0
    usage: dict[str, int] | None = None
    finish_reason: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    reasoning: str | None = None


def text(content: str, **kw: Any) -> Reply:
    """A plain assistant message."""
    return Reply(content=content, **kw)


def tool_call(name: str, arguments: dict[str, Any] | str | None = None, **kw: Any) -> Reply:
    """An assistant message with one tool call (OpenAI tools format)."""
    content = kw.pop("content", None)
    call = {"name": name, "arguments": {} if arguments is None else arguments}
    if "id" in kw:
        call["id"] = kw.pop("id")
    return Reply(content=content, tool_calls=[call], **kw)


def tool_calls(calls: Sequence[tuple[str, dict[str, Any] | str]], **kw: Any) -> Reply:
    """An assistant message with several tool calls, ``[(name, arguments), ...]``."""
    content = kw.pop("content", None)
    return Reply(content=content, tool_calls=[{"name": n, "arguments": a} for n, a in calls], **kw)


def error(status: int, message: str = "", **kw: Any) -> Reply:
    """An HTTP error reply, e.g. ``error(429)`` or ``error(500, "boom")``."""
    default = {429: "Rate limit reached", 500: "Internal server error", 503: "Service unavailable"}
    return Reply(status=status, error_message=message or default.get(status, "error"), **kw)


def raw(body: str, status: int = 200, content_type: str = "application/json", **kw: Any) -> Reply:
    """A raw response body sent verbatim (e.g. truncated JSON)."""
    return Reply(body=body, status=status, content_type=content_type, **kw)


def slow(reply: Reply | str, seconds: float) -> Reply:
    """`reply` (or a text reply) sent after sleeping `seconds`."""
    r = text(reply) if isinstance(reply, str) else reply
    r.delay = seconds
    return r


def prompt_aware_responder(request: dict[str, Any]) -> Reply:
    """A deterministic stand-in model that recognises this library's prompts.

    Decomposition -> two steps; extraction -> one skill or mistake and a lesson; merge ->
    a merged item; self-judge -> success; GT-judge -> correct iff the gold answer is "42"; an agent request -> one python tool call, then
    (after a tool result, or without tools) "FINAL ANSWER: 42" (JSON in the JSON-in-text
    protocol). Enough to drive a whole run (CLI, notebooks) against `ScriptedServer`.

    >>> prompt_aware_responder({"messages": [{"role": "user", "content": "Decompose this task"}]}).content
    '[{"name": "find_source", "description": "use web_search to find the source"}, \
{"name": "compute_answer", "description": "use python to compute the answer"}]'
    """
    msgs = request.get("messages") or [{}]
    last = str(msgs[-1].get("content") or "")
    if last.startswith("Decompose"):
        steps = [
            {"name": "find_source", "description": "use web_search to find the source"},
            {"name": "compute_answer", "description": "use python to compute the answer"},
        ]
        return text(json.dumps(steps))
    if last.startswith("Extract"):
        key = "skills" if "SUCCESSFUL" in last else "mistakes"
        item = {
            "name": "Compute Before Answering",
            "content": "Run the arithmetic in python instead of estimating. It avoids slips.",
        }
        return text(json.dumps({key: [item], "knowledge_fragment": "Compute, do not guess."}))
    if last.startswith("These two"):
        return text(json.dumps({"name": "Merged Strategy", "content": "Combine both strategies."}))
    if last.startswith("You are judging"):
        return text(json.dumps({"success": True, "reason": "the answer was computed"}))
    if last.startswith("You are grading"):  # the GT-judge (bench/judges.py): gold "42" only
        gold = last.split("Reference answer:", 1)[-1].split("\n\n", 1)[0].strip()
        return text(json.dumps({"correct": gold == "42", "reason": "compared with the reference"}))
    used_tool = any(
        m.get("role") == "tool" or str(m.get("content", "")).startswith("Observation") for m in msgs
    )
    tool_names = [t["function"]["name"] for t in request.get("tools") or []]
    if "python" in tool_names and not used_tool:
        return tool_call("python", {"code": "print(6 * 7)"})
    system = str(msgs[0].get("content") or "")
    if '"final_answer"' in system and not request.get("tools"):
        if "python(" in system and not used_tool:
            return text(json.dumps({"tool": "python", "arguments": {"code": "print(6 * 7)"}}))
        return text(json.dumps({"final_answer": "42"}))
    return text("FINAL ANSWER: 42")


def direct_responder(request: dict[str, Any]) -> Reply:
    """`prompt_aware_responder`, but the agent answers at once ("FINAL ANSWER: 42", or
    the JSON protocol's final answer) instead of running python first: no tool runs, so
    a benchmark of many streams measures waiting on the server, not sandbox processes.

    >>> direct_responder({"messages": [{"role": "user", "content": "Task: 6 x 7?"}],
    ...                   "tools": [{"function": {"name": "python"}}]}).content
    'FINAL ANSWER: 42'
    """
    msgs = request.get("messages") or [{}]
    last = str(msgs[-1].get("content") or "")
    if last.startswith(("Decompose", "Extract", "These two", "You are judging",
                        "You are grading")):
        return prompt_aware_responder(request)
    system = str(msgs[0].get("content") or "")
    if '"final_answer"' in system and not request.get("tools"):
        return text(json.dumps({"final_answer": "42"}))
    return text("FINAL ANSWER: 42")


ReplyLike = Reply | str | dict
Responder = Callable[[dict[str, Any]], ReplyLike]


def as_reply(x: ReplyLike) -> Reply:
    if isinstance(x, Reply):
        return x
    if isinstance(x, str):
        return Reply(content=x)
    if isinstance(x, dict):
        return Reply(**x)
    raise TypeError(f"a scripted reply must be a Reply, str or dict, got {type(x).__name__}")
