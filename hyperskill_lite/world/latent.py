"""The hidden metadata SkillWorld attaches to tasks and texts (its latent structure).

Every text the simulated model writes carries ``meta["skillworld"]`` naming the latent
strategies, error patterns and spurious (harmful) strategies it expresses; every task
carries its archetypes and topic. `latent_meta` builds that metadata, `latent_of` reads
it back, `task_latent` reads a task's. The simulated executor judges a context only
through it; no memory system ever reads it.

Not here: writing the texts (simllm.py, toolkit.py, each method's simulated operations) or judging them (executor.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hyperskill_lite.types import Task

__all__ = ["FIELDS", "KIND_FIELD", "latent_meta", "latent_of", "task_latent"]

FIELDS = ("strategies", "errors", "spurious")
"""The three latent id lists of the metadata."""
KIND_FIELD = {"strategy": "strategies", "error": "errors", "spurious": "spurious"}
"""Which list a latent of each kind goes in."""


def latent_meta(
    strategies: Iterable[str] = (),
    errors: Iterable[str] = (),
    spurious: Iterable[str] = (),
    source: str = "",
    **extra: Any,
) -> dict[str, Any]:
    """Hidden metadata for a text SkillWorld wrote: ``{"skillworld": {...}}``.

    >>> latent_meta(strategies=["compute_with_code"], source="extract")["skillworld"]
    {'strategies': ['compute_with_code'], 'errors': [], 'spurious': [], 'harmful': False, 'source': 'extract'}
    """
    sp = list(dict.fromkeys(spurious))
    d = {
        "strategies": list(dict.fromkeys(strategies)),
        "errors": list(dict.fromkeys(errors)),
        "spurious": sp,
        "harmful": bool(sp),
        "source": source,
    }
    d.update(extra)
    return {"skillworld": d}


def latent_of(meta: dict[str, Any] | None) -> dict[str, list[str]]:
    """The latent id lists of a `meta` dict; empty lists when it has no SkillWorld part.

    >>> latent_of({})
    {'strategies': [], 'errors': [], 'spurious': []}
    """
    sw = (meta or {}).get("skillworld") or {}
    return {f: list(sw.get(f, ())) for f in FIELDS}


def task_latent(task: Task) -> dict[str, Any]:
    """The hidden structure of a SkillWorld task; a clear error for any other task."""
    lat = task.meta.get("skillworld") if isinstance(task.meta, dict) else None
    if not isinstance(lat, dict) or "archetypes" not in lat:
        raise ValueError(
            f"task {task.id!r} has no meta['skillworld'] latent structure; "
            "SimLLM and SimExecutor only work on tasks from world.make_tasks()"
        )
    return lat
