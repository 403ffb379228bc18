"""The generic client of any JSON search API: ``GET HYPERSKILL_SEARCH_URL?q=&count=``,
hits read from the first list of objects with a URL (`find_hits`)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from hyperskill_lite.agent.tools.hits import SearchHit
from hyperskill_lite.agent.tools.net import FetchError, HttpClient
from hyperskill_lite.agent.tools.providers.base import SearchProvider, clean, register_provider

__all__ = ["HttpSearch", "find_hits"]


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
                    "title": clean(x.get("title") or x.get("name")),
                    "url": url,
                    "snippet": clean(x.get("snippet") or x.get("description") or x.get("content")
                                     or x.get("text") or x.get("body")),
                })
        if hits:
            return hits
    first_keys = ("web", "organic", "results", "data")
    if isinstance(data, dict):
        first = [data[k] for k in first_keys if k in data]
        children = first + [v for k, v in data.items() if k not in first_keys]
    else:
        children = data if isinstance(data, list) else []
    for v in children:
        if isinstance(v, (dict, list)):
            hits = find_hits(v)
            if hits:
                return hits
    return []


@register_provider
class HttpSearch(SearchProvider):
    """A generic JSON search API: ``GET url?<query_param>=...&<count_param>=k``.

    The key goes in a header (``key_header``, "Authorization" with a "Bearer " prefix by
    default) or, if `key_param` is set, in the query string. Hits are read by `find_hits`.
    """

    name = "url"
    endpoint_env = "HYPERSKILL_SEARCH_URL"
    key_env = ("HYPERSKILL_SEARCH_KEY",)
    needs_key = False
    auto_order = 0
    summary = "any JSON search API at --search-url / $HYPERSKILL_SEARCH_URL"

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
    def from_env(cls, environ: Mapping[str, str] | None = None, url: str | None = None,
                 timeout: float = 20.0) -> HttpSearch | None:
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
            timeout=timeout,
        )

    @classmethod
    def build(cls, search_url: str | None, env: Mapping[str, str], *, timeout: float,
              require_keys: bool = True) -> HttpSearch:
        backend = cls.from_env(env, url=search_url, timeout=timeout)
        if backend is None:
            raise ValueError("--search url needs --search-url URL (or HYPERSKILL_SEARCH_URL)")
        return backend

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

    @classmethod
    def sample_reply(cls, query: str, hits: Sequence[Mapping[str, str]]) -> Any:
        """A plain ``results`` list (the shape a self-made search API commonly returns)."""
        return {"results": [{"title": h["title"], "url": h["url"], "snippet": h["snippet"]}
                            for h in hits]}
