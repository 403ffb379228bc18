"""The model-call options a live command shares (``run``, ``check``): sampling, transport,
``--extra-body`` and the GT judge's own model.

`add_arguments(group)` adds them to an argparse group; `settings_from_args(args)` turns
the parsed values into one `llm.settings.ModelSettings` (checked, so an impossible
value is one ``error:`` line and exit 2), from which `llm.settings.make_llms` builds the
agent's and the judge's `PromptedLLM`.

>>> import argparse
>>> p = argparse.ArgumentParser(); add_arguments(p)
>>> args = p.parse_args(["--temperature", "0", "--extra-body",
...                      '{"chat_template_kwargs": {"enable_thinking": false}}'])
>>> s = settings_from_args(args); s.temperature, s.extra_body
(0.0, {'chat_template_kwargs': {'enable_thinking': False}})

Not here: what the settings mean and how clients are built (llm/settings.py).
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from hyperskill_lite.llm.client import DEFAULT_TIMEOUT
from hyperskill_lite.llm.settings import MODEL_FIELDS, ModelSettings, parse_extra_body

__all__ = ["add_arguments", "settings_from_args"]


def _number(low: float, high: float, low_open: bool = False):
    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
        ok = math.isfinite(v) and (v > low if low_open else v >= low) and v <= high
        if not ok:
            left = "(" if low_open else "["
            right = "]" if math.isfinite(high) else ")"
            raise argparse.ArgumentTypeError(f"must be in {left}{low:g}, {high:g}{right}, got {v:g}")
        return v
    return parse


def _count(low: int):
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
        if v < low:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {v}")
        return v
    return parse


def _extra_body(text: str) -> dict[str, Any]:
    try:
        return parse_extra_body(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("--extra-body ")) from None


def add_arguments(group: Any) -> None:
    """Add the model-call options to `group` (an argparse parser or argument group)."""
    d = ModelSettings()
    group.add_argument("--temperature", type=_number(0, 2), default=d.temperature,
                       help="sampling temperature of the agent's and the memory's calls "
                       "(the paper's 0.7)")
    group.add_argument("--top-p", type=_number(0, 1, low_open=True), default=None,
                       help="nucleus sampling mass (default: the server's)")
    group.add_argument("--max-tokens", type=_count(1), default=None,
                       help="cap on the tokens a model writes per call (default: the server's)")
    group.add_argument("--timeout", type=_number(0, math.inf, low_open=True),
                       default=DEFAULT_TIMEOUT,
                       help="seconds one request may take; long, because a thinking model "
                       "writes thousands of tokens before it answers")
    group.add_argument("--max-retries", type=_count(0), default=d.max_retries,
                       help="retries of a call after 429, 5xx, timeouts (full-jitter "
                       "backoff; a server's Retry-After is honoured)")
    group.add_argument("--extra-body", type=_extra_body, default=None, metavar="JSON",
                       help="JSON object merged into every request, e.g. "
                       "'{\"chat_template_kwargs\": {\"enable_thinking\": false}}' to turn "
                       "Qwen3's thinking off on vLLM")
    group.add_argument("--judge-model", default=None,
                       help="the GT judge's model (default: the agent's)")
    group.add_argument("--judge-base-url", default=None,
                       help="the GT judge's server (default: the agent's); its key from "
                       "$HYPERSKILL_JUDGE_API_KEY, else the agent's")
    group.add_argument("--judge-temperature", type=_number(0, 2), default=d.judge_temperature,
                       help="the GT judge's sampling temperature")


def settings_from_args(args: argparse.Namespace) -> ModelSettings:
    """The `ModelSettings` of parsed options (missing ones take their defaults)."""
    d = ModelSettings()
    values = {k: getattr(args, k, getattr(d, k)) for k in MODEL_FIELDS}
    for k in ("temperature", "judge_temperature", "timeout"):
        values[k] = float(values[k])
    return ModelSettings(**values).check()
