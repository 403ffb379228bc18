"""A threaded HTTP server on 127.0.0.1 with a free port, started and stopped as a context
manager: the base of the library's test servers (the scripted OpenAI-compatible server,
the hermetic web of the tools).

>>> class Hello(LoopbackServer):
...     def _handler(self):
...         from http.server import BaseHTTPRequestHandler
...         class H(BaseHTTPRequestHandler):
...             def do_GET(self):
...                 self.send_response(200); self.end_headers(); self.wfile.write(b"hi")
...             def log_message(self, *a): pass
...         return H
>>> import urllib.request
>>> with Hello() as s:
...     urllib.request.urlopen(f"http://127.0.0.1:{s.port}/").read()
b'hi'

Not here: what a server answers (each subclass's request handler).
"""

from __future__ import annotations

import threading
from http.server import ThreadingHTTPServer
from typing import Any

__all__ = ["LoopbackServer"]


class LoopbackServer:
    """Serve `_handler()` on 127.0.0.1 in a daemon thread; idempotent `start`/`stop`.

    Subclasses implement `_handler` (the request handler class) and may override
    `server_class`, `_started` (after the port is bound) and `_stopped` (after it is
    released)."""

    server_class: type[ThreadingHTTPServer] = ThreadingHTTPServer
    _httpd: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    def _handler(self) -> Any:  # pragma: no cover - every subclass defines it
        raise TypeError(f"{type(self).__name__} must define _handler()")

    def _started(self) -> None:
        """Called once the server is bound and serving."""

    def _stopped(self) -> None:
        """Called once the server is stopped and its port released."""

    def start(self):
        """Bind a free port on 127.0.0.1 and serve in a daemon thread; returns self."""
        if self._httpd is None:
            self._httpd = self.server_class(("127.0.0.1", 0), self._handler())
            self._httpd.daemon_threads = True
            self._thread = threading.Thread(target=self._httpd.serve_forever,
                                            kwargs={"poll_interval": 0.02}, daemon=True)
            self._thread.start()
            self._started()
        return self

    def stop(self) -> None:
        """Stop serving and release the port (idempotent)."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            if self._thread is not None:
                self._thread.join(timeout=5)
            self._httpd = None
            self._thread = None
        self._stopped()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError(f"{type(self).__name__} is not running; call start() first")
        return int(self._httpd.server_address[1])
