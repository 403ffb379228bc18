"""`show`: a memory or a run, interactive, in the notebook.

Not here: the widget (model.py: anywidget, imported when a widget is first made, so
``import hyperskill_lite`` does not load ipywidgets), what it shows (source.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hyperskill_lite.studio.graph import WIDGET_BUDGET, Budget
from hyperskill_lite.widget.source import make_source

if TYPE_CHECKING:
    from hyperskill_lite.widget.model import MemoryWidget

__all__ = ["show"]


def show(source: Any, tasks: Any = (), *, checkpoint: int | None = None, selected: str = "",
         seed: int = 0, budget: Budget = WIDGET_BUDGET) -> MemoryWidget:
    """The memory, interactive: a `MemoryWidget` (display it: the last line of a cell).

    `source`: a `HypergraphMemory` (or a memory system keeping one, as
    `HyperSkillMemory`), a saved memory's folder (``state/memory``, a checkpoint), or a
    run folder (a demo, compare or sweep folder: its HyperSkill run, the others named in
    `MemoryWidget.others`). A run gets its checkpoints on a slider (with what
    maintenance merged and pruned between two) and its tasks' retrievals; a memory
    gets one retrieval per item of `tasks` (a text, a `Task` or a `Retrieval`).
    `checkpoint`: the one to open on (default: the last, the final memory); `selected`:
    an element or task id to select; `seed`: the layout's; `budget`: what is drawn at
    most (`WIDGET_BUDGET`: past it, the most used skills and a sample of trajectories,
    and the widget says so). ValueError, one line, for anything else.

    The widget's selection comes back: ``w.selected`` (an id), ``w.selected_kind``,
    ``w.checkpoint``, ``w.memory`` (the memory at the checkpoint), ``w.provenance()``,
    ``w.retrieval()`` and ``w.explain()`` of a selected task; setting ``w.selected`` or
    ``w.checkpoint`` moves the widget.
    """
    src = make_source(source, tasks, seed=seed, budget=budget)
    # lazy: anywidget loads ipywidgets (0.3 s), wanted only once a widget is shown
    from hyperskill_lite.widget.model import MemoryWidget

    return MemoryWidget(src, selected=selected, checkpoint=checkpoint)
