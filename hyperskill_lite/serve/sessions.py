"""Bounded HTTP sessions: a cap per server and per token, idle expiry, and eviction of
the oldest idle session, so a client that opens sessions without end can neither lock
another client out nor grow the server's memory past a stated bound.

A streamable HTTP session (protocols up to 2025-11-25; 2026-07-28 requests carry no
session) costs the server a transport, a task and its streams, about 40 KB. The SDK
caps them (``max_sessions``) by refusing new ones with 503 while the cap is reached, and
expires a session only when no request has been in flight for its idle timeout, an
open GET stream counting as one: a client that opened 10,000 sessions kept every other
client out for up to 30 minutes. `SessionGovernor` sits in front of the SDK's app
(ASGI) and admits each ``initialize`` that would open a session:

- at most `per_caller` sessions per caller (a bearer token's label; every client of a
  server without tokens is one caller) and `max_sessions` in all;
- when a cap is reached, the caller's own least recently active idle session is ended
  (at the per-caller cap), or that of the caller holding the most sessions (at the
  server's cap): "idle" means no POST in flight (an open GET stream does not count),
  "active" is the last request of any kind; only when every session in reach is busy is
  the new one refused (503, one line saying why);
- a session with no request for `idle_seconds` is ended at the next admission.

It also chooses how each session's responses travel. The SDK answers a POST either as
a server-sent-event stream (needed only when the server sends requests to the client
while a call runs: MCP sampling on the handshake protocols) or as one JSON body. Every
client built on the SDK's transport (the SDK's own, fastmcp, openai-agents, pydantic-ai)
closes an event stream as soon as the result event arrived, before the stream's end, so
its HTTP connection cannot be reused and every call paid a new TCP connection and a
cancelled stream on both sides: 2-3x the CPU of stdio. So a session whose client did not
declare sampling, or whose server never samples (a configured model, or ``--no-llm``),
is served by a JSON-response app, and every 2026-07-28 request (which samples through
its result, not by a request) too; only a sampling session gets event streams. Both
apps are the SDK's own (`MCPServer.streamable_http_app`), one with ``json_response``.

A session is ended through the SDK's own path, a DELETE carrying its id and the headers
its client used (so the SDK's checks of Host, Origin and credential pass as they did
for that client), which closes its streams and forgets it; its client gets 404 on its
next request and opens a new session, as the protocol says. The SDK's own cap is kept
as a backstop, a little above `max_sessions`.

The memory bound this gives: sessions x about 40 KB, 10 MB at the default 256 (the test
opens 10,000 sessions from one client and checks the server's RSS and that a new client
is served).

Not here: the MCP server (app.py), tokens and sockets (httpd.py).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SessionGovernor", "SessionLimits", "SESSION_HEADER"]

log = logging.getLogger(__name__)

SESSION_HEADER = b"mcp-session-id"
_VERSION_HEADER = b"mcp-protocol-version"
_KEEP = (b"host", b"origin", b"authorization", _VERSION_HEADER)
_SCOPE_KEYS = ("type", "asgi", "http_version", "scheme", "server", "client", "root_path",
               "path", "raw_path")
"""What a session keeps of the request that opened it, to end it with a DELETE."""
_PEEK = 64 * 1024
"""Bytes of a session-less POST read to see whether it is an initialize."""

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True)
class SessionLimits:
    """`max_sessions` in all, `per_caller` per caller, ended after `idle_seconds`
    without a request (module docstring)."""

    max_sessions: int = 256
    per_caller: int = 64
    idle_seconds: float = 600.0

    def __post_init__(self) -> None:
        if self.max_sessions < 1 or self.per_caller < 1 or not self.idle_seconds > 0:
            raise ValueError("session limits must be positive")


@dataclass
class _Session:
    caller: str
    headers: list[tuple[bytes, bytes]]
    scope: Scope
    app: Any
    last: float = field(default_factory=time.monotonic)
    inflight: int = 0


def _header(scope: Scope, name: bytes) -> bytes | None:
    return next((v for k, v in scope.get("headers", []) if k == name), None)


async def _read_body(receive: Receive, limit: int) -> tuple[list[dict[str, Any]], bytes, bool]:
    """The request's body messages (to replay) and up to `limit` bytes of it; whether it
    was read to its end within the limit."""
    messages, body = [], b""
    while True:
        msg = await receive()
        messages.append(msg)
        if msg["type"] != "http.request":
            return messages, body, False
        body += msg.get("body", b"")
        if not msg.get("more_body", False):
            return messages, body, True
        if len(body) > limit:
            return messages, body, False


def _replay(messages: list[dict[str, Any]], receive: Receive) -> Receive:
    queue = list(messages)

    async def again() -> dict[str, Any]:
        return queue.pop(0) if queue else await receive()

    return again


def _initialize(body: bytes) -> dict[str, Any] | None:
    """The params of an initialize request body, None for anything else."""
    try:
        doc = json.loads(body)
    except ValueError:
        return None
    if not isinstance(doc, dict) or doc.get("method") != "initialize":
        return None
    params = doc.get("params")
    return params if isinstance(params, dict) else {}


def _declares_sampling(params: dict[str, Any]) -> bool:
    caps = params.get("capabilities")
    return isinstance(caps, dict) and caps.get("sampling") is not None


class SessionGovernor:
    """ASGI middleware bounding the sessions of the SDK's streamable HTTP apps (module
    docstring): `json_app` answers with JSON bodies, `sse_app` with event streams (for
    sessions that may be asked to sample when `samples`). `caller_of(scope)` names the
    caller of a request (None for one whose credential is not valid: the app refuses
    it, nothing is admitted)."""

    def __init__(self, json_app: Any, sse_app: Any, limits: SessionLimits,
                 caller_of: Callable[[Scope], str | None], samples: bool = True) -> None:
        self.json_app, self.sse_app = json_app, sse_app
        self.limits, self.caller_of, self.samples = limits, caller_of, samples
        self.sessions: dict[str, _Session] = {}
        self.evicted = 0
        self.refused = 0

    # ------------------------------------------------------------------ ASGI
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespans([self.json_app, self.sse_app], receive, send)
            return
        if scope["type"] != "http":
            await self.json_app(scope, receive, send)
            return
        sid = _header(scope, SESSION_HEADER)
        if sid is not None:
            await self._known(sid.decode("latin-1"), scope, receive, send)
            return
        if scope["method"] != "POST":
            await self.json_app(scope, receive, send)
            return
        messages, body, whole = await _read_body(receive, _PEEK)
        receive = _replay(messages, receive)
        caller = self.caller_of(scope)
        params = _initialize(body) if whole else None
        if caller is None or params is None:
            await self.json_app(scope, receive, send)
            return
        if not await self._admit(caller):
            self.refused += 1
            await _refuse(send, "Too many sessions: every session of this client is busy; "
                          "retry when one of them has answered")
            return
        app = self.sse_app if self.samples and _declares_sampling(params) else self.json_app
        await self._open(caller, app, scope, receive, send)

    async def _known(self, sid: str, scope: Scope, receive: Receive, send: Send) -> None:
        s = self.sessions.get(sid)
        if s is None:
            await self.json_app(scope, receive, send)
            return
        s.last = time.monotonic()
        version = _header(scope, _VERSION_HEADER)
        if version is not None:
            s.headers = [(k, v) for k, v in s.headers if k != _VERSION_HEADER]
            s.headers.append((_VERSION_HEADER, version))
        counted = scope["method"] == "POST"
        status: list[int] = []

        async def watch(msg: dict[str, Any]) -> None:
            if msg["type"] == "http.response.start":
                status.append(msg["status"])
            await send(msg)

        if counted:
            s.inflight += 1
        try:
            await s.app(scope, receive, watch)
        finally:
            if counted:
                s.inflight -= 1
            s.last = time.monotonic()
            code = status[0] if status else 0
            if code == 404 or (scope["method"] == "DELETE" and 200 <= code < 300):
                self.sessions.pop(sid, None)

    async def _open(self, caller: str, app: Any, scope: Scope, receive: Receive, send: Send
                    ) -> None:
        async def capture(msg: dict[str, Any]) -> None:
            if msg["type"] == "http.response.start" and msg["status"] < 400:
                sid = next((v for k, v in msg.get("headers", []) if k.lower() == SESSION_HEADER),
                           None)
                if sid is not None:
                    kept = [(k, v) for k, v in scope.get("headers", []) if k in _KEEP]
                    base = {k: scope[k] for k in _SCOPE_KEYS if k in scope}
                    self.sessions[sid.decode("latin-1")] = _Session(caller, kept, base, app)
            await send(msg)

        await app(scope, receive, capture)

    # ------------------------------------------------------------------ admission
    def count(self, caller: str) -> int:
        return sum(s.caller == caller for s in self.sessions.values())

    async def _admit(self, caller: str) -> bool:
        """Make room for one more session of `caller` (module docstring); False when
        every session that could go is busy."""
        now = time.monotonic()
        for sid in [sid for sid, s in self.sessions.items()
                    if not s.inflight and now - s.last > self.limits.idle_seconds]:
            await self._end(sid)
        if self.count(caller) >= self.limits.per_caller and not await self._evict(caller):
            return False
        while len(self.sessions) >= self.limits.max_sessions:
            counts: dict[str, int] = {}
            for s in self.sessions.values():
                counts[s.caller] = counts.get(s.caller, 0) + 1
            for who in sorted(counts, key=lambda c: -counts[c]):
                if await self._evict(who):
                    break
            else:
                return False
        return True

    async def _evict(self, caller: str) -> bool:
        idle = [(s.last, sid) for sid, s in self.sessions.items()
                if s.caller == caller and not s.inflight]
        if not idle:
            return False
        await self._end(min(idle)[1])
        self.evicted += 1
        return True

    async def _end(self, sid: str) -> None:
        """End session `sid` through the SDK's DELETE (module docstring)."""
        s = self.sessions.pop(sid, None)
        if s is None:
            return
        headers = [*s.headers, (SESSION_HEADER, sid.encode("latin-1"))]
        scope = {**s.scope, "method": "DELETE", "headers": headers, "query_string": b""}
        sent = [False]

        async def receive() -> dict[str, Any]:
            if not sent[0]:
                sent[0] = True
                return {"type": "http.request", "body": b"", "more_body": False}
            return {"type": "http.disconnect"}

        async def discard(msg: dict[str, Any]) -> None:
            return None

        try:
            await s.app(scope, receive, discard)
        except Exception:  # the session is forgotten here either way
            log.exception("ending idle session %s failed", sid[:16])


