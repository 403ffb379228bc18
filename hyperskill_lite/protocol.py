"""The evaluation protocol of a run, as one settings object: task order, passes, a
learn/eval split with online or frozen memory, and own-task exclusion.

The paper's protocol (Appendix A, "Reproducibility") is the default, `EvalProtocol()`:
"Tasks are processed sequentially in a fixed random order (seed 42), shared across all
methods", one pass, the memory retrieved from and updated online on every task, and
every task counted. The other settings are our addition, for the questions users of
agent-memory harnesses ask (is memory read-only or updated during the measured run,
over which task orders, can a task retrieve its own memories when it comes round again):

- ``order_seed``: the permutation seed of the task order (42, the paper's). Two seeds
  give two orders of the same tasks; a method's SR over several orders says how much
  of it is the order.
- ``passes``: the ordered list is run this many times in a row (the same order each
  pass), for multi-pass runs.
- ``eval_from``: the evaluated part starts at this episode index (0-based, counting
  every pass); the episodes before it are the learn part, left out of the evaluated
  figures (`evaluated`). None (default): every episode is evaluated.
- ``frozen``: in the evaluated part the memory is retrieved from but never updated or
  maintained (MemEvolve's ``--disable_memory_evolution``, AWM's offline mode, ExpeL's
  train/eval split). Needs ``eval_from``; ``--freeze-after N`` on the CLI.
- ``exclude_self``: a task never retrieves a hyperedge written by an earlier episode of
  the same task id (meaningful with ``passes`` > 1); the HyperSkill methods support it.

>>> p = EvalProtocol(passes=2, eval_from=3, frozen=True)
>>> [t.id for t in p.arrange([Task(str(i), "q") for i in range(3)])]
['2', '1', '0', '2', '1', '0']
>>> [p.is_frozen(i) for i in range(6)]
[False, False, False, True, True, True]
>>> EvalProtocol().is_paper, p.tag
(True, 'passes-2+frozen-3')

Not here: running episodes (runner/), the CLI options (cli/protocol_options.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from hyperskill_lite.types import Task

__all__ = ["EvalProtocol", "PAPER_ORDER_SEED", "shuffled"]

PAPER_ORDER_SEED = 42
"""The paper's fixed task order: one permutation with seed 42, shared by every method."""


def shuffled(tasks: Sequence[Task], seed: int = PAPER_ORDER_SEED) -> list[Task]:
    """The tasks in a fixed random order: a permutation with `seed` (the paper's 42).

    >>> [t.id for t in shuffled([Task(str(i), "q") for i in range(5)])]
    ['4', '2', '3', '1', '0']
    >>> [t.id for t in shuffled([Task(str(i), "q") for i in range(5)], seed=7)]
    ['2', '0', '4', '1', '3']
    """
    order = np.random.default_rng(seed).permutation(len(tasks))
    return [tasks[i] for i in order]


