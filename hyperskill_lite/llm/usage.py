"""Token and call counts of a model client: per call, per operation, per episode, by role.

`Usage` is what a `PromptedLLM` keeps (client.py): calls and prompt/completion tokens
overall and per operation ("decompose", "agent", "judge", ...), retries, re-asks and the
share of usable JSON replies per operation; `UsageSnapshot` subtracts to give one
episode's; `op_role` says whom a call worked for (`ROLES`). Counts are the API's own
usage fields (estimated from the text when a server sends none).

Not here: making calls (client.py), pricing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Usage", "UsageSnapshot", "ROLES", "op_role"]


@dataclass(frozen=True)
class UsageSnapshot:
    """Counters at one moment; subtract two to get the usage in between."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __sub__(self, other: UsageSnapshot) -> UsageSnapshot:
        return UsageSnapshot(
            self.calls - other.calls,
            self.prompt_tokens - other.prompt_tokens,
            self.completion_tokens - other.completion_tokens,
        )


ROLES = ("agent", "memory", "judge", "tool", "setup")
"""Who a model call works for: the acting agent, the memory (decompose, extract, merge
and every baseline operation), the outcome judge, a tool that asks the model (crawl_page's
condensing, a question about a file: the paper's harness counts these with the agent's
tool use), or a capability probe."""


def op_role(op: str) -> str:
    """The role of a call by its operation name (a ":reask" suffix keeps the role).

    >>> [op_role(o) for o in ("agent", "agent:reask", "judge", "extract:reask",
    ...                       "structured:probe", "tools:probe", "expel", "tool:crawl_summary")]
    ['agent', 'agent', 'judge', 'memory', 'setup', 'setup', 'memory', 'tool']
    """
    if op.endswith(":probe"):
        return "setup"
    if op.startswith("tool:"):  # a tool asking the model (crawl_summary, file questions)
        return "tool"
    head = op.split(":", 1)[0]
    return head if head in ("agent", "judge") else "memory"


@dataclass
class Usage:
    """Running token and call counts of one `PromptedLLM`.

    >>> u = Usage(); u.add("decompose", 100, 20); s = u.snapshot(); u.add("extract", 50, 5)
    >>> u.since(s)
    UsageSnapshot(calls=1, prompt_tokens=50, completion_tokens=5)
    >>> u.by_op["decompose"]
    {'calls': 1, 'prompt_tokens': 100, 'completion_tokens': 20}
    """

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retries: int = 0
    reasks: int = 0
    by_op: dict[str, dict[str, int]] = field(default_factory=dict)
    outcomes: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per JSON operation: {"first_try": usable at once, "after_reask": usable after the
    re-ask, "failed": still unusable} (what `make live-smoke` reports)."""

    def outcome(self, op: str, kind: str) -> None:
        row = self.outcomes.setdefault(op, {"first_try": 0, "after_reask": 0, "failed": 0})
        row[kind] += 1

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, op: str, prompt_tokens: int, completion_tokens: int) -> None:
        self.calls += 1
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        row = self.by_op.setdefault(op, {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0})
        row["calls"] += 1
        row["prompt_tokens"] += prompt_tokens
        row["completion_tokens"] += completion_tokens

    def snapshot(self) -> UsageSnapshot:
        return UsageSnapshot(self.calls, self.prompt_tokens, self.completion_tokens)

    def totals(self) -> dict[str, int]:
        """Cumulative counters, with the tokens split by who spent them (`op_role`):
        {"calls", "prompt_tokens", "completion_tokens", "agent_tokens",
        "memory_tokens", "judge_tokens", "tool_tokens", "setup_tokens"}; the runner
        records their per-episode differences.

        >>> u = Usage(); u.add("agent", 100, 10); u.add("extract", 40, 20); u.add("judge", 5, 1)
        >>> {k: v for k, v in u.totals().items() if k.endswith("_tokens")}
        ... # doctest: +NORMALIZE_WHITESPACE
        {'prompt_tokens': 145, 'completion_tokens': 31, 'agent_tokens': 110,
         'memory_tokens': 60, 'judge_tokens': 6, 'tool_tokens': 0, 'setup_tokens': 0}
        """
        out = {"calls": self.calls, "prompt_tokens": self.prompt_tokens,
               "completion_tokens": self.completion_tokens}
        for role in ROLES:
            out[f"{role}_tokens"] = 0
        for op, row in self.by_op.items():
            out[f"{op_role(op)}_tokens"] += row["prompt_tokens"] + row["completion_tokens"]
        return out

    def since(self, snapshot: UsageSnapshot) -> UsageSnapshot:
        """Usage after `snapshot` was taken (e.g. one episode's)."""
        return self.snapshot() - snapshot

    def to_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "retries": self.retries,
            "reasks": self.reasks,
            "by_op": {k: dict(v) for k, v in self.by_op.items()},
            "outcomes": {k: dict(v) for k, v in self.outcomes.items()},
        }
