"""Preflight: check a model server before a live run starts (and the ``check`` command).

A live run that starts against a server it cannot use records a failure for every
episode; `preflight` finds out first, in this order, and stops at the first problem
with a `PreflightError` whose message is one line naming the problem and what to do:

1. a key where the server wants one (the default OpenAI endpoint always does; any
   server that answers 401/403 does);
2. the server is reachable (``GET /models``);
3. the model is listed by ``/models`` (a server that does not list models is noted,
   not refused);
4. structured outputs and native tool calls are probed (`PromptedLLM.resolve_structured`,
   `AgentExecutor.resolve_protocol` or the same probe here), so the run reuses the answers
   instead of probing again;
5. vision (an image in a chat message) and transcription (``POST /audio/transcriptions``)
   when the run needs them (`CAPABILITIES`; `needs_for`, in agent/tools/preflight.py,
   derives them from the tasks' attached files when the media tools are on), asked of
   the model and server the image and audio tools will use.

Before any of these, `check_sandbox` (agent/tools/preflight.py, the tools' share of the
preflight) makes sure the python tool's sandbox can run here:
the default (bubblewrap) refuses to start without ``bwrap`` (check "sandbox": one line
naming bubblewrap, how to install it, and ``--sandbox process``, the option that accepts
weaker isolation); nothing falls back silently.

What it finds is a `Preflight` report. Its `Preflight.to_dict` is recorded in
``run.json`` under ``observed``: facts about the server at the time of this invocation,
not settings of the run, so a resume after a key was fixed or a server restarted is not
refused for them. A replayed run (cassette) checks nothing.

>>> needs_from(["vision"])
('vision',)
>>> needs_from(["smell"])
Traceback (most recent call last):
...
ValueError: unknown capability 'smell'; choose from vision, transcription

Not here: building the clients (settings.py), the tools' checks (agent/tools/preflight.py),
the command (cli/check.py), writing run.json (runner/files.py).
"""

from __future__ import annotations

import datetime as _dt
import io
import time
import wave
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from hyperskill_lite.errors import LLMConnectionError, LLMError, LLMRequestError
from hyperskill_lite.llm.client import ENV_API_KEY, PromptedLLM
from hyperskill_lite.llm.structured import TOOL_PROBE, TOOL_PROBE_MESSAGES, VISION_PROBE_MESSAGES
from hyperskill_lite.llm.wire import safe_url as _safe_url

__all__ = ["CAPABILITIES", "Preflight", "PreflightError", "RunPreflight", "preflight",
           "preflight_run", "needs_from", "probe_wav"]

CAPABILITIES = ("vision", "transcription")
"""What a run may need beyond chat: images in messages, and speech to text."""

MODELS_SHOWN = 8


class PreflightError(ValueError):
    """The server cannot serve the run; the message is one line: problem and remedy.
    `check` names the failed check ("sandbox", "key", "reachable", "model", "probe",
    "vision", "transcription")."""

    def __init__(self, check: str, message: str) -> None:
        self.check = check
        super().__init__(" ".join(message.split()))


def needs_from(names: Iterable[str]) -> tuple[str, ...]:
    """Check capability names; the known ones, in `CAPABILITIES` order."""
    names = list(names)
    for n in names:
        if n not in CAPABILITIES:
            raise ValueError(f"unknown capability {n!r}; choose from {', '.join(CAPABILITIES)}")
    return tuple(c for c in CAPABILITIES if c in names)


def probe_wav(seconds: float = 0.25, rate: int = 16000) -> bytes:
    """A short silent mono 16-bit WAV, made with the standard library.

    >>> probe_wav()[:4], len(probe_wav(0.1, 8000))
    (b'RIFF', 1644)
    """
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"\0\0" * int(seconds * rate))
    return buf.getvalue()


