"""Reference memory contexts for SkillWorld, built without any memory system.

`oracle_context` holds every helpful strategy (and warning) for a task's archetypes;
`harmful_context` holds spurious advice that concerns them; `irrelevant_context` holds
sound strategies for other archetypes. They bound what a memory can do in SkillWorld
(method-agnostic sanity checks, and the reference lines in the notebooks), and
`render_items` formats items the way the paper's context looks.

Not here: retrieval (core/retrieval/) or the context format HyperSkill itself uses.
"""

from __future__ import annotations

from hyperskill_lite.core.records import ContextItem
from hyperskill_lite.types import MemoryContext, Task
from hyperskill_lite.world.latent import task_latent
from hyperskill_lite.world.params import WorldParams
from hyperskill_lite.world.simllm import SimLLM

__all__ = ["render_items", "oracle_context", "harmful_context", "irrelevant_context"]

_SECTIONS = (
    ("## Past Experience", ("lesson",)),
    ("## Relevant Skills", ("skill",)),
    ("## Mistakes to Avoid", ("mistake",)),
)


def render_items(items: list[ContextItem]) -> str:
    """Format items as the paper's agent context ("Retrieved Memory Format").

    >>> print(render_items([ContextItem("skill", "Targeted Database Search: Query it.")]))
    ## Relevant Skills
    1. **Targeted Database Search**: Query it.
    """
    blocks = []
    known = {k for _, kinds in _SECTIONS for k in kinds}
    sections = list(_SECTIONS) + [("## Other Memory", tuple({i.kind for i in items} - known))]
    for title, kinds in sections:
        rows = [i for i in items if i.kind in kinds]
        if not rows:
            continue
        lines = [title]
        for n, item in enumerate(rows, start=1):
            name, sep, rest = item.text.partition(": ")
            body = f"**{name}**: {rest}" if sep and item.kind in ("skill", "mistake") else item.text
            lines.append(f"{n}. {body}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _context(items: list[ContextItem], source: str) -> MemoryContext:
    return MemoryContext(text=render_items(items), items=items, meta={"source": source})


def _item(llm: SimLLM, latent_id: str, rng: object) -> ContextItem:
    skill = llm.phrase(latent_id, rng, source="reference")  # type: ignore[arg-type]
    kind = "skill" if skill.polarity == "success" else "mistake"
    return ContextItem(kind=kind, text=skill.text, meta=skill.meta)


def oracle_context(
    task: Task, seed: int = 0, params: WorldParams | None = None, warnings: bool = True
) -> MemoryContext:
    """Every helpful strategy of the task's archetypes as a skill, and (if `warnings`)
    every error pattern as a mistake: the best context SkillWorld allows."""
    llm = SimLLM(params, seed)
    lat = task_latent(task)
    rng = llm.rng(task.id, "oracle")
    ids = llm.library.helpful_for(lat["archetypes"])
    if warnings:
        ids += llm.library.errors_for(lat["archetypes"])
    return _context([_item(llm, i, rng) for i in ids], "oracle")


def harmful_context(task: Task, seed: int = 0, params: WorldParams | None = None) -> MemoryContext:
    """Every spurious strategy that concerns the task's archetypes (both polarities)."""
    llm = SimLLM(params, seed)
    lat = task_latent(task)
    rng = llm.rng(task.id, "harmful")
    ids = llm.library.spurious_for(lat["archetypes"])
    return _context([_item(llm, i, rng) for i in ids], "harmful")


def irrelevant_context(
    task: Task, n: int = 6, seed: int = 0, params: WorldParams | None = None
) -> MemoryContext:
    """`n` sound strategies that help none of the task's archetypes (pure noise for it)."""
    if n < 0:
        raise ValueError(f"irrelevant_context: n must be >= 0, got {n}")
    llm = SimLLM(params, seed)
    lat = task_latent(task)
    rng = llm.rng(task.id, "irrelevant")
    own = set(llm.library.helpful_for(lat["archetypes"]))
    pool = [i for i in llm.library.of_kind("strategy") if i not in own]
    if n > len(pool):
        raise ValueError(
            f"irrelevant_context: only {len(pool)} unrelated strategies, asked for {n}"
        )
    ids = [pool[int(j)] for j in rng.permutation(len(pool))[:n]]
    return _context([_item(llm, i, rng) for i in ids], "irrelevant")
