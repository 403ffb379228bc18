"""Structured outputs: JSON schemas for model operations, and how a server is asked for them.

Every serving stack this toolkit meets can constrain a reply to a JSON schema: vLLM
(guided decoding), hosted OpenAI-compatible APIs and llama.cpp's server. A `PromptedLLM`
sends each operation's schema (the `SCHEMAS` next to its prompt: methods/hyperskill/prompts.py
for the paper's operations, baselines/prompts.py for the baselines', bench/judges.py for
the judges) in the request's ``response_format``, in one of the shapes servers accept:

=============  ============================================================================
mode           ``response_format``
=============  ============================================================================
json_schema    ``{"type": "json_schema", "json_schema": {"name", "schema", "strict": false}}``
               (OpenAI, vLLM, recent llama.cpp)
json_object    ``{"type": "json_object", "schema": schema}`` (llama.cpp's form; servers
               that do not read ``schema`` still return a JSON object)
off            none: the prompt alone asks for JSON (text parsing, repair and one re-ask)
auto           `probe` finds the first of json_schema / json_object the server honours
=============  ============================================================================

The prompt texts stay the paper's; the schema only constrains decoding. A reply that is
valid for the schema but empty or otherwise unusable still fails its operation's
contract (its check beside the prompt), exactly as without a schema.

Helpers `obj`, `arr` and `string` keep the schemas short:

>>> obj(name=string(), content=string())["required"]
['name', 'content']
>>> response_format("json_object", "merge", obj(name=string()))["type"]
'json_object'
>>> response_format("off", "merge", obj(name=string())) is None
True

Not here: sending requests (client.py), the checks a reply must pass (beside each
operation's prompt; JSON extraction in replies.py).
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from typing import Any

__all__ = [
    "MODES",
    "blames_structured",
    "obj",
    "arr",
    "string",
    "integer",
    "boolean",
    "response_format",
    "PROBE_SCHEMA",
    "PROBE_MESSAGES",
    "probe_reply_ok",
    "TOOL_PROBE",
    "TOOL_PROBE_MESSAGES",
    "VISION_PROBE_MESSAGES",
    "probe_png",
]

MODES = ("auto", "json_schema", "json_object", "off")


def string(**kw: Any) -> dict[str, Any]:
    return {"type": "string", **kw}


def integer(**kw: Any) -> dict[str, Any]:
    return {"type": "integer", **kw}


def boolean() -> dict[str, Any]:
    return {"type": "boolean"}


def obj(optional: tuple[str, ...] = (), **props: dict[str, Any]) -> dict[str, Any]:
    """An object schema whose properties are all required except `optional`."""
    return {
        "type": "object",
        "properties": props,
        "required": [k for k in props if k not in optional],
    }


def arr(items: dict[str, Any], min_items: int = 0, max_items: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "array", "items": items}
    if min_items:
        out["minItems"] = min_items
    if max_items is not None:
        out["maxItems"] = max_items
    return out


def response_format(mode: str, name: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The ``response_format`` request field for `mode` ("json_schema", "json_object",
    "off"), or None for "off"."""
    if mode == "json_schema":
        safe = "".join(c if c.isalnum() or c in "_-" else "_" for c in name)[:64] or "reply"
        return {"type": "json_schema",
                "json_schema": {"name": safe, "schema": schema, "strict": False}}
    if mode == "json_object":
        return {"type": "json_object", "schema": schema}
    if mode == "off":
        return None
    raise ValueError(f"structured mode must be one of {MODES[1:]}, got {mode!r}")


PROBE_SCHEMA = obj(ok=boolean(), word=string())
"""What `PromptedLLM.resolve_structured` asks for when it probes a server."""
PROBE_MESSAGES = [{
    "role": "user",
    "content": 'Reply with the JSON object {"ok": true, "word": "ready"} and nothing else.',
}]


def probe_reply_ok(text: str) -> bool:
    """True when a probe reply is the JSON object the schema asked for."""
    try:
        data = json.loads(text.strip())
    except (json.JSONDecodeError, AttributeError):
        return False
    return isinstance(data, dict) and isinstance(data.get("ok"), bool) and isinstance(
        data.get("word"), str)


TOOL_PROBE: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "ping",
        "description": "Check that tools work.",
        "parameters": {"type": "object", "properties": {"x": {"type": "integer"}},
                       "required": ["x"]},
    },
}
"""The trivial tool `AgentExecutor.resolve_protocol` asks a server to call: native
tool calls are structured output too."""
TOOL_PROBE_MESSAGES = [{"role": "user", "content": "Call the ping tool with x = 1."}]


def probe_png(rgb: tuple[int, int, int] = (255, 0, 0), size: int = 8) -> bytes:
    """A tiny single-colour PNG (`size` x `size`), made with zlib, no imaging library.

    >>> probe_png()[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    """

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    row = b"\x00" + bytes(rgb) * size
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(row * size)) + chunk(b"IEND", b""))


VISION_PROBE_MESSAGES = [{
    "role": "user",
    "content": [
        {"type": "text", "text": "What colour is this image? Answer with one word."},
        {"type": "image_url", "image_url": {
            "url": "data:image/png;base64," + base64.b64encode(probe_png()).decode("ascii")}},
    ],
}]
"""The request `llm.preflight` sends to learn whether a model accepts images (an
OpenAI ``image_url`` content part holding a red PNG as a data URL)."""


_STRUCTURED_WORDS = ("response_format", "json_schema", "json_object", "schema", "grammar",
                     "guided", "structured")


def blames_structured(detail: str) -> bool:
    """Does a 400 message blame the structured-output request (not the key, the model, ...)?"""
    low = detail.lower()
    return any(w in low for w in _STRUCTURED_WORDS)
