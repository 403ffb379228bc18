"""A hermetic web on loopback: real pages, real files, every search API's reply shape, and
an OpenAI-style vision and transcription server, for tests and the live smoke.

`TestWeb` serves, on 127.0.0.1 (a free port) from a background thread:

- HTML pages with a navigation menu, a header, a footer and an article (``/``,
  ``/ships/grey-petrel``, ``/visit``), a long article (``/long``, read in pages), and,
  given a folder of .txt/.md pages (``corpus=``), each of them as such a page under
  ``/pages/<name>``;
- the attachments of testweb_files.py under ``/files/<name>`` with their content types;
- redirects: ``/redirect`` (to an article), and to addresses the agent must not reach:
  ``/redirect-localhost`` (this server by the name "localhost"), ``/redirect-metadata``
  (169.254.169.254), ``/redirect-private`` (10.0.0.7), ``/redirect-ipv6`` ([::1]);
  nothing is ever sent to those addresses by a correct client;
- ``/flaky``: a 429 with ``Retry-After: 1``, then the page;
- a search endpoint for every registered provider class that speaks HTTP (plugins and
  classes registered by a test included), at `search_path` (``/<name>`` plus the path
  of its documented endpoint: ``/serper/search``, ``/brave/res/v1/web/search``, ...),
  answering with the class's `sample_reply` (its service's documented wire format)
  over this web's own pages ranked with BM25; keyed ones answer 401 without the key in
  `KEYS`;
- ``/vision/v1/chat/completions`` (reads the image of a data URL with Pillow and answers
  with its size and top-left pixel) and ``/vision/v1/audio/transcriptions`` (multipart;
  knows the generated WAV's transcript), and ``/textonly/v1/...``, a server without those
  capabilities (400 for image parts, like vLLM for a text-only model; 404 for audio).

Every request is kept in `requests` (method, path, query, headers, JSON or form body).

>>> with TestWeb() as web:
...     import urllib.request
...     html = urllib.request.urlopen(web.url("/visit")).read().decode()
>>> "closed on Mondays" in html
True

Not here: the scripted chat server for the agent (scripted_server.py), the files' makers
(testweb_files.py).
"""

from __future__ import annotations

import base64
import hashlib
import html as _html
import io
import json
import mimetypes
import tempfile
import threading
import urllib.parse
from collections.abc import Iterator, Mapping
from email.parser import BytesParser
from email.policy import default as _email_policy
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from hyperskill_lite.agent.tools.corpus import LocalCorpus
from hyperskill_lite.agent.tools.providers.base import SearchProvider, provider_classes
from hyperskill_lite.testing.loopback import LoopbackServer
from hyperskill_lite.testing.testweb_files import WAV_TRANSCRIPT, make_files

__all__ = ["TestWeb", "KEYS", "TEST_KEY", "LONG_SECRET", "search_path", "page_html"]

TEST_KEY = "{name}-test-key-0123456789"
"""The key the test web accepts for a keyed provider (`KEYS`)."""


