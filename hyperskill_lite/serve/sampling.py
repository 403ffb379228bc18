"""The memory's model calls through the connected client's own model (MCP sampling).

`Asker` sends a set of chat requests to the client as ``sampling/createMessage`` and
returns the replies' text. The protocol decides how:

- up to 2025-11-25 (the handshake protocols today's hosts speak): one server-to-client
  request per question, sent concurrently while the tool call is running;
- from 2026-07-28 (multi round-trip requests): the questions go back as one
  `InputRequiredResult`; the client answers them and calls the tool again with the
  answers and the (sealed, by the SDK's request-state boundary) state this module put
  there, and the tool body runs again from the top. Answers of earlier rounds ride that
  state, each pinned to a digest of its question, so a question is asked once and an
  answer never serves a different question. `Asker.progress` rides along too, so a
  tool that already committed something (a learned trajectory) does not commit it twice.

`json_ops` runs the paper's JSON operations (decomposition, extraction, merging) over an
`Asker` the way `PromptedLLM.chat_json` runs them over an HTTP model: the reply's JSON
extracted and checked by the same functions (llm/replies.py), one re-ask with the
error, then `LLMResponseError`. All operations of a round are asked together.

Not here: which path a call takes (models.py), the prompts (methods/hyperskill/prompts.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

import anyio
import mcp.types as types
from mcp.shared.message import ServerMessageMetadata
from mcp.types.version import is_version_at_least

from hyperskill_lite.errors import LLMConnectionError, LLMResponseError
from hyperskill_lite.llm.replies import extract_json
from hyperskill_lite.llm.text import REASK, fill

__all__ = ["Asker", "NeedsInput", "json_ops", "client_samples"]

MODERN = "2026-07-28"
"""The first protocol revision that asks through `InputRequiredResult`."""

Messages = list[dict[str, str]]


class NeedsInput(Exception):  # noqa: N818 - a control signal, not an error
    """Raised by `Asker.ask` on a 2026-07-28 connection: return `.result` from the tool."""

    def __init__(self, result: types.InputRequiredResult) -> None:
        super().__init__("the client must answer sampling requests first")
        self.result = result


def client_samples(ctx: Any) -> bool:
    """Did the connected client declare the ``sampling`` capability?"""
    caps = getattr(ctx, "client_capabilities", None) if ctx is not None else None
    return caps is not None and caps.sampling is not None


def _digest(messages: Messages, max_tokens: int, temperature: float) -> str:
    raw = json.dumps([messages, max_tokens, temperature], sort_keys=True).encode()
    return hashlib.sha256(raw).hexdigest()[:32]


def _text(result: Any) -> str:
    """The text of a sampling result (its text blocks joined; "" for none)."""
    content = getattr(result, "content", None)
    blocks = content if isinstance(content, list) else [content]
    return "".join(b.text for b in blocks if isinstance(b, types.TextContent))


class Asker:
    """Sampling requests of one tool call (module docstring).

    Parameters
    ----------
    ctx
        The tool call's `Context`.
    max_tokens, temperature
        Sent with every request (the paper's temperature 0.7, Appendix A).
    timeout
        Seconds to wait for one answer on a handshake connection.
    """

    def __init__(self, ctx: Any, max_tokens: int = 1024, temperature: float = 0.7,
                 timeout: float = 600.0) -> None:
        self.ctx, self.max_tokens, self.temperature = ctx, max_tokens, temperature
        self.timeout = timeout
        version = getattr(ctx, "protocol_version", None)
        self.modern = version is not None and is_version_at_least(version, MODERN)
        self.answers: dict[str, dict[str, str]] = {}  # key -> {"q": digest, "text": reply}
        self.progress: dict[str, Any] = {}
        self.asked = 0
        """Questions sent to the client by this call (this round)."""
        if self.modern:
            self._restore(getattr(ctx, "request_state", None), getattr(ctx, "input_responses",
                                                                         None))

    def _restore(self, state: str | None, responses: Mapping[str, Any] | None) -> None:
        try:
            doc = json.loads(state) if state else {}
        except ValueError:
            doc = {}
        if not isinstance(doc, dict):
            doc = {}
        self.answers = {k: v for k, v in (doc.get("answers") or {}).items()
                        if isinstance(v, dict) and {"q", "text"} <= set(v)}
        self.progress = dict(doc.get("progress") or {})
        asked = doc.get("asked") or {}
        for key, resp in (responses or {}).items():
            if key in asked:
                self.answers[key] = {"q": asked[key], "text": _text(resp)}

    @property
    def available(self) -> bool:
        return client_samples(self.ctx)

    async def ask(self, questions: Mapping[str, Messages]) -> dict[str, str]:
        """The reply text of every question (key -> messages); asks the ones not
        answered yet, all at once. Raises `NeedsInput` (2026-07-28: return its result)
        or `LLMConnectionError` (the client cannot sample, or refused)."""
        digests = {k: _digest(m, self.max_tokens, self.temperature)
                   for k, m in questions.items()}
        have = {k: self.answers[k]["text"] for k in questions
                if k in self.answers and self.answers[k]["q"] == digests[k]}
        missing = [k for k in questions if k not in have]
        if not missing:
            return have
        if not self.available:
            raise LLMConnectionError("sampling", "the client did not declare the sampling "
                                     "capability")
        self.asked += len(missing)
        requests = {k: types.CreateMessageRequest(params=self._params(questions[k]))
                    for k in missing}
        if self.modern:
            state = {"answers": self.answers, "progress": self.progress,
                     "asked": {k: digests[k] for k in missing}}
            raise NeedsInput(types.InputRequiredResult(
                input_requests=requests, request_state=json.dumps(state)))
        replies: dict[str, str] = {}

        async def one(key: str) -> None:
            with anyio.fail_after(self.timeout):
                result = await self.ctx.session.send_request(
                    requests[key], types.CreateMessageResult,
                    metadata=ServerMessageMetadata(related_request_id=self.ctx.request_id))
            replies[key] = _text(result)

        try:
            async with anyio.create_task_group() as tg:
                for key in missing:
                    tg.start_soon(one, key)
        except Exception as exc:  # the client refused, timed out, or went away
            raise LLMConnectionError("sampling", f"the client's model did not answer "
                                     f"({type(exc).__name__}: {str(exc)[:200]})") from None
        for key, text in replies.items():
            self.answers[key] = {"q": digests[key], "text": text}
            have[key] = text
        return have

    def _params(self, messages: Messages) -> types.CreateMessageRequestParams:
        return types.CreateMessageRequestParams(
            messages=[types.SamplingMessage(role=m["role"], content=types.TextContent(
                type="text", text=m["content"])) for m in messages],
            max_tokens=self.max_tokens, temperature=self.temperature,
            metadata={"hyperskill": "memory operation"})


async def json_ops(asker: Asker, ops: Mapping[str, tuple[str, Callable[[Any], Any]]],
                   max_reasks: int = 1) -> dict[str, Any]:
    """Run JSON operations over `asker`: key -> (prompt, validate). Returns key -> the
    validated value, or the `LLMResponseError` of an operation whose replies stayed
    unusable after `max_reasks` re-asks. Every round asks all pending operations at
    once."""
    convo: dict[str, Messages] = {k: [{"role": "user", "content": p}] for k, (p, _v) in
                                  ops.items()}
    out: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for attempt in range(max_reasks + 1):
        pending = [k for k in ops if k not in out]
        if not pending:
            break
        keys = {k: k if attempt == 0 else f"{k}:reask{attempt}" for k in pending}
        replies = await asker.ask({keys[k]: convo[k] for k in pending})
        for k in pending:
            text = replies[keys[k]]
            try:
                out[k] = ops[k][1](extract_json(text))
            except ValueError as exc:
                problems[k] = str(exc)
                convo[k] = [*convo[k], {"role": "assistant", "content": text},
                            {"role": "user", "content": fill(REASK, error=str(exc))}]
    for k in ops:
        if k not in out:
            out[k] = LLMResponseError(k.split(":")[0], "the client's model did not give a "
                                      f"usable reply after {max_reasks} re-ask(s): "
                                      f"{problems.get(k, '')[:300]}")
    return out
