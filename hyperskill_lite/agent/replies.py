"""What a model reply must look like: JSON extraction and the contract checks.

`extract_json` finds the JSON in a reply that wraps it in code fences, ``<think>``
blocks (Qwen3) or prose. The ``check_*`` functions turn the parsed JSON of each
operation into our types, repairing what can be repaired and raising ValueError (with
the problem named, so the re-ask can quote it) otherwise:

- `check_steps`: a decomposition, 1-6 steps ``"name: description"``;
- `check_extraction`: 1-3 skills or mistakes (extras dropped, none rejected), short
  names (markup stripped, long names cut), non-empty contents, and the lesson;
- `check_merged`: one merged skill; `check_verdict`: a self-judge verdict.

Whatever a reply says is data: it is stored as text after these checks and never run.

Not here: sending requests, re-asking (llm.py), the prompts (prompts.py).
"""

from __future__ import annotations

import json
import re
from typing import Any

from hyperskill_lite.types import Extraction, Polarity, Skill

__all__ = [
    "extract_json",
    "scrub_surrogates",
    "strip_thinking",
    "clean_name",
    "check_steps",
    "check_extraction",
    "check_merged",
    "check_verdict",
    "MAX_SKILLS",
    "MAX_STEPS",
]

MAX_SKILLS = 3  # extraction keeps at most 3 items (Prompts appendix: "1-3 items max")
MAX_STEPS = 6  # decomposition keeps at most 6 steps (the prompts ask for 1-3 or 2-4)
MAX_NAME_WORDS, SHORT_NAME_WORDS, MAX_NAME_CHARS = 8, 5, 80
MAX_CONTENT_CHARS, MAX_STEP_CHARS = 2000, 500

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_FENCE = re.compile(r"```[A-Za-z]*[ \t]*\n?(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def strip_thinking(text: str) -> str:
    """Drop ``<think>...</think>`` reasoning blocks (Qwen3) from a reply.

    >>> strip_thinking("<think>hmm {not this}</think> FINAL ANSWER: 4")
    'FINAL ANSWER: 4'
    """
    text = _THINK.sub("", text)
    if "</think>" in text:  # template put <think> in the prompt; only the end is generated
        text = text.rsplit("</think>", 1)[1]
    return text.strip()


def _loads(s: str) -> Any:
    """json.loads that repairs trailing commas and accepts raw control characters
    (newlines, tabs) inside strings, which constrained decoders let models write."""
    try:
        return json.loads(s, strict=False)
    except json.JSONDecodeError:
        return json.loads(_TRAILING_COMMA.sub(r"\1", s), strict=False)


def extract_json(text: str | None) -> Any:
    """The JSON value in a model reply: the whole reply, a fenced block, or the longest
    JSON object/array embedded in prose. Raises ValueError when there is none, or when
    it nests deeper than the parser's recursion limit. Lone surrogates (from "\\ud800"
    escapes) in the strings of the value are replaced by U+FFFD, so what a reply says can
    always be written as UTF-8 (memory files, cassettes, the next request).

    >>> extract_json('Sure! Here it is:\\n```json\\n{"a": [1, 2,]}\\n```\\nHope it helps.')
    {'a': [1, 2]}
    >>> extract_json('The steps are [{"name": "s", "description": "d"}] as asked.')
    [{'name': 's', 'description': 'd'}]
    >>> extract_json('{"answer": "two' + chr(10) + 'lines"}')  # a raw newline in a string
    {'answer': 'two\\nlines'}
    """
    try:
        return scrub_surrogates(_extract_json(text))
    except RecursionError:
        raise ValueError("the reply nests JSON too deeply to parse") from None


_START = re.compile(r'\{\s*["}]|\[\s*[-\[{"0-9tfn\]]')  # where a JSON object/array can begin
MAX_FALSE_STARTS = 1000  # failed parses before giving up (each costs O(position))


def _extract_json(text: str | None) -> Any:
    if text is None or not text.strip():
        raise ValueError("the reply is empty")
    t = strip_thinking(text)
    for candidate in [t, *(m.group(1).strip() for m in _FENCE.finditer(t))]:
        try:
            return _loads(candidate)
        except ValueError:  # JSONDecodeError, or an integer too long to convert
            pass
    decoder, best, best_len, i, failed = json.JSONDecoder(strict=False), None, 0, 0, 0
    for m in _START.finditer(t):
        s = m.start()
        if s < i:  # inside a value already found
            continue
        try:
            obj, end = decoder.raw_decode(t, s)
        except ValueError:
            failed += 1
            if failed > MAX_FALSE_STARTS:
                break
            continue
        if end - s > best_len:
            best, best_len = obj, end - s
        i = end
    if best_len:
        return best
    snippet = " ".join(t.split())[:160]
    raise ValueError(f"no JSON found in the reply: {snippet!r}")


_SURROGATE = re.compile("[\ud800-\udfff]")


def scrub_surrogates(obj: Any) -> Any:
    """`obj` with lone surrogates in every string (dict keys included, through lists and
    dicts) replaced by U+FFFD, so it can be encoded as UTF-8.

    >>> scrub_surrogates({"a\\ud800": ["ok", "\\udfff"]})
    {'a\ufffd': ['ok', '\ufffd']}
    """
    if isinstance(obj, str):
        return _SURROGATE.sub("\ufffd", obj)
    if isinstance(obj, list):
        return [scrub_surrogates(x) for x in obj]
    if isinstance(obj, dict):
        return {scrub_surrogates(k): scrub_surrogates(v) for k, v in obj.items()}
    return obj


# --------------------------------------------------------------------------- contracts
_TAG = re.compile(  # HTML markup only: "<tool>" or "<url>" placeholders stay
    r"</?(?:b|i|u|em|strong|code|pre|p|br|div|span|a|ul|ol|li|h[1-6]|sup|sub|small|mark|tt)"
    r"(?:\s[^<>]{0,200})?/?>",
    re.I,
)
_MARKUP = re.compile(r"[*`#]+|^\s*(?:[-*]|\d+[.)])\s+")


def _clean(s: Any) -> str:
    return " ".join(_TAG.sub(" ", scrub_surrogates(str(s))).split()) if s is not None else ""


def clean_name(name: Any) -> str:
    """A short skill name: markup stripped, whitespace collapsed, a name of more than
    8 words cut to its first 5, at most 80 characters.

    >>> clean_name("**Targeted   Database Search**")
    'Targeted Database Search'
    >>> clean_name("one two three four five six seven eight nine ten")
    'one two three four five'
    """
    s = _MARKUP.sub(" ", _clean(name))
    words = s.split()
    if len(words) > MAX_NAME_WORDS:
        words = words[:SHORT_NAME_WORDS]
    s = " ".join(words)
    if len(s) > MAX_NAME_CHARS:
        s = s[:MAX_NAME_CHARS].rsplit(" ", 1)[0]
    return s.strip(" :;,.-\"'") or s


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
            name = _clean(item.get("name") or item.get("step") or item.get("action") or "")
            desc = _clean(item.get("description") or item.get("details") or "")
            s = f"{name}: {desc}" if name and desc else name or desc
        elif isinstance(item, str):
            s = _clean(item)
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
        content = _clean(it.get("content") or it.get("description") or it.get("text"))
        if not content:
            continue
        name = clean_name(it.get("name") or it.get("title") or "")
        if name != _clean(it.get("name") or it.get("title") or ""):
            repairs.append("name cleaned or shortened")
        if not name:
            name = clean_name(" ".join(content.split()[:SHORT_NAME_WORDS]))
        skills.append(Skill(name=name, content=content[:MAX_CONTENT_CHARS], polarity=polarity))
    if not skills:
        raise ValueError(f'no usable "{key}" item (each needs a name and a non-empty content)')
    if len(skills) > MAX_SKILLS:
        repairs.append(f"kept the first {MAX_SKILLS} of {len(skills)} items")
        skills = skills[:MAX_SKILLS]
    lesson = _clean(obj.get("knowledge_fragment") or obj.get("lesson") or "")
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
    content = _clean(obj.get("content") or obj.get("description"))
    if not content:
        raise ValueError('the merged item has an empty "content"')
    name = clean_name(obj.get("name") or "") or clean_name(
        " ".join(content.split()[:SHORT_NAME_WORDS])
    )
    return Skill(name=name, content=content[:MAX_CONTENT_CHARS], polarity=polarity)


_TRUE = {"true", "yes", "success", "successful", "solved", "correct", "pass", "1"}
_FALSE = {"false", "no", "fail", "failure", "failed", "unsolved", "incorrect", "0"}


def check_verdict(obj: Any) -> tuple[bool, str]:
    """Validate a judge reply into ``(success, reason)``.

    >>> check_verdict({"success": "yes", "reason": "cited"})
    (True, 'cited')
    """
    if isinstance(obj, bool):
        return obj, ""
    if not isinstance(obj, dict):
        raise ValueError(
            f'expected a JSON object {{"success": true|false}}, got {type(obj).__name__}'
        )
    for k in ("success", "solved", "verdict", "correct"):
        if k in obj:
            v = obj[k]
            s = str(v).strip().lower()
            if isinstance(v, bool) or s in _TRUE | _FALSE:
                ok = v if isinstance(v, bool) else s in _TRUE
                return ok, _clean(obj.get("reason") or "")
            raise ValueError(f'"{k}" must be true or false, got {v!r}')
    raise ValueError('the object has no "success" field')
