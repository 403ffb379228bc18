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
    assert json.dumps(record.to_dict(), sort_keys=True) == V1_CRASH_LINE
    again = EpisodeRecord(**json.loads(V1_CRASH_LINE))
    assert json.dumps(again.to_dict(1), sort_keys=True) == V1_CRASH_LINE
    assert EpisodeRecord.from_dict(json.loads(V1_CRASH_LINE)) == record
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


def test_every_line_of_a_run_is_a_typed_record_and_reads_back_byte_for_byte(tmp_path):
    from hyperskill_lite.launch import RunSpec, execute

    records = execute(RunSpec(out=tmp_path / "run", seed=1, episodes=12, encoder="hashing",
                              progress=False))
    lines = (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == len(records) == 12
    assert any("maintenance" in r for r in records) and all("sizes" in r for r in records)
    for line in lines:
        back = EpisodeRecord.from_dict(json.loads(line))
        assert back.extra == {}  # the dataclass names every field the runner writes
        assert json.dumps(back.to_dict(), sort_keys=True) == line


def test_reading_tolerates_old_and_newer_records():
    old = {"index": 2, "task_id": "t", "success": True}  # fields added later are absent
    rec = EpisodeRecord.from_dict(old)
    assert rec.learned_success is None and rec.sizes is None and "sizes" not in rec.to_dict()
    newer = {**json.loads(V1_CRASH_LINE), "verdict_v9": {"x": 1}}
    assert EpisodeRecord.from_dict(newer).to_dict() == newer
