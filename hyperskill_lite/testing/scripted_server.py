"""A small OpenAI-compatible chat server that plays a script, for tests and offline demos.

`ScriptedServer` serves ``POST /v1/chat/completions`` and ``GET /v1/models`` on
127.0.0.1 (a free port) from a background thread of the standard library's
`http.server`. Each chat request is answered by the next `Reply` of a script, or by a
*responder* callable that sees the request body and decides (e.g. a decomposition JSON
for decomposition prompts, an extraction JSON for extraction prompts). A reply can be
text, tool calls, an HTTP error (429, 500, ...), a raw malformed body, or any of these
after a delay, with usage fields filled in from an approximate token count, and
optionally a vLLM-style ``reasoning_content``. The server can also stand in for a whole
serving stack: a fixed `latency` before every chat reply (``make bench``'s throughput
row), several listed models, API-key checks, servers without tools, structured outputs,
image input or ``/v1/audio/transcriptions``. It records every request body with its
arrival time (`requests`, `times`), so a test can check what reached the server and
when (a client that honours Retry-After, for instance).

``python -m hyperskill_lite.testing.scripted_server --latency 0.5 [--direct]`` serves
`prompt_aware_responder` (or `direct_responder`) from its own process and prints its
base URL (a stand-in model server for benchmarks: the client then does not share the
GIL with it).

The real `openai` client and the real agent run against it end to end, so nothing in
the client is patched or mocked.

>>> from hyperskill_lite.testing.scripted_server import ScriptedServer, text
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

import argparse
import json
import signal
import sys
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from hyperskill_lite.llm.structured import (
    PROBE_MESSAGES,
    TOOL_PROBE_MESSAGES,
    VISION_PROBE_MESSAGES,
)
from hyperskill_lite.llm.tokens import count_tokens
from hyperskill_lite.testing.loopback import LoopbackServer
from hyperskill_lite.testing.scripted_replies import (
    VLLM_NO_TOOLS_MESSAGE,
    Reply,
    ReplyLike,
    Responder,
    direct_responder,
    error,
    prompt_aware_responder,
    text,
    tool_call,
)
from hyperskill_lite.testing.scripted_replies import as_reply as _as_reply

__all__ = [
    "ScriptedServer",
]


class _Server(ThreadingHTTPServer):
    request_queue_size = 1024  # many concurrent clients: the default listen backlog is 5
    daemon_threads = True


class ScriptedServer(LoopbackServer):
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
    latency
        Seconds every chat request (probes too) waits before it is answered, on top of a
        reply's own `delay`: a model that takes that long per call. Requests are served
        concurrently (one thread each), so N clients see N times the throughput.
    models
        The model ids ``/v1/models`` lists (default: `model` alone).
    vision
        False answers a request with an image part with a 400, like a text-only model.
        The vision probe (`structured.VISION_PROBE_MESSAGES`) is answered by the server
        itself ("red") and kept in `probes`.
    transcription
        True serves ``POST /v1/audio/transcriptions`` (the text `transcript` for any
        upload); False answers it 404, like a server without a speech model.

    Attributes
    ----------
    requests : list of dict
        Every chat request body received, in order (headers are not kept), but probes.
    times : list of float
        `time.monotonic()` when each of `requests` arrived (same order).
    probes : list of dict
        The capability probes received (structured outputs, tool calls, vision).
    audio : list of int
        The byte length of each transcription upload received.
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
        latency: float = 0.0,
        models: Sequence[str] | None = None,
        vision: bool = True,
        transcription: bool = False,
        transcript: str = "a probe of silence",
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
        if latency < 0:
            raise ValueError(f"ScriptedServer: latency must be >= 0, got {latency}")
        self.latency = float(latency)
        self.models = list(models) if models is not None else [model]
        self.vision = vision
        self.transcription = transcription
        self.transcript = transcript
        self.requests: list[dict[str, Any]] = []
        self.times: list[float] = []
        self.probes: list[dict[str, Any]] = []
        self.audio: list[int] = []
        self.errors: list[BaseException] = []
        self._lock = threading.Lock()
        self._n = 0

    # -- lifecycle (LoopbackServer: start, stop, a context manager, port) -----------
    server_class = _Server

    def _handler(self):
        return _make_handler(self)

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

    def _keep(self, request: dict[str, Any], arrived: float) -> None:
        with self._lock:
            if _is_probe(request):
                self.probes.append(request)
            else:
                self.requests.append(request)
                self.times.append(arrived)

    def _next_reply(self, request: dict[str, Any], arrived: float) -> tuple[Reply, int]:
        with self._lock:
            self.requests.append(request)
            self.times.append(arrived)
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
        if reply.reasoning is not None:
            message["reasoning_content"] = reply.reasoning
        out_text = (reply.content or "") + (reply.reasoning or "")
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
    return request.get("messages") in (PROBE_MESSAGES, TOOL_PROBE_MESSAGES,
                                       VISION_PROBE_MESSAGES)


def _has_image(request: dict[str, Any]) -> bool:
    for m in request.get("messages") or []:
        parts = m.get("content") if isinstance(m, dict) else None
        if isinstance(parts, list) and any(
                isinstance(x, dict) and x.get("type") in ("image_url", "input_image")
                for x in parts):
            return True
    return False


def _error_body(status: int, message: str) -> str:
    kind = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error"}
    return json.dumps(
        {"error": {"message": message, "type": kind.get(status, "server_error"), "code": status}}
    )


class _ScriptedHandler(BaseHTTPRequestHandler):
    """Answers for the `ScriptedServer` it is made for (`_make_handler`; ``self.server`` is
    the HTTP server): /models, audio transcriptions and chat completions from the script."""

    scripted: ScriptedServer
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
        if self.scripted.api_key is None:
            return True
        if self.headers.get("Authorization", "") == f"Bearer {self.scripted.api_key}":
            return True
        self._send(401, _error_body(401, "Incorrect API key provided"))
        return False

    def do_GET(self) -> None:
        if not self._authorised():
            return
        if self.path.rstrip("/").endswith("/models"):
            listed = [{"id": m, "object": "model", "created": 0, "owned_by": "scripted"}
                      for m in self.scripted.models]
            self._send(200, json.dumps({"object": "list", "data": listed}))
        else:
            self._send(404, _error_body(404, f"no route {self.path}"))

    def do_POST(self) -> None:
        arrived = time.monotonic()
        length = int(self.headers.get("Content-Length", "0"))
        raw_body = self.rfile.read(length)
        if not self._authorised():
            return
        if self.path.rstrip("/").endswith("/audio/transcriptions"):
            if not self.scripted.transcription:
                self._send(404, _error_body(404, f"no route {self.path}"))
                return
            with self.scripted._lock:
                self.scripted.audio.append(len(raw_body))
            self._send(200, json.dumps({"text": self.scripted.transcript}))
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
        if self.scripted.latency:
            time.sleep(self.scripted.latency)
        if request.get("tools") and not self.scripted.tools_supported:
            self.scripted._keep(request, arrived)
            self._send(400, _error_body(400, VLLM_NO_TOOLS_MESSAGE))
            return
        if not self.scripted.vision and _has_image(request):
            self.scripted._keep(request, arrived)
            self._send(400, _error_body(
                400, "this model does not accept image input (it is not multimodal)"))
            return
        fmt = request.get("response_format")
        kind = fmt.get("type") if isinstance(fmt, dict) else None
        if kind is not None and kind not in self.scripted.structured:
            self.scripted._keep(request, arrived)
            self._send(400, _error_body(
                400, f"response_format type {kind!r} is not supported by this server"))
            return
        if _is_probe(request):
            self.scripted._keep(request, arrived)
            if request["messages"] == TOOL_PROBE_MESSAGES:
                probe = tool_call("ping", {"x": 1})
            elif request["messages"] == VISION_PROBE_MESSAGES:
                probe = text("red")
            else:
                probe = text(json.dumps({"ok": True, "word": "ready"}))
            self._send(200, json.dumps(self.scripted._completion(request, probe, 0)))
            return
        try:
            reply, n = self.scripted._next_reply(request, arrived)
        except Exception as exc:  # a responder bug: answer 500 and keep it for the test
            self.scripted.errors.append(exc)
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
            body = json.dumps(self.scripted._completion(request, reply, n), ensure_ascii=False)
            self._send(200, body, headers=reply.headers)


def _make_handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    """The request handler class answering for `server`."""
    return type("Handler", (_ScriptedHandler,), {"scripted": server})


def main(argv: list[str] | None = None) -> int:
    """Serve `prompt_aware_responder` until SIGTERM/SIGINT; print the base URL first."""
    ap = argparse.ArgumentParser(prog="python -m hyperskill_lite.testing.scripted_server",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--latency", type=float, default=0.0,
                    help="seconds before every chat reply (default 0)")
    ap.add_argument("--model", default="scripted-model")
    ap.add_argument("--direct", action="store_true",
                    help="the agent answers at once (direct_responder): no tool runs")
    args = ap.parse_args(argv)
    responder = direct_responder if args.direct else prompt_aware_responder
    server = ScriptedServer(responder, model=args.model, latency=args.latency)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    with server:
        print(server.base_url, flush=True)
        stop.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
