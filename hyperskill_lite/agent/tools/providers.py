"""Search providers: each web search API as its documentation describes it.

Every provider sends its documented request and reads only its web results:

=========== ====== ===================================== ======================= =========================
provider    method endpoint (``search_url`` overrides) key                     hits read from
=========== ====== ===================================== ======================= =========================
serper      POST   https://google.serper.dev/search      ``X-API-KEY`` header    ``organic`` (title, link,
                   JSON ``{"q", "num", "location"}``      (``SERPER_API_KEY``)    snippet, date)
tavily      POST   https://api.tavily.com/search         ``Authorization:        ``results`` (title, url,
                   JSON ``{"query", "max_results", ...}`` Bearer`` (TAVILY_...)   content, published_date)
brave       GET    .../res/v1/web/search ``?q=&count=``  ``X-Subscription-Token`` ``web.results`` only (never
                                                         (``BRAVE_API_KEY``)     ``news`` or ``videos``)
searxng     GET    <instance>/search ``?q=&format=json`` none (``SEARXNG_URL``)   ``results``
jina        GET    https://s.jina.ai/ ``?q=``            ``Authorization:        ``data`` (title, url,
                                                         Bearer`` (JINA_API_KEY)  description)
duckduckgo  --     the ``ddgs`` package, DuckDuckGo      none                    ``DDGS().text`` rows
                   backend                                                       (title, href, body)
url         GET    ``HYPERSKILL_SEARCH_URL`` ``?q=&count=`` configurable          the first list of objects
                                                                                 with a URL (``web``,
                                                                                 ``organic``, ``results``
                                                                                 looked at first)
=========== ====== ===================================== ======================= =========================

Serper with 5 results and ``"location": "United States"`` is what the anchor harness
(EvolveLab's Flash-Searcher, ``web_search``) sends. Requests go through `HttpClient`
(timeouts, retries on 429 and 5xx); errors are one line without the key. `make_search`
builds the provider a `ToolSettings` names, wrapped in the on-disk `SearchCache`.

Not here: the local corpus (corpus.py), the cache (search_cache.py), how hits are shown
to the agent (hits.py).
"""

from __future__ import annotations

import json
import os
import urllib.parse
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from hyperskill_lite.agent.tools.corpus import LocalCorpus
from hyperskill_lite.agent.tools.hits import SearchBackend, SearchHit
from hyperskill_lite.agent.tools.net import FetchError, HttpClient
from hyperskill_lite.agent.tools.search_cache import CachedSearch, SearchCache
from hyperskill_lite.agent.tools.settings import (
    ENDPOINTS,
    KEY_ENV,
    ToolSettings,
    resolve_search,
)

__all__ = ["ApiSearch", "SerperSearch", "TavilySearch", "BraveSearch", "SearxngSearch",
           "JinaSearch", "DuckDuckGoSearch", "HttpSearch", "PROVIDER_CLASSES", "make_search",
           "ddgs_hits", "find_hits"]


def _s(x: Any) -> str:
    return "" if x is None else " ".join(str(x).split())


class ApiSearch(ABC):
    """A JSON search API: subclasses give the request (`_request`) and read the hits
    (`_hits`); this class sends it, checks the answer and keeps the key out of errors."""

    name = "api"
    needs_key = True

    def __init__(self, url: str, key: str | None = None, *, http: HttpClient | None = None,
                 timeout: float = 20.0) -> None:
        self.url = url
        self._key = key
        self.http = http or HttpClient(timeout=timeout, max_bytes=5_000_000)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r})"

    @abstractmethod
    def _request(self, query: str, k: int) -> tuple[str, dict | None, Any, dict[str, str]]:
        """(method, query parameters, JSON body, headers)."""

    @abstractmethod
    def _hits(self, data: Any) -> list[SearchHit]:
        """The web results of the provider's decoded reply, nothing else."""

    def _redact(self, text: str) -> str:
        return text.replace(self._key, "***") if self._key else text

    def search(self, query: str, k: int = 5) -> list[SearchHit]:
        method, params, body, headers = self._request(query, k)
        try:
            got = self.http.request(method, self.url, params=params, json=body, headers=headers)
        except FetchError as e:
            raise RuntimeError(self._redact(f"{self.name} search failed: {e}")) from None
        if not got.ok:
            detail = " ".join(got.text().split())[:200]
            hint = {401: "the key was refused", 403: "the key was refused",
                    429: "rate limit or quota reached"}.get(got.status, "")
            env = "/".join(KEY_ENV.get(self.name, ()))
            what = f"{hint}; check {env}" if hint and env else hint or "the API refused the request"
            raise RuntimeError(self._redact(
                f"{self.name} search failed (HTTP {got.status}, {what}): {detail}"))
        try:
            data = json.loads(got.body)
        except json.JSONDecodeError:
            raise RuntimeError(f"{self.name} search failed: the reply from "
                               f"{_host(self.url)} is not JSON") from None
        return self._hits(data)[:k]


