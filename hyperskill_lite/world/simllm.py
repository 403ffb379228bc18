"""SimLLM: the simulated memory LLM of SkillWorld (implements `MemoryLLM`).

It writes real English from the template library, in the shapes the paper's prompts ask
for: decompositions into steps, outcome-conditioned extraction (1-3 skills with 3-5 word
names and 2-4 sentence contents, plus a 1-2 sentence lesson), consolidating merges and a
self-judge. Every text it writes carries hidden metadata in ``meta["skillworld"]``
(`latent_meta`) naming the latent strategies, error patterns and spurious (harmful)
strategies it expresses; merges carry the union. SimExecutor reads that metadata.

SimLLM keeps no random state between calls: each call draws from a generator derived
from (seed, task.id, operation) or, for merges, (seed, "merge", a.name, b.name), so a
resumed run in a new process gets identical outputs.

Other methods' model operations run here through `simulate`: each is declared once, in
its method's module, with a simulated implementation that composes the helpers `phrase`
(a skill for one latent id), `lesson_text`, `step_text`, `rng(...)` and those of
toolkit.py (`SimToolkit`, mixed in: what an extraction expresses, notes, relevance).
Every model operation is metered: `usage` holds the tokens a live model would have used
for it (meter.py). Not here: outcomes (executor.py), task sampling (generator.py), any
embedding.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from hyperskill_lite.core.records import Fragment, Skill
from hyperskill_lite.llm.tokens import count_tokens
from hyperskill_lite.llm.usage import Usage
from hyperskill_lite.types import Episode, Extraction, Task
from hyperskill_lite.world.latent import FIELDS, KIND_FIELD, latent_meta, latent_of, task_latent
from hyperskill_lite.world.library import load_library
from hyperskill_lite.world.library_types import Library, split_sentences
from hyperskill_lite.world.meter import METERED, prompt_for, prompt_of, reply_tokens
from hyperskill_lite.world.params import WorldParams
from hyperskill_lite.world.rng import stable_rng
from hyperskill_lite.world.toolkit import SimToolkit

__all__ = ["SimLLM", "Seen", "parse_skill_text"]


class Seen(NamedTuple):
    """A skill shown in an episode's context: its name, content and latent ids."""

    name: str
    content: str
    latents: tuple[str, ...]


_BOLD = re.compile(r"^\*\*(?P<name>[^*\n]{1,80})\*\*: (?P<content>.+)$", re.S)
_PLAIN = re.compile(r"^(?P<name>[^:\n]{1,80}): (?P<content>.+)$", re.S)


def parse_skill_text(text: str) -> tuple[str, str] | None:
    """(name, content) of a context line written as ``**Name**: content`` (HyperSkill's
    format) or ``Name: content`` with a 2-6 word name (the baselines' notes), else None.

    >>> parse_skill_text("**Rare Clue First**: Search the rarest clue. Then check.")
    ('Rare Clue First', 'Search the rarest clue. Then check.')
    >>> parse_skill_text("[success] The archive had it.") is None
    True
    """
    for rx in (_BOLD, _PLAIN):
        m = rx.match(text.strip())
        if m and 2 <= len(m.group("name").split()) <= 6:
            return m.group("name").strip(), m.group("content").strip()
    return None


def _zipf_draw(rng: np.random.Generator, n: int, exponent: float) -> int:
    """An index in [0, n) with probability proportional to (rank + 1) ** -exponent."""
    w = np.arange(1, n + 1, dtype=float) ** -float(exponent)
    return int(rng.choice(n, p=w / w.sum()))

def _end(sentence: str) -> str:
    s = sentence.strip()
    return s if s.endswith((".", "!", "?")) else s + "."


