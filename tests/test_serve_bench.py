"""benchmarks/bench_serve.py at a tiny size, untimed: the synthetic memory a server can
open by its encoder's name, recall over stdio, and the perf.md section and targets."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_serve  # noqa: E402

from hyperskill_lite.core.io import load_memory  # noqa: E402


def test_recall_over_stdio_on_a_synthetic_memory_and_its_report(tmp_path):
    queries = bench_serve.build_memory(30, tmp_path / "m")
    assert load_memory(tmp_path / "m").stats()["hyperedges"] == 30  # opened by name
    row = bench_serve.recall_latency(tmp_path / "m", queries[:5], ["--no-llm"], warm=2)
    assert row["calls"] == 3 and 0 < row["p50_s"] <= row["p99_s"]
    serve = {"queries": 3, "recall": [{"hyperedges": 10_000, "setup": "no model (trajectory "
                                       "path)", **row}],
             "learn": {"latency_s": 0.1, "learns_per_client": 2, "start_hyperedges": 30,
                       "rows": [{"setup": "8 clients, HTTP, one server", "clients": 8,
                                 "learns": 16, "wall_s": 2.0, "learns_per_s": 8.0}]}}
    targets = bench_serve.targets(serve)
    assert targets[0]["ok"] == (row["p50_s"] * 1e3 < bench_serve.RECALL_TARGET_MS)
    assert targets[1]["measured"] == "8 clients, HTTP, one server: 8.0/s"
    md = "\n".join(bench_serve.markdown(serve))
    assert "## MCP server" in md and "| 10,000 | no model (trajectory path) |" in md
