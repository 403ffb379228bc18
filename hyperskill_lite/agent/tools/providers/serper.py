"""Serper (Google results): ``POST https://google.serper.dev/search`` with JSON
``{"q", "num", "location"}`` and the key in ``X-API-KEY``; hits from ``organic``.

Serper with 5 results and ``"location": "United States"`` is what the anchor harness
(EvolveLab's Flash-Searcher, ``web_search``) sends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hyperskill_lite.agent.tools.hits import SearchHit
from hyperskill_lite.agent.tools.providers.base import ApiSearch, clean, register_provider

__all__ = ["SerperSearch"]


@register_provider
class SerperSearch(ApiSearch):
    """Serper (Google results): ``POST {"q", "num", "location"}`` with ``X-API-KEY``."""

    name = "serper"
    endpoint = "https://google.serper.dev/search"
    key_env = ("SERPER_API_KEY",)
    auto_order = 1
    summary = "Google results through Serper (the anchor harness's provider)"

    def _request(self, query: str, k: int):
        return ("POST", None, {"q": query, "num": k, "location": "United States"},
                {"X-API-KEY": self._key or "", "Content-Type": "application/json"})

    def _hits(self, data: Any) -> list[SearchHit]:
        rows = data.get("organic") if isinstance(data, dict) else None
        rows = [r for r in rows or [] if isinstance(r, dict) and r.get("link")]
        rows.sort(key=lambda r: r.get("position", 0) if isinstance(r.get("position"), int) else 0)
        return [SearchHit(clean(r.get("title")), str(r["link"]), clean(r.get("snippet")),
                          clean(r.get("date"))) for r in rows]

    @classmethod
    def sample_reply(cls, query: str, hits: Sequence[Mapping[str, str]]) -> Any:
        """Serper's reply: ``organic`` after a knowledge graph, people-also-ask after."""
        k = len(hits)
        return {"searchParameters": {"q": query, "type": "search", "num": k, "engine": "google"},
                "knowledgeGraph": {"title": "Knowledge panel", "website": "https://kg.example/",
                                   "description": "Not an organic result."},
                "organic": [{"title": h["title"], "link": h["url"], "snippet": h["snippet"],
                             "position": i, **({"date": "Mar 3, 2024"} if i == 1 else {})}
                            for i, h in enumerate(hits, 1)],
                "peopleAlsoAsk": [{"question": "Is it open?", "link": "https://paa.example/"}],
                "relatedSearches": [{"query": query + " hours"}], "credits": 1}
