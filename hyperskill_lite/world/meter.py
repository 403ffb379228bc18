"""What SimLLM's calls would cost in tokens: the real prompts, counted.

SkillWorld's simulated model answers without a model, so nothing reports its usage. For
every operation SimLLM answers, the prompt a live run would send for the same inputs is
built with the same builders the live model uses: `prompt_for` for SimLLM's own
(methods/hyperskill/prompts.py for decompose, extract and merge, bench/judges.py for the
self-judge) and `prompt_of` for any other declared model operation (its prompted
implementation, run over a stand-in that captures the prompt before anything is sent);
its tokens and those of the reply, written as JSON, are added to `SimLLM.usage` (an
`llm.usage.Usage`) under the operation's name. The runner records the per-episode
differences (agent, memory and judge tokens apart), so a SkillWorld run reports
memory-construction tokens beside the agent's, as the paper's cost figure counts them.

These are estimates: `count_tokens` approximates a BPE tokenizer, each operation counts
as one call (no re-asks, no retries), and the agent's own tokens come from the executor
(`SimExecutor`), not from here.

>>> from hyperskill_lite.world import SimLLM, make_tasks
>>> llm = SimLLM(seed=0)
>>> _ = llm.decompose(make_tasks("gaia", n=1, seed=0)[0])
>>> row = llm.usage.by_op["decompose"]
>>> row["calls"], row["prompt_tokens"] > 100, row["completion_tokens"] > 5
(1, True, True)

Not here: the simulated answers (simllm.py, each method's simulated operations).
"""

from __future__ import annotations

import json
from dataclasses import asdict, is_dataclass
from typing import Any

from hyperskill_lite.bench.judges import judge_prompt
from hyperskill_lite.llm.text import clip_middle
from hyperskill_lite.llm.tokens import count_tokens
from hyperskill_lite.methods.hyperskill.prompts import (
    decomposition_prompt,
    extraction_prompt,
    merge_prompt,
    result_text,
)

__all__ = ["METERED", "prompt_for", "prompt_of", "reply_tokens", "MAX_TRAJECTORY_CHARS"]

MAX_TRAJECTORY_CHARS = 12000
"""Trajectories are clipped as `PromptedLLM` clips them by default."""

PROFILE_PROMPT = {"gaia": "gaia", "webwalker": "webwalkerqa", "xbench": "xbench"}
"""SkillWorld profile -> the benchmark whose decomposition prompt a live run would use."""

METERED = ("decompose", "extract", "merge", "judge")
"""SimLLM's own operations, which a live run sends to the model (every other method's
declared operations are metered by `SimLLM.simulate`)."""


class _Captured(Exception):
    def __init__(self, prompt: Any) -> None:
        super().__init__("captured")
        self.prompt = prompt


class _Capture:
    """Stands where a prompted implementation expects a chat model: it keeps the first
    prompt and stops the operation before anything would be sent."""

    max_trajectory_chars = MAX_TRAJECTORY_CHARS

    def chat_json(self, op: str, prompt: Any, validate: Any = None, schema: Any = None) -> Any:
        raise _Captured(prompt)


def _text(prompt: Any) -> str:
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, list):  # chat messages
        return "\n".join(str(m.get("content") or "") for m in prompt if isinstance(m, dict))
    return str(prompt)


def _traj(episode: Any) -> str:
    return clip_middle(episode.trajectory or "(no trajectory recorded)", MAX_TRAJECTORY_CHARS)


def prompt_for(op: str, args: tuple, kwargs: dict[str, Any]) -> str:
    """The prompt a live model would get for SimLLM operation `op` with these arguments
    ("" when the operation would send none)."""
    if op == "decompose":
        task = args[0]
        profile = (task.meta.get("skillworld") or {}).get("profile", "gaia")
        return decomposition_prompt(task.text, PROFILE_PROMPT.get(profile, "gaia"))
    if op == "extract":
        task, ep = args[0], args[1]
        return extraction_prompt(task.text, _traj(ep), result_text(ep.success, ep.answer, ep.error),
                                 ep.success)
    if op == "merge":
        a, b = args[0], args[1]
        fragments = args[2] if len(args) > 2 else kwargs.get("fragments", ())
        kind = "skill" if a.polarity == "success" else "mistake"
        return merge_prompt(a.name, a.content, b.name, b.content, kind, fragments)
    if op == "judge":
        task, ep = args[0], args[1]
        return judge_prompt(task.text, _traj(ep), ep.answer)
    raise ValueError(f"{op!r} is not one of SimLLM's own operations {METERED}")


def prompt_of(operation: Any, args: tuple, kwargs: dict[str, Any]) -> str:
    """The prompt a live model would get for a declared model operation
    (`methods.operations.ModelOperation`) with these arguments: its prompted
    implementation run over `_Capture` ("" when it would send none for these inputs)."""
    ops = operation.owner(_Capture())
    try:
        getattr(ops, operation.name)(*args, **kwargs)
    except _Captured as cap:
        return _text(cap.prompt)
    return ""  # the live operation decided not to call the model for these inputs


def _plain(obj: Any) -> Any:
    if is_dataclass(obj) and not isinstance(obj, type):
        return {k: v for k, v in asdict(obj).items() if k != "meta"}  # hidden meta is no text
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items() if k != "meta"}
    if isinstance(obj, list | tuple):
        return [_plain(v) for v in obj]
    return obj


def reply_tokens(result: Any) -> int:
    """Tokens of an operation's result written as the JSON reply a model would give."""
    return count_tokens(json.dumps(_plain(result), default=str, ensure_ascii=False))
