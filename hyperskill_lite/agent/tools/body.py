"""Response bodies within bounds: inflated as a stream under a cap, and a deadline for a
whole fetch that no server can stretch.

- `Inflater` decodes a body's ``Content-Encoding`` (gzip, deflate, identity; one layer)
  chunk by chunk with ``zlib.decompressobj(...).decompress(data, max_length)``, so it
  never holds more than the cap of inflated bytes. A body whose header stacks encodings
  (``gzip, gzip``: the 6.8 kB page that inflated to gigabytes in one piece) or names one
  the client did not offer (``br``, ``zstd``) is refused before a byte is inflated. A
  compressed body that inflates past the cap at a ratio above `BOMB_RATIO` is refused as a
  decompression bomb; below it (a large page that compresses well) it is cut at the cap,
  as an uncompressed body is.
- `Deadline` ends a fetch at a fixed time however slowly the server sends: a timer shuts
  the connection's socket down when the time is up, which wakes a read blocked on a
  server that sends one byte a second (a per-read timeout alone never fires there), in
  the headers or in the body. It learns the sockets through httpcore's ``trace``
  extension (each new TCP and TLS connection) and the response's ``network_stream``.

>>> import gzip
>>> inf = Inflater(["gzip"], cap=10)
>>> inf.feed(gzip.compress(b"hello")) + inf.flush(), inf.truncated
(b'hello', False)
>>> Inflater.check(["gzip", "gzip"])
Traceback (most recent call last):
...
hyperskill_lite.agent.tools.body.BodyRefused: the body is encoded twice (Content-Encoding: gzip, gzip); stacked encodings are refused

Not here: the HTTP client (net.py), what the bytes mean (pages.py, documents/).
"""

from __future__ import annotations

import socket
import threading
import time
import zlib
from collections.abc import Iterable
from typing import Any

__all__ = ["Inflater", "Deadline", "BodyRefused", "DeadlinePassed", "ACCEPT_ENCODING",
           "BOMB_RATIO", "parse_encodings"]

ACCEPT_ENCODING = "gzip, deflate"
"""What the client offers (and so what it decodes)."""
BOMB_RATIO = 100
"""Inflated bytes per compressed byte above which a body past the cap is a bomb (web
pages compress about 3-20 : 1)."""
_DECODERS = {"gzip": 31, "x-gzip": 31, "deflate": 15}


class BodyRefused(ValueError):
    """A body that is not read (stacked or unknown encoding, a decompression bomb)."""


class DeadlinePassed(TimeoutError):
    """The whole fetch took longer than its deadline."""


def parse_encodings(header: str | None) -> list[str]:
    """The codings of a ``Content-Encoding`` header, in the order they were applied,
    ``identity`` left out.

    >>> parse_encodings("gzip, identity, GZIP")
    ['gzip', 'gzip']
    """
    return [c.strip().lower() for c in (header or "").split(",")
            if c.strip() and c.strip().lower() != "identity"]


