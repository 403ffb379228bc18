"""The converter's wire: frames of a JSON header and a payload, over the worker's pipes.

A frame is 8 bytes (the lengths of the header and of the payload, big-endian), the
header (UTF-8 JSON), the payload (bytes). No pickle: a worker that hostile data
compromised cannot run code in the parent through what it sends back.

>>> import io
>>> buf = io.BytesIO()
>>> send(buf, {"ok": True}, b"text")
>>> _ = buf.seek(0); recv(buf)
({'ok': True}, b'text')

Not here: the worker (worker.py), the parent's timed reads (service.py).
"""

from __future__ import annotations

import json
import struct
from typing import IO, Any

__all__ = ["send", "recv", "HEAD"]

HEAD = struct.Struct(">II")


def send(stream: IO[bytes], header: dict[str, Any], payload: bytes = b"") -> None:
    """Write one frame and flush."""
    h = json.dumps(header).encode("utf-8")
    stream.write(HEAD.pack(len(h), len(payload)) + h + payload)
    stream.flush()


def _exactly(stream: IO[bytes], n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        chunk = stream.read(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def recv(stream: IO[bytes]) -> tuple[dict[str, Any], bytes] | None:
    """One frame, or None at the end of the stream."""
    head = _exactly(stream, HEAD.size)
    if head is None:
        return None
    nh, np_ = HEAD.unpack(head)
    h = _exactly(stream, nh)
    p = _exactly(stream, np_) if np_ else b""
    if h is None or p is None:
        return None
    return json.loads(h), p
