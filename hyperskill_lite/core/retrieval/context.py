"""The context text: the paper's "Retrieved Memory Format" (Prompts appendix), and the
context items built from the lessons of E* and the skills of S_q.

Not here: which lessons and skills are retrieved (subtask.py, trajectory.py, ranking.py).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from hyperskill_lite.core.records import ContextItem

if TYPE_CHECKING:
    from hyperskill_lite.core.memory import HypergraphMemory
    from hyperskill_lite.core.retrieval.result import Retrieval

__all__ = ["format_context", "fill_context"]


def format_context(
    lessons: Sequence[tuple[str, bool]],
    skills: Sequence[tuple[str, str]],
    mistakes: Sequence[tuple[str, str]],
) -> str:
    """The paper's "Retrieved Memory Format": numbered "## Past Experience" lessons
    tagged [success]/[failure], "## Relevant Skills" and "## Mistakes to Avoid" as
    "**Name**: content"; empty sections are left out.

    >>> print(format_context([("Check the archive.", True)], [("Source First", "Read it.")], []))
    ## Past Experience
    1. [success] Check the archive.
    <BLANKLINE>
    ## Relevant Skills
    1. **Source First**: Read it.
    """
    sections = []
    if lessons:
        lines = [f"{i}. {_lesson_line(t, ok)}" for i, (t, ok) in enumerate(lessons, 1)]
        sections.append("## Past Experience\n" + "\n".join(lines))
    for title, items in (("Relevant Skills", skills), ("Mistakes to Avoid", mistakes)):
        if items:
            lines = [f"{i}. {_skill_line(n, c)}" for i, (n, c) in enumerate(items, 1)]
            sections.append(f"## {title}\n" + "\n".join(lines))
    return "\n\n".join(sections)


def _lesson_line(text: str, success: bool) -> str:
    return f"[{'success' if success else 'failure'}] {text}"


def _skill_line(name: str, content: str) -> str:
    return f"**{name}**: {content}" if name else content


def _copy(meta: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of an element's meta for a context item ({} is common: no copy work)."""
    return copy.deepcopy(meta) if meta else {}


def fill_context(memory: HypergraphMemory, out: Retrieval, e_star: np.ndarray,
                 s_q: np.ndarray) -> None:
    """Fill `out`'s lessons (of E*), skill labels, context items and context text (the
    lessons of E* that have one, then the skills of S_q by polarity)."""
    S, E = memory._skl, memory._edg
    es, sq = e_star.tolist(), s_q.tolist()  # python ints from here on
    lesson, success = E.text["lesson"], E.success[e_star].tolist()
    out.lessons = [(E.ids[j], lesson[j], ok) for j, ok in zip(es, success)]
    shown = [(j, ok) for j, ok in zip(es, success) if lesson[j]]
    items = [
        ContextItem("lesson", _lesson_line(lesson[j], ok), _copy(E.meta[j])) for j, ok in shown
    ]
    lines: dict[str, list[tuple[str, str]]] = {"skill": [], "mistake": []}
    pol = S.polarity[s_q].tolist()
    for kind, code in (("skill", 0), ("mistake", 1)):
        for r in (r for r, c in zip(sq, pol) if c == code):
            name, content = S.text["name"][r], S.text["content"][r]
            lines[kind].append((name, content))
            items.append(ContextItem(kind, _skill_line(name, content), _copy(S.meta[r])))
    out.skill_labels = {
        S.ids[r]: f"{S.text['name'][r]!r} [{'success' if c == 0 else 'failure'}]"
        for r, c in zip(sq, pol)
    }
    out.context_items = items
    out.context = format_context(
        [(lesson[j], ok) for j, ok in shown], lines["skill"], lines["mistake"]
    )
