"""One maintenance cycle of a served memory: pruning and merging (Eqs. 11-14), planned on
a snapshot, its merges asked of the memory's model concurrently, committed as one
journal record.

The cycle runs on the paper's schedule, every ceil(0.1 N) learned tasks (Appendix A; a
server has no fixed N: it is ``serve --expected-tasks``, 100 by default, so every 10),
inside the learn that completes the period and after that learn is stored; or on a
``maintain`` call. Each scope (scopes.py) is maintained on its own count.

Not here: the policy (core/maintenance.py), the journal record (records.py), the model
calls (models.py).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import anyio.to_thread

from hyperskill_lite.core.maintenance import maintain as core_maintain
from hyperskill_lite.core.records import Fragment, Skill
from hyperskill_lite.errors import LLMError
from hyperskill_lite.serve.models import CallModels
from hyperskill_lite.serve.records import MergeItem
from hyperskill_lite.serve.shared import SharedMemory

__all__ = ["Cycles"]


class _Collector:
    """A merger that records what each merge would be asked (the pair and its shared
    fragments) and answers with a placeholder, so a cycle can be planned on a snapshot
    before any model is called. The placeholder is `a` itself, whose text is embedded
    already (planning embeds nothing new)."""

    def __init__(self) -> None:
        self.calls: list[tuple[Skill, Skill, list[Fragment]]] = []

    def merge(self, a: Skill, b: Skill, fragments: Sequence[Fragment] = ()) -> Skill:
        self.calls.append((a, b, list(fragments)))
        return Skill(a.name, a.content, a.polarity)


class Cycles:
    """Maintenance cycles, at most one at a time per memory in this process."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._running: set[int] = set()

    def _claim(self, shared: SharedMemory) -> bool:
        with self._guard:
            if id(shared) in self._running:
                return False
            self._running.add(id(shared))
            return True

    def _release(self, shared: SharedMemory) -> None:
        with self._guard:
            self._running.discard(id(shared))

    async def run(self, shared: SharedMemory, models: CallModels, reason: str
                  ) -> dict[str, Any]:
        """One cycle on `shared` (module docstring): what was pruned and merged, or
        {"ran": False, "why"} when another cycle got there first."""
        if not self._claim(shared):
            return {"ran": False, "why": "a cycle is already running in this server"}
        try:
            snap, base = await anyio.to_thread.run_sync(shared.snapshot)
            collector = _Collector()
            merge = models.kind != "none"
            planned = await anyio.to_thread.run_sync(
                lambda: core_maintain(snap, collector if merge else None, merge=merge))
            prune = [p["id"] for p in planned.pruned]
            merged = await models.merge(collector.calls) if merge else None
            if not merge:
                models.skip("merge")
            items: list[MergeItem] = []
            for row, got in zip(planned.merged, merged or []):
                if isinstance(got, LLMError):
                    models.notes.append(f"merge of {row['a']} and {row['b']} failed ({got}); "
                                        "both kept")
                    continue
                meta = {"merged_from": [row["a_name"], row["b_name"]],
                        "merged_by": models.kind}
                items.append(MergeItem(row["a"], row["b"], Skill(
                    got.name, got.content, row["polarity"], meta), row["cross_polarity"]))
            applied = await anyio.to_thread.run_sync(
                shared.commit_maintenance, base, prune, items)
        finally:
            self._release(shared)
        if applied is None:
            return {"ran": False, "why": "another process committed a cycle meanwhile; this "
                    "plan was dropped"}
        report = {"ran": True, "reason": reason, **applied,
                  "candidates": len(planned.merged)}
        models.progress["maintenance"] = report
        models.progress["maintained"] = True
        return report
