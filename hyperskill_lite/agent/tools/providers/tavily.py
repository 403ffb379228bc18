"""Tavily: ``POST https://api.tavily.com/search`` with JSON ``{"query", "max_results",
"search_depth", "topic"}`` and a Bearer key; hits from ``results``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hyperskill_lite.agent.tools.hits import SearchHit
from hyperskill_lite.agent.tools.providers.base import ApiSearch, clean, register_provider

__all__ = ["TavilySearch"]


@register_provider
class TavilySearch(ApiSearch):
    """Tavily: ``POST {"query", "max_results", "search_depth": "basic"}``, Bearer key."""

    name = "tavily"
    endpoint = "https://api.tavily.com/search"
    key_env = ("TAVILY_API_KEY",)
    auto_order = 2
    summary = "Tavily's search API"

    def _request(self, query: str, k: int):
        return ("POST", None,
                {"query": query, "max_results": k, "search_depth": "basic", "topic": "general"},
                {"Authorization": f"Bearer {self._key or ''}", "Content-Type": "application/json"})

    def _hits(self, data: Any) -> list[SearchHit]:
        rows = data.get("results") if isinstance(data, dict) else None
        return [SearchHit(clean(r.get("title")), str(r["url"]), clean(r.get("content")),
                          clean(r.get("published_date")))
                for r in rows or [] if isinstance(r, dict) and r.get("url")]

    @classmethod
    def sample_reply(cls, query: str, hits: Sequence[Mapping[str, str]]) -> Any:
        return {"query": query, "follow_up_questions": None, "answer": None, "images": [],
                "results": [{"title": h["title"], "url": h["url"], "content": h["snippet"],
                             "score": round(1 - i / 10, 2), "raw_content": None}
                            for i, h in enumerate(hits)], "response_time": 0.01}