async def _refuse(send: Send, message: str) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": None,
                       "error": {"code": -32603, "message": message}}).encode()
    await send({"type": "http.response.start", "status": 503,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"retry-after", b"1")]})
    await send({"type": "http.response.body", "body": body})


async def _lifespans(apps: list[Any], receive: Receive, send: Send) -> None:
    """Run the ASGI lifespan of several `apps` as one: startup of each in turn, then
    shutdown of each in reverse, reporting to the server once."""
    import anyio

    async def run(app: Any, inbox: Any, outbox: Any) -> None:
        async def app_receive() -> dict[str, Any]:
            return await inbox.receive()

        async def app_send(msg: dict[str, Any]) -> None:
            await outbox.send(msg)

        await app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}},
                  app_receive, app_send)

    async with anyio.create_task_group() as tg:
        lanes = []
        for app in apps:
            to_app, app_in = anyio.create_memory_object_stream[dict[str, Any]](4)
            app_out, from_app = anyio.create_memory_object_stream[dict[str, Any]](4)
            tg.start_soon(run, app, app_in, app_out)
            lanes.append((to_app, from_app))
        for phase in ("startup", "shutdown"):
            msg = await receive()
            if msg["type"] != f"lifespan.{phase}":
                break
            order = lanes if phase == "startup" else lanes[::-1]
            for to_app, from_app in order:
                await to_app.send(msg)
                got = await from_app.receive()
                if got["type"].endswith(".failed"):
                    await send(got)
                    tg.cancel_scope.cancel()
                    return
            await send({"type": f"lifespan.{phase}.complete"})
