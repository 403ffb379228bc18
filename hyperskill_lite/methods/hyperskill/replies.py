"""What HyperSkill's model replies must look like: the contract checks of its operations.

The ``check_*`` functions turn the parsed JSON (`extract_json`, llm/replies.py) of each
operation into our types, repairing what can be repaired and raising ValueError (with
the problem named, so the re-ask can quote it) otherwise:

- `check_steps`: a decomposition, 1-6 steps ``"name: description"``;
- `check_extraction`: 1-3 skills or mistakes (extras dropped, none rejected), short
  names (markup stripped, long names cut), non-empty contents, and the lesson;
- `check_merged`: one merged skill.

Whatever a reply says is data: it is stored as text after these checks and never run.

Not here: sending requests, re-asking (llm/client.py), the prompts (prompts.py), the
self-judge's verdict (bench/judges.py).
"""

from __future__ import annotations

import re
from typing import Any

from hyperskill_lite.agent.replies import SHORT_NAME_WORDS, clean_name, clean_text
from hyperskill_lite.core.records import Polarity, Skill
from hyperskill_lite.types import Extraction

__all__ = [
    "check_steps",
    "check_extraction",
    "check_merged",
    "MAX_SKILLS",
    "MAX_STEPS",
]

MAX_SKILLS = 3  # extraction keeps at most 3 items (Prompts appendix: "1-3 items max")
MAX_STEPS = 6  # decomposition keeps at most 6 steps (the prompts ask for 1-3 or 2-4)
MAX_CONTENT_CHARS, MAX_STEP_CHARS = 2000, 500


def check_steps(obj: Any) -> list[str]:
    """Validate a decomposition: 1-6 steps as ``"name: description"`` strings.

    Accepts a JSON array of ``{"name", "description"}`` objects or strings, or an object
    holding one under "steps"/"subtasks"/"plan". Extra steps are dropped; none is an error.

    >>> check_steps([{"name": "find_source", "description": "use web_search to find it"}])
    ['find_source: use web_search to find it']
    """
    if isinstance(obj, dict):
        for k in ("steps", "subtasks", "plan", "decomposition"):
            if isinstance(obj.get(k), list):
                obj = obj[k]
                break
    if not isinstance(obj, list):
        raise ValueError(f"expected a JSON array of steps, got {type(obj).__name__}")
    steps = []
    for item in obj:
        if isinstance(item, dict):
            name = clean_text(item.get("name") or item.get("step") or item.get("action") or "")
            desc = clean_text(item.get("description") or item.get("details") or "")
            s = f"{name}: {desc}" if name and desc else name or desc
        elif isinstance(item, str):
            s = clean_text(item)
        else:
            continue
        if s:
            steps.append(s[:MAX_STEP_CHARS])
    if not steps:
        raise ValueError(
            "the array has no usable steps (need objects with a name and a description)"
        )
    return steps[:MAX_STEPS]


def _first_sentence(text: str) -> str:
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    return m.group(1) if m else text


def check_extraction(obj: Any, polarity: Polarity) -> Extraction:
    """Validate an extraction reply into 1-3 skills (or mistakes) and a lesson.

    Repairs (recorded in ``meta["repairs"]``): items beyond 3 dropped, empty items
    dropped, long names shortened, the other list key accepted ("skills" for
    "mistakes"), a missing knowledge_fragment replaced by the first item's first
    sentence. Rejects (ValueError) a reply with no usable item.

    >>> x = check_extraction({"skills": [{"name": "Targeted Search", "content": "Do X."}],
    ...                       "knowledge_fragment": "Search narrowly."}, "success")
    >>> (x.skills[0].name, x.skills[0].polarity, x.lesson)
    ('Targeted Search', 'success', 'Search narrowly.')
    """
    key, other = ("skills", "mistakes") if polarity == "success" else ("mistakes", "skills")
    repairs: list[str] = []
    if isinstance(obj, list):
        obj = {key: obj}
        repairs.append("bare array taken as the item list")
    if not isinstance(obj, dict):
        raise ValueError(
            f'expected a JSON object with "{key}" and "knowledge_fragment", '
            f"got {type(obj).__name__}"
        )
    items = obj.get(key)
    if not isinstance(items, list):
        for k in (other, "items"):
            if isinstance(obj.get(k), list):
                items = obj[k]
                repairs.append(f'"{k}" taken as "{key}"')
                break
    if not isinstance(items, list):
        raise ValueError(f'the object has no "{key}" array')
    skills = []
    for it in items:
        if isinstance(it, str):
            it = {"name": " ".join(it.split()[:SHORT_NAME_WORDS]), "content": it}
        if not isinstance(it, dict):
            continue
        content = clean_text(it.get("content") or it.get("description") or it.get("text"))
        if not content:
            continue
        name = clean_name(it.get("name") or it.get("title") or "")
        if name != clean_text(it.get("name") or it.get("title") or ""):
            repairs.append("name cleaned or shortened")
        if not name:
            name = clean_name(" ".join(content.split()[:SHORT_NAME_WORDS]))
        skills.append(Skill(name=name, content=content[:MAX_CONTENT_CHARS], polarity=polarity))
    if not skills:
        raise ValueError(f'no usable "{key}" item (each needs a name and a non-empty content)')
    if len(skills) > MAX_SKILLS:
        repairs.append(f"kept the first {MAX_SKILLS} of {len(skills)} items")
        skills = skills[:MAX_SKILLS]
    lesson = clean_text(obj.get("knowledge_fragment") or obj.get("lesson") or "")
    if not lesson:
        lesson = _first_sentence(skills[0].content)
        repairs.append("missing knowledge_fragment taken from the first item")
    meta = {"repairs": repairs} if repairs else {}
    return Extraction(skills=skills, lesson=lesson[:MAX_CONTENT_CHARS], meta=meta)


def check_merged(obj: Any, polarity: Polarity) -> Skill:
    """Validate a merge reply ``{"name", "content"}`` into a Skill of `polarity`."""
    if isinstance(obj, list) and len(obj) == 1:
        obj = obj[0]
    if not isinstance(obj, dict):
        raise ValueError(f'expected a JSON object {{"name", "content"}}, got {type(obj).__name__}')
    content = clean_text(obj.get("content") or obj.get("description"))
    if not content:
        raise ValueError('the merged item has an empty "content"')
    name = clean_name(obj.get("name") or "") or clean_name(
        " ".join(content.split()[:SHORT_NAME_WORDS])
    )
    return Skill(name=name, content=content[:MAX_CONTENT_CHARS], polarity=polarity)
