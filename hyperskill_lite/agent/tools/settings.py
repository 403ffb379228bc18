"""ToolSettings: every setting of the agent's tools in one frozen record.

The CLI (`cli/tool_options.py`) and a notebook build one `ToolSettings`, `build_toolbox`
(toolbox.py) turns it into a `Toolbox`, and `to_dict` is what a run records in run.json.
Keys are never settings: each provider reads its key from its usual environment variable
at build time (its class's ``key_env``), so nothing secret is ever written. The
search names, keys, endpoints and ``auto``'s order are derived from the registered
provider classes (providers/).

>>> s = ToolSettings(search="serper")
>>> s.http, s.sandbox, s.to_dict()["search"]
(True, 'bwrap', 'serper')

Not here: building the tools (toolbox.py), the CLI flags (cli/tool_options.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from hyperskill_lite.agent.tools.files import FILE_SCOPES
from hyperskill_lite.agent.tools.providers.base import provider_classes
from hyperskill_lite.agent.tools.sandbox import ISOLATIONS

__all__ = ["ToolSettings", "search_providers", "search_choices", "key_env", "endpoints",
           "auto_order", "resolve_search", "ENV_SEARCH", "LIMIT_FIELDS"]

ENV_SEARCH = "HYPERSKILL_SEARCH"


def search_providers() -> tuple[str, ...]:
    """Search backends by name: the registered providers (providers/, plugins included)
    in registration order, then the local corpus folder ("corpus")."""
    return (*provider_classes(), "corpus")


def search_choices() -> tuple[str, ...]:
    """What ``search`` takes: "auto", every provider, "none"."""
    return ("auto", *search_providers(), "none")


def key_env() -> dict[str, tuple[str, ...]]:
    """Where each provider's key is read from (the first variable set wins)."""
    return {n: c.key_env for n, c in provider_classes().items() if c.key_env}


def endpoints() -> dict[str, str]:
    """Each API's documented endpoint; `ToolSettings.search_url` overrides it (SearXNG
    has no public default: ``SEARXNG_URL`` or `search_url` names your instance)."""
    return {n: c.endpoint for n, c in provider_classes().items() if c.endpoint}


def auto_order() -> list[str]:
    """The providers ``auto`` may choose, in the order it tries them.

    >>> auto_order()[:6]
    ['url', 'serper', 'tavily', 'brave', 'jina', 'searxng']
    """
    ranked = [(c.auto_order, i, n) for i, (n, c) in enumerate(provider_classes().items())
              if c.auto_order is not None]
    return [n for _, _, n in sorted(ranked)]


LIMIT_FIELDS = ("max_page_bytes", "timeout", "fetch_deadline", "max_file_bytes",
                "convert_memory_mb", "convert_cpu_seconds", "convert_timeout",
                "max_inflated_bytes", "max_text_chars", "max_pdf_pages", "max_sheet_rows",
                "max_sheet_cols", "max_zip_members")
"""The settings that bound what the tools read (bytes, seconds, memory, rows, pages)."""


