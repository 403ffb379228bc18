"""Memory systems on the runner's interface (`MemorySystem`, types.py), by CLI name.

Every method registers a `MethodSpec` where it is defined (registry.py): HyperSkill and
its three ablations (methods/hyperskill/), No Memory, the ten baselines of Table 1 and
the variants of three of them (one module each in baselines/), and any method an
installed distribution adds through the entry-point group ``hyperskill_lite.methods``.
A method's model operations are each declared once (operations.py). What the rest of
the package reads is derived from the registrations when it is used (the package's
modules are imported and the entry points read once per process, on the first use that
needs them, never on import):

- `METHODS`              CLI name -> factory ``(llm, encoder, config) -> MemorySystem``,
                         every registered method (plugins included);
- `DESCRIPTIONS`         CLI name -> the line ``python -m hyperskill_lite methods`` prints;
- `CORE_METHODS`         HyperSkill, its ablations and no-memory (the demo's rows);
- `BASELINES`            the package's "baseline" group: Table 1's ten, in its order;
- `VARIANTS`             the package's "variant" group;
- `EXCLUDE_SELF_METHODS` the methods that can run under own-task exclusion.

`BASELINES`, `VARIANTS` and `CORE_METHODS` hold the package's own methods only (a
plugin is not one of the paper's baselines, whatever group it names). This package's
``__init__`` is its public surface: the registry's names (registry.py), the operations'
(operations.py) and HyperSkill's (hyperskill/).

>>> from hyperskill_lite.methods import BASELINES, CORE_METHODS, DESCRIPTIONS, METHODS, VARIANTS
>>> len(BASELINES) == len([s for s in registered() if s.group == "baseline"])
True
>>> all(name in METHODS for name in CORE_METHODS + BASELINES + VARIANTS)
True
>>> sorted(DESCRIPTIONS) == sorted(METHODS)
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from hyperskill_lite.methods.hyperskill import ExtractionFailed, HyperSkillMemory
from hyperskill_lite.methods.operations import (
    ModelOperation,
    SimulatedOps,
    operation,
    operations_over,
)
from hyperskill_lite.methods.registry import (
    ENTRY_POINT_GROUP,
    TAKES_K,
    Factory,
    MethodSpec,
    load_entry_points,
    make_method,
    own_methods,
    register_method,
    registered,
    spec_of,
)

__all__ = [
    "METHODS",
    "CORE_METHODS",
    "EXCLUDE_SELF_METHODS",
    "BASELINES",
    "VARIANTS",
    "DESCRIPTIONS",
    "make_method",
    "registered",
    "spec_of",
    "HyperSkillMemory",
    "ExtractionFailed",
    "MethodSpec",
    "Factory",
    "register_method",
    "load_entry_points",
    "ENTRY_POINT_GROUP",
    "TAKES_K",
    "ModelOperation",
    "operation",
    "operations_over",
    "SimulatedOps",
]


def _factory(name: str) -> Factory:
    return lambda llm, enc, cfg: make_method(name, llm, enc, cfg)


class _Derived(Mapping):
    """A read-only mapping derived from the registrations on each use: importing it reads
    no entry point, so a plugin may import `hyperskill_lite` while it loads."""

    def __init__(self, value: Callable[[MethodSpec], Any]) -> None:
        self._value = value

    def _now(self) -> dict[str, Any]:
        return {s.name: self._value(s) for s in registered()}

    def __getitem__(self, name: str) -> Any:
        return self._now()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._now())

    def __len__(self) -> int:
        return len(self._now())

    def __repr__(self) -> str:
        return repr(self._now())


METHODS: Mapping[str, Factory] = _Derived(lambda s: _factory(s.name))
"""CLI name -> factory ``(llm, encoder, config) -> MemorySystem`` (`make_method`)."""

DESCRIPTIONS: Mapping[str, str] = _Derived(lambda s: s.description)
"""One line per registered method (``python -m hyperskill_lite methods``)."""

_DERIVED = {
    "CORE_METHODS": lambda: own_methods("hyperskill") + own_methods("reference"),
    "BASELINES": lambda: own_methods("baseline"),
    "VARIANTS": lambda: own_methods("variant"),
    "EXCLUDE_SELF_METHODS": lambda: tuple(s.name for s in registered() if s.exclude_self),
}


def __getattr__(name: str) -> Any:
    """`CORE_METHODS`, `BASELINES`, `VARIANTS` and `EXCLUDE_SELF_METHODS`, derived from
    the registrations when read (module docstring)."""
    if name in _DERIVED:
        return _DERIVED[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
