"""What SkillWorld's template library holds, as frozen records: archetypes, latent
strategies and error patterns (`Latent`, written as `Phrasing`s), domains with their
question templates, benchmark profiles, and the `Library` that indexes them; with the
sentence and word counts the paper's text contracts are checked with.

Not here: reading and checking the data files (library.py, `load_library`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyperskill_lite.core.template_merger import SENTENCE_END

__all__ = [
    "SLOT_PATTERN",
    "Archetype",
    "Phrasing",
    "Latent",
    "Template",
    "Domain",
    "Profile",
    "Library",
    "split_sentences",
    "count_sentences",
    "count_words",
]

SLOT_PATTERN = re.compile(r"\{([a-z_]+?)(\d*)(?:\.([a-z_]+))?\}")
"""A slot of a question template: ``{name}``, ``{name2}``, ``{name.attribute}``."""


def split_sentences(text: str) -> list[str]:
    """Split text at ``.``, ``!`` or ``?`` followed by whitespace.

    >>> split_sentences("Read the file first. Then search. Why? Speed.")
    ['Read the file first.', 'Then search.', 'Why?', 'Speed.']
    >>> split_sentences("Convert with 1.609344 km per mile.")
    ['Convert with 1.609344 km per mile.']
    """
    return [s for s in SENTENCE_END.split(text.strip()) if s]


def count_sentences(text: str) -> int:
    """Number of sentences as `split_sentences` counts them."""
    return len(split_sentences(text))


def count_words(text: str) -> int:
    """Whitespace-separated words: ``count_words("Cross-Source Validation Check") == 3``."""
    return len(text.split())


@dataclass(frozen=True)
class Phrasing:
    """One way of writing a latent strategy or error pattern as a skill."""

    name: str
    content: str


@dataclass(frozen=True)
class Archetype:
    """A subtask archetype: step paraphrases, its helpful strategy and error patterns."""

    id: str
    title: str
    category: str
    tool: str
    steps_mean: float
    steps: tuple[str, ...]
    strategy: str
    errors: tuple[str, ...]


@dataclass(frozen=True)
class Latent:
    """A latent piece of knowledge: kind "strategy" (helpful), "error" (an error pattern)
    or "spurious" (harmful advice). `affects` lists the archetypes it concerns;
    `polarity` is how it is written ("success" = a skill, "failure" = a mistake)."""

    id: str
    kind: str
    polarity: str
    affects: tuple[str, ...]
    phrasings: tuple[Phrasing, ...]
    lessons: tuple[str, ...]
    symptom: str = ""


@dataclass(frozen=True)
class Template:
    """A question template of a domain, composing 1-4 archetypes."""

    id: str
    domain: str
    text: str
    topic: str
    archetypes: tuple[str, ...]
    answer: dict[str, Any]


@dataclass(frozen=True)
class Domain:
    """A domain of questions (literature, film, finance, ...): its years, the vocabulary its
    templates fill in, and the templates."""

    id: str
    label: str
    years: tuple[int, int]
    vocab: dict[str, tuple[Any, ...]]
    templates: tuple[Template, ...]


@dataclass(frozen=True)
class Profile:
    """A benchmark profile (gaia, webwalker, xbench): how many tasks, and how they are drawn
    over difficulties, domains and categories."""

    id: str
    n_tasks: int
    description: str
    difficulty_weights: tuple[float, float, float]
    domain_weights: dict[str, float]
    category_weights: dict[str, float]


@dataclass(frozen=True)
class Library:
    """The whole template library, validated. Ids are unique across latents."""

    path: Path
    archetypes: dict[str, Archetype]
    latents: dict[str, Latent]
    domains: dict[str, Domain]
    profiles: dict[str, Profile]
    months: tuple[str, ...]
    level_size_affinity: dict[int, tuple[float, ...]]
    merge_closers: dict[str, tuple[str, ...]]
    name_suffixes: dict[str, tuple[str, ...]]
    lead_ins: dict[str, tuple[str, ...]]

    def of_kind(self, kind: str) -> list[str]:
        """Latent ids of one kind ("strategy", "error", "spurious"), in file order."""
        return [k for k, v in self.latents.items() if v.kind == kind]

    def helpful_for(self, archetypes: list[str] | tuple[str, ...]) -> list[str]:
        """Distinct helpful strategies of `archetypes`, in order of first appearance."""
        return list(dict.fromkeys(self.archetypes[a].strategy for a in archetypes))

    def errors_for(self, archetypes: list[str] | tuple[str, ...]) -> list[str]:
        """Distinct error patterns of `archetypes`, in order of first appearance."""
        return list(dict.fromkeys(e for a in archetypes for e in self.archetypes[a].errors))

    def name_variants(self, latent_id: str) -> tuple[str, ...]:
        """The names a model may write for a latent, most preferred first: its phrasing
        names in file order, then each name of at most 4 words with one suffix of its
        polarity (`name_suffixes`), suffix by suffix. Names stay 3-5 words.

        >>> from hyperskill_lite.world.library import load_library
        >>> lib = load_library()
        >>> lib.name_variants("clue_anchoring")[:4]
        ('Anchor On Rarest Clue', 'Rare Detail First Search', 'Narrow Candidates By Clues', 'Anchor On Rarest Clue Strategy')
        """
        lat = self.latents[latent_id]
        bases = [p.name for p in lat.phrasings]
        out = list(dict.fromkeys(bases))
        for suffix in self.name_suffixes[lat.polarity]:
            for b in bases:
                if count_words(b) <= 4 and b.split()[-1].lower() != suffix.lower():
                    out.append(f"{b} {suffix}")
        return tuple(dict.fromkeys(out))

    def content_slots(self, latent_id: str) -> tuple[tuple[str, ...], ...]:
        """A latent's content as sentence slots: slot k holds the k-th sentence of every
        phrasing that has one (file order), so a content can be written by choosing one
        sentence per slot.

        >>> from hyperskill_lite.world.library import load_library
        >>> [len(s) for s in load_library().content_slots("clue_anchoring")]
        [3, 3, 3]
        """
        sents = [split_sentences(p.content) for p in self.latents[latent_id].phrasings]
        n = max(len(s) for s in sents)
        return tuple(tuple(s[k] for s in sents if len(s) > k) for k in range(n))

    def spurious_for(
        self, archetypes: list[str] | tuple[str, ...], polarity: str | None = None
    ) -> list[str]:
        """Spurious strategies concerning any of `archetypes` (of one polarity if given)."""
        wanted = set(archetypes)
        return [
            k
            for k, v in self.latents.items()
            if v.kind == "spurious"
            and wanted.intersection(v.affects)
            and (polarity is None or v.polarity == polarity)
        ]
