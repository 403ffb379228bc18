"""Why a task saw what it saw: each episode's retrieval, as `Retrieval.explain()` prints
it, with the context text the agent was given.

The runner keeps the whole retrieval of every HyperSkill episode in its record
(``record["explain"]``, `Retrieval.to_record`: the plan P_0, R_u with its cosines,
E_sub, E_traj, E*, kappa over the candidates R_s, S_q and the context). `task_views`
rebuilds each one with `Retrieval.from_record` and calls its `explain()`, so the page
shows exactly the view a notebook prints. A run recorded before retrievals were kept, or
a method without this retrieval (the baselines, no memory), shows the ids it retrieved.

At most `MAX_TASKS` episodes are shown (evenly spaced over the run, the first and last
included); the page says when the list is a sample. Only their retrievals are read:
`task_views` asks `fetch` for them (`RunFolder.explanations` reads those lines of the
records file again; the records in memory do not carry them).

Not here: retrieval itself (core/retrieval/).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from hyperskill_lite.core.retrieval.result import Retrieval

__all__ = ["task_views", "explanation", "MAX_TASKS"]

MAX_TASKS = 600
"""Episodes whose retrieval the page carries at most."""


def explanation(record: dict[str, Any]) -> str | None:
    """`Retrieval.explain()` of a record's kept retrieval, None when it kept none, and
    one line saying so when the kept retrieval is damaged (a records file is the
    user's, and may have been edited: one bad record costs its explanation only)."""
    return _explain_text(record.get("explain"), record.get("index"))


def _explain_text(doc: Any, index: Any) -> str | None:
    if not isinstance(doc, dict):
        return None
    try:
        return Retrieval.from_record(doc).explain()
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return (f"(episode {index}: its recorded retrieval cannot be "
                f"explained: {type(exc).__name__} {exc})")


def _ids(v: Any) -> list[str]:
    """A list of ids from a record's field (anything else: [])."""
    return [x for x in v if isinstance(x, str)] if isinstance(v, list) else []


def _sample(n: int, k: int) -> list[int]:
    if n <= k:
        return list(range(n))
    return sorted(set(np.linspace(0, n - 1, k).round().astype(int).tolist()))


def task_views(records: Sequence[dict[str, Any]],
               fetch: Callable[[list[int]], Mapping[int, Any]] | None = None
               ) -> dict[str, Any]:
    """{"tasks": [{"index", "task_id", "success", "explain" (text or None), "context",
    "S_q", "kappa", "R_u", "E_sub", "E_traj", "E_star", "retrieved"}], "note"}.
    `fetch(positions)` gives the ``explain`` of the sampled records by position (default:
    the records' own field)."""
    picked = _sample(len(records), MAX_TASKS)
    docs = fetch(picked) if fetch is not None else {i: records[i].get("explain")
                                                   for i in picked}
    tasks = []
    for i in picked:
        r = records[i]
        raw = docs.get(i)
        doc = raw if isinstance(raw, dict) else {}
        tasks.append({
            "index": int(r.get("index", i)), "task_id": r.get("task_id"),
            "success": bool(r.get("success")),
            "explain": _explain_text(raw, r.get("index")),
            "context": doc.get("context") if isinstance(doc.get("context"), str) else None,
            "S_q": _ids(doc.get("skill_ids")),
            "kappa": doc.get("kappa") if isinstance(doc.get("kappa"), dict) else {},
            "R_u": _ids(doc.get("subtask_ids")), "E_sub": _ids(doc.get("subtask_edge_ids")),
            "E_traj": _ids(doc.get("trajectory_edge_ids")), "E_star": _ids(doc.get("edge_ids")),
            "retrieved": _ids(r.get("retrieved")),
        })
    note = ""
    if len(picked) < len(records):
        note = (f"Sampled: {len(picked)} of {len(records)} episodes (evenly spaced, first "
                "and last included).")
    if records and not any(t["explain"] for t in tasks):
        note = (note + " " if note else "") + (
            "These records keep no retrieval to explain (a method without HyperSkill's "
            "retrieval, or a run recorded before retrievals were kept): the ids each "
            "episode retrieved are shown instead.")
    return {"tasks": tasks, "note": note}
