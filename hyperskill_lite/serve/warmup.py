"""Ready means ready: what a server loads before it answers its first client, so that the
first call costs what the hundredth does.

Loaded lazily, three things made the first call of a fresh server slow: the encoder
(MiniLM loads torch and its weights on the first text it has not embedded before, 5-13 s
on 2 cores; the first ``learn`` took 11.6 s and failed a client's 5 s timeout), the
memory's code paths (the first retrieval and the first update build their caches), and
the configured model's probe (``--structured auto`` asks the model server which
structured-output mode it answers on the first model call, one or two calls more). Before
a server reports ready (over stdio: before it reads the client's ``initialize``; over
HTTP: before it listens) `warm_up` does all three: it runs the encoder's model on a probe
text, retrieves from and updates a scratch copy of the memory's structures (the served
memory is not touched), and checks the configured model server (``GET /models``, the
structured-output probe). A model server that does not answer is one warning line: the
server still starts (the memory's reads need no model), and the first call that needs
the model says what failed.

The readiness costs the handshake what it saves the first call: the client's timeout
for the connection must cover it (docs/guide/mcp.md gives each client's setting).

Not here: the server (app.py), the command (cli/serve.py).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.records import Skill
from hyperskill_lite.core.retrieval import retrieve
from hyperskill_lite.errors import LLMError
from hyperskill_lite.llm.preflight import PreflightError, preflight

__all__ = ["warm_up"]

log = logging.getLogger(__name__)

_PROBE = "hyperskill warm-up: find the 2020 population of a city in the census table"


def _encoder(encoder: Any) -> None:
    model = getattr(encoder, "model", None)  # MiniLMEncoder: loads torch and the weights
    if model is not None and hasattr(model, "encode"):
        model.encode([_PROBE, _PROBE], show_progress_bar=False)
    encoder.encode([_PROBE])


def _memory(memory: HypergraphMemory) -> None:
    """Retrieve and update a scratch memory with the served one's encoder and config."""
    scratch = HypergraphMemory(memory.encoder, memory.config)
    scratch.add_trajectory(_PROBE, ["look up the table", "compute"],
                           [Skill("Read The Table", "Read the census table first.")],
                           "read the table", True, 3)
    r = retrieve(scratch, _PROBE, ["look up the table"])
    scratch.add_trajectory(_PROBE, [], [], "again", False, 2, retrieval=r)
    with_memory = retrieve(memory, _PROBE, [])
    del with_memory


def _model(llm: Any) -> str | None:
    """Probe the configured model server; None when fine, else the problem."""
    try:
        preflight(llm, tools=False, structured=True)
    except (PreflightError, LLMError) as exc:
        return " ".join(str(exc).split())[:300]
    return None


def warm_up(service: Any) -> dict[str, float]:
    """Load everything the first call would (module docstring); seconds per part."""
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    with service.shared.read() as memory:
        encoder = memory.encoder
        _encoder(encoder)
        seconds["encoder"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        _memory(memory)
    seconds["memory"] = time.perf_counter() - t1
    llm = service.models.llm
    if llm is not None:
        t2 = time.perf_counter()
        problem = _model(llm)
        seconds["model"] = time.perf_counter() - t2
        if problem:
            log.warning("the memory's model did not answer its probe (%s); serving anyway: "
                        "calls that need the model will say what failed", problem)
    return seconds
