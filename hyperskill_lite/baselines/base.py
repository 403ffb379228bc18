"""What the ten baselines share: a base class, metadata union and context rendering.

`BaselineMemory` holds its model operations (`llm`: the class's `OPS` for the model it was
given, built once by `methods.operations.operations_over`), the shared encoder phi, the
retrieval count k (3 for every baseline, the paper's shared setup, Appendix A; ``run
--k`` sets it), the
model-call counter `llm_calls` the runner reads, the episode clock `t`, and the
retrievals pending between `begin` and `end`. It saves and loads the whole state: a
``state.json`` (format line, method, encoder, counters, the method's `_state()`) plus
one `VectorStore` per name in `STORES`; loading seeds the encoder's cache with the
stored (key, vector) pairs, so no stored text is embedded again.

The rule every baseline keeps: `begin` only reads. Statistics a retrieval changes
(access times, usage counts) are applied in `end`, from the pending retrieval, so a
retrieval never rewrites the memory and an abandoned `begin` leaves no trace.

Each baseline's module registers it at its end with `register_baseline` (the method
registry, methods/registry.py): its CLI name is the class's `name`; its operations are the
class's own `OPS` (a `PromptedOps` subclass defined beside it, in its module, each
operation declared once with its prompt, schema, canned reply and simulated
implementation): over a chat client the prompted ones, inside SkillWorld the simulated
ones (`SimLLM.simulate`).

Not here: any method's mechanism (one module per baseline), the store (store.py).
"""

from __future__ import annotations

import copy
import functools
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from hyperskill_lite.baselines.ops.notes import MemoryNote
from hyperskill_lite.baselines.ops.prompted import PromptedOps
from hyperskill_lite.baselines.store import VectorStore
from hyperskill_lite.core.embed import default_encoder
from hyperskill_lite.core.meta import merge_meta
from hyperskill_lite.core.records import ContextItem, MaintenanceReport
from hyperskill_lite.methods.operations import declared, operations_over
from hyperskill_lite.methods.registry import MethodSpec, register_method
from hyperskill_lite.types import MemoryContext, Task

__all__ = ["BaselineMemory", "BASELINE_FORMAT", "union_meta", "render_context", "note_item",
           "register_baseline"]

BASELINE_FORMAT = "hyperskill_lite.baseline/1"


def union_meta(*metas: dict[str, Any] | None) -> dict[str, Any]:
    """`memory.merge_meta` over any number of dicts (nested dicts merged, lists
    unioned in order, booleans OR-ed, other values keep the first).

    >>> union_meta({"skillworld": {"strategies": ["a"], "harmful": False, "source": "x"}},
    ...            {"skillworld": {"strategies": ["b", "a"], "harmful": True, "source": "y"}})
    {'skillworld': {'strategies': ['a', 'b'], 'harmful': True, 'source': 'x'}}
    """
    return functools.reduce(merge_meta, metas, {})


def note_item(kind: str, note: MemoryNote, text: str | None = None) -> ContextItem:
    """A context item showing `note` (or `text`), carrying a copy of its hidden meta."""
    return ContextItem(
        kind=kind, text=text if text is not None else note.text, meta=copy.deepcopy(note.meta)
    )


def render_context(items: list[ContextItem], sections: tuple[tuple[str, str], ...]) -> str:
    """The context text: one numbered section per (kind, title), in that order; kinds
    without a section go under "## Other Memory". Continuation lines are indented.

    >>> print(render_context([ContextItem("insight", "Verify twice.")],
    ...                      (("insight", "## Insights"),)))
    ## Insights
    1. Verify twice.
    """
    known = {k for k, _ in sections}
    extra = tuple(dict.fromkeys(i.kind for i in items if i.kind not in known))
    blocks = []
    for kinds, title in [((k,), t) for k, t in sections] + [(extra, "## Other Memory")]:
        rows = [i for i in items if i.kind in kinds]
        if not rows:
            continue
        lines = [title]
        for n, it in enumerate(rows, 1):
            lines.append(f"{n}. " + it.text.strip().replace("\n", "\n   "))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


