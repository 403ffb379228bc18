"""The document converter as a service: conversions run in a child process with memory,
CPU-time and wall-clock limits, and their results are kept by content hash.

`Converter.document(name, data)` and `Converter.html(text, url)` send the bytes to the
worker (worker.py: limited address space, CPU seconds per request, no files written)
and wait at most `timeout` seconds; a worker past its time is killed, one stopped by its
CPU limit or killed for memory is noticed, and each case comes back as a
`DocumentError` with one line naming the limit and its setting. A new worker starts at
the next request. The run's process never parses a document or a page itself, so a
hostile file costs the worker's limits, never the run's memory.

Results, errors included, are kept in a small cache keyed by the content's XXH3-128
hash, the operation and the caps, so paging through a document converts it once and a
file that failed is not tried again on every page request. One converter per set of
process limits is shared by every toolbox of the process (`shared_converter`);
requests from threads take turns.

Not here: the conversions (formats.py), the limits' defaults (`ToolSettings`).
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

import xxhash

from hyperskill_lite.agent.tools.documents.frames import HEAD as _HEAD
from hyperskill_lite.agent.tools.documents.kinds import Caps, DocumentError

__all__ = ["Converter", "shared_converter", "worker_env"]

log = logging.getLogger(__name__)

_PACKAGE = Path(__file__).resolve().parents[3]
_PACKAGE_PARENT = str(_PACKAGE.parent)
_ENV_KEEP = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SYSTEMROOT")
_BOOT = """
import sys, types
root = sys.argv[1]
for name, sub in (("hyperskill_lite", ""), ("hyperskill_lite.agent", "/agent"),
                  ("hyperskill_lite.agent.tools", "/agent/tools")):
    m = types.ModuleType(name)
    m.__path__ = [root + sub]
    sys.modules[name] = m
