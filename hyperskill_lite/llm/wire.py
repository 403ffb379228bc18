"""How a chat request travels: the openai client's request and TLS context, and reading
what came back (an error's message, a reasoning server's reasoning) — the parts of
`PromptedLLM` that touch the openai library's objects, and the reply they become
(`ChatReply`, `reply_dict`).

>>> safe_url("http://user:secret@host:8000/v1?key=x")
'http://host:8000/v1'

Not here: retries, usage, the cassette (client.py), backoff (retry.py).
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from hyperskill_lite.llm.replies import scrub_surrogates
from hyperskill_lite.llm.tokens import count_tokens

__all__ = ["ChatReply", "reply_dict", "safe_url", "status_message", "create_completion",
           "ssl_context", "reasoning_of"]


def safe_url(url: str | None) -> str:
    """A base URL without credentials, query or fragment, fit for an error message."""
    if not url:
        return "the default OpenAI endpoint"
    try:
        p = urlsplit(url)
        host, port = p.hostname or "", p.port
    except ValueError:  # "http://[::1", a bad port, ...
        return "(an invalid URL)"
    if port:
        host = f"{host}:{port}"
    return urlunsplit((p.scheme, host, p.path, "", ""))



def status_message(e: Any) -> str:
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        msg = inner.get("message") if isinstance(inner, dict) else None
        if msg:
            return str(msg)[:300]
    return str(getattr(e, "message", "") or e)[:300]


def create_completion(client: Any, model: str, messages: list[dict[str, Any]],
            kwargs: dict[str, Any]) -> Any:
    """One chat completion. With the openai client, the request body (already plain JSON)
    is posted as it is (``client.post``, the client's documented way to send a body it
    need not check): ``chat.completions.create`` walks every message and tool schema
    against its typed signature first, ~3 ms of CPU per call, which dozens of streams in
    one process would pay under one GIL. ``extra_body`` is merged into the body, as
    `create` merges it. Another client object gets ``chat.completions.create``."""
    import openai

    if not isinstance(client, openai.OpenAI):
        return client.chat.completions.create(model=model, messages=messages, **kwargs)
    from openai.types.chat import ChatCompletion

    extra = kwargs.pop("extra_body", None) or {}
    body = {"model": model, "messages": messages, **kwargs, **extra}
    return client.post("/chat/completions", body=body, cast_to=ChatCompletion)


_SSL: list[Any] = []
_SSL_LOCK = threading.Lock()


def ssl_context() -> Any:
    """One TLS context for every client of the process, made as httpx makes its default
    (certifi's bundle unless SSL_CERT_FILE / SSL_CERT_DIR say otherwise). Loading the CA
    bundle costs ~25 ms of CPU per context: dozens of live streams in one process would
    otherwise spend seconds on it (benchmarks/bench_live.py). A context is safe to share
    between threads."""
    with _SSL_LOCK:
        if not _SSL:
            import ssl

            cafile, capath = os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")
            if not cafile and not capath:
                try:
                    import certifi

                    cafile = certifi.where()
                except ImportError:  # pragma: no cover - httpx depends on certifi
                    pass
            _SSL.append(ssl.create_default_context(cafile=cafile, capath=capath))
        return _SSL[0]


def reasoning_of(message: Any) -> str | None:
    """The reasoning a server returned beside the answer: vLLM's ``reasoning_content``
    (its reasoning parsers), or ``reasoning`` (newer vLLM, OpenRouter); None if neither."""
    for name in ("reasoning_content", "reasoning"):
        value = getattr(message, name, None)
        if value is None:
            extra = getattr(message, "model_extra", None) or {}
            value = extra.get(name)
        if isinstance(value, str) and value:
            return value
    return None


@dataclass
class ChatReply:
    """One assistant reply: `message` in OpenAI format (role, content, tool_calls) and
    `usage` (prompt_tokens, completion_tokens, total_tokens) of that call.

    `reasoning` is what a reasoning server returned beside the answer
    (``reasoning_content``, or ``reasoning``), None when nothing; it is not part of
    `message`, so it is never sent back in a conversation."""

    message: dict[str, Any]
    usage: dict[str, int]
    finish_reason: str | None = None
    reasoning: str | None = None

    @property
    def content(self) -> str:
        return self.message.get("content") or ""

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        return list(self.message.get("tool_calls") or [])

    def to_dict(self) -> dict[str, Any]:
        out = {"message": self.message, "usage": self.usage, "finish_reason": self.finish_reason}
        if self.reasoning is not None:
            out["reasoning"] = self.reasoning
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ChatReply:
        return cls(d["message"], d["usage"], d.get("finish_reason"), d.get("reasoning"))


def reply_dict(resp: Any, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A chat completion as the dict a `ChatReply` (and a cassette) holds: the message
    with its tool calls, usage (estimated from the text when the server omits it), the
    finish reason and any reasoning; lone surrogates scrubbed."""
    choice = resp.choices[0]
    m = choice.message
    message: dict[str, Any] = {"role": "assistant", "content": m.content}
    if m.tool_calls:
        message["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.function.name, "arguments": c.function.arguments},
            }
            for c in m.tool_calls
        ]
    u = resp.usage
    if u is not None:
        usage = {
            "prompt_tokens": int(u.prompt_tokens or 0),
            "completion_tokens": int(u.completion_tokens or 0),
        }
    else:  # some servers omit usage: estimate it from the text
        out = (m.content or "") + json.dumps(message.get("tool_calls", []))
        usage = {
            "prompt_tokens": count_tokens(json.dumps(messages, ensure_ascii=False)),
            "completion_tokens": count_tokens(out),
            "estimated": 1,
        }
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    reply = {"message": message, "usage": usage, "finish_reason": choice.finish_reason}
    reasoning = reasoning_of(m)
    if reasoning is not None:
        reply["reasoning"] = reasoning
    return scrub_surrogates(reply)