@dataclass
class Preflight:
    """What `preflight` found about one server and model."""

    server: str
    model: str
    key: str
    """"sent" (a key was given), "none" (the server wanted none), "replay"."""
    models: list[str] = field(default_factory=list)
    listed: bool | None = None
    """The model is in ``/models`` (None: the server does not list models)."""
    structured_mode: str | None = None
    structured_probe: list[dict[str, Any]] = field(default_factory=list)
    protocol: str | None = None
    protocol_probe: str | None = None
    capabilities: dict[str, str] = field(default_factory=dict)
    """Capability -> "accepted" / "not checked" / what the server said."""
    seconds: float = 0.0
    checked_at: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The report as run.json's ``observed`` entry (JSON values only)."""
        return {
            "server": self.server, "model": self.model, "key": self.key,
            "model_listed": self.listed, "models_listed": len(self.models),
            "structured_mode": self.structured_mode, "structured_probe": self.structured_probe,
            "protocol_used": self.protocol, "protocol_probe": self.protocol_probe,
            "capabilities": dict(self.capabilities),
            "seconds": round(self.seconds, 3), "checked_at": self.checked_at,
        }

    def lines(self) -> list[str]:
        """What was found, one check a line (the ``check`` command prints these)."""
        if self.key == "replay":
            return [f"replay: {self.model} from a cassette; nothing checked"]
        key = {"sent": f"sent (from ${ENV_API_KEY} or the settings), accepted",
               "none": "none sent; the server asked for none"}[self.key]
        if self.listed is None:
            model = f"{self.model} (the server does not list models)"
        else:
            shown = ", ".join(self.models[:MODELS_SHOWN])
            more = f", ... ({len(self.models)} in all)" if len(self.models) > MODELS_SHOWN else ""
            model = f"{self.model} listed (the server lists {shown}{more})"
        probe = "; ".join(f"{p['mode']} {p['result']}" for p in self.structured_probe)
        out = [f"server      {self.server} reachable",
               f"key         {key}",
               f"model       {model}"]
        if self.protocol is not None:
            out.append(f"tool calls  {self.protocol} ({self.protocol_probe})")
        if self.structured_mode is not None:
            out.append(f"structured  {self.structured_mode}" + (f" ({probe})" if probe else ""))
        for cap in CAPABILITIES:
            out.append(f"{cap:<11} {self.capabilities.get(cap, 'not checked')}")
        out.append(f"checked in {self.seconds:.2f} s")
        return out


def _status_error(e: Any, llm: PromptedLLM, what: str) -> PreflightError:
    """A PreflightError for an HTTP error status from the server."""
    import openai

    status = getattr(e, "status_code", None)
    body = getattr(e, "body", None)
    msg = ""
    if isinstance(body, dict):
        inner = body.get("error", body)
        msg = str(inner.get("message", "")) if isinstance(inner, dict) else ""
    msg = llm._redact(msg or str(getattr(e, "message", "") or e))[:200]
    url = _safe_url(llm.base_url)
    if status in (401, 403) or isinstance(e, openai.AuthenticationError | openai.PermissionDeniedError):
        if llm.has_key:
            return PreflightError("key", f"the model server at {url} refused the API key "
                                  f"(HTTP {status}: {msg}); check ${ENV_API_KEY} (or the "
                                  "key_env of a sweep backbone)")
        return PreflightError("key", f"the model server at {url} wants an API key (HTTP "
                              f"{status}: {msg}); set ${ENV_API_KEY}")
    if status == 404 and what == "chat":
        return PreflightError("model", f"model {llm.model!r} not found at {url} (HTTP 404: "
                              f"{msg}); pass a model the server serves to --model")
    return PreflightError("reachable", f"the model server at {url} answered HTTP {status} to "
                          f"{what} ({msg}); check the server's log and --base-url")


