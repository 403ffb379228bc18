"""The real-browser tier (`make browser-test`; not part of `make test`): Debian's Chromium
driven by Playwright, the course site served on loopback, JupyterLab on a loopback port.

Collected only when ``HYPERSKILL_BROWSER_TIER=1`` (the make target sets it), so
``pytest tests`` never starts a browser. No browser is ever downloaded: Chromium is
``$HYPERSKILL_CHROMIUM`` or ``/usr/bin/chromium`` (``make browser-test`` installs Debian's
``chromium`` where it is missing and apt is allowed). Without one the tier skips with one
line, and fails instead under ``CI=true``.

Screenshots of every step land in ``$HYPERSKILL_BROWSER_OUT`` (default ``runs/browser/``).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # support.py, pagecheck.py, lab.py
from support import (  # noqa: E402
    CHROMIUM_FLAGS,
    ROOT,
    VIEWPORT,
    chromium_path,
    instructor_dir,
    serve,
    site_dir,
)

if os.environ.get("HYPERSKILL_BROWSER_TIER") != "1":
    collect_ignore_glob = ["test_*.py"]


def _unavailable(reason: str) -> None:
    """Skip with one line on a user's machine; fail under CI=true."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"browser tier: {reason} (CI=true: the tier must run)", pytrace=False)
    pytest.skip(f"browser tier skipped: {reason}")


@pytest.fixture(scope="session")
def shots() -> Path:
    """The run's output folder for screenshots (emptied of old PNGs at the start)."""
    out = Path(os.environ.get("HYPERSKILL_BROWSER_OUT", ROOT / "runs" / "browser"))
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.png"):
        old.unlink()
    return out


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """A Chromium with a fresh profile (a persistent context: one window, many pages)."""
    exe = chromium_path()
    if exe is None:
        _unavailable("no Chromium (install Debian's chromium, or set HYPERSKILL_CHROMIUM)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is missing (make browser-test installs it)")
    profile = tempfile.mkdtemp(prefix="hsl-chromium-")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=exe, headless=True, args=CHROMIUM_FLAGS,
            viewport=VIEWPORT, device_scale_factor=1)
        context.set_default_timeout(30_000)
        yield context
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


def _served(html: Path) -> Iterator[str]:
    if not (html / "index.html").is_file():
        pytest.fail(f"no built site at {html}: run make book first", pytrace=False)
    server, url = serve(html)
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def site() -> Iterator[str]:
    """The base URL of the built student site, served on loopback."""
    yield from _served(site_dir())


@pytest.fixture(scope="session")
def instructor_site() -> Iterator[str]:
    """The base URL of the built instructor site, served on loopback."""
    yield from _served(instructor_dir())
