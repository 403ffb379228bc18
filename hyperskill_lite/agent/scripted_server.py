"""A small OpenAI-compatible chat server that plays a script, for tests and offline demos.

`ScriptedServer` serves ``POST /v1/chat/completions`` and ``GET /v1/models`` on
127.0.0.1 (a free port) from a background thread of the standard library's
`http.server`. Each chat request is answered by the next `Reply` of a script, or by a
*responder* callable that sees the request body and decides (e.g. a decomposition JSON
for decomposition prompts, an extraction JSON for extraction prompts). A reply can be
text, tool calls, an HTTP error (429, 500, ...), a raw malformed body, or any of these
after a delay, with usage fields filled in from an approximate token count.

The real `openai` client and the real agent run against it end to end, so nothing in
the client is patched or mocked.

>>> from hyperskill_lite.agent.scripted_server import ScriptedServer, text
>>> import json, urllib.request
>>> with ScriptedServer([text("hello")]) as srv:
...     req = urllib.request.Request(srv.base_url + "/chat/completions",
...         data=json.dumps({"model": "m", "messages": []}).encode(),
...         headers={"Content-Type": "application/json"})
...     body = json.loads(urllib.request.urlopen(req).read())
>>> body["choices"][0]["message"]["content"]
'hello'

Not here: streaming (``stream=True`` is answered with a 400), the Responses API,
embeddings, and any notion of a model; it only replays what it is told.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from hyperskill_lite.agent.structured import PROBE_MESSAGES, TOOL_PROBE_MESSAGES
from hyperskill_lite.agent.tokens import count_tokens

__all__ = [
    "Reply",
    "ScriptedServer",
    "text",
    "tool_call",
    "tool_calls",
    "error",
    "raw",
    "slow",
    "prompt_aware_responder",
    "VLLM_NO_TOOLS_MESSAGE",
]

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
    `usage` overrides the approximate token counts.
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


ReplyLike = Reply | str | dict
Responder = Callable[[dict[str, Any]], ReplyLike]


def _as_reply(x: ReplyLike) -> Reply:
    if isinstance(x, Reply):
        return x
    if isinstance(x, str):
        return Reply(content=x)
    if isinstance(x, dict):
        return Reply(**x)
    raise TypeError(f"a scripted reply must be a Reply, str or dict, got {type(x).__name__}")


class ScriptedServer:
    """An OpenAI-compatible chat server on 127.0.0.1 that plays `script`.

    Parameters
    ----------
    script
        A sequence of replies (`Reply`, a str for a text reply, or a dict of `Reply`
        fields) served in order, or a responder ``f(request_body) -> reply``.
    responder
        Keyword form of a callable script (used when `script` is None).
    model
        The model id reported by ``/v1/models`` and in replies.
    api_key
        When set, requests must carry ``Authorization: Bearer <api_key>`` or get a 401.
    tools_supported
        False makes any request with ``tools`` fail with vLLM's 400 message, like a vLLM
        server started without ``--enable-auto-tool-choice``.
    structured
        The ``response_format`` types the server accepts (default json_schema and
        json_object). A request with another type gets a 400, like a server without
        structured outputs. The probes `PromptedLLM` and `AgentExecutor` send to find out
        what a server supports (`structured.py`) are answered by the server itself, never
        from the script, and kept in `probes`.
    default
        Reply used once the script is exhausted; without it an exhausted script answers
        500 "script exhausted" (so a test that makes too many calls fails loudly).

    Attributes
    ----------
    requests : list of dict
        Every chat request body received, in order (headers are not kept), but probes.
    probes : list of dict
        The structured-output probes received.
    errors : list of exceptions
        Exceptions a responder raised (each was answered with a 500).
    """

    def __init__(
        self,
        script: Sequence[ReplyLike] | Responder | None = None,
        *,
        responder: Responder | None = None,
        model: str = "scripted-model",
        api_key: str | None = None,
        tools_supported: bool = True,
        structured: Sequence[str] = ("json_schema", "json_object"),
        default: ReplyLike | None = None,
    ) -> None:
        if script is not None and responder is not None:
            raise ValueError("ScriptedServer: give either a script or a responder, not both")
        if callable(script):
            responder, script = script, None
        self._script: list[Reply] = [_as_reply(r) for r in (script or [])]
        self._responder = responder
        self._default = None if default is None else _as_reply(default)
        self.model = model
        self.api_key = api_key
        self.tools_supported = tools_supported
        self.structured = tuple(structured)
        self.requests: list[dict[str, Any]] = []
        self.probes: list[dict[str, Any]] = []
        self.errors: list[BaseException] = []
        self._lock = threading.Lock()
        self._n = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------
    def start(self) -> ScriptedServer:
        """Bind a free port on 127.0.0.1 and serve in a daemon thread; returns self."""
        if self._httpd is not None:
            return self
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port (idempotent)."""
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("ScriptedServer is not running; call start() first")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, what `PromptedLLM(base_url=...)` takes."""
        return f"http://127.0.0.1:{self.port}/v1"

    # -- script ------------------------------------------------------------------
    def push(self, *replies: ReplyLike) -> None:
        """Append replies to the script."""
        with self._lock:
            self._script.extend(_as_reply(r) for r in replies)

    @property
    def remaining(self) -> int:
        """Scripted replies not yet served."""
        return len(self._script)

    def _next_reply(self, request: dict[str, Any]) -> tuple[Reply, int]:
        with self._lock:
            self.requests.append(request)
            self._n += 1
            n = self._n
            if self._responder is None:
                if self._script:
                    return self._script.pop(0), n
                if self._default is not None:
                    return self._default, n
                return error(500, "script exhausted: the test made more calls than it scripted"), n
        return _as_reply(self._responder(request)), n

    def _completion(self, request: dict[str, Any], reply: Reply, n: int) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        out_text = reply.content or ""
        if reply.tool_calls:
            calls = []
            for j, c in enumerate(reply.tool_calls):
                args = c.get("arguments", {})
                args_s = args if isinstance(args, str) else json.dumps(args)
                out_text += c["name"] + args_s
                calls.append(
                    {
                        "id": c.get("id", f"call_{n}_{j}"),
                        "type": "function",
                        "function": {"name": c["name"], "arguments": args_s},
                    }
                )
            message["tool_calls"] = calls
        prompt_text = json.dumps(request.get("messages", []), ensure_ascii=False)
        if reply.usage is not None:
            usage = dict(reply.usage)
        else:
            p, c = count_tokens(prompt_text), count_tokens(out_text)
            usage = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
        finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
        return {
            "id": f"chatcmpl-scripted-{n}",
            "object": "chat.completion",
            "created": 0,
            "model": request.get("model") or self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage,
        }


def _is_probe(request: dict[str, Any]) -> bool:
    return request.get("messages") in (PROBE_MESSAGES, TOOL_PROBE_MESSAGES)


def _error_body(status: int, message: str) -> str:
    kind = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error"}
    return json.dumps(
        {"error": {"message": message, "type": kind.get(status, "server_error"), "code": status}}
    )


def _make_handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # else every kept-alive reply stalls ~40 ms

        def log_message(self, format: str, *args: Any) -> None:  # silence stderr
            return

        def _send(
            self,
            status: int,
            body: str,
            content_type: str = "application/json",
            headers: dict[str, str] | None = None,
        ) -> None:
            data = body.encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                pass

        def _authorised(self) -> bool:
            if server.api_key is None:
                return True
            if self.headers.get("Authorization", "") == f"Bearer {server.api_key}":
                return True
            self._send(401, _error_body(401, "Incorrect API key provided"))
            return False

        def do_GET(self) -> None:
            if not self._authorised():
                return
            if self.path.rstrip("/").endswith("/models"):
                model = {
                    "id": server.model,
                    "object": "model",
                    "created": 0,
                    "owned_by": "scripted",
                }
                self._send(200, json.dumps({"object": "list", "data": [model]}))
            else:
                self._send(404, _error_body(404, f"no route {self.path}"))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            raw_body = self.rfile.read(length)
            if not self._authorised():
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, _error_body(404, f"no route {self.path}"))
                return
            try:
                request = json.loads(raw_body or b"{}")
            except json.JSONDecodeError:
                self._send(400, _error_body(400, "request body is not JSON"))
                return
            if request.get("stream"):
                self._send(400, _error_body(400, "ScriptedServer does not stream"))
                return
            if request.get("tools") and not server.tools_supported:
                with server._lock:
                    (server.probes if _is_probe(request) else server.requests).append(request)
                self._send(400, _error_body(400, VLLM_NO_TOOLS_MESSAGE))
                return
            fmt = request.get("response_format")
            kind = fmt.get("type") if isinstance(fmt, dict) else None
            if kind is not None and kind not in server.structured:
                with server._lock:
                    (server.probes if _is_probe(request) else server.requests).append(request)
                self._send(400, _error_body(
                    400, f"response_format type {kind!r} is not supported by this server"))
                return
            if _is_probe(request):
                with server._lock:
                    server.probes.append(request)
                if request["messages"] == TOOL_PROBE_MESSAGES:
                    probe = tool_call("ping", {"x": 1})
                else:
                    probe = text(json.dumps({"ok": True, "word": "ready"}))
                self._send(200, json.dumps(server._completion(request, probe, 0)))
                return
            try:
                reply, n = server._next_reply(request)
            except Exception as exc:  # a responder bug: answer 500 and keep it for the test
                server.errors.append(exc)
                self._send(500, _error_body(500, f"responder raised {type(exc).__name__}: {exc}"))
                return
            if reply.delay:
                time.sleep(reply.delay)
            if reply.body is not None:
                self._send(reply.status, reply.body, reply.content_type, reply.headers)
            elif reply.status != 200:
                self._send(
                    reply.status,
                    _error_body(reply.status, reply.error_message),
                    headers=reply.headers,
                )
            else:
                body = json.dumps(server._completion(request, reply, n), ensure_ascii=False)
                self._send(200, body, headers=reply.headers)

    return Handler