from hyperskill_lite.agent.tools.documents.worker import main
raise SystemExit(main(sys.argv[2:]))
"""
"""The worker's start: the three parent packages as bare namespaces, so it imports
documents/ and html.py alone, not the package's public API (numpy, scipy, the model
client): it starts in a fraction of the time and memory."""


def worker_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The worker's environment: an allowlist (PATH, locale, time zone), the package on
    PYTHONPATH, one BLAS thread; no key, token, password or home folder.

    >>> sorted(worker_env({"PATH": "/bin", "DATABASE_URL": "postgres://u:pw@h/db"}))
    ['OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'PATH', 'PYTHONDONTWRITEBYTECODE', 'PYTHONNOUSERSITE', 'PYTHONPATH']
    """
    env = os.environ if environ is None else environ
    out = {k: env[k] for k in _ENV_KEEP if k in env}
    out.update(PYTHONPATH=_PACKAGE_PARENT, PYTHONDONTWRITEBYTECODE="1", PYTHONNOUSERSITE="1",
               OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    return out


class _Stopped(Exception):
    """The worker ended or was stopped; the message is the one line to show."""


class Converter:
    """Conversions in a limited child process, cached by content (module docstring).

    Parameters
    ----------
    memory_mb
        The worker's address-space limit (RLIMIT_AS).
    cpu_seconds
        CPU seconds per request (RLIMIT_CPU, renewed before each request).
    timeout
        Wall-clock seconds per request.
    cache_size, cache_chars
        Results kept, at most, and their characters in total (the oldest go first).
    """

    def __init__(self, memory_mb: int = 1024, cpu_seconds: int = 30, timeout: float = 60.0,
                 cache_size: int = 24, cache_chars: int = 20_000_000) -> None:
        self.memory_mb, self.cpu_seconds, self.timeout = memory_mb, cpu_seconds, timeout
        self.cache_size, self.cache_chars = cache_size, cache_chars
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._cache: OrderedDict[tuple[str, ...], tuple[str, str, str] | str] = OrderedDict()
        self.conversions = 0
        """Requests the worker has run (cache hits not counted)."""
        self.starts = 0
        """Workers started (one, plus one after each stop)."""
        self.refused_limits: list[str] = []
        """Limits the system would not set in the worker (none on Linux)."""

    # -- public ----------------------------------------------------------------------
    def document(self, name: str, data: bytes, caps: Caps | None = None) -> tuple[str, str]:
        """``(title, text)`` of a file (formats.py `convert`), or `DocumentError`."""
        title, text, _ = self._cached("document", name, "", data, caps or Caps())
        return title, text

    def html(self, html: str, url: str = "", caps: Caps | None = None) -> tuple[str, str, str]:
        """``(title, text, extractor)`` of an HTML page (html.py `page_text`)."""
        return self._cached("html", "page", url, html.encode("utf-8", "replace"),
                            caps or Caps())

    def close(self) -> None:
        """Stop the worker (a later request starts a new one)."""
        with self._lock:
            self._stop(kill=False)

    # -- the cache -------------------------------------------------------------------
    def _cached(self, op: str, name: str, url: str, data: bytes,
                caps: Caps) -> tuple[str, str, str]:
        suffix = Path(name).suffix.lower() if op == "document" else ""
        key = (op, suffix, url, xxhash.xxh3_128_hexdigest(data),
               json.dumps(caps.to_dict(), sort_keys=True))
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
            else:
                hit = self._convert(op, name, url, data, caps)
                self._cache[key] = hit
                while len(self._cache) > 1 and (
                        len(self._cache) > self.cache_size
                        or sum(_size(v) for v in self._cache.values()) > self.cache_chars):
                    self._cache.popitem(last=False)
        if isinstance(hit, str):
            raise DocumentError(hit)
        return hit

    def _convert(self, op: str, name: str, url: str, data: bytes,
                 caps: Caps) -> tuple[str, str, str] | str:
        """The worker's answer, or the one-line error (a str) to keep and raise."""
        req = {"op": op, "name": name, "url": url, "caps": caps.to_dict(),
               "cpu_seconds": self.cpu_seconds}
        what = name if op == "document" else (url or "the page")
        try:
            header, text = self._request(req, data, what)
        except _Stopped as e:
            return str(e)
        self.conversions += 1
        if not header.get("ok"):
            if header.get("restart"):
                self._stop(kill=True)
            return str(header.get("error") or f"{what} could not be read")
        return (str(header.get("title") or ""), text.decode("utf-8", "replace"),
                str(header.get("extractor") or ""))

    # -- the worker ------------------------------------------------------------------
    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        cmd = [sys.executable, "-I", "-c", _BOOT, str(_PACKAGE),
               json.dumps({"memory_mb": self.memory_mb})]
        try:
            self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, env=worker_env(),
                                          start_new_session=True, close_fds=True)
        except OSError as e:
            raise _Stopped(f"the document converter could not start ({e})") from None
        self.starts += 1
        try:
            ready = self._read(self._proc, max(30.0, self.timeout), "")
        except _Stopped:
            rc = self._proc.poll() if self._proc is not None else None
            self._stop(kill=True)
            raise _Stopped("the document converter did not start"
                           + (f" (exit {rc})" if rc is not None else "")) from None
        if not ready[0].get("ready"):
            self._stop(kill=True)
            raise _Stopped("the document converter did not start properly")
        refused = ready[0].get("refused_limits") or []
        if refused and not self.refused_limits:
            log.warning("this system refused the document converter's %s: documents are "
                        "converted without %s", ", ".join(refused),
                        "that limit" if len(refused) == 1 else "those limits")
        self.refused_limits = list(refused)
        return self._proc

    def _request(self, req: dict[str, Any], data: bytes,
                 what: str) -> tuple[dict[str, Any], bytes]:
        proc = self._start()
        h = json.dumps(req).encode("utf-8")
        try:
            assert proc.stdin is not None
            proc.stdin.write(_HEAD.pack(len(h), len(data)) + h)
            proc.stdin.write(data)
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise _Stopped(self._ended(proc, what)) from None
        return self._read(proc, self.timeout, what)

    def _read(self, proc: subprocess.Popen[bytes], timeout: float,
              what: str) -> tuple[dict[str, Any], bytes]:
        end = time.monotonic() + timeout
        head = self._exactly(proc, _HEAD.size, end, what)
        nh, np_ = _HEAD.unpack(head)
        header = json.loads(self._exactly(proc, nh, end, what))
        return header, self._exactly(proc, np_, end, what) if np_ else b""

    def _exactly(self, proc: subprocess.Popen[bytes], n: int, end: float, what: str) -> bytes:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        buf = bytearray()
        while len(buf) < n:
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self._stop(kill=True)
                raise _Stopped(f"converting {what} took longer than {self.timeout:g} s "
                               "(convert_timeout): stopped")
            chunk = os.read(fd, min(n - len(buf), 1 << 20))
            if not chunk:
                raise _Stopped(self._ended(proc, what))
            buf += chunk
        return bytes(buf)

    def _ended(self, proc: subprocess.Popen[bytes], what: str) -> str:
        """Why the worker ended, as the one line to show (and reap it)."""
        try:
            rc = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._stop(kill=True)
            rc = proc.returncode
        self._proc = None
        if rc == -signal.SIGXCPU:
            return (f"converting {what} used more than {self.cpu_seconds} s of CPU time "
                    "(convert_cpu_seconds): stopped")
        if rc == -signal.SIGKILL:
            return (f"the converter was killed while reading {what} (out of memory?); "
                    f"not read (convert_memory_mb is {self.memory_mb:,})")
        return f"the document converter stopped while reading {what} (exit {rc}); not read"

    def _stop(self, kill: bool) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if kill and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                proc.kill()
        for f in (proc.stdin, proc.stdout):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _size(v: tuple[str, str, str] | str) -> int:
    return len(v) if isinstance(v, str) else len(v[1])


_SHARED: dict[tuple[int, int, float], Converter] = {}
_SHARED_LOCK = threading.Lock()


def shared_converter(memory_mb: int = 1024, cpu_seconds: int = 30,
                     timeout: float = 60.0) -> Converter:
    """The process's converter for these limits (one worker each, started on first use,
    stopped at exit)."""
    key = (int(memory_mb), int(cpu_seconds), float(timeout))
    with _SHARED_LOCK:
        conv = _SHARED.get(key)
        if conv is None:
            conv = _SHARED[key] = Converter(*key)
        return conv


@atexit.register
def _close_all() -> None:
    for conv in list(_SHARED.values()):
        conv.close()
