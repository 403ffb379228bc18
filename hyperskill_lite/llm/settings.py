"""The settings of a live run's model calls, and the clients built from them.

`ModelSettings` holds what a researcher sets for the model calls of one run: sampling
(temperature, top_p, max_tokens), server-specific request fields (``extra_body``, e.g.
vLLM's ``{"chat_template_kwargs": {"enable_thinking": false}}`` to turn Qwen3's thinking
off), transport (timeout, retries) and the GT judge's own model, server and temperature.
`make_llms` builds the agent's `PromptedLLM` and the judge's from them; `usage_totals`
adds their usage up for the runner's per-episode counts.

The split that makes a resume possible: `ModelSettings.to_dict` is what changes the
model's replies (a run's *settings*, compared when a run folder is resumed);
`ModelSettings.transport` (timeout, retries, the judge's server address) changes only
how the replies are fetched, and is recorded as observed, never compared. Keys are never
settings: only the *names* of the environment variables that hold them are kept, and
neither is recorded.

The judge (our addition; the paper's GT-judge runs on the agent's model): a separate
`PromptedLLM`, at temperature 0 unless set, on `judge_model` / `judge_base_url` when
given, else on the agent's model and server. It inherits ``extra_body`` only when it runs
on the agent's server (a vLLM-specific field would be refused by another server).

>>> s = ModelSettings(temperature=0.2, extra_body={"chat_template_kwargs": {"enable_thinking": False}})
>>> s.to_dict()["temperature"], s.transport()["timeout"]
(0.2, 600.0)
>>> ModelSettings(top_p=1.5).check()
Traceback (most recent call last):
...
ValueError: --top-p must be in (0, 1], got 1.5

Not here: the command-line options (cli/model_options.py), probing the server
(preflight.py), the client itself (llm/client.py).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from hyperskill_lite.llm.client import DEFAULT_TIMEOUT, ENV_API_KEY, PromptedLLM

__all__ = ["ModelSettings", "MODEL_FIELDS", "make_llms", "usage_totals", "parse_extra_body",
           "ENV_JUDGE_API_KEY", "RESERVED_BODY_KEYS"]

ENV_JUDGE_API_KEY = "HYPERSKILL_JUDGE_API_KEY"
"""The judge's key when it runs on another server (`judge_base_url`); default: the agent's."""

RESERVED_BODY_KEYS = {
    "model": "--model", "messages": None, "temperature": "--temperature", "top_p": "--top-p",
    "max_tokens": "--max-tokens", "tools": None, "tool_choice": None,
    "response_format": "--structured", "stream": None,
}
"""Request fields ``extra_body`` may not set (the toolkit sets them; the option to use)."""

_SAMPLING = ("temperature", "top_p", "max_tokens", "extra_body", "judge_model",
             "judge_temperature")
_TRANSPORT = ("timeout", "max_retries", "judge_base_url")


@dataclass(frozen=True)
class ModelSettings:
    """Every setting of a live run's model calls (see the module docstring).

    Attributes
    ----------
    temperature, top_p, max_tokens
        Sampling of every agent and memory call: 0.7 (the paper's, Appendix A), the
        server's default top_p and reply length when None.
    timeout, max_retries
        Seconds per request (`llm.DEFAULT_TIMEOUT`, long enough for a thinking model)
        and retries after the first attempt (429, 5xx, timeouts).
    extra_body
        A JSON object merged into every request body (server-specific fields).
    judge_model, judge_base_url, judge_temperature
        The GT judge's model and server (None: the agent's) and its temperature (0).
    api_key_env, judge_api_key_env
        Names of the environment variables holding the keys (never recorded).
    """

    temperature: float = 0.7
    top_p: float | None = None
    max_tokens: int | None = None
    timeout: float = DEFAULT_TIMEOUT
    max_retries: int = 4
    extra_body: Mapping[str, Any] | None = None
    judge_model: str | None = None
    judge_base_url: str | None = None
    judge_temperature: float = 0.0
    api_key_env: str = field(default=ENV_API_KEY, compare=False)
    judge_api_key_env: str = field(default=ENV_JUDGE_API_KEY, compare=False)

    def check(self) -> ModelSettings:
        """Refuse impossible values with a ValueError naming the option; returns self."""
        for name, value in (("--temperature", self.temperature),
                            ("--judge-temperature", self.judge_temperature)):
            if not (isinstance(value, int | float) and math.isfinite(value) and 0 <= value <= 2):
                raise ValueError(f"{name} must be in [0, 2], got {value!r}")
        if self.top_p is not None and not (0 < self.top_p <= 1):
            raise ValueError(f"--top-p must be in (0, 1], got {self.top_p!r}")
        if self.max_tokens is not None and (isinstance(self.max_tokens, bool)
                                            or int(self.max_tokens) < 1):
            raise ValueError(f"--max-tokens must be >= 1, got {self.max_tokens!r}")
        if not (math.isfinite(self.timeout) and self.timeout > 0):
            raise ValueError(f"--timeout must be > 0 seconds, got {self.timeout!r}")
        if isinstance(self.max_retries, bool) or int(self.max_retries) < 0:
            raise ValueError(f"--max-retries must be >= 0, got {self.max_retries!r}")
        if self.extra_body is not None:
            parse_extra_body(self.extra_body)
        for name in ("judge_model", "judge_base_url"):
            v = getattr(self, name)
            if v is not None and (not isinstance(v, str) or not v.strip()):
                raise ValueError(f"--{name.replace('_', '-')} must be a non-empty string")
        return self

    def to_dict(self) -> dict[str, Any]:
        """The settings that change the model's replies (compared on resume).

        >>> ModelSettings().to_dict()
        ... # doctest: +NORMALIZE_WHITESPACE
        {'temperature': 0.7, 'top_p': None, 'max_tokens': None, 'extra_body': None,
         'judge_model': None, 'judge_temperature': 0.0}
        """
        d = asdict(self)
        out = {k: d[k] for k in _SAMPLING}
        if out["extra_body"] is not None:
            out["extra_body"] = json.loads(json.dumps(dict(self.extra_body)))
        return out

    def transport(self) -> dict[str, Any]:
        """How replies are fetched (recorded as observed, not compared on resume)."""
        return {k: getattr(self, k) for k in _TRANSPORT}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ModelSettings:
        """Settings from a mapping of field names (a sweep file's); checked.

        >>> ModelSettings.from_dict({"temperature": 0, "max_retries": 2}).max_retries
        2
        >>> ModelSettings.from_dict({"temprature": 0})
        Traceback (most recent call last):
        ...
        ValueError: unknown model setting 'temprature'
        """
        known = {f.name for f in fields(cls)}
        for k in d:
            if k not in known:
                raise ValueError(f"unknown model setting {k!r}")
        values = dict(d)
        if isinstance(values.get("extra_body"), str):
            values["extra_body"] = parse_extra_body(values["extra_body"])
        for k in ("temperature", "judge_temperature", "timeout"):
            if isinstance(values.get(k), int) and not isinstance(values.get(k), bool):
                values[k] = float(values[k])
        return cls(**values).check()


MODEL_FIELDS = tuple(f.name for f in fields(ModelSettings) if f.compare)
"""The settings a run records and compares: the ``run`` options of the same names
(temperature, top_p, max_tokens, timeout, max_retries, extra_body, judge_model,
judge_base_url, judge_temperature), which a sweep file and a backbone may set too."""


def parse_extra_body(value: str | Mapping[str, Any]) -> dict[str, Any]:
    """Check an ``extra_body``: a JSON object (text or mapping) that sets no field the
    toolkit sets itself. Returns it as a dict; ValueError names the problem.

    >>> parse_extra_body('{"chat_template_kwargs": {"enable_thinking": false}}')
    {'chat_template_kwargs': {'enable_thinking': False}}
    >>> parse_extra_body('[1, 2]')
    Traceback (most recent call last):
    ...
    ValueError: --extra-body must be a JSON object, got a list
    >>> parse_extra_body('{"temperature": 0}')
    Traceback (most recent call last):
    ...
    ValueError: --extra-body must not set 'temperature': use --temperature
    """
    if isinstance(value, str):
        try:
            obj = json.loads(value)
        except json.JSONDecodeError as e:
            raise ValueError(f"--extra-body is not valid JSON ({e.msg} at character {e.pos}); "
                             "example: '{\"chat_template_kwargs\": {\"enable_thinking\": false}}'"
                             ) from None
    else:
        obj = value
    if not isinstance(obj, Mapping):
        raise ValueError(f"--extra-body must be a JSON object, got a {type(obj).__name__}")
    try:
        obj = json.loads(json.dumps(dict(obj), allow_nan=False))
    except (TypeError, ValueError) as e:
        raise ValueError(f"--extra-body must hold JSON values only ({e})") from None
    for key in obj:
        if key in RESERVED_BODY_KEYS:
            use = RESERVED_BODY_KEYS[key]
            hint = f": use {use}" if use else " (the toolkit sets it)"
            raise ValueError(f"--extra-body must not set {key!r}{hint}")
    return obj


def _key(env: str) -> str | None:
    return os.environ.get(env) or None


def make_llms(
    settings: ModelSettings,
    *,
    base_url: str | None = None,
    model: str | None = None,
    benchmark: str = "gaia",
    cassette: Any = None,
    structured: str = "auto",
    retry_seed: int | None = None,
) -> tuple[PromptedLLM, PromptedLLM]:
    """The agent's `PromptedLLM` and the GT judge's, from `settings` (module docstring).

    `base_url` / `model` fall back to ``OPENAI_BASE_URL`` / ``HYPERSKILL_MODEL`` as in
    `PromptedLLM`; the agent's key comes from ``$<api_key_env>``, the judge's from
    ``$<judge_api_key_env>`` when it has a server of its own and that variable is set,
    else the agent's. Both share `cassette` (their requests differ in model or
    temperature, so they never collide in it). `retry_seed` seeds the agent's backoff
    (the judge's is seed + 1); None draws from the OS.
    """
    settings.check()
    extra = dict(settings.extra_body) if settings.extra_body else None
    agent = PromptedLLM(
        base_url, model, _key(settings.api_key_env), benchmark=benchmark,
        temperature=settings.temperature, top_p=settings.top_p, timeout=settings.timeout,
        max_retries=settings.max_retries, cassette=cassette, max_tokens=settings.max_tokens,
        extra_body=extra, structured=structured, retry_seed=retry_seed)
    own_server = settings.judge_base_url is not None and settings.judge_base_url != agent.base_url
    judge_key = (_key(settings.judge_api_key_env) if own_server else None) \
        or _key(settings.api_key_env)
    judge = PromptedLLM(
        settings.judge_base_url or agent.base_url, settings.judge_model or agent.model,
        judge_key, benchmark=benchmark, temperature=settings.judge_temperature,
        timeout=settings.timeout, max_retries=settings.max_retries, cassette=cassette,
        max_tokens=settings.max_tokens, extra_body=None if own_server else extra,
        structured=structured, retry_seed=None if retry_seed is None else retry_seed + 1)
    return agent, judge


def usage_totals(*llms: Any) -> dict[str, int]:
    """The cumulative usage counters (`Usage.totals`) of several clients added up: what
    the runner's ``usage=`` takes when the judge has a client of its own.

    >>> from hyperskill_lite.llm.usage import Usage
    >>> class C:
    ...     def __init__(self): self.usage = Usage()
    >>> a, b = C(), C(); a.usage.add("agent", 10, 2); b.usage.add("judge", 5, 1)
    >>> t = usage_totals(a, b); (t["calls"], t["agent_tokens"], t["judge_tokens"])
    (2, 12, 6)
    """
    out: dict[str, int] = {}
    seen: set[int] = set()
    for llm in llms:
        if llm is None or id(llm) in seen:
            continue
        seen.add(id(llm))
        for k, v in llm.usage.totals().items():
            out[k] = out.get(k, 0) + int(v)
    return out
