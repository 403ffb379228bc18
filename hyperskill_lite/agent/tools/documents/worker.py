"""The converter's child process: documents and HTML pages converted under limits, one
request at a time, read from stdin and answered on stdout.

Started by service.py (never by hand; it imports documents/ without the package's
public API, see ``service._BOOT``), it first limits itself, before it reads any document:
address space (RLIMIT_AS, ``memory_mb``), no files written (RLIMIT_FSIZE 0), no core
dumps, a few open files; it ignores Ctrl-C (the run handles it) and dies with its parent
(PR_SET_PDEATHSIG on Linux; a closed stdin also ends it). Before each request it allows
itself ``cpu_seconds`` more CPU time (RLIMIT_CPU soft limit: past it the kernel stops
it with SIGXCPU). A request is converted with formats.py; a `DocumentError`, an
exception of a library or a `MemoryError` is answered as one line, never a traceback.

Frames (frames.py) both ways. Requests: ``{"op": "document"|"html", "name", "url", "caps",
"cpu_seconds"}`` and the file's bytes (or the page's text in UTF-8); replies: ``{"ok":
true, "title", "extractor"}`` and the text in UTF-8, or ``{"ok": false, "error",
"restart"}``. No pickle: a child that hostile data compromised cannot run code in the
parent through its replies.

Not here: starting, timing and restarting it (service.py), the conversions (formats.py).
"""

from __future__ import annotations

import json
import resource
import signal
import sys
from typing import Any

from hyperskill_lite.agent.tools.documents.formats import convert, html_page
from hyperskill_lite.agent.tools.documents.frames import recv, send
from hyperskill_lite.agent.tools.documents.kinds import Caps, DocumentError

__all__ = ["main"]

def _limit(memory_mb: int) -> list[str]:
    """Set the worker's limits; the names of those the system refused (macOS does not
    enforce RLIMIT_AS, for one)."""
    mem = memory_mb * 1024 * 1024
    refused = []
    for name, value in (("RLIMIT_AS", mem), ("RLIMIT_FSIZE", 0), ("RLIMIT_CORE", 0),
                        ("RLIMIT_NOFILE", 64)):
        try:
            resource.setrlimit(getattr(resource, name), (value, value))
        except (ValueError, OSError, AttributeError):
            refused.append(name)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: a closed stdin still ends the worker
    return refused


def _cpu_budget(seconds: int) -> None:
    """Allow `seconds` more CPU time from now (the soft limit; the hard one is kept)."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    now = int(used.ru_utime + used.ru_stime) + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = now + seconds
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _handle(req: dict[str, Any], payload: bytes) -> tuple[dict[str, Any], bytes]:
    caps = Caps.from_dict(req.get("caps") or {})
    if req["op"] == "html":
        title, text, how = html_page(payload.decode("utf-8", "replace"), req.get("url", ""),
                                     caps)
        return {"ok": True, "title": title, "extractor": how}, text.encode("utf-8")
    title, text = convert(req["name"], payload, caps)
    return {"ok": True, "title": title, "extractor": ""}, text.encode("utf-8")


def _answer(req: dict[str, Any], payload: bytes, memory_mb: int) -> tuple[dict[str, Any], bytes]:
    name = str(req.get("name") or req.get("url") or "the document")[:120]
    try:
        return _handle(req, payload)
    except DocumentError as e:
        return {"ok": False, "error": str(e), "restart": False}, b""
    except MemoryError:
        return {"ok": False, "restart": True, "error": (
            f"{name} needs more memory than the converter may use ({memory_mb:,} MB: "
            "convert_memory_mb); not read")}, b""
    except RecursionError:
        return {"ok": False, "restart": True, "error": (
            f"{name} is nested too deeply to read (RecursionError)")}, b""
    except Exception as e:  # noqa: BLE001 (a library's bug on hostile input: one line)
        return {"ok": False, "restart": True, "error": (
            f"{name} could not be read ({type(e).__name__}: "
            f"{' '.join(str(e).split())[:160]})")}, b""


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    cfg = json.loads(argv[0]) if argv else {}
    memory_mb = int(cfg.get("memory_mb", 1024))
    refused = _limit(memory_mb)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a library's print() never corrupts a frame
    send(stdout, {"ready": True, "refused_limits": refused})
    while True:
        got = recv(stdin)
        if got is None:
            return 0
        req, payload = got
        _cpu_budget(int(req.get("cpu_seconds", 30)))
        header, text = _answer(req, payload, memory_mb)
        del payload
        send(stdout, header, text)


if __name__ == "__main__":
    raise SystemExit(main())
