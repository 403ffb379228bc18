"""Reading a model reply: the JSON in it, without reasoning blocks or lone surrogates.

`extract_json` finds the JSON in a reply that wraps it in code fences, ``<think>``
blocks (Qwen3) or prose; `strip_thinking` drops those blocks from a text reply;
`scrub_surrogates` makes any reply encodable as UTF-8. Every operation's contract check
(what the JSON must say) sits beside the operation's prompt: HyperSkill's in
methods/hyperskill/replies.py, the baselines' in their modules and baselines/ops/checks.py, the judges' in
bench/judges.py.

Not here: sending requests, re-asking (client.py).
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["extract_json", "scrub_surrogates", "strip_thinking"]

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