class _TestKeys(Mapping[str, str]):
    """Provider name -> the key its endpoint on this web accepts, for every registered
    provider that needs a key (derived on each access: a provider registered later, a
    plugin, is in it)."""

    def _names(self) -> list[str]:
        return [n for n, c in provider_classes().items() if c.needs_key and c.http_api]

    def __getitem__(self, name: str) -> str:
        if name not in self._names():
            raise KeyError(name)
        return TEST_KEY.format(name=name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


KEYS: Mapping[str, str] = _TestKeys()
"""The keys the keyed search endpoints accept."""


def search_path(name: str) -> str:
    """A provider's endpoint on this web: ``/<name>`` plus the path of its documented
    endpoint (``/serper/search``, ``/brave/res/v1/web/search``, ``/jina/``; ``/searxng``
    and ``/url`` for those without a public one).

    >>> search_path("brave"), search_path("url")
    ('/brave/res/v1/web/search', '/url')
    """
    cls = provider_classes()[name]
    return f"/{name}" + (urllib.parse.urlsplit(cls.endpoint).path if cls.endpoint else "")


def _provider_at(path: str) -> type[SearchProvider] | None:
    """The provider whose endpoint on this web `path` is (or lies under, the longest)."""
    best: tuple[int, type[SearchProvider] | None] = (0, None)
    for name, cls in provider_classes().items():
        if not cls.http_api:
            continue
        root = search_path(name).rstrip("/")
        if (path == root or path.startswith(root + "/")) and len(root) > best[0]:
            best = (len(root), cls)
    return best[1]


LONG_SECRET = "The archive code is ZEBRA-42."

_NAV = "".join(f'<li><a href="/section/{i}">Collection section number {i}</a></li>'
               for i in range(1, 41))
_ARTICLES = {
    "/": ("Harbor Street Maritime Museum",
          "<p>Welcome to the Harbor Street Maritime Museum. Visit the ships of the "
          "harbour and read about opening hours.</p>"
          '<p><a href="/ships/grey-petrel">The Grey Petrel</a> | <a href="/visit">Visit us</a>'
          ' | <a href="/long">Museum history</a></p>'),
    "/ships/grey-petrel": ("The schooner Grey Petrel",
                           "<p>The fishing schooner Grey Petrel is 31 metres long and was "
                           "built in 1911 in the yard of the harbour.</p><p>She fished for "
                           "herring until 1962 and has been a museum ship since 1975.</p>"),
    "/visit": ("Visiting the museum",
               "<p>The Harbor Street Maritime Museum is closed on Mondays. On the other days "
               "it opens at ten in the morning.</p><p>Admission is free for children.</p>"),
}


def _long_article() -> str:
    paras = [f"<p>Paragraph {i}. In year {1850 + i} the harbour saw new ships, new quays "
             f"and new trades; the museum keeps the records of every one of them in its "
             f"archive, shelf {i}, next to the maps of that year and the letters of the "
             f"harbour master.</p>" for i in range(1, 80)]
    return "".join(paras) + f"<p>Paragraph 80. {LONG_SECRET}</p>"


def page_html(title: str, article: str) -> str:
    """A full page: head, a 40-item navigation menu, the article, a footer."""
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{_html.escape(title)}"
            f"</title><script>var tracking = 1;</script></head><body>"
            f"<header><nav><ul>{_NAV}</ul></nav></header>"
            f"<main><article><h1>{_html.escape(title)}</h1>{article}</article></main>"
            "<footer><p>Copyright 2024 Harbor Street Maritime Museum. All rights reserved. "
            "Privacy policy. Cookie settings. Contact us at the front desk.</p></footer>"
            "</body></html>")


