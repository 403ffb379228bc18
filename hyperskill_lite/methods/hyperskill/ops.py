"""HyperSkill's model operations over a prompted chat model: decompose, extract, merge.

`PromptedHyperSkillOps` asks a client (anything with ``chat_json(op, prompt, validate,
schema=...)``, i.e. `llm.client.PromptedLLM`) with HyperSkill's prompts (prompts.py) and
checks the replies with their contracts (replies.py):

- ``decompose``: P_0 = LLM-Decompose(d_q), the subtask path of Eq. 4;
- ``extract``: skills or mistakes and the lesson l_e for a new hyperedge (§3.4);
- ``merge``: LLM-Merge of an Eq. 14 candidate pair (§3.5).

The operation names sent with each call ("decompose", "extract", "merge") are the ones
the client counts usage under and a cassette records, so cassettes recorded before the
operations moved here replay as they are. `hyperskill_ops` picks what performs the
operations for a model, once, when `HyperSkillMemory` is built (as
`methods.operations.operations_over` does for the baselines): a model that has them
itself (SimLLM, a test double) is used as is.

Not here: requests, retries and re-asks (llm/client.py), the self-judge (bench/judges.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hyperskill_lite.core.records import Fragment, Polarity, Skill
from hyperskill_lite.llm.client import BENCHMARKS
from hyperskill_lite.llm.text import clip_middle
from hyperskill_lite.methods.hyperskill.prompts import (
    SCHEMAS,
    decomposition_prompt,
    extraction_prompt,
    merge_prompt,
    result_text,
)
from hyperskill_lite.methods.hyperskill.replies import (
    check_extraction,
    check_merged,
    check_steps,
)
from hyperskill_lite.types import Episode, Extraction, Task

__all__ = ["OPERATIONS", "PromptedHyperSkillOps", "hyperskill_ops"]

OPERATIONS = ("decompose", "extract", "merge")
"""HyperSkill's model operations (a `MemoryLLM`'s, types.py, but the self-judge)."""

DEFAULT_TRAJECTORY_CHARS = 12000
"""Trajectory clip when the client does not say (`PromptedLLM.max_trajectory_chars`)."""


class PromptedHyperSkillOps:
    """HyperSkill's operations over a prompted chat model (its usage counters and
    cassette see every call). The client's ``benchmark`` picks the decomposition prompt
    ("auto": the task's own), its ``tool_names`` the tools the prompt lists, its
    ``max_trajectory_chars`` where a trajectory is cut."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"PromptedHyperSkillOps({self.client!r})"

    @property
    def usage(self) -> Any:
        """The client's usage counters (the runner reads ``system.llm.usage``)."""
        return getattr(self.client, "usage", None)

    def _benchmark_for(self, task: Task) -> str:
        benchmark = getattr(self.client, "benchmark", "gaia")
        if benchmark != "auto":
            return benchmark
        b = task.benchmark.lower().replace("-", "").replace("_", "")
        return {"webwalker": "webwalkerqa"}.get(b, b) if b in (*BENCHMARKS, "webwalker") else "gaia"

    def _trajectory(self, episode: Episode) -> str:
        return clip_middle(
            episode.trajectory or "(no trajectory recorded)",
            getattr(self.client, "max_trajectory_chars", DEFAULT_TRAJECTORY_CHARS),
        )

    def decompose(self, task: Task) -> list[str]:
        """P_0 = LLM-Decompose(d_q): 1-6 steps ``"name: description"`` (feeds Eq. 4)."""
        return self.client.chat_json(
            "decompose",
            decomposition_prompt(task.text, self._benchmark_for(task),
                                 getattr(self.client, "tool_names", None)),
            check_steps,
            schema=SCHEMAS["decompose"],
        )

    def extract(self, task: Task, episode: Episode) -> Extraction:
        """Skills after a success, mistakes after a failure, and the lesson l_e."""
        polarity: Polarity = "success" if episode.success else "failure"
        prompt = extraction_prompt(
            task.text, self._trajectory(episode), result_text(episode.success, episode.answer, episode.error), episode.success
        )
        return self.client.chat_json(
            "extract",
            prompt,
            lambda o: check_extraction(o, polarity),
            schema=SCHEMAS[f"extract:{polarity}"],
        )

    def merge(self, a: Skill, b: Skill, fragments: Sequence[Fragment] = ()) -> Skill:
        """LLM-Merge of an Eq. 14 candidate pair into one higher-order skill or mistake,
        with the pair's shared trajectory fragments in the prompt's fragment slot."""
        if a.polarity != b.polarity:
            raise ValueError(
                f"merge needs two items of one polarity, got {a.polarity!r} and {b.polarity!r}"
            )
        kind = "skill" if a.polarity == "success" else "mistake"
        merged = self.client.chat_json(
            "merge",
            merge_prompt(a.name, a.content, b.name, b.content, kind, fragments),
            lambda o: check_merged(o, a.polarity),
            schema=SCHEMAS["merge"],
        )
        merged.meta = {"merged_from": [a.name, b.name]}
        return merged


def hyperskill_ops(llm: Any) -> Any:
    """What performs HyperSkill's operations for `llm`: `llm` itself when it has every
    operation (SimLLM, a test double, a `PromptedHyperSkillOps`), a `PromptedHyperSkillOps`
    over it when it is a prompted chat model (it has ``chat_json``), else `llm` as it is
    (the memory then fails where it needs the operation).

    >>> class Chat:
    ...     def chat_json(self, op, prompt, validate=None, schema=None): ...
    >>> type(hyperskill_ops(Chat())).__name__
    'PromptedHyperSkillOps'
    >>> class Own:
    ...     def decompose(self, task): ...
    ...     def extract(self, task, episode): ...
    ...     def merge(self, a, b, fragments=()): ...
    >>> own = Own(); hyperskill_ops(own) is own
    True
    """
    if all(callable(getattr(llm, op, None)) for op in OPERATIONS):
        return llm
    if callable(getattr(llm, "chat_json", None)):
        return PromptedHyperSkillOps(llm)
    return llm
