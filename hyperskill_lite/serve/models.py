"""Which model the memory's operations use in one tool call, and the operations.

Three paths, chosen per call (``serve --llm``):

- ``model``: a configured OpenAI-compatible model (the options of ``run``), through
  `PromptedLLM` with the paper's prompts, retries, structured outputs and re-asks;
- ``sampling``: the connected client's own model through MCP sampling (sampling.py),
  the same prompts and reply checks; no second API key;
- ``none`` (``--no-llm``): no model at all. Recall skips the decomposition P_0 and with
  it the subtask path (Eq. 4): E* = E_traj (Eq. 5) alone. Learn stores no subtask and
  no skill nodes: the hyperedge holds the task and, as its lesson, the trajectory cut to
  `Limits.lesson_chars` characters. Maintenance prunes (Eq. 11) and does not merge
  (LLM-Merge needs a model). Every result says what was skipped.

``auto`` (the default) takes the configured model when there is one, else the client's
sampling when it declared it, else none for that call (the result says so).

Text from the client reaches a prompt only bounded and framed (bounds.py).

Not here: the prompts, reply checks and prompted operations (methods/hyperskill/), the
sampling transport (sampling.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread

from hyperskill_lite.core.records import Fragment, Skill
from hyperskill_lite.errors import LLMError
from hyperskill_lite.llm.client import PromptedLLM
from hyperskill_lite.llm.text import clip_middle
from hyperskill_lite.methods.hyperskill.ops import PromptedHyperSkillOps
from hyperskill_lite.methods.hyperskill.prompts import (
    decomposition_prompt,
    extraction_prompt,
    merge_prompt,
    result_text,
)
from hyperskill_lite.methods.hyperskill.replies import check_extraction, check_merged, check_steps
from hyperskill_lite.serve.bounds import LIMITS, frame
from hyperskill_lite.serve.sampling import Asker, client_samples, json_ops
from hyperskill_lite.types import Episode, Extraction, Task

__all__ = ["ModelConfig", "CallModels", "LLM_MODES", "framed_task", "framed_trajectory"]

LLM_MODES = ("auto", "model", "sampling", "none")

SKIPPED = {
    "decompose": "no decomposition P_0: the subtask path (Eq. 4) was skipped, E* = E_traj "
                 "(Eq. 5)",
    "extract": "no extraction: no skill nodes were stored; the lesson is the trajectory "
               f"cut to {LIMITS.lesson_chars} characters",
    "merge": "no merging (LLM-Merge needs a model): maintenance pruned only",
}


def framed_task(task: str) -> str:
    return frame("task", task)


def framed_trajectory(trajectory: str) -> str:
    return frame("trajectory", clip_middle(trajectory, LIMITS.trajectory_prompt_chars))


@dataclass
class ModelConfig:
    """The server's model settings: `mode` (`LLM_MODES`), the configured model `llm`
    (None without one), the decomposition prompt's `benchmark`, and the sampling
    requests' `max_tokens` and `temperature` (the paper's 0.7)."""

    mode: str = "auto"
    llm: PromptedLLM | None = None
    benchmark: str = "gaia"
    max_tokens: int = 1024
    temperature: float = 0.7
    merge_workers: int = 4

    def __post_init__(self) -> None:
        if self.mode not in LLM_MODES:
            raise ValueError(f"--llm must be one of {', '.join(LLM_MODES)}, got {self.mode!r}")
        if self.mode == "model" and self.llm is None:
            raise ValueError("--llm model needs a model: give --model (and --base-url)")

    @property
    def may_sample(self) -> bool:
        """Does any call ask the client's model (MCP sampling)?"""
        return self.mode == "sampling" or (self.mode == "auto" and self.llm is None)

    def describe(self) -> str:
        if self.mode == "none":
            return "no model (--no-llm): " + "; ".join(SKIPPED.values())
        model = f"model {self.llm.model!r}" if self.llm is not None else None
        if self.mode == "model" or (self.mode == "auto" and model):
            return f"configured {model}"
        if self.mode == "sampling":
            return "the client's model (MCP sampling)"
        return "the client's model (MCP sampling) when it offers one, else none"