@dataclass(frozen=True)
class EvalProtocol:
    """How a run orders, learns from and evaluates its tasks (see the module docstring).

    Raises ValueError for settings that cannot run (the message names the option).
    """

    order_seed: int = PAPER_ORDER_SEED
    """Seed of the task order (the paper's 42)."""
    passes: int = 1
    """How many times the ordered task list is run, back to back."""
    eval_from: int | None = None
    """First episode index of the evaluated part (None: every episode is evaluated)."""
    frozen: bool = False
    """Memory retrieved but never updated or maintained in the evaluated part."""
    exclude_self: bool = False
    """A task never retrieves a hyperedge written by an earlier episode of its id."""

    def __post_init__(self) -> None:
        def bad_int(v: Any) -> bool:
            return not isinstance(v, int | np.integer) or isinstance(v, bool)

        if bad_int(self.order_seed) or self.order_seed < 0:
            raise ValueError(f"--order-seed must be an integer >= 0, got {self.order_seed!r}")
        if bad_int(self.passes) or self.passes < 1:
            raise ValueError(f"--passes must be an integer >= 1, got {self.passes!r}")
        if self.eval_from is not None and (bad_int(self.eval_from) or self.eval_from < 0):
            raise ValueError(f"--eval-from / --freeze-after must be an integer >= 0, got "
                             f"{self.eval_from!r}")
        if self.frozen and self.eval_from is None:
            raise ValueError("a frozen evaluation needs the episode it starts at: "
                             "--freeze-after N (EvalProtocol(eval_from=N, frozen=True))")
        for name in ("frozen", "exclude_self"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"EvalProtocol.{name} must be True or False, "
                                 f"got {getattr(self, name)!r}")

    # ------------------------------------------------------------------ conversions
    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (what ``OUT/run.json`` stores under "protocol")."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> EvalProtocol:
        """The protocol `to_dict` wrote; None or {} is the paper's protocol (a run.json
        written before protocols existed)."""
        d = dict(d or {})
        unknown = set(d) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown evaluation protocol fields: {sorted(unknown)}")
        return cls(**d)

    def replace(self, **changes: Any) -> EvalProtocol:
        return EvalProtocol(**{**self.to_dict(), **changes})

    # ------------------------------------------------------------------ questions
    @property
    def is_paper(self) -> bool:
        """True for the paper's protocol: order seed 42, one pass, online, all counted."""
        return self == EvalProtocol()

    @property
    def tag(self) -> str:
        """A folder-name suffix for the settings other than the order ("" for the
        paper's): e.g. ``passes-2+frozen-3+exclude-self``."""
        parts = []
        if self.passes != 1:
            parts.append(f"passes-{self.passes}")
        if self.eval_from is not None:
            parts.append(f"{'frozen' if self.frozen else 'eval'}-{self.eval_from}")
        if self.exclude_self:
            parts.append("exclude-self")
        return "+".join(parts)

    def describe(self) -> str:
        """The protocol in words, for titles and logs.

        >>> print(EvalProtocol().describe())
        task order seed 42, memory online on every task (the paper's protocol)
        >>> print(EvalProtocol(order_seed=7, eval_from=50, frozen=True).describe())
        task order seed 7, learn on episodes 1-50, memory frozen from episode 51 (evaluated)
        """
        out = [f"task order seed {self.order_seed}"]
        if self.passes != 1:
            out.append(f"{self.passes} passes")
        if self.eval_from is None:
            out.append("memory online on every task")
        elif self.frozen:
            out.append(f"learn on episodes 1-{self.eval_from}, memory frozen from episode "
                       f"{self.eval_from + 1} (evaluated)")
        else:
            out.append(f"memory online, evaluated from episode {self.eval_from + 1}")
        if self.exclude_self:
            out.append("a task never retrieves its own earlier hyperedges")
        text = ", ".join(out)
        return text + " (the paper's protocol)" if self.is_paper else text

    def arrange(self, tasks: Sequence[Task], episodes: int | None = None) -> list[Task]:
        """The run's task list: `tasks` in this protocol's order, cut to the first
        `episodes` (None: all), repeated `passes` times."""
        order = shuffled(tasks, self.order_seed)
        if episodes is not None:
            order = order[: int(episodes)]
        return order * self.passes

    def in_eval(self, index: int) -> bool:
        """True when episode `index` (0-based) belongs to the evaluated part."""
        return self.eval_from is None or index >= self.eval_from

    def is_frozen(self, index: int) -> bool:
        """True when the memory must not learn from episode `index` nor be maintained
        after it."""
        return self.frozen and self.eval_from is not None and index >= self.eval_from

    def evaluated(self, records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        """The records of the evaluated part (all of them under the paper's protocol).

        >>> EvalProtocol(eval_from=1).evaluated([{"index": 0}, {"index": 1}])
        [{'index': 1}]
        """
        return [r for r in records if self.in_eval(int(r["index"]))]
