"""`MemoryWidget`: the memory in the notebook, on anywidget (JupyterLab 4, VS Code, Colab:
no build step, no extension of ours to install).

The browser side is the studio's own script (studio/templates/view.js, with vis-network
from pyvis and the widget's glue widget.js: `render.widget_module`), so the widget and
the studio page draw the same data model the same way. What the user picks comes back
to Python in the widget's state: `selected` (a skill, trajectory, subtask or task id)
and `selected_kind`, `checkpoint` (the slider), `filters`; setting any of them from Python
moves the widget. `draw_ms` is the browser's time from the data to the first drawing.

Displayed, the widget gives two outputs: its static copy first (`static.static_bundle`:
a PNG of the drawing and a line of text, for a notebook opened without a kernel, the
course site and nbval), then the interactive view. Its model ids come from `ids.model_id`,
so an executed notebook is the same file on every run.

Not here: what it shows (source.py and the studio's data model), `show` (show.py).
"""

from __future__ import annotations

import json
import re
from typing import Any

import anywidget
import traitlets
from IPython.display import display
from ipywidgets import Layout

from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.retrieval.result import Retrieval
from hyperskill_lite.studio.render import view_css, widget_module
from hyperskill_lite.widget.ids import model_id
from hyperskill_lite.widget.source import Source
from hyperskill_lite.widget.static import static_bundle

__all__ = ["MemoryWidget", "KINDS"]

KINDS = ("skill", "mistake", "trajectory", "subtask", "task", "")
"""What `MemoryWidget.selected_kind` says the selection is ("" for nothing)."""
EDGE_ID = re.compile(r"e[0-9]{1,12}")
"""A hyperedge id, the only thing the browser may ask details of."""
_ESM: list[str] = []


def _esm() -> str:
    if not _ESM:  # read once per kernel: vis-network is 469 kB
        _ESM.append(widget_module())
    return _ESM[0]


class MemoryWidget(anywidget.AnyWidget):
    """The interactive memory: make it with `show` (hyperskill_lite.widget). Traits (both
    ways unless said): `selected`, `selected_kind` (read it), `checkpoint` (index into
    the run's checkpoints; the last is the final memory), `filters` ({"s0", "s1", "u",
    "e": kinds shown, "gamma": utility at least, "degree", "text"}), `draw_ms` (read it:
    the browser's first drawing, in ms); `data` is the studio's run view it draws (sent
    as one JSON text, `view_json`: a notebook's saved widget state keeps it on one line)."""

    _esm = traitlets.Unicode("").tag(sync=True)
    _css = traitlets.Unicode("").tag(sync=True)
    view_json = traitlets.Unicode("{}").tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)
    selected_kind = traitlets.Unicode("").tag(sync=True)
    checkpoint = traitlets.Int(0).tag(sync=True)
    filters = traitlets.Dict().tag(sync=True)
    draw_ms = traitlets.Float(None, allow_none=True).tag(sync=True)

    def __init__(self, source: Source, selected: str = "", checkpoint: int | None = None,
                 **kwargs: Any) -> None:
        self._source = source
        cks = ((source.view.get("graph") or {}).get("checkpoints") or [None])
        last = len(cks) - 1
        ck = last if checkpoint is None else checkpoint
        if not -len(cks) <= ck <= last:
            raise ValueError(f"show: checkpoint {checkpoint} is out of range (this run has "
                             f"{len(cks)} checkpoints: 0 to {last}, or -1 for the last)")
        kwargs.setdefault("layout", Layout(model_id=model_id("layout")))
        text = json.dumps(source.view, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        super().__init__(_esm=_esm(), _css=view_css(), view_json=text,
                         checkpoint=ck % len(cks), model_id=model_id("memory"), **kwargs)
        self.on_msg(self._on_msg)
        if selected:
            self.selected = selected

    @property
    def data(self) -> dict[str, Any]:
        """The studio's run view the widget draws (studio/build.py `run_view`, or
        studio/memory_view.py for a memory)."""
        return self._source.view

    def __repr__(self) -> str:
        v = self.data
        return (f"MemoryWidget({v.get('kind', 'run')} {v.get('name', '')!r}, checkpoint "
                f"{self.checkpoint}, selected {self.selected!r})")

    @traitlets.validate("selected")
    def _valid_selected(self, proposal: dict[str, Any]) -> str:
        value = proposal["value"]
        if len(value) > 512:  # the browser's, bounded like everything from outside
            raise traitlets.TraitError("selected: an id of at most 512 characters")
        return value

    @traitlets.observe("selected")
    def _kind_of_selected(self, change: dict[str, Any]) -> None:
        self.selected_kind = self.kind_of(change["new"])

    def kind_of(self, element: str) -> str:
        """What `element` is in this widget's data: one of `KINDS`."""
        if not element:
            return ""
        v = self.data
        prov = (v.get("provenance") or {}).get(element)
        if prov is not None:
            return "mistake" if prov.get("polarity") == "failure" else "skill"
        for n in (v.get("graph") or {}).get("nodes", []):
            if n[0] == element:
                return {"s": "mistake" if n[5] else "skill", "e": "trajectory",
                        "u": "subtask"}[n[1]]
        if element in (v.get("edges") or {}):
            return "trajectory"
        if any(t.get("task_id") == element for t in v.get("tasks") or []):
            return "task"
        return ""

    # ------------------------------------------------------------ Python's side
    @property
    def memory(self) -> HypergraphMemory | None:
        """The memory at the widget's checkpoint (the memory itself for a memory shown
        alone; None for a run whose method stores no hypergraph)."""
        return self._source.memory_at(self.checkpoint)

    @property
    def run_folder(self) -> str:
        """The run folder shown ("" for a memory)."""
        return str(self.data.get("folder") or "")

    @property
    def others(self) -> list[str]:
        """The other runs of the folder given, which this widget does not show."""
        return list(self._source.others)

    def provenance(self, element: str | None = None) -> dict[str, Any] | None:
        """The studio's provenance of a skill (default: the selected one): its birth
        (extracted or merged, with the parents), trajectories, [after, gamma, nu, sigma]
        per checkpoint, retrievals, and where it ended (merged into, pruned); None when
        the data has none for it."""
        return (self.data.get("provenance") or {}).get(element or self.selected)

    def retrieval(self, task_id: str | None = None) -> Retrieval | None:
        """The `Retrieval` of a task (default: the selected one): a run's as its record
        kept it, a memory's as `show(memory, tasks=...)` made it; None for another
        selection."""
        return self._source.retrieval(task_id or self.selected)

    def explain(self, task_id: str | None = None) -> str:
        """`Retrieval.explain()` of a task (default: the selected one), or a line saying
        why there is none."""
        r = self.retrieval(task_id)
        if r is None:
            return f"{task_id or self.selected or '(nothing selected)'}: not a task of this widget"
        return r.explain()

    # ------------------------------------------------------------ the browser's questions
    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict) or content.get("type") != "details":
            return
        element = content.get("id")
        if not isinstance(element, str) or not EDGE_ID.fullmatch(element):
            return  # the browser asks for hyperedges only; anything else is ignored
        self.send({"type": "details", **self._source.details(element)})

    # ------------------------------------------------------------ display
    def _ipython_display_(self) -> None:
        """The static copy, then the interactive view (module docstring)."""
        display(static_bundle(self.data, self.checkpoint), raw=True)
        data, meta = self._repr_mimebundle_()
        display(data, metadata=meta, raw=True)
