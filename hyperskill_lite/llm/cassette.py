"""Record and replay model calls (and tool results) so a live run can be replayed offline.

A `Cassette` is a JSONL file. Its first line is a header with the format version; each
following line is one recorded interaction::

    {"kind": "chat", "key": "<sha256>", "n": 0, "op": "decompose",
     "request": {...}, "response": {...}}

`key` is the sha256 of the canonical JSON of the request (for a chat call: model,
messages, tools and sampling parameters; never the API key, base URL or timeout) and `n`
counts earlier occurrences of the same key, so a request made three times replays its
three recorded answers in order. In "record" mode every interaction is appended and
flushed at once; an existing cassette is extended (its occurrence counts carry on, so a
resumed run records where it stopped). In "replay" mode answers come from the file and
an unrecorded request raises `CassetteMiss`, loudly, naming the operation and the first
message. Secrets (the API key, and the values of environment variables whose names
contain KEY, TOKEN, SECRET or PASSWORD) are replaced by ``[REDACTED]`` before a line is
written.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "c.jsonl"
>>> rec = Cassette(path, "record")
>>> rec.through("chat", {"messages": ["hi"]}, lambda: {"content": "hello"}, op="demo")
{'content': 'hello'}
>>> Cassette(path, "replay").lookup("chat", {"messages": ["hi"]}, op="demo")
{'content': 'hello'}

Not here: what a request or a response contains (client.py and agent/loop.py decide), HTTP-level
recording, and matching of near-identical requests (a replay must be exact).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

from hyperskill_lite.errors import CassetteMiss

__all__ = ["Cassette", "request_key", "env_secrets", "FORMAT", "VERSION"]

FORMAT = "hyperskill-cassette"
VERSION = 1
REDACTED = "[REDACTED]"
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)


def request_key(kind: str, request: dict[str, Any]) -> str:
    """sha256 (hex) of the canonical JSON of ``{"kind": kind, **request}``.

    Keys are order-insensitive for dict fields and exact for everything else.

    >>> request_key("chat", {"a": 1, "b": [1, 2]}) == request_key("chat", {"b": [1, 2], "a": 1})
    True
    >>> request_key("chat", {"a": 1}) == request_key("tool", {"a": 1})
    False
    """
    blob = json.dumps(
        {"kind": kind, **request},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
        default=str,
    )
    # surrogatepass: a lone surrogate (from a "\\ud800" escape in model-written JSON) keys
    # like any other character instead of failing; valid text encodes exactly as UTF-8
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


MIN_SECRET = 6
"""The shortest value treated as a secret (a real API key is much longer)."""


def env_secrets(environ: dict[str, str] | None = None, min_len: int = MIN_SECRET) -> list[str]:
    """Values of environment variables whose names look secret (KEY, TOKEN, SECRET, ...).

    >>> env_secrets({"OPENAI_API_KEY": "sk-abcdef", "HOME": "/root"})
    ['sk-abcdef']
    """
    env = os.environ if environ is None else environ
    return sorted({v for k, v in env.items() if _SECRET_NAME.search(k) and len(v) >= min_len})


def _first_message(request: dict[str, Any]) -> str:
    msgs = request.get("messages")
    if isinstance(msgs, list) and msgs:
        users = [m for m in msgs if isinstance(m, dict) and m.get("role") == "user"]
        first = users[0] if users else msgs[0]
        content = first.get("content") if isinstance(first, dict) else first
        text = content if isinstance(content, str) else json.dumps(content, default=str)
    else:
        text = json.dumps(request, default=str)
    text = " ".join(text.split())
    return text[:120] + ("..." if len(text) > 120 else "")


class Cassette:
    """A JSONL record of model calls and tool results, for offline replay.

    Parameters
    ----------
    path
        The JSONL file. "replay" needs it to exist; "record" creates it (with its
        parent folder) or extends it.
    mode
        "record" or "replay".
    secrets
        Strings to redact from every written line, in addition to secret-looking
        environment variable values (see `env_secrets`).
    store_requests
        Keep the full request next to its key (useful to read a run; makes the file
        larger). The key alone is enough to replay.
    defer
        Record mode: write nothing, not even the file, until `begin` is called; what is
        recorded before (a live run's preflight probes) is kept in memory and written
        then. A run that stops before it starts leaves no cassette behind.
    """

    def __init__(
        self,
        path: str | Path,
        mode: Literal["record", "replay"] = "record",
        *,
        secrets: Iterable[str] = (),
        store_requests: bool = True,
        defer: bool = False,
    ) -> None:
        if mode not in ("record", "replay"):
            raise ValueError(f"Cassette mode must be 'record' or 'replay', got {mode!r}")
        self.path = Path(path)
        self.mode = mode
        self.store_requests = store_requests
        self._secrets: set[str] = {s for s in secrets if s and len(s) >= MIN_SECRET}
        self._seen: Counter[str] = Counter()  # key -> occurrences asked for so far
        # (key, n) -> stored line; in record mode only counts are needed
        self._entries: dict[tuple[str, int], dict[str, Any]] = {}
        if mode == "replay":
            if not self.path.exists():
                raise FileNotFoundError(f"cassette to replay not found: {self.path}")
            self._load()
        elif self.path.exists() and self.path.stat().st_size > 0:
            self._load()
            self._seen = Counter(k for k, _ in self._entries)
        self._pending: list[str] | None = [] if defer else None
        if mode == "record" and not defer:
            self._create()

    def _create(self) -> None:
        """The file with its header line, when it does not hold a cassette yet."""
        if not (self.path.exists() and self.path.stat().st_size > 0):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("w", encoding="utf-8") as f:
                f.write(json.dumps({"format": FORMAT, "version": VERSION}) + "\n")

    def begin(self) -> None:
        """A deferred recording starts: the file is created (or extended) and what was
        recorded so far written to it. Nothing for a replay or a recording that was not
        deferred, or began already."""
        if self.mode != "record" or self._pending is None:
            return
        pending, self._pending = self._pending, None
        self._create()
        with self.path.open("a", encoding="utf-8", errors="backslashreplace") as f:
            for line in pending:
                f.write(line + "\n")
            f.flush()

    def _load(self) -> None:
        with self.path.open(encoding="utf-8") as f:
            lines = [ln for ln in f if ln.strip()]
        if not lines:
            raise ValueError(f"cassette {self.path} is empty (no header line)")
        header = json.loads(lines[0])
        if header.get("format") != FORMAT:
            raise ValueError(f"{self.path} is not a cassette (header {lines[0].strip()[:80]!r})")
        if header.get("version") != VERSION:
            raise ValueError(
                f"cassette {self.path} has format version {header.get('version')}, "
                f"this library reads version {VERSION}"
            )
        for i, line in enumerate(lines[1:], start=2):
            try:
                e = json.loads(line)
                self._entries[(e["key"], int(e["n"]))] = e
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"cassette {self.path} line {i} is malformed: {exc}") from None

    # -- secrets ---------------------------------------------------------------
    def add_secret(self, secret: str | None) -> None:
        """Redact `secret` from every line written from now on. Values shorter than
        `MIN_SECRET` characters are no real key, and replacing them everywhere would
        break the line's JSON; they are ignored, as in `env_secrets`."""
        if secret and len(secret) >= MIN_SECRET:
            self._secrets.add(secret)

    def _redact(self, line: str) -> str:
        for s in sorted(self._secrets | set(env_secrets()), key=len, reverse=True):
            line = line.replace(s, REDACTED)
            # also the JSON-escaped form, in case the secret holds quotes or backslashes
            esc = json.dumps(s)[1:-1]
            if esc != s:
                line = line.replace(esc, REDACTED)
        return line

    # -- record / replay ---------------------------------------------------------
    @property
    def replaying(self) -> bool:
        return self.mode == "replay"

    def __len__(self) -> int:
        """Recorded interactions (in record mode, including those written this session)."""
        return len(self._entries) if self.mode == "replay" else sum(self._seen.values())

    def lookup(self, kind: str, request: dict[str, Any], *, op: str = "") -> Any:
        """Replay: the recorded response for the next occurrence of `request`.

        Raises
        ------
        CassetteMiss
            When this occurrence of the request was never recorded.
        """
        if self.mode != "replay":
            raise RuntimeError(f"Cassette.lookup needs mode 'replay', this one is {self.mode!r}")
        key = request_key(kind, request)
        n = self._seen[key]
        entry = self._entries.get((key, n))
        if entry is None:
            recorded = sum(1 for k, _ in self._entries if k == key)
            what = f"asked {n + 1} times, recorded {recorded}" if recorded else "never recorded"
            raise CassetteMiss(
                f"cassette {self.path}: {kind} request for op {op or '?'!r} {what} "
                f"(key {key[:12]}); first message: {_first_message(request)!r}. "
                f"The run differs from the recorded one; record it again."
            )
        self._seen[key] += 1
        return entry["response"]

    def record(self, kind: str, request: dict[str, Any], response: Any, *, op: str = "") -> None:
        """Record: append one interaction and flush it to disk."""
        if self.mode != "record":
            raise RuntimeError(f"Cassette.record needs mode 'record', this one is {self.mode!r}")
        key = request_key(kind, request)
        entry: dict[str, Any] = {"kind": kind, "key": key, "n": self._seen[key], "op": op}
        if self.store_requests:
            entry["request"] = request
        entry["response"] = response
        line = self._redact(json.dumps(entry, ensure_ascii=False, default=str))
        self._seen[key] += 1
        if self._pending is not None:  # deferred: written by `begin`
            self._pending.append(line)
            return
        # backslashreplace writes a lone surrogate as its JSON escape: the line stays UTF-8
        # and reads back to the same string
        with self.path.open("a", encoding="utf-8", errors="backslashreplace") as f:
            f.write(line + "\n")
            f.flush()

    def through(
        self, kind: str, request: dict[str, Any], fn: Callable[[], Any], *, op: str = ""
    ) -> Any:
        """Replay the response, or compute it with `fn()` and record it.

        `fn` must return JSON-serialisable data; when it raises, nothing is recorded.
        """
        if self.mode == "replay":
            return self.lookup(kind, request, op=op)
        response = fn()
        self.record(kind, request, response, op=op)
        return response

    def __repr__(self) -> str:
        return f"Cassette({str(self.path)!r}, mode={self.mode!r}, entries={len(self)})"