class SerperSearch(ApiSearch):
    """Serper (Google results): ``POST {"q", "num", "location"}`` with ``X-API-KEY``."""

    name = "serper"

    def _request(self, query: str, k: int):
        return ("POST", None, {"q": query, "num": k, "location": "United States"},
                {"X-API-KEY": self._key or "", "Content-Type": "application/json"})

    def _hits(self, data: Any) -> list[SearchHit]:
        rows = data.get("organic") if isinstance(data, dict) else None
        rows = [r for r in rows or [] if isinstance(r, dict) and r.get("link")]
        rows.sort(key=lambda r: r.get("position", 0) if isinstance(r.get("position"), int) else 0)
        return [SearchHit(_s(r.get("title")), str(r["link"]), _s(r.get("snippet")),
                          _s(r.get("date"))) for r in rows]


class TavilySearch(ApiSearch):
    """Tavily: ``POST {"query", "max_results", "search_depth": "basic"}``, Bearer key."""

    name = "tavily"

    def _request(self, query: str, k: int):
        return ("POST", None,
                {"query": query, "max_results": k, "search_depth": "basic", "topic": "general"},
                {"Authorization": f"Bearer {self._key or ''}", "Content-Type": "application/json"})

    def _hits(self, data: Any) -> list[SearchHit]:
        rows = data.get("results") if isinstance(data, dict) else None
        return [SearchHit(_s(r.get("title")), str(r["url"]), _s(r.get("content")),
                          _s(r.get("published_date")))
                for r in rows or [] if isinstance(r, dict) and r.get("url")]


class BraveSearch(ApiSearch):
    """Brave: ``GET ?q=&count=`` with ``X-Subscription-Token``; web results only."""

    name = "brave"

    def _request(self, query: str, k: int):
        return ("GET", {"q": query, "count": min(k, 20)}, None,
                {"X-Subscription-Token": self._key or "", "Accept": "application/json"})

    def _hits(self, data: Any) -> list[SearchHit]:
        web = data.get("web") if isinstance(data, dict) else None
        rows = web.get("results") if isinstance(web, dict) else None
        return [SearchHit(_s(r.get("title")), str(r["url"]), _s(r.get("description")),
                          _s(r.get("page_age") or r.get("age")))
                for r in rows or [] if isinstance(r, dict) and r.get("url")]