def _list_models(llm: PromptedLLM) -> list[str] | None:
    """The ids of ``GET /models``; None when the server has no such route (404)."""
    import openai

    url = _safe_url(llm.base_url)
    try:
        client = llm.client
    except LLMRequestError as e:  # no key for the default endpoint, or a bad URL
        if "API key" in e.detail:
            raise PreflightError("key", f"no API key for {url}: set ${ENV_API_KEY}, or pass "
                                 "--base-url URL for a local server that needs none") from None
        raise PreflightError("reachable", f"{e.detail}") from None
    try:
        page = client.with_options(max_retries=0).models.list()
        return [str(m.id) for m in page]
    except openai.NotFoundError:
        return None
    except openai.APIStatusError as e:
        raise _status_error(e, llm, "GET /models") from None
    except openai.APITimeoutError:
        raise PreflightError("reachable", f"the model server at {url} did not answer GET "
                             f"/models within {llm.timeout:g} s; check that it is up "
                             "(and --timeout)") from None
    except openai.APIConnectionError as e:
        cause = e.__cause__ or e
        why = llm._redact(f"{type(cause).__name__}: {cause}")[:160]
        raise PreflightError("reachable", f"cannot reach the model server at {url} ({why}); "
                             "start it or fix --base-url / $OPENAI_BASE_URL") from None


def _as_preflight_error(e: LLMError, llm: PromptedLLM, what: str) -> PreflightError:
    url = _safe_url(llm.base_url)
    if isinstance(e, LLMRequestError) and e.status in (401, 403, 404):
        class _E:  # the fields _status_error reads
            status_code, body, message = e.status, None, e.detail
        return _status_error(_E(), llm, "chat")
    if isinstance(e, LLMConnectionError):
        return PreflightError("probe", f"the model server at {url} failed the {what} probe "
                              f"({e.detail}); check the server's log")
    return PreflightError("probe", f"the {what} probe failed at {url} ({e.detail})")


def _probe_tools(llm: PromptedLLM) -> tuple[str, str]:
    """The tool-call probe `AgentExecutor.resolve_protocol` makes, for a bare client."""
    try:
        reply = llm.chat(TOOL_PROBE_MESSAGES, [TOOL_PROBE], op="tools:probe",
                         tool_choice={"type": "function", "function": {"name": "ping"}},
                         temperature=0.0, max_tokens=64)
    except LLMRequestError as e:
        if e.status in (401, 403, 404):
            raise
        return "json", f"refused (HTTP {e.status})"
    called = any(c.get("function", {}).get("name") == "ping" for c in reply.tool_calls)
    return ("tools", "tool call returned") if called else ("json", "answered in text")


def _probe_vision(llm: PromptedLLM) -> str:
    try:
        reply = llm.chat(VISION_PROBE_MESSAGES, op="vision:probe", temperature=0.0,
                         max_tokens=16)
    except LLMRequestError as e:
        if e.status in (401, 403):
            raise
        raise PreflightError("vision", f"model {llm.model!r} at {_safe_url(llm.base_url)} "
                             f"does not accept images (HTTP {e.status}: {e.detail[-160:]}); "
                             "serve a vision model or leave out the tasks with images") from None
    return f"accepted (answered {reply.content.strip()[:30]!r})"


def _probe_transcription(llm: PromptedLLM, model: str | None) -> str:
    import openai

    url = _safe_url(llm.base_url)
    try:
        out = llm.client.with_options(max_retries=0).audio.transcriptions.create(
            model=model or llm.model, file=("probe.wav", probe_wav(), "audio/wav"))
    except openai.APIStatusError as e:
        if e.status_code in (401, 403):
            raise _status_error(e, llm, "POST /audio/transcriptions") from None
        raise PreflightError("transcription", f"the server at {url} does not transcribe "
                             f"audio with {model or llm.model!r} (HTTP {e.status_code} to POST "
                             "/audio/transcriptions); serve a speech model (e.g. Whisper) "
                             "or leave out the tasks with audio") from None
    except openai.APIConnectionError as e:
        raise PreflightError("transcription", f"the transcription probe could not reach "
                             f"{url} ({type(e).__name__})") from None
    return f"accepted (POST /audio/transcriptions answered {len(getattr(out, 'text', ''))} characters)"


