"""PromptedLLM: the model client over an OpenAI-compatible chat API.

`PromptedLLM` sends chat requests to vLLM's OpenAI server or a hosted API and returns
checked JSON (`chat_json`); what it is asked is up to its callers: HyperSkill's prompted
operations (decompose, extract, merge; methods/hyperskill/ops.py), the baselines'
(each in its module, baselines/), the judges (bench/judges.py) and the agent loop (agent/loop.py).
Around every call it adds what a live run needs:

- configuration from arguments or ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` /
  ``HYPERSKILL_MODEL``; temperature 0.7 (Appendix A), top_p, max_tokens and an
  ``extra_body`` (e.g. vLLM's ``chat_template_kwargs``) on every call; a timeout of
  `DEFAULT_TIMEOUT` seconds (a thinking model's long reply must not time out);
- retries on 429, 5xx, timeouts and connection errors with full-jitter exponential
  backoff from a generator of the client's own, never shorter than the server's
  ``Retry-After`` (retry.py; the openai client's own retries are off so the loop is
  ours), then `LLMConnectionError`;
- token usage per call (`ChatReply.usage`), overall and per episode (`Usage`); one
  ``logging`` record per call on the ``hyperskill_lite.llm.client`` logger (operation,
  HTTP status, latency, tokens, retries), nothing printed;
- a reasoning server's ``reasoning_content`` (vLLM's reasoning parsers; ``reasoning``
  in newer versions) kept apart from the answer in `ChatReply.reasoning`, so callers
  can record it without it ever reaching a prompt or the memory;
- JSON extraction that survives code fences, ``<think>`` blocks and prose (replies.py),
  the caller's contract check, one bounded re-ask with the error (text.py's `REASK`),
  then `LLMResponseError` naming the operation;
- record/replay through a `Cassette`; errors are recorded too, so a replay fails where
  the live run failed. Exceptions and cassettes never contain the API key.

Not here: any prompt or contract check (each beside its operation), the agent loop
(agent/loop.py), gold-answer judges (bench/), streaming and the Responses API.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from hyperskill_lite.errors import LLMConnectionError, LLMRequestError, LLMResponseError
from hyperskill_lite.llm.cassette import Cassette, env_secrets
from hyperskill_lite.llm.replies import extract_json, scrub_surrogates, strip_thinking
from hyperskill_lite.llm.retry import Backoff, retry_after_seconds
from hyperskill_lite.llm.structured import MODES as STRUCTURED_MODES
from hyperskill_lite.llm.structured import (
    PROBE_MESSAGES,
    PROBE_SCHEMA,
    blames_structured,
    probe_reply_ok,
)
from hyperskill_lite.llm.structured import response_format as structured_format
from hyperskill_lite.llm.text import REASK, fill
from hyperskill_lite.llm.usage import Usage
from hyperskill_lite.llm.wire import ChatReply, reply_dict
from hyperskill_lite.llm.wire import create_completion as _create
from hyperskill_lite.llm.wire import safe_url as _safe_url
from hyperskill_lite.llm.wire import ssl_context as _ssl_context
from hyperskill_lite.llm.wire import status_message as _status_message

__all__ = [
    "PromptedLLM",
    "DEFAULT_TIMEOUT",
    "BENCHMARKS",
]

ENV_BASE_URL, ENV_API_KEY, ENV_MODEL = "OPENAI_BASE_URL", "OPENAI_API_KEY", "HYPERSKILL_MODEL"
DEFAULT_TIMEOUT = 600.0
"""Seconds one request may take. A thinking model (Qwen3 on vLLM) writes thousands of
reasoning tokens before its answer: 8k tokens at 30 tokens/s on a busy server is over
four minutes, so 60 s cut real replies off. 600 s is also the openai client's default."""
BENCHMARKS = ("gaia", "webwalkerqa", "xbench")
"""The live benchmarks the toolkit knows, by the names `Task.benchmark`, the loaders
(`bench.loaders.load_benchmark`), ``run --benchmark`` and a sweep use, and the
decomposition prompts the client's ``benchmark`` option selects (HyperSkill's prompts,
methods/hyperskill/prompts.py). Defined here, the lowest layer that needs it."""

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------- client
class PromptedLLM:
    """A model client over an OpenAI-compatible chat API: chat, chat_json with re-asks,
    retries, structured outputs, usage and the cassette. HyperSkill's operations over it
    are `methods.hyperskill.ops.PromptedHyperSkillOps` (`make_method` wraps it).

    Parameters
    ----------
    base_url, model, api_key
        Server, model name and key; each falls back to ``OPENAI_BASE_URL``,
        ``HYPERSKILL_MODEL`` and ``OPENAI_API_KEY``. A local server without a key gets
        the placeholder "EMPTY" (vLLM's convention). Not needed at all to replay.
    benchmark
        HyperSkill's decomposition prompt (read by its operations): "gaia", "webwalkerqa", "xbench", or "auto" (the task's
        own `benchmark` when it is one of those, else GAIA's).
    temperature, top_p
        Sampling temperature of every call (0.7, Appendix A) and nucleus mass (None: the
        server's default, not sent).
    timeout, max_retries
        Seconds per request (`DEFAULT_TIMEOUT`); retries after the first attempt on 429,
        5xx, timeouts, connection errors and unreadable replies, retry ``i`` waiting
        ``uniform(0, min(retry_max_delay, retry_base_delay * 2**i))`` seconds (full
        jitter, retry.py), or the server's Retry-After when that is longer.
    retry_seed
        Seed of this client's backoff generator (None: from the OS, so that clients
        built alike do not retry in lock-step).
    cassette
        Record every call to, or replay every call from, a `Cassette`.
    client
        An ``openai.OpenAI``-compatible client to use instead of building one.
    max_tokens, extra_body
        Passed to every call when set (e.g. ``extra_body={"chat_template_kwargs":
        {"enable_thinking": False}}`` for Qwen3 on vLLM).
    max_reasks
        Re-asks after an unusable JSON reply before `LLMResponseError` (1).
    max_trajectory_chars
        Trajectories longer than this are cut in the middle before extraction/judging
        (by the operations that quote one).
    structured
        Structured outputs (structured.py): "auto" (default) probes once what the server
        accepts (`resolve_structured`), "json_schema" / "json_object" use that form, "off"
        relies on the prompt alone. Every JSON operation then sends its schema; a server
        that refuses it (a 4xx, or a 5xx validation error) makes that operation fall back
        to text parsing, once, with a warning (`structured_refused`).
    """

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        benchmark: str = "gaia",
        temperature: float = 0.7,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = 4,
        cassette: Cassette | None = None,
        client: Any = None,
        retry_base_delay: float = 1.0,
        retry_max_delay: float = 30.0,
        max_tokens: int | None = None,
        extra_body: dict[str, Any] | None = None,
        max_reasks: int = 1,
        max_trajectory_chars: int = 12000,
        structured: str = "auto",
        top_p: float | None = None,
        retry_seed: int | None = None,
    ) -> None:
        self.base_url = base_url or os.environ.get(ENV_BASE_URL) or None
        self.model = model or os.environ.get(ENV_MODEL) or ""
        if not self.model:
            raise ValueError(f"no model name: pass model=... or set {ENV_MODEL}")
        self.__api_key = api_key or os.environ.get(ENV_API_KEY) or None
        bench = benchmark.lower().replace("-", "").replace("_", "")
        if bench not in (*BENCHMARKS, "auto"):
            raise ValueError(
                f"unknown benchmark {benchmark!r}; expected one of {BENCHMARKS} or 'auto'"
            )
        if max_retries < 0 or max_reasks < 0:
            raise ValueError("max_retries and max_reasks must be >= 0")
        if structured not in STRUCTURED_MODES:
            raise ValueError(f"structured must be one of {STRUCTURED_MODES}, got {structured!r}")
        self.benchmark = bench
        self.temperature = temperature
        self.timeout = timeout
        self.max_retries = max_retries
        self.retry_base_delay = retry_base_delay
        self.retry_max_delay = retry_max_delay
        self.top_p = top_p
        self._backoff = Backoff(retry_base_delay, retry_max_delay, retry_seed)
        self.max_tokens = max_tokens
        self.extra_body = extra_body
        self.max_reasks = max_reasks
        self.max_trajectory_chars = max_trajectory_chars
        self.cassette = cassette
        if cassette is not None:
            cassette.add_secret(self.__api_key)
        self._client = client
        self.usage = Usage()
        self.structured = structured
        """Requested structured-output mode ("auto", "json_schema", "json_object", "off")."""
        self.structured_mode: str | None = None if structured == "auto" else structured
        """The mode in use; for "auto", set by `resolve_structured` (on first need)."""
        self.structured_probe: list[dict[str, Any]] = []
        """What the probe found, one entry per mode tried: {"mode", "result"}."""
        self.tool_names: list[str] | None = None
        """The run's tool names (`Toolbox.names`), which HyperSkill's decomposition prompt
        lists (methods/hyperskill/ops.py reads them); None: the paper's tool box as written."""
        self.structured_refused: dict[str, str] = {}
        """Operations whose schema a server refused (400): op -> the server's message;
        those fall back to text parsing for the rest of the run."""

    def __repr__(self) -> str:
        return self._redact(
            f"PromptedLLM(base_url={_safe_url(self.base_url)!r}, model={self.model!r}, "
            f"benchmark={self.benchmark!r}, cassette={self.cassette!r})"
        )

    def sibling(self, *, model: str | None = None, base_url: str | None = None,
                api_key: str | None = None, **kw: Any) -> PromptedLLM:
        """A client like this one (key, timeout, retries, cassette) for another model or
        server: what a run's vision or speech model is asked through."""
        return PromptedLLM(
            base_url or self.base_url, model or self.model, api_key or self.__api_key,
            benchmark=self.benchmark, timeout=self.timeout, max_retries=self.max_retries,
            cassette=self.cassette, retry_base_delay=self.retry_base_delay,
            retry_max_delay=self.retry_max_delay, structured=kw.pop("structured", "off"),
            **kw)

    def adopt_structured(self, other: PromptedLLM) -> bool:
        """Take `other`'s structured-output answer when both clients ask the same server
        and model (the GT judge on the agent's model): one probe serves both, live and in
        replay alike. True when it was taken."""
        same = self.base_url == other.base_url and self.model == other.model
        if (same and self.structured == "auto" and self.structured_mode is None
                and other.structured_mode is not None):
            self.structured_mode = other.structured_mode
            self.structured_probe = list(other.structured_probe)
            return True
        return False

    @property
    def has_key(self) -> bool:
        """True when an API key was given or found in ``OPENAI_API_KEY`` (the key itself
        is never exposed)."""
        return bool(self.__api_key)

    @property
    def client(self) -> Any:
        """The openai client, built on first use (never in replay)."""
        if self._client is None:
            import openai

            if not self.__api_key and not self.base_url:
                raise LLMRequestError(
                    "config",
                    f"no API key: set {ENV_API_KEY}, or pass base_url=... for a local server",
                )
            try:
                self._client = openai.OpenAI(
                    base_url=self.base_url,
                    api_key=self.__api_key or "EMPTY",
                    timeout=self.timeout,
                    max_retries=0,
                    http_client=openai.DefaultHttpxClient(verify=_ssl_context()),
                )
            except Exception as e:  # httpx's InvalidURL and kin: a configuration error
                raise LLMRequestError(
                    "config",
                    self._redact(
                        f"cannot use the base URL {_safe_url(self.base_url)!r}: "
                        f"{type(e).__name__}: {e}"
                    ),
                ) from None
        return self._client

    def _redact(self, text: str) -> str:
        for s in {self.__api_key, *env_secrets()} - {None, ""}:
            text = text.replace(s, "***")
        return text

    # -- raw chat --------------------------------------------------------------
    def chat(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] | None = None,
        *,
        op: str = "chat",
        **params: Any,
    ) -> ChatReply:
        """One chat completion (with retries, usage counting and the cassette).

        `params` (e.g. ``tool_choice``, ``max_tokens``, ``temperature``) are sent as is.

        Raises
        ------
        LLMConnectionError, LLMRequestError
            After retries, or when the server refuses the request.
        CassetteMiss
            In replay, for a request the cassette never recorded.
        """
        params = {"temperature": self.temperature, **params}
        if self.top_p is not None:
            params.setdefault("top_p", self.top_p)
        if self.max_tokens is not None:
            params.setdefault("max_tokens", self.max_tokens)
        if self.extra_body:
            params.setdefault("extra_body", self.extra_body)
        # lone surrogates (a "\\ud800" escape in an earlier reply) cannot be sent as UTF-8
        messages = [scrub_surrogates(dict(m)) for m in messages]
        tools = list(tools) if tools else None
        request = {"model": self.model, "messages": messages, "tools": tools, "params": params}
        t0 = time.perf_counter()
        if self.cassette is not None and self.cassette.replaying:
            data = self.cassette.lookup("chat", request, op=op)
        else:
            data = self._call_with_retries(op, messages, tools, params)
            if self.cassette is not None:
                self.cassette.record("chat", request, data, op=op)
        ms = 1000.0 * (time.perf_counter() - t0)
        retries = max(0, int(data.get("attempts", 1)) - 1)
        self.usage.retries += retries
        if "error" in data:
            err = data["error"]
            status = err.get("status")
            log.warning("call op=%s model=%s status=%s latency_ms=%.0f retries=%d error=%s",
                        op, self.model, status if status is not None else "-", ms, retries,
                        err["detail"])
            if err.get("type") == "request":
                raise LLMRequestError(op, err["detail"], status)
            raise LLMConnectionError(op, err["detail"])
        reply = ChatReply.from_dict(data["reply"])
        prompt_tokens = int(reply.usage.get("prompt_tokens", 0))
        completion_tokens = int(reply.usage.get("completion_tokens", 0))
        self.usage.add(op, prompt_tokens, completion_tokens)
        log.info("call op=%s model=%s status=200 latency_ms=%.0f prompt_tokens=%d "
                 "completion_tokens=%d retries=%d%s", op, self.model, ms, prompt_tokens,
                 completion_tokens, retries, " replay=1" if self.cassette is not None
                 and self.cassette.replaying else "")
        return reply

    def _call_with_retries(
        self,
        op: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        params: dict[str, Any],
    ) -> dict[str, Any]:
        import openai

        client = self.client
        last, delay_floor = "", 0.0
        attempts = self.max_retries + 1
        for attempt in range(attempts):
            if attempt:
                delay = self._backoff.delay(attempt - 1, floor=delay_floor)
                log.info("retry op=%s attempt=%d/%d wait_s=%.2f after=%s", op, attempt + 1,
                         attempts, delay, last)
                time.sleep(delay)
            delay_floor = 0.0
            kwargs = dict(params)
            if tools:
                kwargs["tools"] = tools
            try:
                resp = _create(client, self.model, messages, kwargs)
            except openai.APIStatusError as e:
                status, msg = e.status_code, self._redact(_status_message(e))
                # a server that answers a malformed request with a 5xx validation error
                # (llama-cpp-python's server does) will answer the same every time
                invalid = status >= 500 and "validation error" in msg.lower()
                if (status in (408, 409, 429) or status >= 500) and not invalid:
                    last = f"HTTP {status}: {msg}"
                    delay_floor = retry_after_seconds(getattr(e.response, "headers", None))
                    continue
                return {
                    "attempts": attempt + 1,
                    "error": {
                        "type": "request",
                        "status": status,
                        "detail": f"the model server refused the request (HTTP {status}): {msg}",
                    },
                }
            except openai.APITimeoutError:
                last = f"no reply within {self.timeout:g} s (timeout)"
                continue
            except openai.APIConnectionError as e:
                cause = e.__cause__ or e
                last = f"connection failed ({self._redact(type(cause).__name__ + ': ' + str(cause))[:200]})"
                continue
            except (
                json.JSONDecodeError,
                UnicodeDecodeError,
                openai.APIResponseValidationError,
            ) as e:
                last = f"the reply is not an OpenAI chat completion ({self._redact(str(e))[:200]})"
                continue
            try:
                return {"attempts": attempt + 1, "reply": reply_dict(resp, messages)}
            except (AttributeError, IndexError, KeyError, TypeError, ValueError) as e:
                body = self._redact(str(resp))[:120]
                last = f"the reply is not an OpenAI chat completion ({type(e).__name__}; body {body!r})"
        return {
            "attempts": attempts,
            "error": {
                "type": "connection",
                "detail": self._redact(
                    f"gave up after {attempts} attempt(s) to get a reply from the model server at "
                    f"{_safe_url(self.base_url)} (model {self.model!r}); last error: {last}"
                ),
            },
        }

    # -- JSON operations ---------------------------------------------------------
    def resolve_structured(self) -> str:
        """The structured-output mode to use, probing the server once when "auto": the
        first of json_schema and json_object whose probe the server answers with the JSON
        the schema asks for; "off" if neither. A server that cannot be reached raises
        `LLMConnectionError` (the run cannot go on anyway). In replay the probe's replies
        come from the cassette, so a replayed run resolves the same mode."""
        if self.structured_mode is not None:
            return self.structured_mode
        mode = "off"
        for candidate in ("json_schema", "json_object"):
            fmt = structured_format(candidate, "probe", PROBE_SCHEMA)
            try:
                reply = self.chat(PROBE_MESSAGES, op="structured:probe", response_format=fmt,
                                  temperature=0.0, max_tokens=64)
            except LLMRequestError as e:
                self.structured_probe.append({"mode": candidate,
                                              "result": f"refused (HTTP {e.status})"})
                continue
            ok = probe_reply_ok(strip_thinking(reply.content))
            self.structured_probe.append({"mode": candidate,
                                          "result": "honoured" if ok else "ignored"})
            if ok:
                mode = candidate
                break
        self.structured_mode = mode
        return mode

    def chat_json(
        self,
        op: str,
        prompt: str | Sequence[dict[str, Any]],
        validate: Callable[[Any], Any] | None = None,
        schema: dict[str, Any] | None = None,
        **params: Any,
    ) -> Any:
        """Send `prompt`, extract the JSON of the reply and pass it through `validate`.

        `validate` may repair and return a value, or raise ValueError. On a failure the
        model is re-asked once with the error (``max_reasks``); then `LLMResponseError`
        names `op` and the last problem. `schema`, when given, is sent as structured
        output in the mode `resolve_structured` chose; a 400 to it makes `op` fall back
        to text parsing for good (with a warning). The outcome is counted in
        ``usage.outcomes[op]``.
        """
        messages = (
            [{"role": "user", "content": prompt}] if isinstance(prompt, str) else list(prompt)
        )
        if schema is not None and op not in self.structured_refused:
            fmt = structured_format(self.resolve_structured(), op, schema)
            if fmt is not None:
                params = {**params, "response_format": fmt}
        problem = ""
        for attempt in range(self.max_reasks + 1):
            sub = op if attempt == 0 else f"{op}:reask"
            try:
                reply = self.chat(messages, op=sub, **params)
            except LLMRequestError as e:
                if not ("response_format" in params and (e.status or 0) >= 400
                        and blames_structured(e.detail)):
                    raise
                self.structured_refused[op] = e.detail
                log.warning("%s: the server refused structured output (%s); this operation "
                            "falls back to text parsing", op, e.detail)
                params = {k: v for k, v in params.items() if k != "response_format"}
                reply = self.chat(messages, op=sub, **params)
            try:
                obj = extract_json(reply.content)
                value = validate(obj) if validate is not None else obj
            except ValueError as e:
                problem = str(e)
            else:
                self.usage.outcome(op, "first_try" if attempt == 0 else "after_reask")
                return value
            if attempt < self.max_reasks:
                self.usage.reasks += 1
                messages = [
                    *messages,
                    {"role": "assistant", "content": reply.content},
                    {"role": "user", "content": fill(REASK, error=problem)},
                ]
        self.usage.outcome(op, "failed")
        raise LLMResponseError(
            op,
            self._redact(
                f"the model's reply was not usable after {self.max_reasks} re-ask(s): {problem}"
            ),
        )

    def models(self) -> list[str]:
        """Model ids the server lists at ``/models`` (live only)."""
        return [m.id for m in self.client.models.list()]