class SimLLM(SimToolkit):
    """Simulated LLM for SkillWorld tasks; see the module docstring.

    >>> from hyperskill_lite.world.generator import make_tasks
    >>> task = make_tasks("gaia", n=1, seed=3)[0]
    >>> llm = SimLLM(seed=7)
    >>> llm.decompose(task) == SimLLM(seed=7).decompose(task)
    True
    """

    name = "simllm"

    def __init__(self, params: WorldParams | None = None, seed: int = 0) -> None:
        self.params = params or WorldParams()
        self.seed = int(seed)
        self.library: Library = load_library(self.params.data_dir)
        self.usage = Usage()
        """Estimated tokens of every call a live model would have received (meter.py)."""
        self._depth = 0  # an operation calling another is metered once, at the outside

    # ----------------------------------------------------------------- helpers
    def rng(self, *parts: object) -> np.random.Generator:
        """A fresh generator for one call, keyed by ``(seed, *parts)``."""
        return stable_rng(self.seed, *parts)

    def phrase(
        self,
        latent_id: str,
        rng: np.random.Generator,
        avoid: Iterable[str] = (),
        source: str = "",
        seen: Sequence[Seen] = (),
    ) -> Skill:
        """A skill expressing one latent strategy, error pattern or spurious strategy,
        with the latent's polarity and hidden metadata, written as `params.phrasing` says:

        - "curated": one of the latent's phrasings, uniformly (avoiding names in `avoid`
          when possible);
        - "calibrated": when a skill `seen` in the episode's context expresses the latent,
          re-emit it with probability `reemit` (verbatim with probability
          `reemit_verbatim`, else with one sentence rewritten); otherwise write a fresh
          one: a name from `Library.name_variants` by rank-Zipf weights (`name_zipf`;
          names in `avoid` left out when others remain), one sentence per slot of
          `Library.content_slots` by rank-Zipf weights (`content_zipf`), opened with a
          house-style clause of `Library.lead_ins` with probability `lead_in`.

        The metadata names only `latent_id` in either case (a re-emitted text may carry
        wording of more, as a real model's copy would; the executor credits what the
        model meant to express).
        """
        lat = self._latent(latent_id)
        avoid = set(avoid)
        meta = latent_meta(**{KIND_FIELD[lat.kind]: [latent_id]}, source=source)
        if self.params.phrasing == "curated":
            options = [p for p in lat.phrasings if p.name not in avoid] or list(lat.phrasings)
            p = options[int(rng.integers(len(options)))]
            return Skill(name=p.name, content=p.content, polarity=lat.polarity, meta=meta)  # type: ignore[arg-type]
        name, content = self._calibrated(latent_id, rng, avoid, seen)
        return Skill(name=name, content=content, polarity=lat.polarity, meta=meta)  # type: ignore[arg-type]

    def _calibrated(
        self, latent_id: str, rng: np.random.Generator, avoid: set[str], seen: Sequence[Seen]
    ) -> tuple[str, str]:
        """(name, content) of the calibrated text model (see `phrase`)."""
        lib, p = self.library, self.params
        slots = lib.content_slots(latent_id)
        copies = [s for s in seen if latent_id in s.latents and s.name not in avoid]
        if copies and rng.random() < p.reemit:
            src = copies[int(rng.integers(len(copies)))]
            if rng.random() < p.reemit_verbatim:
                return src.name, src.content
            sents = split_sentences(src.content) or [src.content]
            k = int(rng.integers(len(sents)))
            slot = slots[min(k, len(slots) - 1)]
            sents[k] = slot[_zipf_draw(rng, len(slot), p.content_zipf)]
            return src.name, " ".join(sents)
        names = [n for n in lib.name_variants(latent_id) if n not in avoid]
        names = names or list(lib.name_variants(latent_id))
        name = names[_zipf_draw(rng, len(names), p.name_zipf)]
        sents = [s[_zipf_draw(rng, len(s), p.content_zipf)] for s in slots]
        if rng.random() < p.lead_in:
            leads = lib.lead_ins[lib.latents[latent_id].polarity]
            lead = leads[_zipf_draw(rng, len(leads), 1.0)]
            sents[0] = lead + sents[0][:1].lower() + sents[0][1:]
        return name, " ".join(sents)

    def seen(self, episode: Episode) -> list[Seen]:
        """The skills the episode's context showed the agent (recorded by SimExecutor in
        ``episode.meta["skillworld"]["seen"]``): what a real model reads in the
        trajectory it summarises. Items that are not a named skill are left out."""
        out = []
        for item in ((episode.meta or {}).get("skillworld") or {}).get("seen") or ():
            parsed = parse_skill_text(str(item.get("text", "")))
            ids = [i for f in FIELDS for i in (item.get("latent") or {}).get(f, ())]
            if parsed is not None and ids:
                out.append(Seen(parsed[0], parsed[1], tuple(ids)))
        return out

    def lesson_text(self, latent_ids: list[str], rng: np.random.Generator) -> str:
        """One lesson sentence for each latent id (in order), joined."""
        out = []
        for i in latent_ids:
            lessons = self._latent(i).lessons
            out.append(lessons[int(rng.integers(len(lessons)))])
        return " ".join(out)

    def step_text(self, archetype_id: str, topic: str, rng: np.random.Generator) -> str:
        """One step paraphrase of an archetype with the task's topic filled in."""
        steps = self.library.archetypes[archetype_id].steps
        return steps[int(rng.integers(len(steps)))].replace("{topic}", topic)

    def _latent(self, latent_id: str) -> Any:
        if latent_id not in self.library.latents:
            raise ValueError(f"unknown SkillWorld latent id {latent_id!r}")
        return self.library.latents[latent_id]

    def _count(self, rng: np.random.Generator) -> int:
        w = np.asarray(self.params.extract_count_weights, dtype=float)
        return 1 + int(rng.choice(3, p=w / w.sum()))

    # ----------------------------------------------------------- decomposition
    def plan(self, task: Task) -> list[tuple[str, str]]:
        """The decomposition with the archetype each step comes from: [(text, archetype)].

        One step per task archetype, then noise: with set probabilities one step is
        dropped, one step of an unrelated archetype is added, two adjacent steps swap.
        """
        lat = task_latent(task)
        lib, p = self.library, self.params
        rng = self.rng(task.id, "decompose")
        archs = list(lat["archetypes"])
        steps = [(self.step_text(a, lat["topic"], rng), a) for a in archs]
        u_drop, u_add, u_swap = rng.random(3)
        i_drop = int(rng.integers(len(steps)))
        others = [a for a in lib.archetypes if a not in archs]
        extra = others[int(rng.integers(len(others)))]
        extra_text = self.step_text(extra, lat["topic"], rng)
        pos = int(rng.integers(len(steps) + 1))
        i_swap = int(rng.integers(len(steps)))
        if u_drop < p.decompose_drop and len(steps) > 1:
            del steps[i_drop]
        if u_add < p.decompose_add:
            steps.insert(min(pos, len(steps)), (extra_text, extra))
        if u_swap < p.decompose_reorder and len(steps) > 1:
            j = i_swap % (len(steps) - 1)
            steps[j], steps[j + 1] = steps[j + 1], steps[j]
        return steps

    def decompose(self, task: Task) -> list[str]:
        """P_0 = LLM-Decompose(d_q): the task's steps as text (see `plan`)."""
        return [text for text, _ in self.plan(task)]

    # -------------------------------------------------------------- extraction
    def extract(self, task: Task, episode: Episode) -> Extraction:
        """Outcome-conditioned extraction (Prompts appendix).

        After a success: 1-3 helpful strategies of the task's archetypes as
        ``Skill(polarity="success")``. After a failure: 1-3 error patterns of the task's
        archetypes as ``Skill(polarity="failure")``, the one the executor reports first.
        With probability `extract_spurious` a spurious strategy of the same polarity is
        added (or replaces the last item). The lesson is 1-2 sentences; its latent ids
        are in ``Extraction.meta["skillworld"]``.
        """
        lib, p = self.library, self.params
        outcome = "success" if episode.success else "failure"
        rng = self.rng(task.id, "extract", outcome)
        picks = self.picks(task, episode, rng)
        seen = self.seen(episode)
        skills: list[Skill] = []
        for pid in picks:
            skills.append(
                self.phrase(pid, rng, avoid=[s.name for s in skills], source="extract", seen=seen)
            )
        first = int(rng.integers(len(picks)))
        lesson_ids = [picks[first]]
        if len(picks) > 1 and rng.random() < p.lesson_second_sentence:
            lesson_ids.append(picks[(first + 1) % len(picks)])
        lesson = self.lesson_text(lesson_ids, rng)
        groups: dict[str, list[str]] = {f: [] for f in FIELDS}
        for i in lesson_ids:
            groups[KIND_FIELD[lib.latents[i].kind]].append(i)
        meta = latent_meta(**groups, source="lesson", outcome=outcome)
        return Extraction(skills=skills, lesson=lesson, meta=meta)

    # ------------------------------------------------------------------- merge
    def merge(self, a: Skill, b: Skill, fragments: Sequence[Fragment] = ()) -> Skill:
        """LLM-Merge: one consolidated skill covering both (Prompts appendix), reasoning
        over the pair's shared trajectory fragments (§3.5).

        The name is a phrasing of the most general latent (the one that concerns most
        archetypes) among the union's latents that the shared fragments' lessons
        mention, as a model reading those tasks would name the skill after what they had
        in common; without fragments, or when their lessons mention none of the union's
        latents, among the whole union. It avoids both input names when possible; the
        content is the lead sentence of each input plus a consolidating sentence (2-3
        sentences); the metadata is the union of both inputs' latent ids.
        """
        if a.polarity != b.polarity:
            raise ValueError(
                f"SimLLM.merge: cannot merge a {a.polarity!r} skill ({a.name!r}) with a "
                f"{b.polarity!r} skill ({b.name!r})"
            )
        rng = self.rng("merge", a.name, b.name)
        la, lb = latent_of(a.meta), latent_of(b.meta)
        union = {f: list(dict.fromkeys(la[f] + lb[f])) for f in FIELDS}
        ids = [i for f in FIELDS for i in union[f] if i in self.library.latents]
        said = {i for fr in fragments for f in FIELDS for i in latent_of(fr.meta)[f]}
        ids = [i for i in ids if i in said] or ids
        name = a.name
        if ids:
            anchor = max(ids, key=lambda i: (len(self.library.latents[i].affects), -ids.index(i)))
            name = self.phrase(anchor, rng, avoid=[a.name, b.name]).name
        sa, sb = split_sentences(a.content) or [a.name], split_sentences(b.content) or [b.name]
        body = [sa[0]] + ([sb[0]] if sb[0] != sa[0] else sa[1:2])
        closers = self.library.merge_closers[a.polarity]
        body.append(closers[int(rng.integers(len(closers)))])
        content = " ".join(_end(s) for s in body)
        return Skill(
            name=name,
            content=content,
            polarity=a.polarity,
            meta=latent_meta(**union, source="merge"),
        )

    # ------------------------------------------------------------------- judge
    def judge(self, task: Task, episode: Episode) -> bool:
        """Self-judge: the true outcome (answer equals the gold answer when both are
        known, else `episode.success`), flipped with probability `self_judge_flip`."""
        rng = self.rng(task.id, "judge")
        if task.answer is not None and episode.answer is not None:
            truth = episode.answer.strip() == task.answer.strip()
        else:
            truth = bool(episode.success)
        return truth != bool(rng.random() < self.params.self_judge_flip)

    # -------------------------------------------------------- other operations
    def simulate(self, operation: Any, *args: Any, **kwargs: Any) -> Any:
        """Perform a declared model operation (`methods.operations.ModelOperation`)
        inside SkillWorld: its simulated implementation over this model, metered with the
        tokens of the prompt its prompted implementation would send for the same inputs
        (meter.py) and of the reply. An operation another one calls is metered once, at
        the outside; one declared without a model call is not metered."""
        if operation.simulated is None:
            raise TypeError(f"{operation!r} has no simulated implementation")
        self._depth += 1
        try:
            out = operation.simulated(self, *args, **kwargs)
        finally:
            self._depth -= 1
        if self._depth == 0 and operation.model_call:
            prompt = prompt_of(operation, args, kwargs)
            if prompt:
                self.usage.add(operation.name, count_tokens(prompt), reply_tokens(out))
        return out


def _metered(op: str, fn: Any) -> Any:
    """`fn` with its estimated prompt and reply tokens added to ``self.usage[op]``."""

    @functools.wraps(fn)
    def call(self: SimLLM, *args: Any, **kwargs: Any) -> Any:
        self._depth += 1
        try:
            out = fn(self, *args, **kwargs)
        finally:
            self._depth -= 1
        if self._depth == 0:
            prompt = prompt_for(op, args, kwargs)
            if prompt:
                self.usage.add(op, count_tokens(prompt), reply_tokens(out))
        return out

    return call


for _op in METERED:  # SimLLM's own model operations are metered (meter.py)
    setattr(SimLLM, _op, _metered(_op, getattr(SimLLM, _op)))
