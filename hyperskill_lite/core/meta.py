"""Hidden metadata carried through memory operations (dedup, merge, baselines' notes).

Every stored text may carry a free-form ``meta`` dict (SkillWorld hides the latent
strategies a text expresses there). When two elements become one, their meta dicts are
combined by `merge_meta`. Not here: what any key means; the memory never reads meta.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["merge_meta"]


def merge_meta(a: dict[str, Any] | None, b: dict[str, Any] | None) -> dict[str, Any]:
    """Combine two meta dicts (a merged or deduplicated node carries both): keys from
    both; nested dicts are merged the same way; lists become an ordered union without
    duplicates; booleans are OR-ed; for any other value a's wins.

    >>> merge_meta({"latent": ["x", "y"], "src": "a"}, {"latent": ["y", "z"], "src": "b", "n": 1})
    {'latent': ['x', 'y', 'z'], 'src': 'a', 'n': 1}
    >>> merge_meta({"sw": {"ids": ["a"], "harmful": False}}, {"sw": {"ids": ["b"], "harmful": True}})
    {'sw': {'ids': ['a', 'b'], 'harmful': True}}
    """
    out = copy.deepcopy(a or {})
    for k, v in (b or {}).items():
        if k not in out:
            out[k] = copy.deepcopy(v)
        elif isinstance(out[k], dict) and isinstance(v, dict):
            out[k] = merge_meta(out[k], v)
        elif isinstance(out[k], list) and isinstance(v, list):
            out[k] = out[k] + [copy.deepcopy(x) for x in v if x not in out[k]]
        elif isinstance(out[k], bool) and isinstance(v, bool):
            out[k] = out[k] or v
    return out
