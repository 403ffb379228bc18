"""The shared vocabulary: tasks, episodes, skills, memory contexts, and the protocols
every memory system, model and executor implements (README, "Layout").

Nothing here computes; it only names what flows between the parts. The runner sees
only `MemorySystem`, `Executor` and a judge, so the same loop drives HyperSkill, its
ablations, the baselines, SkillWorld and a live model. The records the memory itself
takes and returns (`Skill`, `ContextItem`, `MaintenanceReport`) are defined in
`core/records.py`, so that `core/` imports nothing else of the package; import them from
there (or from `hyperskill_lite`).

May import: `core/`. Not here: the memory itself (core/memory.py), model clients
(llm/client.py), worlds (world/).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from hyperskill_lite.core.records import (
    ContextItem,
    Fragment,
    MaintenanceReport,
    Skill,
)

if TYPE_CHECKING:  # annotations only: the protocols below check attribute names
    from hyperskill_lite.core.embed import Encoder
    from hyperskill_lite.core.memory import HypergraphMemory

__all__ = [
    "CountsModelCalls",
    "ExcludesOwnTask",
    "HasEncoder",
    "KeepsHypergraph",
    "KindedJudge",
    "Named",
    "ThreadSafe",
    "ResolvesStructured",
    "ReportsUsage",
    "UsageTotals",
    "UsesModel",
    "usage_totals_of",
    "Task",
    "Extraction",
    "Episode",
    "MemoryContext",
    "MemorySystem",
    "MemoryLLM",
    "Executor",
    "Judge",
]

@dataclass
class Task:
    """One task given to the agent.

    `question` is the raw text as the benchmark file has it; `prompt`, when set, is the
    benchmark's template applied to it (e.g. WebWalkerQA's with its root URL) and is what
    the agent and the memory see. `meta` carries anything else (GAIA level and attachment
    path, WebWalkerQA root URL, SkillWorld's hidden latent structure).
    """

    id: str
    question: str
    answer: str | None = None
    prompt: str | None = None
    benchmark: str = "custom"
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The text the agent and the memory work with: `prompt` if set, else `question`."""
        return self.prompt if self.prompt is not None else self.question


@dataclass
class Extraction:
    """What the outcome-conditioned extraction returns (Prompts appendix): 1-3 skills
    (strategies after success, mistakes after failure) and the distilled lesson l_e."""

    skills: list[Skill]
    lesson: str
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class Episode:
    """The outcome of running one task: what the judge and the memory update see.

    `success` is the judged outcome r_i; `steps` is T_i; `calls` counts tool calls;
    `tokens` counts model tokens spent by the executor; `trajectory` is a text rendering
    of what the agent did (given to extraction prompts); `error` names a failure of the
    run itself (an API error, a malformed reply) when there was one.
    """

    task_id: str
    success: bool
    steps: int
    calls: int = 0
    answer: str | None = None
    trajectory: str = ""
    tokens: int = 0
    error: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class MemoryContext:
    """What a memory system hands the agent at the start of a task (m_t, Eq. 10).

    `text` is the formatted context injected into the prompt; `items` are the same
    pieces with hidden metadata; `retrieved` lists the ids of memory elements used;
    `plan` is the decomposition P_0 when one was made; `llm_calls` and `llm_tokens`
    count model work spent inside `begin` (decomposition, re-ranking, ...).

    `during` is an optional within-episode hook ``(step, step_text) -> note | None``: a
    live executor (agent/loop.py) calls it after each step and shows the latest note it
    returned in the following steps (MemEvolve's short-term memory uses it). SkillWorld's
    executor draws an episode whole and never calls it.
    """

    text: str = ""
    items: list[ContextItem] = field(default_factory=list)
    retrieved: list[str] = field(default_factory=list)
    plan: list[str] = field(default_factory=list)
    llm_calls: int = 0
    llm_tokens: int = 0
    meta: dict[str, Any] = field(default_factory=dict)
    during: Callable[[int, str], str | None] | None = field(default=None, compare=False,
                                                           repr=False)

    @property
    def empty(self) -> bool:
        return not self.items


@runtime_checkable
class MemorySystem(Protocol):
    """A memory system on the runner's interface (README, "Layout").

    `begin` retrieves for a task; `end` learns from the finished episode (and may return
    a JSON-ready dict saying what the update did, which the runner records); `maintain`
    evolves the store (may do nothing); `stats` reports sizes for growth curves;
    `save`/`load` write and restore the whole state so a run can resume exactly.
    """

    name: str

    def begin(self, task: Task) -> MemoryContext: ...

    def end(self, task: Task, episode: Episode) -> dict[str, Any] | None: ...

    def maintain(self) -> MaintenanceReport: ...

    def stats(self) -> dict[str, int]: ...

    def save(self, path: Path) -> None: ...

    def load(self, path: Path) -> None: ...


@runtime_checkable
class MemoryLLM(Protocol):
    """Every model operation a memory system needs (README, "Layout").

    HyperSkill's prompted operations over a model client (`PromptedHyperSkillOps`,
    methods/hyperskill/ops.py, over `PromptedLLM`, llm/client.py) implement decompose,
    extract and merge with the paper's prompts, and the self-judge is bench/judges.py's;
    `SimLLM` (world/) implements all four offline. Baselines add their own operations
    on the implementations.
    """

    def decompose(self, task: Task) -> list[str]: ...

    def extract(self, task: Task, episode: Episode) -> Extraction: ...

    def merge(self, a: Skill, b: Skill, fragments: Sequence[Fragment] = ()) -> Skill: ...

    def judge(self, task: Task, episode: Episode) -> bool: ...


@runtime_checkable
class Executor(Protocol):
    """Runs one task with a memory context and returns the episode (unjudged outcome
    in `success` as the executor sees it; the runner's judge decides)."""

    def run(self, task: Task, context: MemoryContext) -> Episode: ...


@runtime_checkable
class CountsModelCalls(Protocol):
    """A runner capability: the memory system counts its model calls in `llm_calls`
    (cumulative); the runner records each episode's share as ``memory_llm_calls``.

    >>> class Counted:
    ...     llm_calls = 3
    >>> isinstance(Counted(), CountsModelCalls), isinstance(object(), CountsModelCalls)
    (True, False)
    """

    llm_calls: int


@runtime_checkable
class ExcludesOwnTask(Protocol):
    """A runner capability: the memory system can leave a task's own earlier memories out
    of its retrieval (`exclude_self`, set by the runner from the evaluation protocol)."""

    exclude_self: bool


@runtime_checkable
class UsageTotals(Protocol):
    """Cumulative model usage counters (``{"calls", "prompt_tokens", ...}``; llm/usage.py's
    `Usage`)."""

    def totals(self) -> dict[str, int]: ...


@runtime_checkable
class ReportsUsage(Protocol):
    """A runner capability of a model: it keeps a `usage` counter (`UsageTotals`);
    the runner records per-episode usage from it when the caller gave none
    (PromptedLLM's real counts, SimLLM's estimates from the real prompts)."""

    usage: UsageTotals


@runtime_checkable
class UsesModel(Protocol):
    """A memory system that calls a model, `llm` (a `MemoryLLM`, perhaps `ReportsUsage`)."""

    llm: Any


def usage_totals_of(system: Any) -> Callable[[], dict[str, int]] | None:
    """The `totals` of the usage counter of a system's model (`UsesModel` whose model
    `ReportsUsage`), else None."""
    if isinstance(system, UsesModel) and isinstance(system.llm, ReportsUsage) \
            and isinstance(system.llm.usage, UsageTotals):
        return system.llm.usage.totals
    return None


@runtime_checkable
class Named(Protocol):
    """Anything that carries its display name in `name`: every `MemorySystem` and every
    encoder (core/embed.py's `Encoder`); runner/identity.py records it.

    >>> class Method:
    ...     name = "flat"
    >>> isinstance(Method(), Named), isinstance(object(), Named)
    (True, False)
    """

    name: str


@runtime_checkable
class ThreadSafe(Protocol):
    """An object that says in `thread_safe` whether several threads may call it at once:
    core/embed.py's encoders (a lock around the model and the disk cache). Live sweep
    cells in threads share one encoder only when it says so (sweep/execute.py).

    >>> class Locked:
    ...     thread_safe = True
    >>> isinstance(Locked(), ThreadSafe), isinstance(object(), ThreadSafe)
    (True, False)
    """

    thread_safe: bool


@runtime_checkable
class KeepsHypergraph(Protocol):
    """A runner capability: the memory system keeps a hypergraph memory in `memory`
    (core/memory.py's `HypergraphMemory`, with its `encoder` and `config`): HyperSkill and
    its variants (methods/hyperskill/). runner/identity.py records its encoder and
    configuration beside a saved state."""

    memory: HypergraphMemory


@runtime_checkable
class HasEncoder(Protocol):
    """A runner capability: the memory system embeds with its own `encoder` (an `Encoder`
    of core/embed.py): the baselines (baselines/base.py). runner/identity.py records its
    name beside a saved state."""

    encoder: Encoder


@runtime_checkable
class ResolvesStructured(Protocol):
    """A model client that says which structured-output mode it uses
    (``"json_schema"``, ``"json_object"`` or ``"off"``): PromptedLLM (llm/client.py). The
    agent loop sends its JSON-protocol action as structured output only through one."""

    def resolve_structured(self) -> str: ...


Judge = Callable[[Task, Episode], bool]
"""A judge decides an episode's outcome r_i: exact match, an LLM GT-judge or a self-judge."""


@runtime_checkable
class KindedJudge(Protocol):
    """A judge that names its kind (``"exact"``, ``"llm"``, ``"self"``, ...): the judges of
    bench/judges.py. The runner records the kind of a learn judge that wrote no verdict;
    a plain function judge is recorded by its name."""

    kind: str

    def __call__(self, task: Task, episode: Episode) -> bool: ...
