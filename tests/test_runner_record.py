"""The episode record as a typed dataclass (runner/record.py) and the runner's optional
capabilities as protocols (types.py): the JSON written keeps today's keys byte for byte,
and the runner finds the capabilities by isinstance, not by probing attributes."""

from __future__ import annotations

import json

import pytest

from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.methods import make_method
from hyperskill_lite.runner.episode import crashed_record
from hyperskill_lite.runner.record import EpisodeRecord
from hyperskill_lite.types import (
    CountsModelCalls,
    ExcludesOwnTask,
    ReportsUsage,
    Task,
    UsesModel,
    usage_totals_of,
)
from hyperskill_lite.world import SimLLM

V1_CRASH_LINE = (
    '{"answer": null, "calls": 0, "context_tokens": 0, "error": "crash: the process died 2 '
    'times during this episode (killed, out of memory or a crash in native code); recorded '
    'as failed so the run goes on, with the memory as it was before the episode", '
    '"errored": "crash", "index": 3, "injected": 0, "learned_success": null, '
    '"memory_llm_calls": 0, "memory_seconds": 0.0, "retrieved": [], "seconds": 0.0, '
    '"steps": 0, "success": false, "task_id": "t3", "tokens": 0}')
"""The line an earlier version wrote for a crashed episode (its dict literal, sorted)."""


def test_a_record_writes_the_same_bytes_as_before():
    record = crashed_record(3, Task(id="t3", question="q"), 2)
    assert json.dumps(record, sort_keys=True) == V1_CRASH_LINE
    again = EpisodeRecord(**{k: v for k, v in json.loads(V1_CRASH_LINE).items()
                             if k != "errored"}, optional={"errored": "crash"})
    assert json.dumps(again.to_dict(1), sort_keys=True) == V1_CRASH_LINE
    with pytest.raises(ValueError, match="format 2 is unknown"):
        again.to_dict(2)


def test_the_runner_capabilities_are_protocols():
    enc = HashingEncoder(dim=16, seed=0)
    hs = make_method("hyperskill", SimLLM(seed=0), enc)
    nm = make_method("no-memory", SimLLM(seed=0), enc)
    awm = make_method("awm", SimLLM(seed=0), enc)
    assert isinstance(hs, ExcludesOwnTask) and not isinstance(awm, ExcludesOwnTask)
    assert isinstance(awm, CountsModelCalls) and not isinstance(nm, CountsModelCalls)
    assert isinstance(hs, UsesModel) and isinstance(hs.llm, ReportsUsage)
    assert usage_totals_of(hs) == hs.llm.usage.totals
    assert usage_totals_of(object()) is None


def test_identity_reads_capabilities_by_protocol():
    from hyperskill_lite.runner.identity import system_identity
    from hyperskill_lite.types import HasEncoder, KeepsHypergraph, Named

    enc = HashingEncoder(dim=16, seed=0)
    hs = make_method("hyperskill", SimLLM(seed=0), enc)
    awm = make_method("awm", SimLLM(seed=0), enc)
    assert isinstance(hs, KeepsHypergraph) and not isinstance(awm, KeepsHypergraph)
    assert isinstance(awm, HasEncoder) and isinstance(enc, Named)
    assert system_identity(hs) == {"method": "hyperskill", "encoder": enc.name,
                                   "config": hs.memory.config.to_dict()}
    assert system_identity(awm) == {"method": "awm", "encoder": enc.name}
    assert system_identity(object()) == {"method": "object"}
