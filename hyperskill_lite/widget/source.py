"""What a widget shows, made from what the user gives `show`: a memory, a saved memory's
folder, or a run folder (a demo, compare or sweep folder stands for the HyperSkill run in
it). `Source` keeps the data model (the studio's run view) and what the widget needs of
the memory later: each checkpoint's memory, a task's retrieval, a trajectory's text.

Not here: the data model itself (studio/: build.py for a run, memory_view.py for a
memory), the widget (model.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyperskill_lite.core.io.layout import MANIFEST
from hyperskill_lite.core.io.read import load_memory
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.retrieval import retrieve
from hyperskill_lite.core.retrieval.result import Retrieval
from hyperskill_lite.runner.files import RUN_FILE, RunError
from hyperskill_lite.studio.build import StudioOptions, run_view
from hyperskill_lite.studio.graph import WIDGET_BUDGET, Budget
from hyperskill_lite.studio.history import Snapshot, memory_history
from hyperskill_lite.studio.memory_view import details, memory_view
from hyperskill_lite.studio.render import json_safe
from hyperskill_lite.studio.runs import RunFolder, expand_runs, read_run, run_names

__all__ = ["Source", "make_source", "VIEW_KEYS"]

VIEW_KEYS = ("name", "folder", "method", "world", "protocol", "hypergraph", "graph",
             "provenance", "provenance_note", "edges", "cycles", "tasks", "tasks_note", "kind")
"""The parts of a run view the widget uses (the page's charts, settings and hygiene
lists stay on the page)."""


@dataclass
class Source:
    """A widget's data (`view`, a studio run view) and where it came from: `memory` (a
    memory shown alone) or `run` (a run folder), `retrievals` (a memory's tasks), `others`
    (the other runs of a folder given for one), `snaps` (a run's snapshots, read when
    first asked for)."""

    view: dict[str, Any]
    memory: HypergraphMemory | None = None
    run: RunFolder | None = None
    retrievals: list[Retrieval] = field(default_factory=list)
    others: list[str] = field(default_factory=list)
    _snaps: list[Snapshot] | None = None

    @property
    def snaps(self) -> list[Snapshot]:
        """The snapshots the view's checkpoints were drawn from, in order."""
        if self._snaps is None:
            if self.memory is not None:
                self._snaps = [Snapshot(0, "memory", self.memory)]
            elif self.run is not None:
                self._snaps = memory_history(self.run.path, len(self.run.records))
            else:
                self._snaps = []
        return self._snaps

    def memory_at(self, checkpoint: int) -> HypergraphMemory | None:
        """The memory at checkpoint `checkpoint` (an index into the view's checkpoints)."""
        snaps = self.snaps
        if not snaps:
            return None
        return snaps[max(0, min(checkpoint, len(snaps) - 1))].memory

    def retrieval(self, task_id: str) -> Retrieval | None:
        """The retrieval of the task `task_id` as the view shows it (a run's: its latest
        episode of that task, read back from the records), None when there is none."""
        tasks = self.view.get("tasks") or []
        pos = next((k for k in range(len(tasks) - 1, -1, -1)
                    if tasks[k]["task_id"] == task_id), None)
        if pos is None:
            return None
        if self.memory is not None:
            return self.retrievals[pos] if pos < len(self.retrievals) else None
        if self.run is None:
            return None
        index = tasks[pos]["index"]
        at = next((i for i, r in enumerate(self.run.records) if r.get("index") == index), None)
        doc = self.run.explanations([at]).get(at) if at is not None else None
        return Retrieval.from_record(doc) if isinstance(doc, dict) else None

    def details(self, element: str) -> dict[str, Any]:
        """A trajectory's episode, task, outcome, task text, lesson and subtasks."""
        snaps = self.snaps
        if not snaps:
            return {"id": element}
        episode = task_id = None
        if self.run is not None:
            for r in self.run.records:
                upd = r.get("update")
                if isinstance(upd, dict) and upd.get("edge") == element:
                    episode, task_id = r.get("index"), r.get("task_id")
                    break
        return details(snaps[-1].memory, element, episode, task_id)


def _is_memory_folder(path: Path) -> bool:
    return (path / MANIFEST).is_file() and not (path / RUN_FILE).is_file()


def make_source(source: Any, tasks: Any = (), seed: int = 0,
                budget: Budget = WIDGET_BUDGET) -> Source:
    """The `Source` of what `show` was given (see `show`); ValueError with one line saying
    what is wrong and what to give instead."""
    mem = getattr(source, "memory", None)
    if not isinstance(source, HypergraphMemory) and isinstance(mem, HypergraphMemory):
        source = mem  # a memory system that keeps a hypergraph (HyperSkillMemory)
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.exists():
            raise ValueError(f"show: {path} does not exist; give a memory, a saved memory's "
                             "folder or a run folder")
        if _is_memory_folder(path):
            source = load_memory(path)
        else:
            return _run_source(path, seed, budget)
    if not isinstance(source, HypergraphMemory):
        raise ValueError(f"show: cannot show a {type(source).__name__}; give a "
                         "HypergraphMemory, a saved memory's folder or a run folder")
    pairs = [_task_retrieval(source, t, k) for k, t in enumerate(tasks)]
    view = memory_view(source, pairs, seed=seed, budget=budget)
    return Source(json_safe(view), memory=source, retrievals=[r for _, r in pairs])


def _task_retrieval(memory: HypergraphMemory, task: Any, k: int) -> tuple[str, Retrieval]:
    """(task id, its retrieval on `memory`) of the k-th task given to `show`: a text
    (named ``q1``, ``q2``, ...), a `Task` (its id), a `Retrieval`, or (id, `Retrieval`)."""
    if isinstance(task, tuple) and len(task) == 2 and isinstance(task[1], Retrieval):
        return str(task[0]), task[1]
    if isinstance(task, Retrieval):
        return f"q{k + 1}", task
    if isinstance(task, str):
        return f"q{k + 1}", retrieve(memory, task)
    text = getattr(task, "text", None)
    if isinstance(text, str):
        return str(getattr(task, "id", "") or f"q{k + 1}"), retrieve(memory, text)
    raise ValueError(f"show: a task is a text, a Task or a Retrieval, got {type(task).__name__}")


def _run_source(path: Path, seed: int, budget: Budget) -> Source:
    try:
        folders = expand_runs([path])
    except (FileNotFoundError, RunError) as exc:
        raise ValueError(f"show: {exc}") from None
    infos = []
    for f in folders:
        try:
            infos.append(json.loads((f / RUN_FILE).read_text(encoding="utf-8")))
        except (OSError, ValueError):
            infos.append({})
    names = run_names([i if isinstance(i, dict) else {} for i in infos])
    pick = next((k for k, i in enumerate(infos) if isinstance(i, dict)
                 and i.get("method") == "hyperskill"), 0)
    try:
        run = read_run(folders[pick])
    except RunError as exc:
        raise ValueError(f"show: {exc}") from None
    view = run_view(run, names[pick], StudioOptions(seed=seed, samples=0, budget=budget))
    view = {k: view[k] for k in VIEW_KEYS if k in view} | {"kind": "run"}
    others = [f"{n} ({f})" for k, (n, f) in enumerate(zip(names, folders)) if k != pick]
    return Source(json_safe(view), run=run, others=others)
