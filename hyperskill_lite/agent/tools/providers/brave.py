"""Brave: ``GET https://api.search.brave.com/res/v1/web/search?q=&count=`` with the key in
``X-Subscription-Token``; hits from ``web.results`` only (never ``news`` or ``videos``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hyperskill_lite.agent.tools.hits import SearchHit
from hyperskill_lite.agent.tools.providers.base import ApiSearch, clean, register_provider

__all__ = ["BraveSearch"]


@register_provider
class BraveSearch(ApiSearch):
    """Brave: ``GET ?q=&count=`` with ``X-Subscription-Token``; web results only."""

    name = "brave"
    endpoint = "https://api.search.brave.com/res/v1/web/search"
    key_env = ("BRAVE_API_KEY", "BRAVE_SEARCH_API_KEY")
    auto_order = 3
    summary = "Brave's web search API (web results only)"

    def _request(self, query: str, k: int):
        return ("GET", {"q": query, "count": min(k, 20)}, None,
                {"X-Subscription-Token": self._key or "", "Accept": "application/json"})

    def _hits(self, data: Any) -> list[SearchHit]:
        web = data.get("web") if isinstance(data, dict) else None
        rows = web.get("results") if isinstance(web, dict) else None
        return [SearchHit(clean(r.get("title")), str(r["url"]), clean(r.get("description")),
                          clean(r.get("page_age") or r.get("age")))
                for r in rows or [] if isinstance(r, dict) and r.get("url")]

    @classmethod
    def sample_reply(cls, query: str, hits: Sequence[Mapping[str, str]]) -> Any:
        """Brave's reply, with ``news`` before ``web``."""
        return {"type": "search", "query": {"original": query, "more_results_available": False},
                "news": {"type": "news", "results": [
                    {"title": "Harbour news of the week", "url": "https://news.example/harbour",
                     "description": "A news item, not a web result.", "age": "2 days ago"}]},
                "mixed": {"type": "mixed", "main": [{"type": "web", "index": 0, "all": False}]},
                "web": {"type": "search", "results": [
                    {"title": h["title"], "url": h["url"], "description": h["snippet"],
                     "language": "en", "family_friendly": True} for h in hits]}}
