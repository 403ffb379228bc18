"""Toolbox: the agent's tools, their OpenAI schemas, one entry point, and its builder.

``call(name, arguments) -> str`` runs a tool; a bad call or a tool failure comes back as
one line starting with "Error:" so the agent reads it and goes on. It never raises:
any exception of a tool (``MemoryError``, ``LookupError``, ``RecursionError`` and the
rest of ``Exception``; not ``KeyboardInterrupt`` or ``SystemExit``) becomes that one
line, and every failed call is kept in `Toolbox.log` (tool, seconds, exception, line)
and logged (an unexpected exception as a WARNING, its traceback in the run's log file).
The tools, after the anchor harness (EvolveLab's Flash-Searcher) and the paper's
decomposition prompts:

- web_search(query, max_results=5): the configured provider (providers/);
- crawl_page(url, query=None, page=1): a page from the corpus or over HTTP, in pages
  (pages.py); with ``crawl_summary`` and a query, the model condenses the page's first
  60,000 characters for the query, as the anchor harness's crawl_page does;
- python(code): the contained sandbox (sandbox.py);
- inspect_file_as_text(path, question=None, page=1): documents (files.py); a question is
  answered by the model from the file's first 60,000 characters;
- inspect_file_as_image(path, question=None), inspect_file_as_audio(path, question=None):
  media.py (offered when the toolbox has a model).

Arguments are named as the paper's prompts name them (``path``); the anchor harness's
``file_path`` is accepted too. Model tokens spent inside tools are counted under ops
named ``tool:<what>`` (see `TOOL_OPS`).

`build_toolbox(settings, llm, files_root=...)` builds the toolbox a `ToolSettings`
describes; `Toolbox.info` is what a run records of it.

Not here: the agent loop (loop.py), each tool's machinery (the modules named above).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from hyperskill_lite.agent.framing import quote
from hyperskill_lite.agent.prompts import CRAWL_SUMMARY, FILE_QUESTION
from hyperskill_lite.agent.tools.corpus import LocalCorpus
from hyperskill_lite.agent.tools.documents.kinds import Caps, DocumentError
from hyperskill_lite.agent.tools.documents.service import Converter, shared_converter
from hyperskill_lite.agent.tools.files import FileAccess
from hyperskill_lite.agent.tools.hits import SearchBackend, format_hits
from hyperskill_lite.agent.tools.media import OP_AUDIO, OP_IMAGE, MediaError, MediaTools
from hyperskill_lite.agent.tools.net import FetchError, HttpClient, UrlGuard
from hyperskill_lite.agent.tools.pages import PageReader, paged
from hyperskill_lite.agent.tools.providers.url import HttpSearch
from hyperskill_lite.agent.tools.readers import reader_report, warn_degraded
from hyperskill_lite.agent.tools.sandbox import PythonSandbox
from hyperskill_lite.agent.tools.search import make_search
from hyperskill_lite.agent.tools.settings import ToolSettings, resolve_search
from hyperskill_lite.errors import LLMError
from hyperskill_lite.llm.replies import strip_thinking
from hyperskill_lite.llm.text import fill

log = logging.getLogger(__name__)

__all__ = ["Toolbox", "TOOL_SCHEMAS", "TOOL_OPS", "build_toolbox", "tool_schema",
           "MODEL_TEXT_CHARS"]

MODEL_TEXT_CHARS = 60_000
"""Characters of a page or file a model reads to summarise it or answer a question (the
anchor harness's crawl_page limit)."""
LOG_KEPT = 1000
"""Failed calls `Toolbox.log` keeps (the latest)."""
OP_CRAWL, OP_FILE = "tool:crawl_summary", "tool:inspect_file_as_text"
TOOL_OPS = (OP_CRAWL, OP_FILE, OP_IMAGE, OP_AUDIO)
"""The op names under which model calls made inside tools are counted."""


def _fn(name: str, description: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": props, "required": required}}}


_PAGE = {"type": "integer", "description": "which page of a long text to read (default 1)"}
_Q = {"type": "string", "description": "optional question to answer from the file"}
TOOL_SCHEMAS: dict[str, dict[str, Any]] = {
    "web_search": _fn(
        "web_search", "Search the web with specific keywords; returns titles, URLs and snippets.",
        {"query": {"type": "string", "description": "specific keywords"},
         "max_results": {"type": "integer", "description": "how many results (default 5)"}},
        ["query"]),
    "crawl_page": _fn(
        "crawl_page", "Read a web page (or a PDF/office document at a URL): its main text, "
        "then its links. Long pages come in pages: pass page=2, 3, ... to read on.",
        {"url": {"type": "string", "description": "the page URL"}, "page": _PAGE},
        ["url"]),
    "python": _fn(
        "python", "Run Python code for calculations or data processing; returns what it prints.",
        {"code": {"type": "string", "description": "Python source; print() the results"}},
        ["code"]),
    "inspect_file_as_text": _fn(
        "inspect_file_as_text", "Read an attached file as text: PDF, DOCX, PPTX, XLSX/XLS, "
        "CSV, HTML, JSON/JSON-LD, ZIP (lists members; read one as archive.zip/member) and "
        "text files. Long files come in pages.",
        {"path": {"type": "string", "description": "path of the file"}, "question": _Q,
         "page": _PAGE},
        ["path"]),
    "inspect_file_as_image": _fn(
        "inspect_file_as_image", "Look at an image file (png, jpg, gif, bmp, webp) and answer "
        "a question about it (or describe it).",
        {"path": {"type": "string", "description": "path of the image"},
         "question": {"type": "string", "description": "what to find out from the image"}},
        ["path"]),
    "inspect_file_as_audio": _fn(
        "inspect_file_as_audio", "Transcribe an audio file (mp3, m4a, wav, ...) and answer a "
        "question about it.",
        {"path": {"type": "string", "description": "path of the audio file"},
         "question": {"type": "string", "description": "what to find out from the audio"}},
        ["path"]),
}


def tool_schema(name: str, *, crawl_query: bool = False) -> dict[str, Any]:
    """The OpenAI schema of tool `name`; crawl_page takes a ``query`` when the model
    condenses pages (``crawl_summary``)."""
    schema = TOOL_SCHEMAS[name]
    if name == "crawl_page" and crawl_query:
        fn = dict(schema["function"])
        params = dict(fn["parameters"])
        params["properties"] = {**params["properties"], "query": {
            "type": "string", "description": "what to extract from the page (the page is "
            "condensed for it)"}}
        fn["parameters"], fn["description"] = params, (
            "Read a web page and extract what matters for a query; without a query, its "
            "text in pages.")
        return {"type": "function", "function": fn}
    return schema


_ALIASES = {"file_path": "path"}
_REPORTED = (PermissionError, FileNotFoundError, IsADirectoryError, DocumentError, FetchError)
"""Failures whose message is the whole line the agent reads."""
_EXPECTED = (*_REPORTED, MediaError, OSError, ValueError, RuntimeError)
"""Failures a tool reports on purpose (a search API's RuntimeError); anything else
(``LookupError``, ``MemoryError``, ``RecursionError``, a ``TypeError`` inside a tool, a
library's bug) is unexpected."""


class Toolbox:
    """The tools an `AgentExecutor` may call (see the module docstring).

    Parameters
    ----------
    search
        A search backend; defaults to `corpus` when one is given.
    corpus
        A `LocalCorpus` for web_search and crawl_page.
    allow_http
        Let crawl_page read pages over HTTP(S) that the corpus does not have.
    allow_local_urls, allow_hosts
        Let it read local and private addresses (all of them, or these hosts).
    python
        A `PythonSandbox`, True for the default one, or False to leave the tool out.
    files_root
        Files are read only inside this folder and the task's `attachments`.
    llm
        The run's model: crawl summaries, file questions, images and audio.
    media
        Offer inspect_file_as_image and inspect_file_as_audio (needs `llm`).
    max_chars
        Tool outputs are cut to this many characters (a page of text fits).
    max_file_bytes, max_page_bytes, timeout, fetch_deadline
        Largest file read; download cap per page, seconds per HTTP connect or read, and
        seconds for a whole fetch (`ToolSettings`).
    caps, converter
        What one document conversion reads at most, and the limited child process that
        converts (default: the process's shared converter with default limits).
    file_scope
        "folder" (the task's attachments and anything in `files_root`) or
        "attachments" (the task's attachments only: what a live run uses).
    """

    def __init__(
        self,
        *,
        search: SearchBackend | None = None,
        corpus: LocalCorpus | None = None,
        allow_http: bool = False,
        allow_local_urls: bool = False,
        allow_hosts: Iterable[str] = (),
        python: PythonSandbox | bool = True,
        files_root: str | Path | None = None,
        llm: Any = None,
        media: bool = True,
        crawl_summary: bool = False,
        vision_model: str | None = None,
        vision_base_url: str | None = None,
        audio_model: str | None = None,
        audio_base_url: str | None = None,
        search_results: int = 5,
        page_chars: int = 5000,
        max_chars: int = 8000,
        max_file_bytes: int = 25_000_000,
        max_page_bytes: int = 10_000_000,
        timeout: float = 20.0,
        fetch_deadline: float = 30.0,
        caps: Caps | None = None,
        converter: Converter | None = None,
        file_scope: str = "folder",
    ) -> None:
        self.search = search if search is not None else corpus
        self.corpus = corpus
        self.allow_http = allow_http
        self.allow_local_urls = allow_local_urls
        http = (HttpClient(guard=UrlGuard(allow_local_urls, allow_hosts), timeout=timeout,
                           max_bytes=max_page_bytes, deadline=fetch_deadline)
                if allow_http else None)
        self.caps = caps or Caps()
        self.converter = converter if converter is not None else shared_converter()
        self.pages = PageReader(http, corpus, converter=self.converter, caps=self.caps)
        self.sandbox = PythonSandbox() if python is True else python or None
        self.files = FileAccess(files_root, max_bytes=max_file_bytes, scope=file_scope)
        warn_degraded()  # once per process, when a reader is missing
        self.log: list[dict[str, Any]] = []
        """Every failed call: tool, seconds, exception class, the line the agent read,
        and whether the exception was unexpected (a tool that raised past its own
        error handling)."""
        self.llm = llm
        self.crawl_summary = crawl_summary and llm is not None
        self.media = (MediaTools(llm, vision_model=vision_model, vision_base_url=vision_base_url,
                                 audio_model=audio_model, audio_base_url=audio_base_url)
                      if media and llm is not None else None)
        self.search_results = search_results
        self.page_chars = page_chars
        self.max_chars = max_chars
        self.settings: ToolSettings | None = None
        self._tools: dict[str, Callable[..., str]] = {}
        if self.search is not None:
            self._tools["web_search"] = self.web_search
        if self.corpus is not None or allow_http:
            self._tools["crawl_page"] = self.crawl_page
        if self.sandbox is not None:
            self._tools["python"] = self.python
        self._tools["inspect_file_as_text"] = self.inspect_file_as_text
        if self.media is not None:
            self._tools["inspect_file_as_image"] = self.inspect_file_as_image
            self._tools["inspect_file_as_audio"] = self.inspect_file_as_audio

    @classmethod
    def from_env(cls, corpus: str | Path | None = None, **kw: Any) -> Toolbox:
        """Search from ``HYPERSKILL_SEARCH_URL`` when set, a local corpus folder when
        given; no HTTP pages (kept for existing callers; `build_toolbox` is the full one)."""
        return cls(search=HttpSearch.from_env(), corpus=LocalCorpus(corpus) if corpus else None,
                   **kw)

    # -- the interface the loop uses -------------------------------------------------
    @property
    def attachments(self) -> set[Path]:
        """Files of the current task that may be read wherever they are."""
        return self.files.attachments

    @attachments.setter
    def attachments(self, paths: Iterable[Path]) -> None:
        self.files.attachments = set(paths)

    @property
    def files_root(self) -> Path | None:
        return self.files.root

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def schemas(self) -> list[dict[str, Any]]:
        """OpenAI tool schemas of the available tools."""
        return [tool_schema(n, crawl_query=self.crawl_summary) for n in self._tools]

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        """Run tool `name`; a bad call or any failure returns one "Error: ..." line
        (module docstring), never an exception."""
        fn = self._tools.get(name)
        if fn is None:
            return f"Error: unknown tool {name!r}; available tools: {', '.join(self._tools)}"
        if not isinstance(arguments, dict):
            return f"Error: arguments of {name} must be a JSON object"
        args = {_ALIASES.get(k, k): v for k, v in arguments.items()}
        t0 = time.monotonic()
        try:
            out = fn(**args)
        except Exception as e:  # noqa: BLE001 (the promise: a tool never raises)
            return self._failed(name, e, time.monotonic() - t0)
        if not isinstance(out, str):
            out = str(out)
        if len(out) > self.max_chars:
            out = out[: self.max_chars] + f"\n[... truncated, {len(out) - self.max_chars} more characters]"
        return out

    def _failed(self, name: str, e: Exception, seconds: float) -> str:
        """The one line the agent reads for a failed call; the call kept in `log`."""
        expected = isinstance(e, _EXPECTED) and not isinstance(e, RecursionError)
        if isinstance(e, TypeError) and e.__traceback__ is not None and \
                e.__traceback__.tb_next is None:  # raised by the call itself: bad arguments
            line, expected = f"bad arguments for {name}: {e}", True
        elif isinstance(e, _REPORTED):
            line = str(e)
        elif isinstance(e, RecursionError):
            line = f"{name} failed: the input is nested too deeply (RecursionError)"
        elif expected:
            line = f"{name} failed: {e}"
        elif isinstance(e, MemoryError):
            line = f"{name} ran out of memory: the input is too large to read"
        else:
            line = f"{name} failed unexpectedly ({type(e).__name__}: {e})"
        line = "Error: " + (" ".join(line.split())[:400] or type(e).__name__)
        self.log.append({"tool": name, "seconds": round(seconds, 3),
                         "exception": type(e).__name__, "error": line,
                         "unexpected": not expected})
        del self.log[:-LOG_KEPT]  # a long run keeps the latest failures only
        if expected:
            log.info("tool %s: %s (%.1f s)", name, line, seconds)
        else:
            log.warning("tool %s raised %s after %.1f s; the agent was told: %s", name,
                        type(e).__name__, seconds, line)
            log.info("tool %s: the exception", name, exc_info=e)
        return line

    def take_log(self) -> list[dict[str, Any]]:
        """The failed calls since the last `take_log` (and forget them)."""
        out, self.log = self.log, []
        return out

    def readers(self) -> dict[str, Any]:
        """Which HTML extractor and document converters this toolbox reads with
        (readers.py `reader_report`)."""
        return reader_report()

    def info(self) -> dict[str, Any]:
        """What a run records of its tools (run.json): tools, search provider and
        endpoint, page reading, sandbox asked for and in use; never a key."""
        search = self.search
        backend = getattr(search, "backend", search)
        out: dict[str, Any] = {
            "tools": self.names,
            "search": getattr(search, "name", None) if search is not None else None,
            "search_endpoint": getattr(backend, "url", None),
            "http": self.allow_http,
            "allow_local_urls": self.allow_local_urls,
            "crawl_summary": self.crawl_summary,
        }
        if self.sandbox is not None:
            out["sandbox"] = {"requested": self.sandbox.isolation, "used": self.sandbox.mode,
                              "fallback_reason": self.sandbox.fallback_reason}
        if self.media is not None:
            out["vision_model"] = self.media.vision_model
            out["audio_model"] = self.media.audio_model or "whisper-1"
        if self.settings is not None:
            out["settings"] = self.settings.to_dict()
        out["readers"] = self.readers()
        out["file_scope"] = self.files.scope
        return out

    # -- the tools -------------------------------------------------------------------
    def _ask(self, op: str, prompt: str) -> str:
        reply = self.llm.chat([{"role": "user", "content": prompt}], op=op)
        return strip_thinking(reply.content).strip()

    def web_search(self, query: str, max_results: int | None = None) -> str:
        if self.search is None:
            return "Error: no search backend configured"
        k = max(1, min(int(max_results or self.search_results), 20))
        return format_hits(str(query), self.search.search(str(query), k))

    def crawl_page(self, url: str, query: str | None = None, page: int = 1) -> str:
        got = self.pages.read(str(url))
        header = (f"Title: {got.title}\n" if got.title else "") + f"URL: {got.url}"
        if got.note:
            header += f"\n{got.note}"
        if query and self.crawl_summary:
            text = got.text[:MODEL_TEXT_CHARS]
            try:
                summary = self._ask(OP_CRAWL, fill(CRAWL_SUMMARY, query=str(query), url=got.url,
                                                   content=quote(text, "web page", lines=True)))
                return (f"{header}\nExtracted for {str(query)!r} by the model from "
                        f"{len(text):,} of {len(got.text):,} characters:\n\n{summary}")
            except LLMError as e:
                header += f"\n(the model could not condense the page: {e.detail[:160]}; its text follows)"
        return paged(header, got.text, int(page), self.page_chars, "crawl_page")

    def python(self, code: str) -> str:
        if self.sandbox is None:
            return "Error: the python tool is disabled"
        return self.sandbox.run(str(code))

    def inspect_file_as_text(self, path: str, question: str | None = None, page: int = 1) -> str:
        name, data = self.files.read(str(path))
        title, text = self.converter.document(name, data, self.caps)
        header = f"File: {path}" + (f"\nTitle: {title}" if title and title != name else "")
        if question and self.llm is not None:
            body = text[:MODEL_TEXT_CHARS]
            try:
                answer = self._ask(OP_FILE, fill(FILE_QUESTION, name=name,
                                                 content=quote(body, "file", lines=True),
                                                 question=str(question)))
                return f"{header}\nAnswer from the model, which read {len(body):,} of " \
                       f"{len(text):,} characters:\n\n{answer}"
            except LLMError as e:
                header += f"\n(the model could not answer: {e.detail[:160]}; the text follows)"
        return paged(header, text, int(page), self.page_chars, "inspect_file_as_text")

    def inspect_file_as_image(self, path: str, question: str | None = None) -> str:
        name, data = self.files.read(str(path))
        return self.media.image(name, data, question)

    def inspect_file_as_audio(self, path: str, question: str | None = None) -> str:
        name, data = self.files.read(str(path))
        return self.media.audio(name, data, question)


def build_toolbox(settings: ToolSettings, llm: Any = None, *, files_root: str | Path | None = None,
                  environ: Mapping[str, str] | None = None, require_keys: bool = True,
                  **kw: Any) -> Toolbox:
    """The toolbox `settings` describes, with `llm` for the tools that ask the model and
    `files_root` the folder the agent may read files in (plus each task's attachments).
    ``require_keys=False`` is for a replay: the same tools, no search key needed (a
    replay runs no tool). `kw` goes to `Toolbox` (e.g. ``allow_hosts``).

    Raises
    ------
    ValueError, FileNotFoundError
        One line naming the setting: a provider without its key, a missing corpus folder.
    """
    env = os.environ if environ is None else environ
    corpus = LocalCorpus(settings.corpus) if settings.corpus is not None else None
    search = (corpus if resolve_search(settings, env) == "corpus"
              else make_search(settings, env, require_keys=require_keys))
    box = Toolbox(
        caps=Caps.from_settings(settings), converter=shared_converter(
            settings.convert_memory_mb, settings.convert_cpu_seconds, settings.convert_timeout),
        fetch_deadline=settings.fetch_deadline, max_file_bytes=settings.max_file_bytes,
        file_scope=settings.file_scope,
        search=search, corpus=corpus, allow_http=settings.http,
        allow_local_urls=settings.allow_local_urls,
        python=PythonSandbox(isolation=settings.sandbox) if settings.python else False,
        files_root=files_root, llm=llm, media=settings.media,
        crawl_summary=settings.crawl_summary, vision_model=settings.vision_model,
        vision_base_url=settings.vision_base_url, audio_model=settings.audio_model,
        audio_base_url=settings.audio_base_url, search_results=settings.search_results,
        page_chars=settings.page_chars, max_page_bytes=settings.max_page_bytes,
        timeout=settings.timeout, **kw)
    box.settings = settings
    return box
