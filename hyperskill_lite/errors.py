"""The model error family: what a model call raises when it fails, importable by the
runner, the sweep, the methods and the server without importing the model client
(no third-party imports here).

- `LLMError` (`op` names the operation: "decompose", "extract", "agent", ...), with
  `LLMConnectionError` (unreachable or failing after retries), `LLMRequestError` (the
  server refused the request; `status`) and `LLMResponseError` (an unusable answer, even
  after the re-ask);
- `CassetteMiss`: a replayed run asked for something its cassette never recorded.

Not here: the client that raises them (llm/client.py), the cassette (llm/cassette.py).
"""

from __future__ import annotations

__all__ = ["LLMError", "LLMConnectionError", "LLMRequestError", "LLMResponseError",
           "CassetteMiss"]


class LLMError(RuntimeError):
    """A model operation failed; `op` names it ("decompose", "extract", "agent", ...)."""

    def __init__(self, op: str, detail: str) -> None:
        self.op, self.detail = op, detail
        super().__init__(f"{op}: {detail}")


class LLMConnectionError(LLMError):
    """The server could not be reached or kept failing (429, 5xx, timeouts) after retries."""


class LLMRequestError(LLMError):
    """The server refused the request (a 4xx other than 429: bad model name, bad key, ...)."""

    def __init__(self, op: str, detail: str, status: int | None = None) -> None:
        super().__init__(op, detail)
        self.status = status


class LLMResponseError(LLMError):
    """The model answered, but not usably, even after the re-ask."""



class CassetteMiss(LookupError):
    """A replayed run asked for something the cassette never recorded."""

    def __str__(self) -> str:  # LookupError would quote the message
        return str(self.args[0]) if self.args else "cassette miss"