class SearxngSearch(ApiSearch):
    """SearXNG: ``GET <instance>/search?q=&format=json`` (the instance must enable the
    json format); an optional key is sent as a Bearer token."""

    name = "searxng"
    needs_key = False

    def __init__(self, url: str, key: str | None = None, **kw: Any) -> None:
        p = urllib.parse.urlsplit(url)
        if not p.path.rstrip("/").endswith("/search"):
            url = urllib.parse.urlunsplit(p._replace(path=p.path.rstrip("/") + "/search"))
        super().__init__(url, key, **kw)

    def _request(self, query: str, k: int):
        headers = {"Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        return ("GET", {"q": query, "format": "json", "pageno": 1}, None, headers)

    def _hits(self, data: Any) -> list[SearchHit]:
        rows = data.get("results") if isinstance(data, dict) else None
        return [SearchHit(_s(r.get("title")), str(r["url"]), _s(r.get("content")),
                          _s(r.get("publishedDate")))
                for r in rows or [] if isinstance(r, dict) and r.get("url")]


class JinaSearch(ApiSearch):
    """Jina search (s.jina.ai): ``GET ?q=`` with a Bearer key and ``Accept:
    application/json``, without page contents (``X-Respond-With: no-content``)."""

    name = "jina"

    def _request(self, query: str, k: int):
        headers = {"Accept": "application/json", "X-Respond-With": "no-content"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        return ("GET", {"q": query}, None, headers)

    def _hits(self, data: Any) -> list[SearchHit]:
        rows = data.get("data") if isinstance(data, dict) else None
        return [SearchHit(_s(r.get("title")), str(r["url"]),
                          _s(r.get("description") or r.get("content"))[:500], _s(r.get("date")))
                for r in rows or [] if isinstance(r, dict) and r.get("url")]


def ddgs_hits(rows: Any) -> list[SearchHit]:
    """Hits from ``ddgs.DDGS().text(...)`` rows (``{"title", "href", "body"}``).

    >>> ddgs_hits([{"title": "T", "href": "https://a.org/", "body": "B"}, {"title": "x"}])
    [SearchHit(title='T', url='https://a.org/', snippet='B', date='')]
    """
    return [SearchHit(_s(r.get("title")), str(r["href"]), _s(r.get("body")))
            for r in rows or [] if isinstance(r, dict) and r.get("href")]


class DuckDuckGoSearch:
    """DuckDuckGo through the maintained ``ddgs`` package (no key; its DuckDuckGo backend)."""

    name = "duckduckgo"

    def __init__(self, timeout: float = 20.0, region: str = "us-en") -> None:
        self.timeout, self.region = timeout, region
        self.url = "ddgs:duckduckgo"

    def __repr__(self) -> str:
        return "DuckDuckGoSearch()"

    def search(self, query: str, k: int = 5) -> list[SearchHit]:
        try:
            from ddgs import DDGS
            from ddgs.exceptions import DDGSException
        except ImportError:
            raise RuntimeError("duckduckgo search needs the ddgs package: pip install ddgs") from None
        try:
            rows = DDGS(timeout=int(self.timeout)).text(query, max_results=k, backend="duckduckgo",
                                                        region=self.region)
        except DDGSException as e:
            if "no results" in str(e).lower():
                return []
            raise RuntimeError(f"duckduckgo search failed: {' '.join(str(e).split())[:200]}") from None
        return ddgs_hits(rows)[:k]


def find_hits(data: Any) -> list[dict[str, str]]:
    """The hits of an unknown JSON search reply: the first list of objects carrying a URL
    ("url"/"link"/"href"), looking under "web", "organic", "results" and "data" first.

    >>> find_hits({"news": {"results": [{"url": "n"}]}, "web": {"results": [{"url": "w"}]}})
    [{'title': '', 'url': 'w', 'snippet': ''}]
    """
    if isinstance(data, list) and data and all(isinstance(x, dict) for x in data):
        hits = []
        for x in data:
            url = x.get("url") or x.get("link") or x.get("href")
            if isinstance(url, str):
                hits.append({
                    "title": _s(x.get("title") or x.get("name")),
                    "url": url,
                    "snippet": _s(x.get("snippet") or x.get("description") or x.get("content")
                                  or x.get("text") or x.get("body")),
                })
        if hits:
            return hits
    if isinstance(data, dict):
        first = [data[k] for k in ("web", "organic", "results", "data") if k in data]
        children = first + [v for k, v in data.items() if k not in ("web", "organic", "results", "data")]
    else:
        children = data if isinstance(data, list) else []
    for v in children:
        if isinstance(v, (dict, list)):
            hits = find_hits(v)
            if hits:
                return hits
    return []


class HttpSearch:
    """A generic JSON search API: ``GET url?<query_param>=...&<count_param>=k``.

    The key goes in a header (``key_header``, "Authorization" with a "Bearer " prefix by
    default) or, if `key_param` is set, in the query string. Hits are read by `find_hits`.
    """

    name = "url"

    def __init__(self, url: str, key: str | None = None, *, query_param: str = "q",
                 count_param: str | None = "count", key_header: str = "Authorization",
                 key_prefix: str = "Bearer ", key_param: str | None = None,
                 timeout: float = 20.0, http: HttpClient | None = None) -> None:
        self.url, self._key = url, key
        self.query_param, self.count_param = query_param, count_param
        self.key_header, self.key_prefix, self.key_param = key_header, key_prefix, key_param
        self.timeout = timeout
        self.http = http or HttpClient(timeout=timeout, max_bytes=4_000_000)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, url: str | None = None
                 ) -> HttpSearch | None:
        """From ``HYPERSKILL_SEARCH_URL`` (or `url`; required, else None),
        ``HYPERSKILL_SEARCH_KEY``, ``HYPERSKILL_SEARCH_KEY_HEADER``,
        ``HYPERSKILL_SEARCH_KEY_PREFIX``, ``HYPERSKILL_SEARCH_KEY_PARAM`` and
        ``HYPERSKILL_SEARCH_QUERY_PARAM``."""
        env = os.environ if environ is None else environ
        url = url or env.get("HYPERSKILL_SEARCH_URL")
        if not url:
            return None
        return cls(
            url,
            env.get("HYPERSKILL_SEARCH_KEY"),
            query_param=env.get("HYPERSKILL_SEARCH_QUERY_PARAM", "q"),
            key_header=env.get("HYPERSKILL_SEARCH_KEY_HEADER", "Authorization"),
            key_prefix=env.get("HYPERSKILL_SEARCH_KEY_PREFIX", "Bearer "),
            key_param=env.get("HYPERSKILL_SEARCH_KEY_PARAM") or None,
        )

    def __repr__(self) -> str:
        return f"HttpSearch({self.url!r})"

    def search(self, query: str, k: int = 5) -> list[SearchHit]:
        params = {self.query_param: query}
        if self.count_param:
            params[self.count_param] = str(k)
        headers = {"Accept": "application/json"}
        if self._key and self.key_param:
            params[self.key_param] = self._key
        elif self._key:
            headers[self.key_header] = self.key_prefix + self._key
        try:
            got = self.http.request("GET", self.url, params=params, headers=headers)
            if not got.ok:
                raise FetchError(f"HTTP {got.status}: {' '.join(got.text().split())[:200]}")
            data = json.loads(got.body)
        except (FetchError, json.JSONDecodeError) as e:
            msg = str(e).replace(self._key, "***") if self._key else str(e)
            raise RuntimeError(f"search API {self.url} failed: {msg}") from None
        return [SearchHit(**h) for h in find_hits(data)[:k]]


PROVIDER_CLASSES: dict[str, type[ApiSearch]] = {
    "serper": SerperSearch, "tavily": TavilySearch, "brave": BraveSearch,
    "searxng": SearxngSearch, "jina": JinaSearch,
}


def _host(url: str) -> str:
    return urllib.parse.urlsplit(url).netloc or url


def _key_of(name: str, env: Mapping[str, str]) -> str | None:
    for var in KEY_ENV.get(name, ()):
        if env.get(var):
            return env[var]
    return None


def make_search(settings: ToolSettings, environ: Mapping[str, str] | None = None,
                cache: SearchCache | None | bool = True, *, require_keys: bool = True
                ) -> SearchBackend | None:
    """The search backend `settings` names (None for no web_search), cached on disk
    unless `cache` is False, ``settings.search_cache`` is off or HYPERSKILL_CACHE=off.
    ``require_keys=False`` builds a keyed provider without its key (a replay, which
    never searches, needs the same tools but no key).

    Raises
    ------
    ValueError
        One line naming what is missing: a key, a SearXNG instance, a corpus folder.
    FileNotFoundError
        When the corpus folder does not exist.
    """
    env = os.environ if environ is None else environ
    name = resolve_search(settings, env)
    if name == "none":
        return None
    if name == "corpus":
        if settings.corpus is None:
            raise ValueError("--search corpus needs --corpus FOLDER (a folder of "
                             ".txt/.md/.html pages)")
        return LocalCorpus(settings.corpus)
    backend: Any
    if name == "url":
        backend = HttpSearch.from_env(env, url=settings.search_url)
        if backend is None:
            raise ValueError("--search url needs --search-url URL (or HYPERSKILL_SEARCH_URL)")
        endpoint = backend.url
    elif name == "duckduckgo":
        backend, endpoint = DuckDuckGoSearch(settings.timeout), "ddgs:duckduckgo"
    else:
        cls = PROVIDER_CLASSES[name]
        url = settings.search_url or (env.get("SEARXNG_URL") if name == "searxng"
                                      else ENDPOINTS[name])
        if not url:
            raise ValueError("--search searxng needs your instance's URL: --search-url "
                             "http://HOST:PORT (or SEARXNG_URL)")
        key = _key_of(name, env)
        if cls.needs_key and not key and not settings.search_url and require_keys:
            raise ValueError(f"search provider {name!r} needs an API key: set "
                             f"{' or '.join(KEY_ENV[name])} (or choose another --search)")
        backend, endpoint = cls(url, key, timeout=settings.timeout), url
    if cache is False or not settings.search_cache:
        return backend
    store = SearchCache.default() if cache is True else cache
    return CachedSearch(backend, store, endpoint) if store is not None else backend
