"""The No Memory baseline: the agent runs every task with an empty context."""

from __future__ import annotations

from pathlib import Path

from hyperskill_lite.core.records import MaintenanceReport
from hyperskill_lite.methods.registry import MethodSpec, register_method
from hyperskill_lite.types import Episode, MemoryContext, Task

__all__ = ["NoMemory"]


class NoMemory:
    """Stores nothing, retrieves nothing; the reference row of the paper's Table 1."""

    name = "no-memory"

    def begin(self, task: Task) -> MemoryContext:
        return MemoryContext()

    def end(self, task: Task, episode: Episode) -> None:
        return None

    def maintain(self) -> MaintenanceReport:
        return MaintenanceReport()

    def stats(self) -> dict[str, int]:
        return {}

    def retrieval_budget(self) -> dict[str, int]:
        """It retrieves nothing (``run --k`` changes nothing)."""
        return {}

    def save(self, path: Path) -> None:
        Path(path).mkdir(parents=True, exist_ok=True)

    def load(self, path: Path) -> None:
        return None


register_method(MethodSpec("no-memory", "reference",
                           "no memory: the agent alone (the reference row)",
                           lambda llm, enc, cfg: NoMemory(), exclude_self=True, takes_k="none"))
