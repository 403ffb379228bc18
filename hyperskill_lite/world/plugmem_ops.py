"""PlugMem's model operations inside SkillWorld: `SimPlugMemOps`, a mixin of SimLLM.

`structure_knowledge` turns an episode into intents, prescriptions and propositions;
`plugmem_query` and `distill_guidance` are the two steps of PlugMem's retrieval. The
rules for what a note expresses are baseline_ops.py's (its module docstring), whose
helpers (`_note`, `_picks`, `_concerns`, `_outcome`) they use through `SimBaselineOps`.

Not here: the memory system (baselines/plugmem.py), the prompted versions
(baselines/ops/prompted.py).
"""

from __future__ import annotations

from typing import Any

from hyperskill_lite.baselines.ops import KnowledgeUpdate, MemoryNote
from hyperskill_lite.types import Episode, Task
from hyperskill_lite.world.baseline_ops import _first, _union
from hyperskill_lite.world.latent import latent_meta, task_latent


class SimPlugMemOps:
    """Offline implementations of PlugMem's operations of `BaselineLLM`; mixed into
    `SimLLM` beside `SimBaselineOps`, whose helpers they use."""

    library: Any  # provided by SimLLM
    params: Any
    rng: Any
    seen: Any
    plan: Any
    decompose: Any
    _note: Any  # provided by SimBaselineOps
    _picks: Any
    _concerns: Any
    _outcome: Any

    def structure_knowledge(self, task: Task, episode: Episode) -> KnowledgeUpdate:
        """PlugMem: the decomposition's steps as intents; after a success a prescription
        (the archetype's strategy) per step plus, at ``extract_spurious``, a spurious one;
        after a failure the reported error under the step where it happened; a success
        also yields one proposition (the established fact, no strategy in it)."""
        lib, p = self.library, self.params
        rng = self.rng("plugmem", task.id, self._outcome(episode))
        lat = task_latent(task)
        plan = self.plan(task)
        intents = [t for t, _ in plan]
        pres: list[tuple[int, MemoryNote]] = []
        props: list[tuple[str, MemoryNote]] = []
        seen = self.seen(episode)
        if episode.success:
            for i, (_, arch) in enumerate(plan):
                strategy = lib.archetypes[arch].strategy
                pres.append((i, self._note(strategy, rng, "plugmem", seen=seen)))
            spurious = lib.spurious_for(list(lat["archetypes"]), "success")
            if spurious and rng.random() < p.extract_spurious:
                sp = spurious[int(rng.integers(len(spurious)))]
                pres.append((int(rng.integers(len(plan))), self._note(sp, rng, "plugmem", seen=seen)))
            fact = f"For {lat['topic']}, the established answer was {episode.answer}."
            props.append(
                (
                    lat["topic"],
                    MemoryNote("", fact, "", "success", 1, latent_meta(source="plugmem")),
                )
            )
        else:
            lid = self._picks(task, episode, rng)[0]
            at = [i for i, (_, a) in enumerate(plan) if lid in lib.archetypes[a].errors]
            pres.append((at[0] if at else 0, self._note(lid, rng, "plugmem", seen=seen)))
        return KnowledgeUpdate(intents, pres, props)

    def plugmem_query(self, task: Task) -> dict[str, list[str]]:
        """PlugMem retrieval, step 1: the decomposition's steps and the task's topic."""
        lat = task_latent(task)
        return {"intents": self.decompose(task), "concepts": [lat["topic"]]}

    def distill_guidance(self, task: Task, notes: list[MemoryNote]) -> MemoryNote | None:
        """PlugMem retrieval, step 2: keep the notes that concern the archetypes of the
        model's own reading of the task (its decomposition, `plan`, with the same noise:
        a dropped step misses relevant knowledge, an added one lets unrelated knowledge
        through); relevance is judged, soundness is not. Their first sentences joined
        are the guidance, with the union of their metadata; None when nothing is kept."""
        archs = list(dict.fromkeys(a for _, a in self.plan(task)))
        kept = [n for n in notes if self._concerns(n, archs)]
        if not kept:
            return None
        body = " ".join(f"Consider: {_first(n.content)}" for n in kept)
        return MemoryNote(
            "Guidance", body, "", "success", 1, _union(*[n.meta for n in kept], source="plugmem")
        )
