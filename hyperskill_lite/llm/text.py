"""Prompt text helpers every prompted operation shares: `fill` (single-pass placeholders),
`clip_middle` (a long trajectory cut in the middle) and `REASK` (the one re-ask after an
unusable JSON reply, client.py's `chat_json`).

Not here: any operation's prompt (each beside its method: methods/hyperskill/prompts.py,
baselines/prompts.py, the agent's in agent/prompts.py, the judges' in bench/).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["REASK", "clip_middle", "fill"]

REASK = """\
Your previous reply could not be used: {error}
Reply again with ONLY the JSON asked for: no prose, no code fences."""


_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def fill(template: str, **values: Any) -> str:
    """Replace each ``{name}`` whose name is in `values`, in one pass.

    Braces that are not placeholders (JSON examples) and text inside the inserted
    values are left alone.

    >>> fill('Task: {query} -> {"name": "..."}', query="find {x}")
    'Task: find {x} -> {"name": "..."}'
    """
    return _PLACEHOLDER.sub(
        lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), template
    )


def clip_middle(text: str, max_chars: int) -> str:
    """Keep the first and last parts of `text` so it fits in about `max_chars` characters.

    >>> clip_middle("abcdefghij", 6)
    'abc\\n[... 4 characters omitted ...]\\nhij'
    >>> clip_middle("short", 10)
    'short'
    """
    if max_chars <= 0 or len(text) <= max_chars:
        return text
    head = max_chars // 2
    tail = max_chars - head
    omitted = len(text) - head - tail
    return f"{text[:head]}\n[... {omitted} characters omitted ...]\n{text[len(text) - tail :]}"
