"""A merger without a model (paper §3.5, the merge step of memory evolution):
``TemplateMerger`` condenses two skills into one deterministically, so maintenance
(``core.maintenance.merge`` / ``maintain``) runs offline and in tests. It implements only
``MemoryLLM.merge``; the prompted and SkillWorld mergers live with their methods.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hyperskill_lite.core.meta import merge_meta
from hyperskill_lite.core.records import Fragment, Skill

__all__ = ["TemplateMerger", "SENTENCE_END"]

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
"""Where a sentence ends: after ``.``, ``!`` or ``?`` and whitespace (the one rule the
merger and SkillWorld's texts split sentences by)."""
_FILLER = {"success": ["Combined", "Strategy"], "failure": ["Combined", "Mistake"]}
_CLOSING = (
    "Apply it wherever either original skill applied.",
    "It consolidates two similar skills into one.",
)


def _sentences(text: str) -> list[str]:
    out = []
    for s in SENTENCE_END.split(text.strip()):
        s = s.strip()
        if s:
            out.append(s if s[-1] in ".!?" else s + ".")
    return out


class TemplateMerger:
    """A deterministic merger with no model: condenses two skills into one.

    Implements only the ``merge`` operation of ``MemoryLLM`` (enough for maintenance);
    SkillWorld's and the prompted mergers come with their own modules.

    - name: the first three words of ``a.name`` then up to two words of ``b.name`` not
      already used (case-insensitive), padded to three words with "Combined Strategy" /
      "Combined Mistake"; 3-5 words.
    - content: the first two sentences of ``a.content`` and up to two sentences of
      ``b.content`` not already present; fixed closing sentences pad it to at least two;
      2-4 sentences.
    - polarity: ``a``'s (a and b must agree); meta: ``merge_meta(a.meta, b.meta)``
      (keys of both, lists unioned in order).

    >>> m = TemplateMerger().merge(
    ...     Skill("Targeted Database Search", "Query the registry first. It is exact."),
    ...     Skill("Registry Lookup", "Query the registry first. Check the year."))
    >>> m.name
    'Targeted Database Search Registry Lookup'
    >>> m.content
    'Query the registry first. It is exact. Check the year.'
    """

    def merge(self, a: Skill, b: Skill, fragments: Sequence[Fragment] = ()) -> Skill:
        """The condensed skill; `fragments` are accepted and not used (a template has
        nothing to reason with; the model mergers use them)."""
        if a.polarity != b.polarity:
            raise ValueError(
                f"cannot merge a {a.polarity!r} skill with a {b.polarity!r} skill: "
                "polarities must match"
            )
        words_a = _WORD.findall(a.name) or _WORD.findall(a.content)[:3]
        words_b = _WORD.findall(b.name) or _WORD.findall(b.content)[:3]
        name_words = words_a[:3]
        seen = {w.lower() for w in name_words}
        for w in words_b:
            if len(name_words) >= 5 or len(name_words) >= len(words_a[:3]) + 2:
                break
            if w.lower() not in seen:
                name_words.append(w)
                seen.add(w.lower())
        for w in _FILLER.get(a.polarity, _FILLER["success"]):
            if len(name_words) >= 3:
                break
            if w.lower() not in seen:
                name_words.append(w)
                seen.add(w.lower())
        while len(name_words) < 3:
            name_words.append("Skill")
        sents = _sentences(a.content)[:2]
        known = {s.lower() for s in sents}
        added = 0
        for s in _sentences(b.content):
            if added == 2:
                break
            if s.lower() not in known:
                sents.append(s)
                known.add(s.lower())
                added += 1
        for filler in _CLOSING:
            if len(sents) >= 2:
                break
            sents.append(filler)
        return Skill(
            name=" ".join(name_words),
            content=" ".join(sents),
            polarity=a.polarity,
            meta=merge_meta(a.meta, b.meta),
        )