class Inflater:
    """Decode a body chunk by chunk under a cap of `cap` inflated bytes (module docstring).

    Parameters
    ----------
    encodings
        `parse_encodings` of the ``Content-Encoding`` header.
    cap
        Inflated bytes kept at most; past it, `truncated` is set (or `BodyRefused` is
        raised for a bomb) and `feed` returns nothing more.
    """

    def __init__(self, encodings: list[str], cap: int) -> None:
        self.check(encodings)
        self.coding = encodings[0] if encodings else None
        self.cap = cap
        self.raw = 0
        self.out = 0
        self.truncated = False
        self._d: Any = self._decoder() if self.coding else None
        self._first = True

    @staticmethod
    def check(encodings: list[str]) -> None:
        """Raise `BodyRefused` for stacked or unsupported encodings."""
        if len(encodings) > 1:
            raise BodyRefused(f"the body is encoded {'twice' if len(encodings) == 2 else 'repeatedly'} "
                              f"(Content-Encoding: {', '.join(encodings)}); stacked encodings "
                              "are refused")
        if encodings and encodings[0] not in _DECODERS:
            raise BodyRefused(f"the body is encoded with {encodings[0]!r}, which was not asked "
                              f"for (Accept-Encoding: {ACCEPT_ENCODING})")

    def _decoder(self, raw_deflate: bool = False) -> Any:
        return zlib.decompressobj(-15 if raw_deflate else _DECODERS[self.coding])

    def _room(self) -> int:
        return self.cap - self.out

    def feed(self, raw: bytes) -> bytes:
        """The inflated bytes of the next raw chunk (at most the room left under the cap)."""
        self.raw += len(raw)
        if self.truncated:
            return b""
        if self._d is None:
            kept = raw[: self._room()]
            self.out += len(kept)
            self.truncated = len(kept) < len(raw)
            return kept
        out = self._inflate(raw)
        if self.raw > 2 * self.cap + 65536:  # compressed bytes that inflate to nothing
            self.truncated = True
        return out

    def _inflate(self, data: bytes) -> bytes:
        out = bytearray()
        while data and not self.truncated:
            try:
                chunk = self._d.decompress(data, self._room() + 1)
            except zlib.error as e:
                if self._first and self.coding == "deflate":  # raw deflate, no zlib header
                    self._d, self._first = self._decoder(raw_deflate=True), False
                    continue
                raise BodyRefused(f"the {self.coding} body is damaged ({e})") from None
            self._first = False
            out += chunk
            self.out += len(chunk)
            if self.out > self.cap:
                self._over(out)
                break
            data = self._d.unconsumed_tail
            if self._d.eof:  # a gzip body may hold several members, one after the other
                data = self._d.unused_data
                if not data.strip(b"\0"):
                    break
                self._d = self._decoder()
        return bytes(out)

    def _over(self, out: bytearray) -> None:
        tail = len(self._d.unconsumed_tail) if self._d is not None else 0
        consumed = self.raw - tail  # the compressed bytes it took to pass the cap
        if self.out > BOMB_RATIO * max(1, consumed):
            raise BodyRefused(
                f"the {self.coding} body inflates past {self.cap:,} bytes from "
                f"{consumed:,} bytes (more than {BOMB_RATIO} : 1): refused as a "
                "decompression bomb")
        del out[len(out) - (self.out - self.cap):]
        self.out = self.cap
        self.truncated = True

    def flush(self) -> bytes:
        """What the decoder still holds at the end of the body (bounded by the cap)."""
        if self._d is None or self.truncated:
            return b""
        out = bytearray(self._d.flush(self._room() + 1))
        self.out += len(out)
        if self.out > self.cap:
            self._over(out)
        return bytes(out)


class Deadline:
    """A fixed end time for a whole fetch (module docstring); a context manager that
    starts and cancels the timer.

    Parameters
    ----------
    seconds
        Time allowed from entering the context.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.passed = False
        self._socks: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def __enter__(self) -> Deadline:
        self.end = time.monotonic() + self.seconds
        self._timer = threading.Timer(self.seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._socks.clear()

    def remaining(self) -> float:
        return max(0.0, self.end - time.monotonic())

    def check(self) -> None:
        """Raise `DeadlinePassed` when the time is up."""
        if self.passed or time.monotonic() >= self.end:
            self.passed = True
            raise DeadlinePassed(f"did not finish within {self.seconds:g} s")

    def watch(self, stream: Any) -> None:
        """Shut `stream`'s socket (an httpcore network stream) down at the deadline."""
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is None:
            return
        with self._lock:
            self._socks.append(sock)
            late = self.passed
        if late:
            _shutdown(sock)

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's ``trace`` extension: watch each new connection's socket."""
        if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            self.watch(info.get("return_value"))

    def _expire(self) -> None:
        with self._lock:
            self.passed = True
            socks = list(self._socks)
        for s in socks:
            _shutdown(s)

    def sleep(self, seconds: float) -> None:
        """Sleep at most until the deadline."""
        time.sleep(max(0.0, min(seconds, self.remaining())))


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed


def read_capped(chunks: Iterable[bytes], inflater: Inflater, deadline: Deadline) -> bytes:
    """Inflate raw `chunks` under the cap, checking the deadline after each chunk."""
    body = bytearray()
    for raw in chunks:
        body += inflater.feed(raw)
        deadline.check()
        if inflater.truncated:
            break
    body += inflater.flush()
    return bytes(body)
