"""Helpers of the browser tier shared by its conftest and tests: where Chromium and the
built site are, and a static file server on loopback. Not here: fixtures (conftest.py)."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHROMIUM_FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]
"""What works on a closed network: without the background-networking flags Chromium's own
connections (updates, sync) are refused and logged."""
VIEWPORT = {"width": 1280, "height": 900}


def chromium_path() -> str | None:
    """The Chromium to drive: ``$HYPERSKILL_CHROMIUM``, else Debian's, else one on PATH."""
    env = os.environ.get("HYPERSKILL_CHROMIUM")
    if env:
        return env if Path(env).is_file() else None
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"),
                      shutil.which("chromium-browser")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def serve(directory: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """A static file server on a free loopback port; returns (server, base URL)."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def site_dir() -> Path:
    """The built student site (``$HYPERSKILL_BOOK_DIR`` or build/book/student/html)."""
    return Path(os.environ.get("HYPERSKILL_BOOK_DIR", ROOT / "build" / "book" / "student" / "html"))


def instructor_dir() -> Path:
    """The built instructor site (``$HYPERSKILL_INSTRUCTOR_DIR`` or
    build/book/instructor/html)."""
    return Path(os.environ.get("HYPERSKILL_INSTRUCTOR_DIR",
                               ROOT / "build" / "book" / "instructor" / "html"))
