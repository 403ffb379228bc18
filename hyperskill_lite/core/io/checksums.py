"""Every file's checksum: XXH3-128 in format 3, the 64-bit word sums of format 2
(still verified when a format 2 memory loads), SHA-256 of format 1.

Not here: which files carry one (layout.py), reading them (read.py).
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from hyperskill_lite.core.io.layout import (
    _BLOCK,
)

XXH3 = "xxh3_128:"  # the name a version 3 manifest gives its hashes


def file_checksum(data: bytes | memoryview | np.ndarray) -> str:
    """The XXH3-128 hash of `data` with its name, as saved in a version 3 manifest.

    >>> file_checksum(b"abcdefgh" * 3) == file_checksum(b"abcdefgh" * 3)
    True
    >>> file_checksum(b"abcdefgh12345678") == file_checksum(b"12345678abcdefgh")  # swapped
    False
    >>> file_checksum(b"")
    'xxh3_128:99aa06d3014798d86001c324468d497f'
    """
    import xxhash

    return XXH3 + xxhash.xxh3_128_hexdigest(memoryview(data).cast("B"))


class ChecksumWriter:
    """A binary file wrapper that hashes what goes through it: `checksum` is then
    `file_checksum` of every byte written, without reading the file back.

    >>> import io
    >>> w = ChecksumWriter(io.BytesIO())
    >>> w.write(b"abcdefgh") + w.write(b"12345678")
    16
    >>> w.checksum == file_checksum(b"abcdefgh12345678"), w.bytes
    (True, 16)
    """

    def __init__(self, f: Any) -> None:
        import xxhash

        self._f, self._h, self.bytes = f, xxhash.xxh3_128(), 0

    def write(self, data: bytes | memoryview) -> int:
        self._h.update(data)
        self.bytes += memoryview(data).nbytes
        return self._f.write(data)

    @property
    def checksum(self) -> str:
        return XXH3 + self._h.hexdigest()


def wordsum_checksum(data: bytes | memoryview | np.ndarray) -> str:
    """Version 2's checksum, kept to verify version 2 memories: the sums (mod 2**64) of
    the even and of the odd 8-byte words of `data`, the trailing bytes and the length.
    Misses two swapped words of the same parity (why version 3 hashes instead).

    >>> a, b = b"A" * 8 + b"B" * 8 + b"C" * 8 + b"D" * 8, b"C" * 8 + b"B" * 8 + b"A" * 8 + b"D" * 8
    >>> wordsum_checksum(a) == wordsum_checksum(b), file_checksum(a) == file_checksum(b)
    (True, False)
    """
    buf = np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)
    n = buf.size
    words = buf[: n - n % 16].view(np.uint64)
    # summed in rows of _BLOCK words (a contiguous, vectorised reduction; a (-1, 2) sum
    # over axis 0 is ten times slower), then the columns folded into even and odd
    m = words.size - words.size % _BLOCK
    cols = words[:m].reshape(-1, _BLOCK).sum(axis=0, dtype=np.uint64)
    rest = words[m:].reshape(-1, 2).sum(axis=0, dtype=np.uint64)
    with np.errstate(over="ignore"):
        even = int(cols[0::2].sum(dtype=np.uint64) + rest[0])
        odd = int(cols[1::2].sum(dtype=np.uint64) + rest[1])
    tail = bytes(buf[n - n % 16 :]).hex()
    return f"sum64:{n}:{even:016x}:{odd:016x}:{tail}"


def checksum_matches(data: bytes | memoryview | np.ndarray, recorded: Any) -> bool:
    """Does `data` have the checksum a manifest `recorded` (an XXH3-128 hash, or a
    version 2 word sum)?"""
    if not isinstance(recorded, str):
        return False
    if recorded.startswith("sum64:"):
        return wordsum_checksum(data) == recorded
    return file_checksum(data) == recorded


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
