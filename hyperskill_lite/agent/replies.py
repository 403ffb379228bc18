"""Reply helpers shared by every prompted operation: text cleaning (`clean_text`,
`clean_name`); JSON extraction (`extract_json`, `strip_thinking`, `scrub_surrogates`) is
llm/replies.py's.

Each operation's contract check sits beside its prompt: HyperSkill's (`check_steps`,
`check_extraction`, `check_merged`) in methods/hyperskill/replies.py, the baselines' in
their modules and baselines/ops/checks.py, the self-judge's (`check_verdict`) in bench/judges.py.

Whatever a reply says is data: it is stored as text after these checks and never run.

Not here: sending requests, re-asking (llm/client.py), the prompts (prompts.py).
"""

from __future__ import annotations

import re
from typing import Any

from hyperskill_lite.llm.replies import scrub_surrogates

__all__ = [
    "clean_text",
    "clean_name",
    "MAX_NAME_WORDS",
    "SHORT_NAME_WORDS",
    "MAX_NAME_CHARS",
]

MAX_NAME_WORDS, SHORT_NAME_WORDS, MAX_NAME_CHARS = 8, 5, 80

_TAG = re.compile(  # HTML markup only: "<tool>" or "<url>" placeholders stay
    r"</?(?:b|i|u|em|strong|code|pre|p|br|div|span|a|ul|ol|li|h[1-6]|sup|sub|small|mark|tt)"
    r"(?:\s[^<>]{0,200})?/?>",
    re.I,
)
_MARKUP = re.compile(r"[*`#]+|^\s*(?:[-*]|\d+[.)])\s+")


def clean_text(s: Any) -> str:
    """`s` as one line of text: HTML markup and lone surrogates gone, whitespace collapsed
    (None: "")."""
    return " ".join(_TAG.sub(" ", scrub_surrogates(str(s))).split()) if s is not None else ""


def clean_name(name: Any) -> str:
    """A short skill name: markup stripped, whitespace collapsed, a name of more than
    8 words cut to its first 5, at most 80 characters.

    >>> clean_name("**Targeted   Database Search**")
    'Targeted Database Search'
    >>> clean_name("one two three four five six seven eight nine ten")
    'one two three four five'
    """
    s = _MARKUP.sub(" ", clean_text(name))
    words = s.split()
    if len(words) > MAX_NAME_WORDS:
        words = words[:SHORT_NAME_WORDS]
    s = " ".join(words)
    if len(s) > MAX_NAME_CHARS:
        s = s[:MAX_NAME_CHARS].rsplit(" ", 1)[0]
    return s.strip(" :;,.-\"'") or s