@dataclass(frozen=True)
class ToolSettings:
    """The agent's tools (see each field). Defaults are what a live run gets.

    Attributes
    ----------
    search
        One of `search_choices()`. "auto": the corpus when `corpus` is given, else the
        generic client when `search_url` is given, else the first provider in
        `auto_order()` configured in the environment (built in: the generic client when
        ``HYPERSKILL_SEARCH_URL`` is set, then the first of serper, tavily, brave, jina
        whose key is set, then SearXNG when ``SEARXNG_URL`` is set), else no web_search.
        "none": no web_search.
    search_url
        Overrides the provider's endpoint (a self-hosted SearXNG, a proxy, a test
        server); for "url", the generic GET endpoint.
    search_results
        Hits per query when the agent does not say (5, the anchor harness's count).
    corpus
        A folder of .txt/.md/.html pages: the "corpus" provider, and crawl_page reads
        its pages without HTTP.
    http
        crawl_page reads pages over HTTP(S) (on in every live run; off keeps a run offline).
    allow_local_urls
        Let crawl_page read loopback, private and link-local addresses (off: refused).
    crawl_summary
        crawl_page(url, query) has the model condense the page for the query, as the
        anchor harness does (its tokens count as tool tokens).
    vision_model, vision_base_url
        The model (and server) inspect_file_as_image asks; default the run's model.
    audio_model, audio_base_url
        The speech-to-text model (and server) inspect_file_as_audio posts to
        ``/audio/transcriptions``; default the run's server, model "whisper-1".
    media
        Offer inspect_file_as_image and inspect_file_as_audio (they need a model).
    sandbox
        The python tool's isolation, "bwrap" or "process" (sandbox.py).
    python
        Offer the python tool.
    search_cache
        Keep search results on disk (``HYPERSKILL_CACHE=off`` turns it off too).
    page_chars
        Long pages and files are read in pages of about this many characters.
    max_page_bytes, timeout
        Download cap per page (in inflated bytes: a compressed body is inflated as a
        stream and cut here; a decompression bomb or stacked encodings are refused) and
        seconds per connect and per read of an HTTP attempt.
    fetch_deadline
        Seconds for a whole page fetch, redirects and retries included, however slowly
        the server sends (a server sending one byte a second ends in a tool error here).
    max_file_bytes
        Largest attached file (or ZIP member) the file tools read.
    file_scope
        "attachments": the file tools read the current task's attachments only (the
        files its row names, checked to lie inside the data folder by the loader);
        "folder": anything inside the data folder too (the benchmark's metadata and its
        answers included: for local experiments only).
    convert_memory_mb, convert_cpu_seconds, convert_timeout
        The document converter's child process (documents/): address-space limit
        (RLIMIT_AS), CPU seconds per document (RLIMIT_CPU) and wall-clock seconds per
        document, after which it is stopped and the tool says so.
    max_inflated_bytes
        A ZIP-based document (DOCX, PPTX, XLSX, ZIP) whose members declare more inflated
        bytes than this in total is refused before it is parsed.
    max_text_chars
        Converted text kept per document or page (the rest is cut, and the text says so).
    max_pdf_pages, max_sheet_rows, max_sheet_cols, max_zip_members
        Pages of a PDF, rows and columns of a spreadsheet sheet (read cell by cell, never
        by the sheet's declared dimension) and members of a ZIP listing that are read.

    Limits are our choice (the paper and the anchor harness give none); docs/guide/
    web-safety.md lists them with their defaults.
    """

    search: str = "auto"
    search_url: str | None = None
    search_results: int = 5
    corpus: Path | None = None
    http: bool = True
    allow_local_urls: bool = False
    crawl_summary: bool = False
    vision_model: str | None = None
    vision_base_url: str | None = None
    audio_model: str | None = None
    audio_base_url: str | None = None
    media: bool = True
    sandbox: str = "bwrap"
    python: bool = True
    search_cache: bool = True
    page_chars: int = 5000
    max_page_bytes: int = 10_000_000
    timeout: float = 20.0
    fetch_deadline: float = 30.0
    max_file_bytes: int = 25_000_000
    file_scope: str = "attachments"
    convert_memory_mb: int = 1024
    convert_cpu_seconds: int = 30
    convert_timeout: float = 60.0
    max_inflated_bytes: int = 100_000_000
    max_text_chars: int = 2_000_000
    max_pdf_pages: int = 500
    max_sheet_rows: int = 10_000
    max_sheet_cols: int = 200
    max_zip_members: int = 1000

    def __post_init__(self) -> None:
        if self.search not in (choices := search_choices()):
            raise ValueError(f"search must be one of {', '.join(choices)}, "
                             f"got {self.search!r}")
        if self.sandbox not in ISOLATIONS:
            raise ValueError(f"sandbox must be one of {', '.join(ISOLATIONS)}, "
                             f"got {self.sandbox!r}")
        if self.search_results < 1 or self.page_chars < 500 or self.timeout <= 0:
            raise ValueError("search_results must be >= 1, page_chars >= 500, timeout > 0")
        if self.file_scope not in FILE_SCOPES:
            raise ValueError(f"file_scope must be one of {', '.join(FILE_SCOPES)}, "
                             f"got {self.file_scope!r}")
        if self.fetch_deadline <= 0 or self.convert_timeout <= 0:
            raise ValueError("fetch_deadline and convert_timeout must be > 0 seconds")
        if self.convert_memory_mb < 256:
            raise ValueError("convert_memory_mb must be >= 256 (the converter's Python and "
                             f"its libraries need that much), got {self.convert_memory_mb}")
        small = [f for f in LIMIT_FIELDS if f not in ("fetch_deadline", "convert_timeout")
                 and getattr(self, f) < 1]
        if small:
            raise ValueError(f"{', '.join(small)} must be >= 1")
        if self.corpus is not None and not isinstance(self.corpus, Path):
            object.__setattr__(self, "corpus", Path(self.corpus))

    def limits(self) -> dict[str, Any]:
        """The limits on what the tools read (`LIMIT_FIELDS`), by name."""
        return {f: getattr(self, f) for f in LIMIT_FIELDS}

    def replace(self, **changes: Any) -> ToolSettings:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready settings (paths as text), for run.json; never a key."""
        d = asdict(self)
        d["corpus"] = str(self.corpus) if self.corpus is not None else None
        return d


def resolve_search(settings: ToolSettings, environ: Mapping[str, str] | None = None) -> str:
    """The provider a run uses ("none" for no web_search); see `ToolSettings.search`.

    >>> resolve_search(ToolSettings(), {"TAVILY_API_KEY": "tvly-x"})
    'tavily'
    >>> resolve_search(ToolSettings(corpus=Path("pages")), {"SERPER_API_KEY": "k"})
    'corpus'
    >>> resolve_search(ToolSettings(), {})
    'none'
    """
    env = os.environ if environ is None else environ
    if settings.search != "auto":
        return settings.search
    if settings.corpus is not None:
        return "corpus"
    if settings.search_url:
        return "url"
    classes = provider_classes()
    return next((n for n in auto_order() if classes[n].configured(env)), "none")
