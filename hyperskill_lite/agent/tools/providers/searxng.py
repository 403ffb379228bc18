"""SearXNG: ``GET <instance>/search?q=&format=json`` (the instance must enable the json
format); no public endpoint: ``SEARXNG_URL`` or ``--search-url`` names your instance; an
optional key (``SEARXNG_API_KEY``) is sent as a Bearer token; hits from ``results``."""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping, Sequence
from typing import Any

from hyperskill_lite.agent.tools.hits import SearchHit
from hyperskill_lite.agent.tools.providers.base import ApiSearch, clean, register_provider

__all__ = ["SearxngSearch"]


@register_provider
class SearxngSearch(ApiSearch):
    """SearXNG: ``GET <instance>/search?q=&format=json``; an optional Bearer key."""

    name = "searxng"
    endpoint_env = "SEARXNG_URL"
    key_env = ("SEARXNG_API_KEY",)
    needs_key = False
    auto_order = 5
    summary = "your SearXNG instance (its json format enabled)"

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
        return [SearchHit(clean(r.get("title")), str(r["url"]), clean(r.get("content")),
                          clean(r.get("publishedDate")))
                for r in rows or [] if isinstance(r, dict) and r.get("url")]

    @classmethod
    def sample_reply(cls, query: str, hits: Sequence[Mapping[str, str]]) -> Any:
        return {"query": query, "number_of_results": len(hits),
                "results": [{"url": h["url"], "title": h["title"], "content": h["snippet"],
                             "engine": "bing", "engines": ["bing"], "score": 1.0,
                             "category": "general"} for h in hits],
                "answers": [], "corrections": [], "infoboxes": [], "suggestions": [],
                "unresponsive_engines": []}
