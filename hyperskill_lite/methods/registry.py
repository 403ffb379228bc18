"""The method registry: every memory method registers a `MethodSpec` where it is defined.

A method is one file: the module that defines the memory system calls
``register_method(MethodSpec(name, group, description, factory))`` at its end. The
package's own methods register on import (HyperSkill and its ablations in the package
methods/hyperskill/, No Memory and the baselines in baselines/); a third-party
distribution adds methods through the entry-point group ``hyperskill_lite.methods``
(`ENTRY_POINT_GROUP`): each entry point loads a `MethodSpec`, or a callable returning
one (or an iterable of them). The package's methods are imported and the entry points
read once per process, on the first use that needs them (`registered`, `spec_of`,
`make_method`), never on import; a plugin that fails to load logs ONE warning naming its
distribution and is skipped, and a plugin whose name is already taken (a built-in, or an
earlier plugin) is refused with one warning line. Nothing here raises for a plugin's
fault.

`make_method(name, llm, ...)` builds a registered method, the one way every caller does:
its factory receives the operations the spec names for `llm` (`MethodSpec.operations`:
``prompted_ops(llm)`` over a chat client, anything with ``chat_json``, e.g.
`PromptedLLM`; ``simulated_ops(llm)`` over SkillWorld's `SimLLM`; else `llm` itself,
for a memory that builds its operations from the model once, as HyperSkill and every
baseline do), and ``k`` (``run --k``) reaches it the way the spec says
(`MethodSpec.takes_k`).

May import: `core/` (the config), `types.py`, methods/operations.py; the package's
baselines/ by name when first used (they register). Not here: any method (they register
themselves), the CLI (it reads `METHODS` / `DESCRIPTIONS`, derived from here in the
package's ``__init__``).
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from importlib import metadata
from typing import Any

from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.methods.operations import ModelOperation
from hyperskill_lite.types import MemoryLLM, MemorySystem

__all__ = [
    "MethodSpec",
    "Factory",
    "register_method",
    "registered",
    "spec_of",
    "make_method",
    "load_entry_points",
    "own_methods",
    "ENTRY_POINT_GROUP",
    "GROUPS",
    "TAKES_K",
]

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "hyperskill_lite.methods"
"""The entry-point group a distribution names to add methods (``pyproject.toml``:
``[project.entry-points."hyperskill_lite.methods"] my-memory = "my_pkg.memory:SPEC"``)."""

GROUPS = ("hyperskill", "reference", "baseline", "variant")
"""The package's groups, in the order `METHODS` lists them: HyperSkill and its ablations,
the no-memory reference, the ten baselines of Table 1, the variants; a plugin's own group
(any other string, "plugin" by default) comes after them."""

Factory = Callable[..., MemorySystem]
"""``(ops, encoder, config) -> MemorySystem`` (and ``k=K`` when the spec's `takes_k` is
"factory"); `ops` is what `MethodSpec.operations` gives for the run's model."""

TAKES_K = ("config", "factory", "none")
"""How ``run --k K`` reaches a method (`MethodSpec.takes_k`): "config" — it reads its
retrieval budgets from the `HyperSkillConfig` it is built with, whose k_u, k_e and k_s
become K; "factory" — its factory is called with ``k=K``; "none" — it retrieves nothing,
so K changes nothing. A spec that names none of these refuses ``--k``."""


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
    takes_k : how ``run --k`` reaches it (`TAKES_K`); None: ``--k`` is refused with one
        line naming the method.
    model_operations : the model operations the method declares
        (`methods.operations.operation`): what the scripted test server's canned replies
        and the prompts index are gathered from.
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
    takes_k: str | None = None
    model_operations: tuple[ModelOperation, ...] = ()

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
_BUILTIN = "hyperskill_lite.baselines"
"""The package's methods beyond HyperSkill (imported when first needed, they register)."""
_LOADED: dict[str, bool] = {}