class BaselineMemory(ABC):
    """Base of the ten baselines; see the module docstring. Subclasses set `name`,
    `SECTIONS` (context layout), `STORES` (attributes holding a `VectorStore`) and
    implement `begin`, `end`, `_state`, `_load_state` and `stats`."""

    name = "baseline"
    SECTIONS: tuple[tuple[str, str], ...] = ()
    STORES: tuple[str, ...] = ()
    OPS: type = PromptedOps
    """The class's model operations (a `PromptedOps` subclass, in its module)."""

    def __init__(self, llm: Any, encoder: Any = None, k: int = 3) -> None:
        if int(k) < 1:
            raise ValueError(f"{self.name}: retrieval count k must be >= 1, got {k}")
        if encoder is None:
            encoder = default_encoder()
        self.llm = operations_over(self.OPS, llm)
        """Performs the model operations: the class's `OPS` over a chat client, their
        simulated implementations over SkillWorld's SimLLM, or `llm` itself when it is
        operations already (or a test double that has them)."""
        self.encoder = encoder
        self.k = int(k)
        self.llm_calls = 0
        """Model calls this memory made (extraction, scoring, curation, ...)."""
        self.t = 0
        """Episodes learned so far (the memory's clock)."""
        self._pending: dict[str, Any] = {}  # task id -> what begin retrieved

    # ------------------------------------------------------------------ helpers
    def _op(self, op: str, *args: Any) -> Any:
        """Call model operation `op`, counting it; a clear error if `llm` lacks it."""
        fn = getattr(self.llm, op, None)
        if fn is None:
            raise TypeError(
                f"{self.name} needs the model operation {op!r}, which "
                f"{type(self.llm).__name__} does not have; use PromptedLLM or SimLLM"
            )
        self.llm_calls += 1
        return fn(*args)

    def _meta_of(self, task: Task, episode: Any) -> dict[str, Any]:
        """Hidden meta of a raw trajectory (no model call; {} for a live model)."""
        fn = getattr(self.llm, "trajectory_meta", None)
        return dict(fn(task, episode)) if fn is not None else {}

    def _vec(self, text: str) -> np.ndarray:
        """phi(text), shape (d,) (cached by the encoder)."""
        return np.asarray(self.encoder.encode([text])[0], dtype=np.float32)

    def _new_store(self) -> VectorStore:
        return VectorStore(self.encoder.dim)

    def _context(
        self,
        items: list[ContextItem],
        retrieved: list[str],
        llm_calls: int = 0,
        plan: list[str] | None = None,
    ) -> MemoryContext:
        return MemoryContext(
            text=render_context(items, self.SECTIONS),
            items=items,
            retrieved=retrieved,
            plan=list(plan or []),
            llm_calls=llm_calls,
        )

    # ------------------------------------------------------------------ interface
    def maintain(self) -> MaintenanceReport:
        """The baselines have no periodic maintenance (their own upkeep, where they have
        one, runs in `end`): an empty report with the sizes."""
        s = self.stats()
        return MaintenanceReport(sizes_before=dict(s), sizes_after=dict(s))

    @abstractmethod
    def stats(self) -> dict[str, int]:
        """Sizes of the stores, for growth curves."""

    def retrieval_budget(self) -> dict[str, Any]:
        """The retrieval counts this memory uses (what run.json records; ``run --k`` sets
        them): k, the items retrieved per task."""
        return {"k": self.k}

    @abstractmethod
    def _state(self) -> dict[str, Any]:
        """Everything beyond the vector stores, as plain JSON data."""

    @abstractmethod
    def _load_state(self, state: dict[str, Any]) -> None:
        """Restore what `_state` returned."""

    def save(self, path: Path) -> None:
        """Write the whole state to directory `path` (stores first, state.json last)."""
        d = Path(path)
        d.mkdir(parents=True, exist_ok=True)
        for name in self.STORES:
            getattr(self, name).save(d, name)
        doc = {
            "format": BASELINE_FORMAT,
            "method": self.name,
            "encoder": self.encoder.name,
            "k": self.k,
            "llm_calls": self.llm_calls,
            "t": self.t,
            "state": self._state(),
        }
        tmp = d / "state.json.tmp"
        tmp.write_text(json.dumps(doc, sort_keys=True), encoding="utf-8")
        os.replace(tmp, d / "state.json")

    def load(self, path: Path) -> None:
        """Restore a state written by `save` of the same method and encoder."""
        d = Path(path)
        f = d / "state.json"
        if not f.is_file():
            raise FileNotFoundError(f"{self.name}: no saved memory at {f}")
        doc = json.loads(f.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or doc.get("format") != BASELINE_FORMAT:
            raise ValueError(f"{f}: not a baseline memory (format {doc.get('format')!r})")
        if doc.get("method") != self.name:
            raise ValueError(f"{f} holds a {doc.get('method')!r} memory, not {self.name!r}")
        if doc.get("encoder") != self.encoder.name:
            raise ValueError(
                f"{f} was embedded with {doc.get('encoder')!r}; this memory uses "
                f"{self.encoder.name!r}"
            )
        for name in self.STORES:
            store = VectorStore.load(d, name)
            if store.dim != self.encoder.dim:
                raise ValueError(f"{d / name}: dim {store.dim} != encoder dim {self.encoder.dim}")
            seed = getattr(self.encoder, "seed_cache", None)
            if seed is not None and store.n:
                seed(store.keys, store.matrix())
            setattr(self, name, store)
        self.k, self.llm_calls, self.t = int(doc["k"]), int(doc["llm_calls"]), int(doc["t"])
        self._load_state(doc["state"])
        self._pending.clear()


def register_baseline(
    cls: type, group: str, description: str,
    build: Callable[[Any, Any, int], BaselineMemory] | None = None,
) -> MethodSpec:
    """Register baseline class `cls` under ``cls.name`` in `group` ("baseline" or
    "variant"): built over the run's model (the class builds its operations, `OPS`, once)
    with the shared encoder and retrieval count k (3, Appendix A; ``run --k`` sets it),
    by ``build(llm, encoder, k)`` when given (a class with more than one retrieval count
    says there which ones k sets), else ``cls(llm, encoder, k)``."""
    make = build or (lambda llm, enc, k: cls(llm, enc, k))
    return register_method(MethodSpec(
        cls.name, group, description, lambda llm, enc, cfg, k=3: make(llm, enc, k),
        takes_k="factory", model_operations=tuple(declared(cls.OPS).values()),
    ))