class CallModels:
    """The memory's model operations for one tool call (module docstring); `notes`
    collects what was skipped or went wrong, for the tool's result."""

    def __init__(self, cfg: ModelConfig, ctx: Any = None) -> None:
        self.cfg, self.ctx = cfg, ctx
        self.notes: list[str] = []
        kind = cfg.mode
        if kind == "auto":
            kind = "model" if cfg.llm is not None else (
                "sampling" if client_samples(ctx) else "none")
            if kind == "none":
                self.notes.append("no model configured and the client offers no sampling")
        elif kind == "sampling" and not client_samples(ctx):
            self.notes.append("--llm sampling, but this client did not declare sampling")
            kind = "none"
        self.kind = kind
        self.asker = Asker(ctx, cfg.max_tokens, cfg.temperature) if kind == "sampling" else None

    @property
    def progress(self) -> dict[str, Any]:
        """State that survives a 2026-07-28 round trip (empty on other paths)."""
        return self.asker.progress if self.asker is not None else {}

    def skip(self, op: str) -> None:
        self.notes.append(SKIPPED[op])

    # ------------------------------------------------------------------ operations
    async def decompose(self, task: str) -> list[str]:
        """P_0 for `task`, [] (with a note) without a model or when it fails."""
        return (await self.decompose_and_extract(task, None, True))[0]

    async def decompose_and_extract(self, task: str, trajectory: str | None, success: bool
                                    ) -> tuple[list[str], Extraction | LLMError | None]:
        """P_0 and, when `trajectory` is given, the extraction, concurrently. The plan is
        [] (noted) when the decomposition failed; the extraction is an `LLMError` when
        it failed, None without a model."""
        if self.kind == "none":
            self.skip("decompose")
            if trajectory is not None:
                self.skip("extract")
            return [], None
        if self.kind == "sampling":
            out = await self._sampled(task, trajectory, success)
        else:
            out = await self._prompted(task, trajectory, success)
        steps = out.get("decompose", [])
        if isinstance(steps, LLMError):
            self.notes.append(f"decomposition failed ({steps}): {SKIPPED['decompose']}")
            steps = []
        return steps, out.get("extract")

    async def extract(self, task: str, trajectory: str, success: bool
                      ) -> Extraction | LLMError | None:
        """The extraction alone (when P_0 came from the recall): an `LLMError` when it
        failed, None without a model."""
        if self.kind == "none":
            self.skip("extract")
            return None
        run = self._sampled if self.kind == "sampling" else self._prompted
        return (await run(task, trajectory, success, plan=False)).get("extract")

    async def _sampled(self, task: str, trajectory: str | None, success: bool,
                       plan: bool = True) -> dict[str, Any]:
        assert self.asker is not None
        polarity = "success" if success else "failure"
        ops = {}
        if plan:
            ops["decompose"] = (decomposition_prompt(framed_task(task), self.cfg.benchmark),
                                check_steps)
        if trajectory is not None:
            prompt = extraction_prompt(framed_task(task), framed_trajectory(trajectory),
                                       result_text(success, None), success)
            ops["extract"] = (prompt, lambda o: check_extraction(o, polarity))
        return await json_ops(self.asker, ops)

    async def _prompted(self, task: str, trajectory: str | None, success: bool,
                        plan: bool = True) -> dict[str, Any]:
        assert self.cfg.llm is not None
        llm = PromptedHyperSkillOps(self.cfg.llm)
        t = Task(id="mcp", question=framed_task(task))
        out: dict[str, Any] = {}

        async def run(key: str, fn: Any, *args: Any) -> None:
            try:
                out[key] = await anyio.to_thread.run_sync(fn, *args)
            except LLMError as exc:
                out[key] = exc

        async with anyio.create_task_group() as tg:
            if plan:
                tg.start_soon(run, "decompose", llm.decompose, t)
            if trajectory is not None:
                ep = Episode(task_id="mcp", success=success, steps=0,
                             trajectory=framed_trajectory(trajectory))
                tg.start_soon(run, "extract", llm.extract, t, ep)
        return out

    async def merge(self, pairs: Sequence[tuple[Skill, Skill, Sequence[Fragment]]]
                    ) -> list[Skill | LLMError] | None:
        """LLM-Merge of each candidate pair, concurrently; None without a model."""
        if self.kind == "none" or not pairs:
            if pairs:
                self.skip("merge")
            return None if self.kind == "none" else []
        if self.kind == "sampling":
            assert self.asker is not None
            ops = {}
            for i, (a, b, frags) in enumerate(pairs):
                kind = "skill" if a.polarity == "success" else "mistake"
                ops[f"merge:{i}"] = (merge_prompt(a.name, a.content, b.name, b.content, kind,
                                                  frags),
                                     lambda o, p=a.polarity: check_merged(o, p))
            res = await json_ops(self.asker, ops)
            return [res[f"merge:{i}"] for i in range(len(pairs))]
        assert self.cfg.llm is not None
        llm = PromptedHyperSkillOps(self.cfg.llm)
        out: list[Any] = [None] * len(pairs)
        limiter = anyio.CapacityLimiter(self.cfg.merge_workers)

        async def one(i: int) -> None:
            a, b, frags = pairs[i]
            try:
                out[i] = await anyio.to_thread.run_sync(
                    lambda: llm.merge(a, b, fragments=frags), limiter=limiter)
            except LLMError as exc:
                out[i] = exc

        async with anyio.create_task_group() as tg:
            for i in range(len(pairs)):
                tg.start_soon(one, i)
        return out