def register_method(spec: MethodSpec) -> MethodSpec:
    """Add `spec` to the registry and return it; a name already taken raises ValueError
    (the message names who took it)."""
    if not isinstance(spec, MethodSpec):
        raise TypeError(f"register_method takes a MethodSpec, not {type(spec).__name__}")
    if not spec.name or spec.name != spec.name.strip() or " " in spec.name:
        raise ValueError(f"method name {spec.name!r} must be one word")
    if spec.takes_k is not None and spec.takes_k not in TAKES_K:
        raise ValueError(f"method {spec.name!r}: takes_k must be one of {TAKES_K} or None, "
                         f"got {spec.takes_k!r}")
    old = _REGISTRY.get(spec.name)
    if old is not None:
        raise ValueError(f"method {spec.name!r} is already registered by {old.source}")
    _REGISTRY[spec.name] = spec
    return spec


def _import_builtins() -> None:
    """Import every module of baselines/ (each registers its method): those its
    ``__init__`` names first, in Table 1's order, then any other module of the folder, so
    a new method there is one file."""
    if _LOADED.get("builtins"):
        return
    _LOADED["builtins"] = True
    package = importlib.import_module(_BUILTIN)
    for found in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{_BUILTIN}.{found.name}")


def _sorted(specs: Iterable[MethodSpec]) -> list[MethodSpec]:
    rank = {g: i for i, g in enumerate(GROUPS)}
    return sorted(specs, key=lambda s: rank.get(s.group, len(GROUPS)))


def registered() -> list[MethodSpec]:
    """Every registered spec, the package's methods imported and the entry points read
    first (once per process): the package's groups in `GROUPS` order, then plugins'
    groups, each in registration order."""
    _import_builtins()
    load_entry_points()
    return _sorted(_REGISTRY.values())


def own_methods(group: str) -> tuple[str, ...]:
    """The package's own methods of `group`, in registration order (no entry point read:
    a plugin is not one of the paper's baselines, whatever group it names)."""
    _import_builtins()
    return tuple(s.name for s in _sorted(_REGISTRY.values())
                 if s.group == group and s.source == "hyperskill_lite")


def spec_of(name: str) -> MethodSpec:
    """The spec registered under `name`; ValueError naming the choices otherwise."""
    if name not in _REGISTRY:
        _import_builtins()
        load_entry_points()
    if name not in _REGISTRY:
        raise ValueError(f"unknown method {name!r}; choose one of "
                         f"{', '.join(s.name for s in registered())}")
    return _REGISTRY[name]


def make_method(
    name: str, llm: MemoryLLM, encoder=None, config: HyperSkillConfig | None = None,
    k: int | None = None,
) -> MemorySystem:
    """Build the memory system registered under `name` over model `llm` (its operations
    chosen by `MethodSpec.operations`); `k` (``run --k``, None: the method's own default)
    reaches it as its spec says (`TAKES_K`), or is refused with ValueError naming the
    method when the spec does not say.

    >>> from hyperskill_lite.core.embed import HashingEncoder
    >>> from hyperskill_lite.world.simllm import SimLLM
    >>> expel = make_method("expel", SimLLM(), HashingEncoder(), k=5)
    >>> hyperskill = make_method("hyperskill", SimLLM(), HashingEncoder(), k=5)
    >>> expel.k, expel.insights_k, hyperskill.config.k_s
    (5, 5, 5)
    """
    spec = spec_of(name)
    config = config or HyperSkillConfig()
    if k is None:
        return spec.factory(spec.operations(llm), encoder, config)
    if spec.takes_k is None:
        raise ValueError(f"method {name!r} does not take a retrieval count (--k): its "
                         f"registration (MethodSpec.takes_k) does not say how")
    if spec.takes_k == "factory":
        return spec.factory(spec.operations(llm), encoder, config, k=int(k))
    if spec.takes_k == "config":
        config = config.with_k(int(k))
    return spec.factory(spec.operations(llm), encoder, config)


def load_entry_points(group: str = ENTRY_POINT_GROUP, force: bool = False) -> list[str]:
    """Register the methods of every installed distribution's entry points in `group`
    (once per process unless `force`); return the names added. A plugin that fails logs
    one warning and is skipped."""
    if _LOADED.get("plugins") and not force:
        return []
    _LOADED["plugins"] = True
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
