"""benchmarks/bench_serve.py at a tiny size, untimed: the synthetic memory a server can
open by its encoder's name, recall over stdio and HTTP, the perf.md section and targets;
and the relevance floor: the floors the server uses are the ones measured in
benchmarks/results/relevance.json, and the guide's table shows that measurement."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_serve  # noqa: E402

from hyperskill_lite.core.io import load_memory  # noqa: E402
from hyperskill_lite.serve.relevance import FLOORS  # noqa: E402


def test_recall_over_both_transports_on_a_synthetic_memory_and_its_report(tmp_path):
    queries = bench_serve.build_memory(30, tmp_path / "m")
    assert load_memory(tmp_path / "m").stats()["hyperedges"] == 30  # opened by name
    rows = bench_serve.recall_latency(tmp_path / "m", queries[:5], ["--no-llm"], warm=2)
    assert set(rows) == {"stdio", "http"}
    for row in rows.values():
        assert row["calls"] == 3 and 0 < row["p50_s"] <= row["p95_s"] <= row["p99_s"]
    serve = {"queries": 3, "when": "2026-01-01 00:00",
             "recall": [{"hyperedges": 10_000, "setup": "no model (trajectory path)",
                         "transport": t, **row} for t, row in rows.items()],
             "first": [{"transport": "stdio", "ready_s": 9.0, "first_learn_s": 0.2,
                        "first_recall_s": 0.05, "learn_p50_s": 0.1, "recall_p50_s": 0.01}],
             "learn": {"latency_s": 0.1, "learns_per_client": 2, "start_hyperedges": 30,
                       "rows": [{"setup": "8 clients, HTTP, one server", "clients": 8,
                                 "learns": 16, "wall_s": 2.0, "learns_per_s": 8.0}]}}
    targets = {t["target"].split(":")[0]: t for t in bench_serve.targets(serve)}
    ratio = rows["http"]["p50_s"] / rows["stdio"]["p50_s"]
    assert targets["MCP recall over HTTP"]["ok"] == (ratio <= bench_serve.HTTP_RATIO_TARGET)
    assert targets["MCP first learn after the handshake under 2 s (stdio, default encoder)"][
        "ok"] is True
    assert targets["MCP learn throughput (measured; no target)"]["measured"] == (
        "8 clients, HTTP, one server: 8.0/s")
    md = "\n".join(bench_serve.markdown(serve))
    assert "## MCP server" in md and "| 10,000 | no model (trajectory path) |" in md
    assert "| stdio | 9.0 s |" in md


def test_the_floors_are_the_measured_ones_and_the_guide_shows_the_measurement():
    doc = json.loads((ROOT / "benchmarks" / "results" / "relevance.json").read_text())
    got = doc["encoders"]
    assert {k: v["floor"] for k, v in got.items()} == FLOORS
    floor = bench_serve.choose_floor([0.5, 0.6, 0.7], [0.1, 0.2, 0.55])
    assert floor["floor"] == 0.21 and floor["related_kept"] == 1.0
    guide = (ROOT / "docs" / "guide" / "mcp.md").read_text()
    for enc, label in (("minilm", "MiniLM (the default)"), ("hashing", "hashing")):
        v = got[enc]
        rq, uq = v["related_quantiles"], v["unrelated_quantiles"]
        row = (f"| {label} | {rq['p5']:.3f} / {rq['p25']:.3f} / {rq['p50']:.3f} / "
               f"{rq['p75']:.3f} | {uq['p50']:.3f} / {uq['p75']:.3f} / {uq['p95']:.3f} / "
               f"{uq['p100']:.3f} | {v['floor']:.2f} | {100 * v['related_kept']:.1f} % | "
               f"{100 * v['unrelated_dropped']:.1f} % |")
        assert row in guide, row
    assert f"related, {got['minilm']['related']})" in guide


def test_the_performance_pages_mcp_tables_are_perf_mds():
    """docs/guide/performance.md copies the MCP tables of benchmarks/results/perf.md (the
    section docs/guide/mcp.md points to)."""
    page = (ROOT / "docs" / "guide" / "performance.md").read_text()
    perf = (ROOT / "benchmarks" / "results" / "perf.md").read_text()
    section = page[page.index("## MCP server"):]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    assert len(rows) >= 8 and all(row in perf for row in rows)
    assert "(performance.md#mcp-server)" in (ROOT / "docs" / "guide" / "mcp.md").read_text()