def preflight(
    llm: PromptedLLM,
    *,
    executor: Any = None,
    needs: Iterable[str] = (),
    tools: bool = True,
    structured: bool = True,
    transcription_model: str | None = None,
    vision_llm: PromptedLLM | None = None,
    audio_llm: PromptedLLM | None = None,
) -> Preflight:
    """Check `llm`'s server and model (module docstring); raise `PreflightError` on the
    first problem, else return what was found.

    Parameters
    ----------
    llm
        The run's client: its structured-output probe result stays on it
        (``llm.structured_mode``), so the run does not probe again.
    executor
        The run's `AgentExecutor`, whose `resolve_protocol` is called (and remembered);
        None probes tool calls here (``tools=False`` skips them, e.g. for a judge).
    needs
        Capabilities the run needs (`CAPABILITIES`).
    transcription_model
        The model to ask ``/audio/transcriptions`` for (default the chat model).
    vision_llm, audio_llm
        The clients the image and audio tools use when not `llm` (another model or
        server, `PromptedLLM.sibling`).
    """
    wanted = needs_from(needs)
    report = Preflight(_safe_url(llm.base_url), llm.model, "sent" if llm.has_key else "none",
                       checked_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
    if llm.cassette is not None and llm.cassette.replaying:
        report.key = "replay"
        return report
    t0 = time.perf_counter()
    ids = _list_models(llm)
    if ids is not None:
        report.models, report.listed = ids, llm.model in ids
        if not report.listed:
            shown = ", ".join(ids[:MODELS_SHOWN]) or "no models"
            more = f" and {len(ids) - MODELS_SHOWN} more" if len(ids) > MODELS_SHOWN else ""
            raise PreflightError("model", f"model {llm.model!r} is not served at "
                                 f"{report.server}; it serves {shown}{more}: pass one of "
                                 "these to --model")
    try:
        if structured:
            report.structured_mode = llm.resolve_structured()
            report.structured_probe = list(llm.structured_probe)
        if tools:
            if executor is not None:
                report.protocol = executor.resolve_protocol()
                report.protocol_probe = executor.protocol_probe or "fixed by --protocol"
            else:
                report.protocol, report.protocol_probe = _probe_tools(llm)
        for cap in CAPABILITIES:
            if cap not in wanted:
                report.capabilities[cap] = "not checked (not needed)"
            elif cap == "vision":
                report.capabilities[cap] = _probe_vision(vision_llm or llm)
            else:
                report.capabilities[cap] = _probe_transcription(audio_llm or llm,
                                                                transcription_model)
    except LLMError as e:
        raise _as_preflight_error(e, llm, "capability") from None
    report.seconds = time.perf_counter() - t0
    return report


@dataclass
class RunPreflight:
    """The preflight of a run's clients: the agent's and, when it has a model or server
    of its own, the GT judge's."""

    agent: Preflight
    judge: Preflight | None = None

    def to_dict(self) -> dict[str, Any]:
        """run.json's ``observed`` entries: ``{"preflight": {...}}`` and, when the judge
        was checked, ``"judge_preflight": {...}``."""
        out = {"preflight": self.agent.to_dict()}
        if self.judge is not None:
            out["judge_preflight"] = self.judge.to_dict()
        return out


def preflight_run(
    agent: PromptedLLM,
    judge: PromptedLLM | None = None,
    *,
    executor: Any = None,
    needs: Iterable[str] = (),
    transcription_model: str | None = None,
    vision_model: str | None = None,
    vision_base_url: str | None = None,
    audio_base_url: str | None = None,
) -> RunPreflight:
    """Preflight a live run's clients: the agent's server and model (with the run's
    executor; vision on `vision_model` at `vision_base_url` and transcription with
    `transcription_model` at `audio_base_url` when those are set, as the run's media
    tools have them), then the GT judge's when it has a model or server of its own; a
    judge on the agent's model and server takes the agent's structured-output answer
    instead of probing again."""
    vision = (agent.sibling(model=vision_model, base_url=vision_base_url)
              if vision_model or vision_base_url else None)
    audio = agent.sibling(base_url=audio_base_url) if audio_base_url else None
    found = RunPreflight(preflight(agent, executor=executor, needs=needs,
                                   transcription_model=transcription_model,
                                   vision_llm=vision, audio_llm=audio))
    if judge is None or judge is agent:
        return found
    if judge.base_url == agent.base_url and judge.model == agent.model:
        judge.adopt_structured(agent)
        return found
    found.judge = preflight(judge, tools=False)
    return found
