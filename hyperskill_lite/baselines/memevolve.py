"""MemEvolve: the evolved "Lightweight" memory architecture MemEvolve reports.

MemEvolve (Zhang et al., "MemEvolve: Meta-Evolution of Agent Memory Systems", arXiv
2512.18746) is a framework that evolves memory architectures (encode, store, retrieve,
manage) in an outer loop; the HyperSkill paper compares against the memory system it
produced. Its codebase (EvolveLab) ships two evolved systems, Lightweight and Cerebra
Fusion; this is **Lightweight**, the first evolved architecture, whose long-term part
works as follows:

- encode: from a successful trajectory only, the model extracts at most 2 *strategic*
  learnings (planning, method selection) and 2 *operational* ones (tool use, edge
  cases), 1-2 sentences each;
- store: two JSON tiers with exact-duplicate detection by a normalised-text signature;
  every memory keeps a usage count and a success count;
- retrieve: at the start of a task the most relevant memories of both tiers are
  selected and given as guidance; each selected memory's usage count goes up, and its
  success count too when the task succeeds;
- manage: a tier may grow to 30 + a buffer of 20; when it exceeds 50 it is pruned back
  to 30, keeping the highest 2 * successes + usage (ties: older first).

Simplified here: Lightweight selects with an LLM (top 5, then synthesises guidance);
with the shared setup the top-k = 3 memories by cosine between phi(task) and the memory
are shown as they are, and pruning uses Lightweight's score rule (its fallback) instead
of asking the model which memories to drop. Its short-term, within-task memory (key
facts every 3 steps) has no place in a context assembled once per task and is left out.
"""

from __future__ import annotations

import hashlib
from typing import Any

from hyperskill_lite.baselines.base import BaselineMemory, note_item
from hyperskill_lite.baselines.ops import MemoryNote
from hyperskill_lite.types import Episode, MemoryContext, Task

__all__ = ["LightweightMemory", "signature", "prune_order"]

TIERS = ("strategic", "operational")


def signature(text: str) -> str:
    """Exact-duplicate signature: hash of the lower-cased, whitespace-collapsed text.

    >>> signature("Verify  twice.") == signature("verify twice.")
    True
    """
    norm = " ".join(text.lower().split())
    return hashlib.blake2b(norm.encode("utf-8"), digest_size=8).hexdigest()


def prune_order(success: list[int], usage: list[int]) -> list[int]:
    """Indices by Lightweight's keep score 2 * success + usage, best first, ties older
    (lower index) first; prune by keeping a prefix.

    >>> prune_order([0, 2, 1, 0], [3, 2, 4, 0])
    [1, 2, 0, 3]
    """
    return sorted(range(len(success)), key=lambda i: (-(2 * success[i] + usage[i]), i))


class LightweightMemory(BaselineMemory):
    """MemEvolve's Lightweight memory on the runner's interface (module docstring).

    `longterm` rows: key = the memory text; payload ``{"tier", "note", "signature",
    "usage", "success"}``.
    """

    name = "memevolve"
    SECTIONS = (("insight", "## Guidance from long-term memory (strategic and operational)"),)
    STORES = ("longterm",)

    def __init__(
        self, llm: Any, encoder: Any = None, k: int = 3, max_per_tier: int = 30, buffer: int = 20
    ) -> None:
        super().__init__(llm, encoder, k)
        if max_per_tier < 1 or buffer < 0:
            raise ValueError("memevolve: max_per_tier must be >= 1 and buffer >= 0")
        self.max_per_tier, self.buffer = int(max_per_tier), int(buffer)
        self.longterm = self._new_store()
        self.pruned = 0

    def begin(self, task: Task) -> MemoryContext:
        if not len(self.longterm):
            return MemoryContext()
        rows = [r for r, _ in self.longterm.topk(self._vec(task.text), self.k)]
        self._pending[task.id] = rows
        items = []
        for r in rows:
            p = self.longterm.payloads[r]
            n = MemoryNote.from_dict(p["note"])
            items.append(note_item("insight", n, f"[{p['tier']}] {n.content}"))
        return self._context(items, [f"lt{r}" for r in rows])

    def end(self, task: Task, episode: Episode) -> None:
        live = set(self.longterm.rows())
        for r in self._pending.pop(task.id, []):
            if r in live:
                p = dict(self.longterm.payloads[r])
                p["usage"] += 1
                p["success"] += int(bool(episode.success))
                self.longterm.update(r, p)
        self.t += 1
        if not episode.success:
            return
        got = self._op("strategic_operational", task, episode)
        for tier in TIERS:
            seen = {
                self.longterm.payloads[r]["signature"]
                for r in self.longterm.rows()
                if self.longterm.payloads[r]["tier"] == tier
            }
            for note in got.get(tier, []):
                sig = signature(note.content)
                if len(note.content) < 20 or sig in seen:
                    continue
                seen.add(sig)
                self.longterm.add(
                    note.content,
                    self._vec(note.content),
                    {
                        "tier": tier,
                        "note": note.to_dict(),
                        "signature": sig,
                        "usage": 0,
                        "success": 0,
                    },
                )
            self._prune(tier)

    def _prune(self, tier: str) -> None:
        rows = [r for r in self.longterm.rows() if self.longterm.payloads[r]["tier"] == tier]
        if len(rows) <= self.max_per_tier + self.buffer:
            return
        pl = [self.longterm.payloads[r] for r in rows]
        order = prune_order([p["success"] for p in pl], [p["usage"] for p in pl])
        for i in order[self.max_per_tier :]:
            self.longterm.remove(rows[i])
            self.pruned += 1

    def stats(self) -> dict[str, int]:
        tiers = [self.longterm.payloads[r]["tier"] for r in self.longterm.rows()]
        return {t: tiers.count(t) for t in TIERS}

    def _state(self) -> dict[str, Any]:
        return {"pruned": self.pruned, "max_per_tier": self.max_per_tier, "buffer": self.buffer}

    def _load_state(self, state: dict[str, Any]) -> None:
        self.pruned = int(state["pruned"])
        self.max_per_tier, self.buffer = int(state["max_per_tier"]), int(state["buffer"])