class TestWeb(LoopbackServer):
    """The hermetic web (see the module docstring).

    Parameters
    ----------
    corpus
        A folder of .txt/.md files served as pages under ``/pages/<stem>`` (and searched).
    files
        Generate and serve the attachments (needs fpdf2, openpyxl, python-docx,
        python-pptx, Pillow).
    """

    __test__ = False  # not a pytest test class

    def __init__(self, corpus: str | Path | None = None, files: bool = True) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="hsl-testweb-")
        root = Path(self._tmp.name)
        self.files: dict[str, Path] = make_files(root / "files") if files else {}
        self.pages: dict[str, tuple[str, str]] = dict(_ARTICLES)
        self.pages["/long"] = ("A long history of the harbour", _long_article())
        if corpus is not None:
            for f in sorted(Path(corpus).glob("*")):
                if f.suffix in (".txt", ".md") and f.name.lower() != "readme.txt":
                    lines = [ln.strip() for ln in f.read_text("utf-8").splitlines()]
                    title = next((ln for ln in lines if ln), f.stem)
                    body = "".join(f"<p>{_html.escape(ln)}</p>" for ln in lines[1:] if ln)
                    self.pages[f"/pages/{f.stem}"] = (title, body)
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._flaky_seen = 0
        self._site = root / "site"
        self._corpus: LocalCorpus | None = None

    # -- lifecycle (LoopbackServer: start, stop, a context manager, port) -----------
    def _handler(self):
        return _handler(self)

    def _started(self) -> None:
        self._index()

    def _stopped(self) -> None:
        self._tmp.cleanup()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def host(self) -> str:
        """``127.0.0.1:PORT``, what a reader's ``allow_hosts`` names to read this web."""
        return f"127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.base_url + path

    def search_url(self, provider: str) -> str:
        return self.url(search_path(provider))

    def seen(self, path_prefix: str) -> list[dict[str, Any]]:
        """The requests received whose path starts with `path_prefix`."""
        with self._lock:
            return [r for r in self.requests if r["path"].startswith(path_prefix)]

    # -- search ------------------------------------------------------------------
    def _index(self) -> None:
        self._site.mkdir(parents=True, exist_ok=True)
        urls = {}
        for i, (path, (title, article)) in enumerate(sorted(self.pages.items())):
            name = f"p{i}.html"
            (self._site / name).write_text(f"<title>{_html.escape(title)}</title>{article}")
            urls[name] = self.url(path)
        (self._site / "urls.json").write_text(json.dumps(urls))
        self._corpus = LocalCorpus(self._site)

    def hits(self, query: str, k: int) -> list[dict[str, str]]:
        assert self._corpus is not None
        return [{"title": h.title, "url": h.url, "snippet": h.snippet}
                for h in self._corpus.search(query, k)]


def _image_answer(request: dict[str, Any]) -> str | None:
    """Size and top-left pixel of the first data-URL image in a chat request, or None."""
    from PIL import Image

    for m in request.get("messages", []):
        content = m.get("content")
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") == "image_url":
                url = part["image_url"]["url"]
                raw = base64.b64decode(url.split(",", 1)[1])
                img = Image.open(io.BytesIO(raw)).convert("RGB")
                w, h = img.size
                return f"The image is {w}x{h} pixels; its top-left pixel is RGB{img.getpixel((0, 0))}."
    return None


def _has_image(request: dict[str, Any]) -> bool:
    return any(isinstance(p, dict) and p.get("type") == "image_url"
               for m in request.get("messages", []) for p in
               (m.get("content") if isinstance(m.get("content"), list) else []))


def _completion(model: str, text: str) -> dict[str, Any]:
    return {"id": "chatcmpl-testweb", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 12, "total_tokens": 62}}


