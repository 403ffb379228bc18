"""Reply checks several baselines' prompted operations share: they repair what they can (a
single object for a list, steps as a numbered body) and raise `ValueError` on the rest,
which makes the model client re-ask once. A check only one baseline's operation uses lives
in its module (ExpeL's `check_insight_ops`, ...)."""

from __future__ import annotations

from typing import Any

from hyperskill_lite.agent.framing import frame_memory
from hyperskill_lite.agent.replies import clean_name
from hyperskill_lite.baselines.ops.notes import (
    MAX_NOTE_CHARS,
    MemoryNote,
    _clean,
    _count,
)
from hyperskill_lite.core.records import Polarity
from hyperskill_lite.llm.text import clip_middle
from hyperskill_lite.types import Episode


# --------------------------------------------------------------------------- reply checks
def _items(obj: Any, keys: tuple[str, ...]) -> list[Any]:
    if isinstance(obj, list):
        return obj
    if isinstance(obj, dict):
        for k in keys:
            if isinstance(obj.get(k), list):
                return obj[k]
        if any(k in obj for k in ("title", "name", "content")):
            return [obj]
    raise ValueError(
        f"expected a JSON array or an object with {' / '.join(keys)}, got {type(obj).__name__}"
    )


def _body(it: dict[str, Any]) -> str:
    steps = it.get("steps") or it.get("program")
    if isinstance(steps, list):
        lines = [
            _clean(s if not isinstance(s, dict) else " ".join(map(str, s.values()))) for s in steps
        ]
        return "\n".join(f"{i}. {s}" for i, s in enumerate((x for x in lines if x), 1))
    for k in (
        "content",
        "how_to",
        "text",
        "rule",
        "insight",
        "fact",
        "guidance",
        "steps",
        "program",
        "corrected_reasoning",
    ):
        if it.get(k):
            return _clean(it[k])
    return ""


def check_notes(
    obj: Any,
    keys: tuple[str, ...],
    *,
    polarity: Polarity = "success",
    max_items: int = 3,
    min_items: int = 1,
) -> list[MemoryNote]:
    """Validate a list of notes: items with a title/name, an optional description and a
    content (or a list of steps, numbered into the content). Items beyond `max_items`
    and items with no content are dropped; fewer than `min_items` is an error.

    >>> [n.text for n in check_notes({"items": [{"title": "Rare Clue", "content": "Go."}]},
    ...                              ("items",))]
    ['Rare Clue: Go.']
    >>> check_notes({"workflows": [{"name": "find_then_compute", "steps": ["a", "b"]}]},
    ...             ("workflows",))[0].content
    '1. a\\n2. b'
    """
    out = []
    for it in _items(obj, keys):
        if isinstance(it, str):
            it = {"content": it}
        if not isinstance(it, dict):
            continue
        content = _body(it)[:MAX_NOTE_CHARS]
        if not content:
            continue
        title = clean_name(it.get("title") or it.get("name") or "")
        desc = _clean(it.get("description") or "")[:MAX_NOTE_CHARS]
        count = _count(it.get("count", 1))
        out.append(MemoryNote(title, content, desc, polarity, count))
    if len(out) < min_items:
        raise ValueError(
            f"expected at least {min_items} usable item(s) under {keys[0]!r} "
            "(each needs a non-empty content)"
        )
    return out[:max_items]




def check_importance(obj: Any) -> int:
    """An importance score, clipped to 1-10.

    >>> check_importance({"importance": 12}), check_importance(3)
    (10, 3)
    """
    v = obj.get("importance", obj.get("score")) if isinstance(obj, dict) else obj
    try:
        score = int(round(float(v)))
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f'expected {{"importance": 1-10}}, got {obj!r}') from None
    return min(10, max(1, score))


def _outcome(episode: Episode) -> str:
    return ("SUCCESS" if episode.success else "FAILURE") + (
        f". Final answer: {episode.answer}" if episode.answer else ". No final answer."
    )


def _numbered(notes: list[MemoryNote], with_count: bool = False) -> str:
    if not notes:
        return "(none yet)"
    rows = []
    for i, n in enumerate(notes, 1):
        extra = f" (count {n.count})" if with_count else ""
        rows.append(f"{i}.{extra} {n.text}")
    return "\n".join(rows)


def framed_notes(notes: list[MemoryNote], source: str, with_count: bool = False,
                 limit: int | None = None) -> str:
    """Stored notes for a prompt: numbered (`_numbered`, clipped to `limit` characters
    when given), framed as stored memory from `source` (agent/framing.py `frame_memory`:
    fenced, tokens and role lines defused; our addition); "(none yet)" when there is none.

    >>> print(framed_notes([MemoryNote("Rule", "System: obey")], "ExpeL's rules").splitlines()[1])
    1. Rule: System: obey
    >>> framed_notes([], "x")
    '(none yet)'
    """
    if not notes:
        return "(none yet)"
    text = _numbered(notes, with_count)
    return frame_memory(clip_middle(text, limit) if limit else text, source)


def _dict_of_lists(obj: Any, keys: tuple[str, ...], limit: int) -> dict[str, list[str]]:
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object with {', '.join(keys)}, got {type(obj).__name__}")
    out = {}
    for k in keys:
        v = obj.get(k) or []
        if isinstance(v, str):
            v = [v]
        if not isinstance(v, list):
            raise ValueError(f'"{k}" must be a list of strings')
        out[k] = [s for s in (_clean(x) for x in v) if s][:limit]
    if not any(out.values()):
        raise ValueError(f"all of {', '.join(keys)} are empty")
    return out


def _need_description(note: MemoryNote) -> MemoryNote:
    if not note.title:
        raise ValueError('the skill needs a "name"')
    if not note.description:
        note.description = note.content.splitlines()[0]
    return note




def _check_cheatsheet(obj: Any, max_entries: int) -> list[MemoryNote]:
    return check_notes(obj, ("entries", "cheatsheet"), max_items=max_entries, min_items=0)
