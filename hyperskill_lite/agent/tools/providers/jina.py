"""Jina search: ``GET https://s.jina.ai/?q=`` with a Bearer key,
``Accept: application/json`` and ``X-Respond-With: no-content`` (no page contents); hits
from ``data``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hyperskill_lite.agent.tools.hits import SearchHit
from hyperskill_lite.agent.tools.providers.base import ApiSearch, clean, register_provider

__all__ = ["JinaSearch"]


@register_provider
class JinaSearch(ApiSearch):
    """Jina search (s.jina.ai): ``GET ?q=`` with a Bearer key and
    ``Accept: application/json``, without page contents (``X-Respond-With: no-content``)."""

    name = "jina"
    endpoint = "https://s.jina.ai/"
    key_env = ("JINA_API_KEY",)
    auto_order = 4
    summary = "Jina's search API (s.jina.ai)"

    def _request(self, query: str, k: int):
        headers = {"Accept": "application/json", "X-Respond-With": "no-content"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        return ("GET", {"q": query}, None, headers)

    def _hits(self, data: Any) -> list[SearchHit]:
        rows = data.get("data") if isinstance(data, dict) else None
        return [SearchHit(clean(r.get("title")), str(r["url"]),
                          clean(r.get("description") or r.get("content"))[:500],
                          clean(r.get("date")))
                for r in rows or [] if isinstance(r, dict) and r.get("url")]

    @classmethod
    def sample_reply(cls, query: str, hits: Sequence[Mapping[str, str]]) -> Any:
        return {"code": 200, "status": 20000,
                "data": [{"title": h["title"], "url": h["url"], "description": h["snippet"],
                          "content": "", "usage": {"tokens": 10}} for h in hits],
                "meta": {"usage": {"tokens": 10 * len(hits)}}}
