"""The server over HTTP: its socket, its bearer tokens and its app.

- `bind_socket`: the listening TCP socket, opened as ``IPPROTO_TCP`` with
  ``TCP_NODELAY`` set, which every accepted connection inherits (and which asyncio sets
  again on a socket of that protocol): a streamable HTTP response is written in several
  small pieces (headers, then each server-sent event), and with Nagle's algorithm on,
  each piece after the first waited for the client's delayed ACK (~40 ms on Linux), which
  made HTTP ten times slower than stdio. Connections are kept alive (`KEEP_ALIVE`
  seconds between requests) so a client pays the TCP handshake once.
- `Tokens`: the bearer tokens HTTP clients must send: one from ``--token`` (or
  ``$HYPERSKILL_MCP_TOKEN``), and any number from ``--token-file``, each line ``TOKEN``
  or ``TOKEN SCOPE`` (a token bound to one scope: its clients see and change that
  scope only); compared in constant time, by the SDK's bearer middleware. A token's
  label ("token", "line 3") names its caller in the session caps and in results; the
  token itself is never shown.
- `http_app`: the SDK's streamable HTTP app for a bind to `host`, DNS-rebinding
  protection on (``Host`` and ``Origin`` checked against loopback names, or the names
  given), behind `sessions.SessionGovernor`.

Not here: the tools (app.py), the session caps (sessions.py), the command (cli/serve.py).
"""

from __future__ import annotations

import hmac
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from hyperskill_lite.serve.bounds import SCOPE_PATTERN
from hyperskill_lite.serve.sessions import SessionGovernor, SessionLimits

__all__ = ["bind_socket", "Tokens", "http_app", "KEEP_ALIVE", "TOKEN_MIN"]

KEEP_ALIVE = 120
"""Seconds an idle HTTP connection is kept open for the client's next request."""
TOKEN_MIN = 16
"""Characters a bearer token must have at least."""


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on (host, port), ``TCP_NODELAY`` on (module docstring);
    port 0 lets the OS choose."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


@dataclass(frozen=True)
class _Entry:
    secret: bytes
    label: str
    scope: str | None


class Tokens:
    """The server's bearer tokens (module docstring); a `TokenVerifier` for the SDK."""

    def __init__(self, entries: Sequence[tuple[str, str, str | None]]) -> None:
        """`entries`: (token, label, scope or None) each."""
        seen: set[str] = set()
        self._entries = []
        for token, label, scope in entries:
            if len(token) < TOKEN_MIN:
                raise ValueError(f"the bearer token ({label}) must have at least {TOKEN_MIN} "
                                 "characters")
            if token in seen:
                raise ValueError(f"the bearer token ({label}) is given twice")
            if scope is not None and not SCOPE_PATTERN.match(scope):
                raise ValueError(f"the scope of the bearer token ({label}) is not a scope "
                                 f"label: {scope[:40]!r}")
            seen.add(token)
            self._entries.append(_Entry(token.encode(), label, scope))

    @classmethod
    def load(cls, token: str | None, path: Path | None) -> Tokens | None:
        """The tokens of ``--token`` and ``--token-file`` (None when neither)."""
        entries: list[tuple[str, str, str | None]] = []
        if token:
            entries.append((token, "token", None))
        if path is not None:
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError) as exc:
                raise ValueError(f"--token-file {path}: cannot read it ({exc})") from None
            for i, line in enumerate(lines, 1):
                words = line.split("#", 1)[0].split()
                if not words:
                    continue
                if len(words) > 2:
                    raise ValueError(f"--token-file {path}, line {i}: expected TOKEN or TOKEN "
                                     "SCOPE")
                entries.append((words[0], f"line {i}", words[1] if len(words) == 2 else None))
            if not any(e[1] != "token" for e in entries):
                raise ValueError(f"--token-file {path}: holds no token")
        return cls(entries) if entries else None

    def _match(self, token: str) -> _Entry | None:
        """The entry of `token`, every entry compared in constant time."""
        given = token.encode()
        found = None
        for e in self._entries:
            if hmac.compare_digest(given, e.secret):
                found = e
        return found

    async def verify_token(self, token: str) -> AccessToken | None:
        e = self._match(token)
        return None if e is None else AccessToken(token="***", client_id=e.label, scopes=[])

    def scope_of(self, label: str) -> str | None:
        """The scope the token labelled `label` is bound to (None: any)."""
        return next((e.scope for e in self._entries if e.label == label), None)

    def caller_of(self, scope: dict[str, Any]) -> str | None:
        """The caller (token label) of an HTTP request, None when its bearer token is
        missing or wrong."""
        auth = next((v for k, v in scope.get("headers", []) if k == b"authorization"), b"")
        kind, _, token = auth.decode("latin-1").partition(" ")
        if kind.lower() != "bearer":
            return None
        e = self._match(token.strip())
        return None if e is None else e.label


def http_app(server: MCPServer, host: str, *, allowed_hosts: Sequence[str] = (),
             allowed_origins: Sequence[str] = (), tokens: Tokens | None = None,
             limits: SessionLimits | None = None, samples: bool = True) -> SessionGovernor:
    """The streamable HTTP app of `server` for a bind to `host` (module docstring):
    ``Host`` must be a loopback name (any port) or one of `allowed_hosts` (``name:port``
    or ``name:*``), ``Origin`` absent or a loopback origin or one of `allowed_origins`;
    sessions bounded by `limits`; event streams only for sessions that may be asked to
    sample (`samples`: the server may use the client's model; sessions.py)."""
    limits = limits or SessionLimits()
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*", *allowed_hosts]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*", *allowed_origins]
    security = TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                         allowed_hosts=hosts, allowed_origins=origins)
    apps = [server.streamable_http_app(
        transport_security=security, host=host, session_idle_timeout=limits.idle_seconds,
        max_sessions=limits.max_sessions + 16, json_response=json) for json in (True, False)]
    caller_of = tokens.caller_of if tokens is not None else (lambda scope: "")
    return SessionGovernor(*apps, limits, caller_of, samples=samples)
