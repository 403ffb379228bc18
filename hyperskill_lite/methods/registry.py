"""The method registry: every memory method registers a `MethodSpec` where it is defined.

A method is one file: the module that defines the memory system calls
``register_method(MethodSpec(name, group, description, factory))`` at its end. The
package's own methods register on import (HyperSkill and its ablations in the package
methods/hyperskill/, No Memory and the baselines in baselines/); a third-party
distribution adds methods through the entry-point group ``hyperskill_lite.methods``
(`ENTRY_POINT_GROUP`): each entry point loads a `MethodSpec`, or a callable returning
one (or an iterable of them). `load_entry_points` reads the group once per process;
a plugin that fails to load logs ONE warning naming its distribution and is skipped,
and a plugin whose name is already taken (a built-in, or an earlier plugin) is refused
with one warning line. Nothing here raises for a plugin's fault.

`make_method(name, llm, ...)` builds a registered method: the factory receives the
operations the spec names for `llm` (`MethodSpec.operations`): ``prompted_ops(llm)``
over a chat client (anything with ``chat_json``, e.g. `PromptedLLM`),
``simulated_ops(llm)`` over SkillWorld's `SimLLM`, else `llm` itself (HyperSkill's
operations live on both models today).

May import: `core/` (the config), `types.py`. Not here: any method (they register
themselves), the CLI (it reads `METHODS` / `DESCRIPTIONS` derived from here).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from importlib import metadata
from typing import Any

from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.types import MemoryLLM, MemorySystem

__all__ = [
    "MethodSpec",
    "Factory",
    "register_method",
    "registered",
    "spec_of",
    "make_method",
    "load_entry_points",
    "ENTRY_POINT_GROUP",
    "GROUPS",
]

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "hyperskill_lite.methods"
"""The entry-point group a distribution names to add methods (``pyproject.toml``:
``[project.entry-points."hyperskill_lite.methods"] my-memory = "my_pkg.memory:SPEC"``)."""

GROUPS = ("hyperskill", "reference", "baseline", "variant")
"""The package's groups, in the order `METHODS` lists them: HyperSkill and its ablations,
the no-memory reference, the ten baselines of Table 1, the variants; a plugin's own group
(any other string, "plugin" by default) comes after them."""

Factory = Callable[[Any, Any, HyperSkillConfig], MemorySystem]
"""``(ops, encoder, config) -> MemorySystem``; `ops` is what `MethodSpec.operations`
gives for the run's model."""


@dataclass(frozen=True)
class MethodSpec:
    """One memory method as the registry knows it.

    Parameters
    ----------
    name : the CLI name (``run --method NAME``) and the name run.json records.
    group : "hyperskill", "reference", "baseline", "variant" (the package's) or a
        plugin's own (default "plugin").
    description : the line ``python -m hyperskill_lite methods`` prints.
    factory : ``(ops, encoder, config) -> MemorySystem``.
    prompted_ops : optional ``chat_client -> ops``: the method's model operations over a
        prompted chat model (one with ``chat_json``).
    simulated_ops : optional ``sim_llm -> ops``: the same operations inside SkillWorld.
    exclude_self : True when the memory can run under own-task exclusion
        (`EvalProtocol.exclude_self`; it has an ``exclude_self`` attribute the runner sets).
    """

    name: str
    group: str
    description: str
    factory: Factory
    prompted_ops: Callable[[Any], Any] | None = None
    simulated_ops: Callable[[Any], Any] | None = None
    exclude_self: bool = False
    source: str = "hyperskill_lite"
    """Who registered it: the package, or the distribution of an entry point."""

    def operations(self, llm: Any) -> Any:
        """What performs this method's model operations for `llm`.

        >>> spec = MethodSpec("m", "plugin", "d", lambda o, e, c: o,
        ...                   prompted_ops=lambda chat: ("prompted", chat))
        >>> class Chat:
        ...     def chat_json(self, *a): ...
        >>> spec.operations(Chat())[0], spec.operations("sim")
        ('prompted', 'sim')
        """
        prompted = callable(getattr(llm, "chat_json", None))
        make = self.prompted_ops if prompted else self.simulated_ops
        return make(llm) if make is not None else llm


