"""A memory method's model operations, each declared once (`operation`).

A model operation is what a memory asks a model to do (ExpeL's ``insight_ops``, MemP's
``build_procedure``, ...). It is declared once, where it is implemented over a prompted
chat model, by the `operation` decorator on a method of the method's operations class
(``class ExpeLOps(PromptedOps)``, baselines/ops/prompted.py); the declaration holds
everything else the package finds from it:

- its prompts (the templates it sends; each one's first line tells them apart);
- its reply schemas, keyed by the name the prompted implementation passes to
  ``chat_json`` (sent as structured output, llm/structured.py);
- a canned valid reply to each prompt, as (the prompt's first line, the reply) (the
  scripted test server answers with it, `canned_replies`);
- the prompted implementation (the decorated method itself);
- the simulated implementation, ``simulated(sim, *args)``: the same operation inside
  SkillWorld, over its simulated model (`SimLLM.simulate` runs it and meters the tokens
  the prompted implementation's prompt would have cost).

`operations_over(ops_class, model)` gives what performs a class's operations for a
model, once: the class over a chat client (anything with ``chat_json``), `SimulatedOps`
over SkillWorld's model (anything with ``simulate``), operations already bound as they
are, and any other object as it is (a test double that has the operations itself).

>>> class TitleOps:
...     def __init__(self, llm):
...         self.llm = llm
...     @operation(prompts=("Give a title.",), schemas={"title": {"type": "object"}},
...                canned=[("Give a title.", {"title": "Six words"})],
...                simulated=lambda sim, text: text.split()[0])
...     def title(self, text):
...         return self.llm.chat_json("title", "Give a title.\\n" + text)
>>> declared(TitleOps)["title"].canned_replies()
[('Give a title.', {'title': 'Six words'})]
>>> class Sim:
...     def simulate(self, op, *args):
...         return op.simulated(self, *args)
>>> operations_over(TitleOps, Sim()).title("Lyon population")
'Lyon'

May import: nothing else of the package. Not here: the registry (registry.py), the
chat client (llm/), SkillWorld's model (world/simllm.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["ModelOperation", "operation", "declared", "SimulatedOps", "operations_over",
           "canned_replies", "schemas_of"]


class ModelOperation:
    """One model operation, declared once (module docstring); made by `operation`.

    Attributes: `name` (the method's name, what a memory calls), `prompted` (the
    decorated function, ``(ops, *args)``), `simulated` (``(sim, *args)``, SkillWorld's),
    `prompts`, `schemas`, `canned` ((first line, reply) for each prompt), `model_call` (False: the
    operation never calls a model, e.g. ``trajectory_meta``; it is not metered), and
    `owner` (the class that defines it, set when the class is created).
    """

    def __init__(self, prompted: Callable[..., Any], simulated: Callable[..., Any] | None,
                 prompts: tuple[str, ...], schemas: Mapping[str, dict[str, Any]],
                 canned: Iterable[tuple[str, Any]], model_call: bool) -> None:
        heads = [p.splitlines()[0] if p.strip() else "" for p in prompts]
        replies = {head: reply for head, reply in canned if head in heads}
        missing = [h for h in heads if h not in replies]
        if missing:
            raise ValueError(f"{prompted.__name__}: no canned reply for the prompt that "
                             f"starts {missing[0]!r}")
        self.prompted = prompted
        self.simulated = simulated
        self.prompts = tuple(prompts)
        self.schemas = dict(schemas)
        self.canned = tuple((h, replies[h]) for h in heads)
        self.model_call = model_call
        self.name = prompted.__name__
        self.owner: type | None = None
        functools.update_wrapper(self, prompted)

    def __set_name__(self, owner: type, name: str) -> None:
        self.name, self.owner = name, owner

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        return self if obj is None else self.prompted.__get__(obj, objtype)

    def __repr__(self) -> str:
        where = f"{self.owner.__qualname__}." if self.owner is not None else ""
        return f"<model operation {where}{self.name}>"

    def canned_replies(self) -> list[tuple[str, Any]]:
        """(first line of each prompt, a valid reply to it), for the scripted server."""
        return list(self.canned)


def operation(*, prompts: Iterable[str] = (), schemas: Mapping[str, dict[str, Any]] | None = None,
              canned: Iterable[tuple[str, Any]] = (), simulated: Callable[..., Any] | None = None,
              model_call: bool = True) -> Callable[[Callable[..., Any]], ModelOperation]:
    """Declare the decorated method a model operation (module docstring): its prompts,
    reply schemas (by the name passed to ``chat_json``), a canned reply to each prompt as
    (its first line, the reply) (pairs for other prompts are left out, so a module may
    pass its whole list) and its simulated implementation ``simulated(sim, *args)``."""

    def declare(fn: Callable[..., Any]) -> ModelOperation:
        return ModelOperation(fn, simulated, tuple(prompts), schemas or {}, list(canned),
                              model_call)

    return declare


def declared(ops_class: type) -> dict[str, ModelOperation]:
    """Every operation `ops_class` declares or inherits, by name (the nearest class's
    declaration of a name wins)."""
    out: dict[str, ModelOperation] = {}
    for klass in reversed(ops_class.__mro__):
        out.update({n: v for n, v in vars(klass).items() if isinstance(v, ModelOperation)})
    return out


def schemas_of(ops_classes: Iterable[type]) -> dict[str, dict[str, Any]]:
    """The reply schemas of every operation of these classes, by ``chat_json`` name."""
    return {key: schema for c in ops_classes for op in declared(c).values()
            for key, schema in op.schemas.items()}


def canned_replies(ops_classes: Iterable[type]) -> list[tuple[str, Any]]:
    """(first line of a prompt, a valid reply) for every operation of these classes."""
    seen: dict[str, Any] = {}
    for c in ops_classes:
        for op in declared(c).values():
            for head, reply in op.canned_replies():
                seen.setdefault(head, reply)
    return list(seen.items())


class SimulatedOps:
    """An operations class's operations inside SkillWorld: each call of a declared
    operation goes to ``sim.simulate(declaration, *args)`` (SimLLM runs the declared
    simulated implementation and meters it). `usage` is the simulated model's."""

    def __init__(self, ops_class: type, sim: Any) -> None:
        self.ops_class = ops_class
        self.sim = sim
        self._declared = declared(ops_class)

    @property
    def usage(self) -> Any:
        """The simulated model's usage counters (the runner reads ``system.llm.usage``)."""
        return getattr(self.sim, "usage", None)

    def __getattr__(self, name: str) -> Any:
        op = self.__dict__.get("_declared", {}).get(name)
        if op is None:
            raise AttributeError(f"{self.ops_class.__name__} declares no operation {name!r}")
        if op.simulated is None:
            raise AttributeError(f"{self.ops_class.__name__}.{name} has no simulated "
                                 f"implementation, so it cannot run in SkillWorld")
        return functools.partial(self.sim.simulate, op)

    def __repr__(self) -> str:
        return f"SimulatedOps({self.ops_class.__name__}, {self.sim!r})"


def operations_over(ops_class: type, model: Any) -> Any:
    """What performs `ops_class`'s operations for `model` (module docstring): operations
    already bound (an instance of a class that declares operations, `SimulatedOps`) as they
    are; `ops_class` over a chat client (``chat_json``); `SimulatedOps` over SkillWorld's
    model (``simulate``); any other object as it is (it performs the operations itself)."""
    if isinstance(model, SimulatedOps) or declared(type(model)):
        return model
    if callable(getattr(model, "chat_json", None)):
        return ops_class(model)
    if callable(getattr(model, "simulate", None)):
        return SimulatedOps(ops_class, model)
    return model
