"""The agent's tools, one concern per module (after the anchor harness, EvolveLab's
Flash-Searcher: web_search, crawl_page, inspect_file_as_text/_image/_audio; plus python):

- `settings` — `ToolSettings`, every setting in one frozen record (run.json: `to_dict`);
- `toolbox` — `Toolbox` (the tools, their schemas, ``call``) and `build_toolbox`;
- `providers/` — search providers, one `SearchProvider` class per module (Serper,
  Tavily, Brave, SearXNG, Jina, DuckDuckGo, the generic GET client), registered
  (`register_provider`, or the ``hyperskill_lite.search`` entry points); `search` —
  `make_search`, the run's backend; `hits` — `SearchHit`;
  `search_cache` — results kept on disk; `corpus` — `LocalCorpus` (BM25 over a folder);
- `net` — the HTTP client and the guard against local and private addresses; `body` —
  bodies inflated under a cap, a deadline for a whole fetch;
  `pages` — crawl_page's reader and paging; `html` — main content, then links;
- `files` — which files may be read and where attachments may point; `documents/` —
  documents as text, converted in a limited child process and cached; `readers` —
  which extractor and converters are available; `media` — images and audio;
- `sandbox` — `PythonSandbox` (bubblewrap, or process limits);
- `preflight` — the tools' share of a live run's preflight: the sandbox can run here
  (`check_sandbox`), the model capabilities the tasks' files need (`needs_for`).

Not here: the agent loop (loop.py), the model client (llm/client.py), the hermetic and hostile
webs tests use (`hyperskill_lite.testing`).
"""

from hyperskill_lite.agent.tools.corpus import LocalCorpus, bm25_scores, tokenize
from hyperskill_lite.agent.tools.documents.formats import convert
from hyperskill_lite.agent.tools.documents.kinds import Caps, DocumentError
from hyperskill_lite.agent.tools.documents.service import Converter, shared_converter
from hyperskill_lite.agent.tools.files import FileAccess, OutsideFolder, contained
from hyperskill_lite.agent.tools.hits import SearchBackend, SearchHit, format_hits
from hyperskill_lite.agent.tools.html import html_to_text, page_text
from hyperskill_lite.agent.tools.media import MediaError, MediaTools
from hyperskill_lite.agent.tools.net import (
    ContentRefused,
    FetchError,
    HttpClient,
    UrlGuard,
    UrlRefused,
)
from hyperskill_lite.agent.tools.pages import PageReader, paged
from hyperskill_lite.agent.tools.providers.base import (
    SearchProvider,
    provider_classes,
    register_provider,
)
from hyperskill_lite.agent.tools.providers.brave import BraveSearch
from hyperskill_lite.agent.tools.providers.duckduckgo import DuckDuckGoSearch
from hyperskill_lite.agent.tools.providers.jina import JinaSearch
from hyperskill_lite.agent.tools.providers.searxng import SearxngSearch
from hyperskill_lite.agent.tools.providers.serper import SerperSearch
from hyperskill_lite.agent.tools.providers.tavily import TavilySearch
from hyperskill_lite.agent.tools.providers.url import HttpSearch
from hyperskill_lite.agent.tools.readers import reader_lines, reader_report
from hyperskill_lite.agent.tools.sandbox import ISOLATIONS, PythonSandbox, safe_env
from hyperskill_lite.agent.tools.search import make_search
from hyperskill_lite.agent.tools.search_cache import CachedSearch, SearchCache
from hyperskill_lite.agent.tools.settings import (
    ToolSettings,
    resolve_search,
    search_choices,
    search_providers,
)
from hyperskill_lite.agent.tools.toolbox import TOOL_OPS, TOOL_SCHEMAS, Toolbox, build_toolbox

__all__ = [
    "Toolbox", "build_toolbox", "ToolSettings", "TOOL_SCHEMAS", "TOOL_OPS",
    "search_providers", "search_choices", "resolve_search", "make_search",
    "SearchProvider", "register_provider", "provider_classes",
    "SearchHit", "SearchBackend", "format_hits", "SearchCache", "CachedSearch",
    "LocalCorpus", "HttpSearch", "SerperSearch", "TavilySearch", "BraveSearch",
    "SearxngSearch", "JinaSearch", "DuckDuckGoSearch",
    "HttpClient", "UrlGuard", "FetchError", "UrlRefused", "ContentRefused", "PageReader",
    "paged", "FileAccess", "DocumentError", "convert", "contained", "OutsideFolder",
    "Caps", "Converter", "shared_converter", "reader_report", "reader_lines",
    "MediaTools", "MediaError",
    "PythonSandbox", "safe_env", "ISOLATIONS",
    "html_to_text", "page_text", "bm25_scores", "tokenize",
]