_REGISTRY: dict[str, MethodSpec] = {}


def register_method(spec: MethodSpec) -> MethodSpec:
    """Add `spec` to the registry and return it; a name already taken raises ValueError
    (the message names who took it)."""
    if not isinstance(spec, MethodSpec):
        raise TypeError(f"register_method takes a MethodSpec, not {type(spec).__name__}")
    if not spec.name or spec.name != spec.name.strip() or " " in spec.name:
        raise ValueError(f"method name {spec.name!r} must be one word")
    old = _REGISTRY.get(spec.name)
    if old is not None:
        raise ValueError(f"method {spec.name!r} is already registered by {old.source}")
    _REGISTRY[spec.name] = spec
    return spec


def registered() -> list[MethodSpec]:
    """Every registered spec: the package's groups in `GROUPS` order, then plugins' groups,
    each in registration order."""
    rank = {g: i for i, g in enumerate(GROUPS)}
    specs = list(_REGISTRY.values())
    return sorted(specs, key=lambda s: rank.get(s.group, len(GROUPS)))


def spec_of(name: str) -> MethodSpec:
    """The spec registered under `name`; ValueError naming the choices otherwise."""
    if name not in _REGISTRY:
        raise ValueError(f"unknown method {name!r}; choose one of "
                         f"{', '.join(s.name for s in registered())}")
    return _REGISTRY[name]


def make_method(
    name: str, llm: MemoryLLM, encoder=None, config: HyperSkillConfig | None = None
) -> MemorySystem:
    """Build the memory system registered under `name` over model `llm` (its operations
    chosen by `MethodSpec.operations`)."""
    spec = spec_of(name)
    return spec.factory(spec.operations(llm), encoder, config or HyperSkillConfig())


_LOADED: list[bool] = []


def load_entry_points(group: str = ENTRY_POINT_GROUP, force: bool = False) -> list[str]:
    """Register the methods of every installed distribution's entry points in `group`
    (once per process unless `force`); return the names added. A plugin that fails logs
    one warning and is skipped."""
    if _LOADED and not force:
        return []
    _LOADED.append(True)
    added: list[str] = []
    for ep in metadata.entry_points(group=group):
        dist = getattr(getattr(ep, "dist", None), "name", None) or ep.value
        try:
            specs = _specs_of(ep.load())
        except Exception as exc:  # a plugin's fault never stops the CLI
            log.warning("method plugin %r from %s failed to load and is skipped: %s: %s",
                        ep.name, dist, type(exc).__name__, _one_line(exc))
            continue
        for spec in specs:
            try:
                added.append(register_method(_with_source(spec, dist)).name)
            except (TypeError, ValueError) as exc:
                log.warning("method plugin %r from %s is refused: %s", ep.name, dist,
                            _one_line(exc))
    return added


def _one_line(exc: BaseException, limit: int = 300) -> str:
    """An exception's message on one bounded line (a plugin's message is not ours)."""
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _specs_of(obj: Any) -> list[MethodSpec]:
    """An entry point's object as specs: a MethodSpec, or a callable returning one or an
    iterable of them."""
    if not isinstance(obj, MethodSpec) and callable(obj):
        obj = obj()
    items = [obj] if isinstance(obj, MethodSpec) else list(obj) if isinstance(obj, Iterable) \
        else [obj]
    bad = [x for x in items if not isinstance(x, MethodSpec)]
    if bad:
        raise TypeError(f"expected a MethodSpec, got {type(bad[0]).__name__}")
    return items


def _with_source(spec: MethodSpec, dist: str) -> MethodSpec:
    return replace(spec, source=dist) if spec.source == "hyperskill_lite" else spec
