"""HTTP as a host meets it under load and abuse: a client that opens 10,000 sessions
leaves a new client served and the server's memory bounded; the listening socket hands
out connections with TCP_NODELAY.

The flood is sent as raw HTTP over one kept-alive connection, 50 requests pipelined at a
time (what a script would do: the cheapest way to open sessions), each an
``initialize`` POST; the server is a subprocess, its RSS read from /proc.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import anyio  # noqa: E402
from mcp import Client  # noqa: E402

from hyperskill_lite.serve.httpd import bind_socket  # noqa: E402

FLOOD = 10_000
RSS_BOUND_MB = 40
"""What 10,000 sessions may add to the server's RSS: the default cap of 256 sessions at
about 40 KB each is 10 MB; the rest is the allocator's slack."""
INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "flood", "version": "0"}}}).encode()
BATCH = 50


def _request(port: int, session: str | None = None) -> bytes:
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json"
            f"\r\nAccept: application/json, text/event-stream\r\nContent-Length: {len(INIT)}"
            + (f"\r\nmcp-session-id: {session}" if session else "") + "\r\n\r\n")
    return head.encode() + INIT


class _Responses:
    """HTTP/1.1 responses read off one socket: (status, session id) each."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock, self.buf = sock, b""

    def take(self, n: int) -> list[tuple[int, str | None]]:
        out = []
        while len(out) < n:
            end = self.buf.find(b"\r\n\r\n")
            head = self.buf[:end].decode("latin-1") if end >= 0 else ""
            size = re.search(r"(?im)^content-length: (\d+)", head)
            if end < 0 or not size or len(self.buf) < end + 4 + int(size.group(1)):
                chunk = self.sock.recv(1 << 16)
                assert chunk, "the server closed the connection"
                self.buf += chunk
                continue
            sid = re.search(r"(?im)^mcp-session-id: (\S+)", head)
            out.append((int(head.split(" ", 2)[1]), sid.group(1) if sid else None))
            self.buf = self.buf[end + 4 + int(size.group(1)):]
        return out


def _rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads RSS from /proc")
def test_ten_thousand_sessions_from_one_client_leave_a_new_client_served(tmp_path):
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "HYPERSKILL_CACHE": "off"}
    proc = subprocess.Popen([sys.executable, "-m", "hyperskill_lite", "serve", "--memory",
                             str(tmp_path / "m"), "--encoder", "hashing", "--no-llm", "--http",
                             "127.0.0.1:0"], stderr=subprocess.PIPE, text=True, env=env)
    url = None
    for line in proc.stderr:
        m = re.search(r"listening on (http://\S+/mcp)", line)
        if m:
            url = m.group(1)
            threading.Thread(target=proc.stderr.read, daemon=True).start()
            break
    assert url, f"the server did not start (exit {proc.wait()})"
    port = int(url.rsplit(":", 1)[1].split("/")[0])

    async def served(task: str) -> None:
        async with Client(url, mode="legacy") as c:
            got = await c.call_tool("learn", {"task": task, "trajectory": "looked it up",
                                              "outcome": "success", "steps": 2})
            assert not got.is_error, got.content
            hit = await c.call_tool("recall", {"task": task})
            assert not hit.is_error and hit.structured_content["used_ids"]

    try:
        anyio.run(served, "Find the population of Lyon")
        before = _rss_mb(proc.pid)
        conn = socket.create_connection(("127.0.0.1", port), timeout=60)
        replies = _Responses(conn)
        t0 = time.perf_counter()
        opened = []
        for _ in range(FLOOD // BATCH):
            conn.sendall(_request(port) * BATCH)
            got = replies.take(BATCH)
            assert {status for status, _sid in got} == {200}, got[:3]
            opened += [sid for _status, sid in got]
        flood_s = time.perf_counter() - t0
        after = _rss_mb(proc.pid)
        assert len(set(opened)) == FLOOD
        anyio.run(served, "Find the population of Nice")  # a new client, served at once
        conn.sendall(_request(port, opened[0]))
        assert replies.take(1)[0][0] == 404  # the flood's oldest idle session was ended
        conn.close()
    finally:
        proc.terminate()
        proc.wait(timeout=120)
    print(f"{FLOOD} sessions in {flood_s:.1f} s; RSS {before:.0f} -> {after:.0f} MB")
    assert after - before < RSS_BOUND_MB, (before, after)


def test_the_listening_socket_gives_connections_tcp_nodelay():
    """Without it every response piece after the first waited for a delayed ACK."""
    sock = bind_socket("127.0.0.1", 0)
    client = socket.create_connection(sock.getsockname()[:2])
    conn, _ = sock.accept()
    try:
        assert sock.proto == socket.IPPROTO_TCP and conn.proto == socket.IPPROTO_TCP
        assert conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        for s in (conn, client, sock):
            s.close()


def test_a_sampling_client_gets_event_streams_and_is_asked_during_the_call(tmp_path):
    """Over HTTP on the handshake protocol, a client that declares sampling is served
    event streams (the server asks its model while the call runs), one that does not is
    served JSON bodies; both learn."""
    import mcp.types as types
    import uvicorn

    from hyperskill_lite.core.embed import HashingEncoder
    from hyperskill_lite.serve.app import build_server
    from hyperskill_lite.serve.httpd import http_app
    from hyperskill_lite.serve.models import ModelConfig
    from hyperskill_lite.serve.service import MemoryService
    from hyperskill_lite.serve.shared import SharedMemory

    asked: list[str] = []

    async def sampling(context, params):
        prompt = params.messages[-1].content.text
        asked.append(prompt.split()[0])
        reply = ('[{"name": "lookup", "description": "search the census"}]'
                 if prompt.startswith("Decompose") else
                 '{"skills": [{"name": "Census First", "content": "Read the census."}], '
                 '"knowledge_fragment": "Read the census."}')
        return types.CreateMessageResult(role="assistant", model="client-model",
                                         content=types.TextContent(type="text", text=reply))

    service = MemoryService(SharedMemory(tmp_path / "m", HashingEncoder()),
                            ModelConfig("auto"))
    sock = bind_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    app = http_app(build_server(service), "127.0.0.1", samples=service.models.may_sample)
    uv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=lambda: anyio.run(lambda: uv.serve(sockets=[sock])))
    thread.start()
    url = f"http://127.0.0.1:{port}/mcp"
    kinds: list[str] = []

    async def learn(callback, task: str) -> dict:
        async with Client(url, mode="legacy", sampling_callback=callback) as c:
            got = await c.call_tool("learn", {"task": task, "trajectory": "read the census",
                                              "outcome": "success", "steps": 2})
            assert not got.is_error, got.content
            kinds.extend("sse" if s.app is app.sse_app else "json"
                         for s in app.sessions.values())
            return got.structured_content

    try:
        with_model = anyio.run(learn, sampling, "Find the population of Lyon")
        without = anyio.run(learn, None, "Find the population of Nice")
    finally:
        uv.should_exit = True
        thread.join(60)
        service.close()
    assert with_model["model"] == "sampling" and with_model["skills"][0]["name"] == "Census First"
    assert sorted(asked) == ["Decompose", "Extract"]
    assert without["model"] == "none" and without["skills"] == []
    assert kinds == ["sse", "json"]  # one session at a time: each client ends its own
    assert app.sessions == {}


def test_a_token_that_floods_sessions_ends_only_its_own(tmp_path):
    """Per-token and per-server caps: token A opening sessions without end evicts its own
    oldest idle ones, never token B's; a session busy with a call is never evicted."""
    import httpx
    import uvicorn

    from hyperskill_lite.core.embed import HashingEncoder
    from hyperskill_lite.serve.app import build_server
    from hyperskill_lite.serve.httpd import Tokens, http_app
    from hyperskill_lite.serve.models import ModelConfig
    from hyperskill_lite.serve.service import MemoryService
    from hyperskill_lite.serve.sessions import SessionLimits
    from hyperskill_lite.serve.shared import SharedMemory

    a, b = "token-a-floods-sessions-0123456789", "token-b-keeps-one-session-01234"
    (tmp_path / "tokens").write_text(f"{a}\n{b}\n")
    tokens = Tokens.load(None, tmp_path / "tokens")
    service = MemoryService(SharedMemory(tmp_path / "m", HashingEncoder()), ModelConfig("none"))
    sock = bind_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    app = http_app(build_server(service, tokens=tokens), "127.0.0.1", tokens=tokens,
                   limits=SessionLimits(max_sessions=12, per_caller=8))
    uv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=lambda: anyio.run(lambda: uv.serve(sockets=[sock])))
    thread.start()
    url = f"http://127.0.0.1:{port}/mcp"
    accept = {"Content-Type": "application/json",
              "Accept": "application/json, text/event-stream"}

    def post(token: str, body: dict, sid: str | None = None) -> httpx.Response:
        headers = {**accept, "Authorization": f"Bearer {token}",
                   **({"mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"}
                      if sid else {})}
        return httpx.post(url, content=json.dumps(body), headers=headers, timeout=60)

    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    try:
        keep = [post(b, json.loads(INIT)).headers["mcp-session-id"] for _ in range(4)]
        flood = [post(a, json.loads(INIT)).headers["mcp-session-id"] for _ in range(40)]
        counts = {c: app.count(c) for c in ("line 1", "line 2")}
        alive = [post(b, ping, sid).status_code for sid in keep]
        gone = post(a, ping, flood[0]).status_code
    finally:
        uv.should_exit = True
        thread.join(60)
        service.close()
    assert counts == {"line 1": 8, "line 2": 4}
    assert alive == [200] * 4 and gone == 404
    assert app.evicted >= 32 and app.refused == 0
