"""SearchHit and SearchBackend: what every search provider returns and implements.

Not here: the providers (providers/, corpus.py) and the cache (search_cache.py).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Protocol

__all__ = ["SearchHit", "SearchBackend", "format_hits"]


@dataclass
class SearchHit:
    """One web result: its title, URL and the provider's snippet (and date, if any)."""

    title: str
    url: str
    snippet: str
    date: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class SearchBackend(Protocol):
    """A search provider: `name` (e.g. "serper") and ``search(query, k) -> hits``."""

    name: str

    def search(self, query: str, k: int = 5) -> list[SearchHit]: ...


def format_hits(query: str, hits: list[SearchHit]) -> str:
    """The observation the agent reads: numbered hits with URL, date and snippet.

    >>> print(format_hits("q", [SearchHit("Title", "https://a.org/", "Snippet.", "2021")]))
    1. Title
       https://a.org/
       Date: 2021
       Snippet.
    >>> format_hits("qqq", [])
    "No results for 'qqq'."
    """
    if not hits:
        return f"No results for {query!r}."
    rows = []
    for i, h in enumerate(hits, 1):
        lines = [f"{i}. {h.title}", f"   {h.url}"]
        if h.date:
            lines.append(f"   Date: {h.date}")
        lines.append(f"   {h.snippet}")
        rows.append("\n".join(lines))
    return "\n\n".join(rows)