class _TestWebHandler(BaseHTTPRequestHandler):
    """Serves the `web` it is made for (`_handler`): its pages, files, redirects, search
    providers and OpenAI-style endpoints; every request is recorded in ``web.requests``."""

    web: TestWeb
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, status: int, body: bytes | str, ctype: str = "text/html; charset=utf-8",
              headers: dict[str, str] | None = None) -> None:
        data = body.encode("utf-8") if isinstance(body, str) else body
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj), "application/json")

    def _record(self, body: bytes) -> dict[str, Any]:
        parts = urllib.parse.urlsplit(self.path)
        rec: dict[str, Any] = {
            "method": self.command, "path": parts.path,
            "query": dict(urllib.parse.parse_qsl(parts.query)),
            "headers": {k.lower(): v for k, v in self.headers.items()}, "body": None}
        ctype = self.headers.get("Content-Type", "")
        if body and "json" in ctype:
            rec["body"] = json.loads(body)
        elif body and ctype.startswith("multipart/form-data"):
            msg = BytesParser(policy=_email_policy).parsebytes(
                b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body)
            form = {}
            for part in msg.iter_parts():
                name = part.get_param("name", header="content-disposition")
                payload = part.get_payload(decode=True)
                form[name] = ({"filename": part.get_filename(), "bytes": payload}
                              if part.get_filename() else payload.decode("utf-8"))
            rec["body"] = form
        with self.web._lock:
            self.web.requests.append(rec)
        return rec

    def do_GET(self) -> None:
        self._route(self._record(b""))

    def do_POST(self) -> None:
        n = int(self.headers.get("Content-Length", "0") or 0)
        self._route(self._record(self.rfile.read(n)))

    def _route(self, rec: dict[str, Any]) -> None:  # noqa: C901 (one table of routes)
        path, q, hdr = rec["path"], rec["query"], rec["headers"]
        body = rec["body"] if isinstance(rec["body"], dict) else {}
        if path in self.web.pages:
            return self._send(200, page_html(*self.web.pages[path]))
        if path.startswith("/files/") and path[7:] in self.web.files:
            f = self.web.files[path[7:]]
            ctype = mimetypes.guess_type(f.name)[0] or "application/octet-stream"
            return self._send(200, f.read_bytes(), ctype)
        redirects = {"/redirect": "/ships/grey-petrel",
                     "/redirect-localhost": f"http://localhost:{self.web.port}/visit",
                     "/redirect-metadata": "http://169.254.169.254/latest/meta-data/",
                     "/redirect-private": "http://10.0.0.7/admin",
                     "/redirect-ipv6": f"http://[::1]:{self.web.port}/visit"}
        if path in redirects:
            return self._send(302, "", headers={"Location": redirects[path]})
        if path == "/flaky":
            with self.web._lock:
                self.web._flaky_seen += 1
                first = self.web._flaky_seen == 1
            if first:
                return self._send(429, "slow down", "text/plain", {"Retry-After": "1"})
            return self._send(200, page_html(*self.web.pages["/visit"]))
        if path == "/notes.txt":
            return self._send(200, "Plain notes: the quay is 400 metres long.", "text/plain")
        provider = _provider_at(path)
        if provider is not None:
            return self._search(provider, q, hdr, body)
        if path.startswith(("/vision/v1/", "/textonly/v1/")):
            return self._openai(path, rec, body)
        self._send(404, "<h1>Not found</h1>")

    def _search(self, provider: type[SearchProvider], q: dict, hdr: dict,
                body: dict) -> None:
        """The provider's `sample_reply` over this web's pages ranked by BM25; a keyed
        provider's endpoint answers 401 unless its key is in a header, the query
        string or the JSON body."""
        key = KEYS.get(provider.name)
        sent = [*hdr.values(), *q.values(), *(v for v in body.values() if isinstance(v, str))]
        if key is not None and not any(key == v.removeprefix("Bearer ") for v in sent):
            return self._json(401, {"message": "Unauthorized.", "statusCode": 401})
        query, k = provider.sample_query(q, body)
        self._json(200, provider.sample_reply(query, self.web.hits(query, k)))

    def _openai(self, path: str, rec: dict, body: dict) -> None:
        capable = path.startswith("/vision/")
        if path.endswith("/models"):
            return self._json(200, {"object": "list", "data": [
                {"id": "fake-vision", "object": "model", "created": 0, "owned_by": "testweb"}]})
        if path.endswith("/audio/transcriptions"):
            if not capable:
                return self._json(404, {"detail": "Not Found"})
            f = body.get("file") or {}
            known = hashlib.sha256(self.web.files["greeting.wav"].read_bytes()).hexdigest()
            got = hashlib.sha256(f.get("bytes") or b"").hexdigest()
            return self._json(200, {"text": WAV_TRANSCRIPT if got == known
                                    else "(unrecognised audio)"})
        if path.endswith("/chat/completions"):
            model = body.get("model", "fake-vision")
            if _has_image(body) and not capable:
                return self._json(400, {"error": {
                    "message": f"{model} is not a multimodal model",
                    "type": "BadRequestError", "code": 400}})
            text = _image_answer(body) or "FINAL ANSWER: nothing to look at"
            return self._json(200, _completion(model, text))
        self._json(404, {"detail": "Not Found"})


def _handler(web: TestWeb) -> type[BaseHTTPRequestHandler]:
    """The request handler class serving `web`."""
    return type("Handler", (_TestWebHandler,), {"web": web})
