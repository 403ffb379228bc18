"""DuckDuckGo through the maintained ``ddgs`` package (its DuckDuckGo backend; no key, no
endpoint of ours: the package talks to DuckDuckGo, so the test web has no route for it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hyperskill_lite.agent.tools.hits import SearchHit
from hyperskill_lite.agent.tools.providers.base import SearchProvider, clean, register_provider

__all__ = ["DuckDuckGoSearch", "ddgs_hits"]


def ddgs_hits(rows: Any) -> list[SearchHit]:
    """Hits from ``ddgs.DDGS().text(...)`` rows (``{"title", "href", "body"}``).

    >>> ddgs_hits([{"title": "T", "href": "https://a.org/", "body": "B"}, {"title": "x"}])
    [SearchHit(title='T', url='https://a.org/', snippet='B', date='')]
    """
    return [SearchHit(clean(r.get("title")), str(r["href"]), clean(r.get("body")))
            for r in rows or [] if isinstance(r, dict) and r.get("href")]


@register_provider
class DuckDuckGoSearch(SearchProvider):
    """DuckDuckGo through the maintained ``ddgs`` package (no key; its DuckDuckGo backend)."""

    name = "duckduckgo"
    needs_key = False
    http_api = False
    summary = "DuckDuckGo through the ddgs package (no key)"

    def __init__(self, timeout: float = 20.0, region: str = "us-en") -> None:
        self.timeout, self.region = timeout, region
        self.url = "ddgs:duckduckgo"

    def __repr__(self) -> str:
        return "DuckDuckGoSearch()"

    @classmethod
    def build(cls, search_url: str | None, env: Mapping[str, str], *, timeout: float,
              require_keys: bool = True) -> DuckDuckGoSearch:
        return cls(timeout)

    def search(self, query: str, k: int = 5) -> list[SearchHit]:
        try:
            from ddgs import DDGS  # lazy: an optional dependency
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
