"""`serve` met by MCP clients nobody here wrote, as agent hosts use them: fastmcp's
``Client`` and openai-agents' ``MCPServerStdio`` / ``MCPServerStreamableHttp``, over stdio
(each starts the server) and streamable HTTP (one server on loopback), with their default
settings except the timeouts the guide tells hosts to raise.

Each runs an agent's round: recall of an empty scope, learn with its own plan and skills
(no memory model: ``--no-llm``), recall that finds the skill (typed result, framed
context, a handle), learn through the handle, forget of the skill, recall again, stats.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from typing import Any

import pytest

pytest.importorskip("mcp")
fastmcp = pytest.importorskip("fastmcp")
agents_mcp = pytest.importorskip("agents.mcp")

import anyio  # noqa: E402

ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "HYPERSKILL_CACHE": "off",
       "PYTHONUNBUFFERED": "1", "PATH": os.environ.get("PATH", "")}
TIMEOUT = 120.0  # seconds: the guide's advice (the server warms up before its handshake)


def _args(memory) -> list[str]:
    return ["-m", "hyperskill_lite", "serve", "--memory", str(memory), "--encoder", "hashing",
            "--no-llm"]


@pytest.fixture(scope="module")
def http_url(tmp_path_factory):
    memory = tmp_path_factory.mktemp("clients") / "shared"
    proc = subprocess.Popen([sys.executable, *_args(memory), "--http", "127.0.0.1:0"],
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **ENV})
    url = None
    for line in proc.stderr:
        m = re.search(r"listening on (http://\S+/mcp)", line)
        if m:
            url = m.group(1)
            threading.Thread(target=proc.stderr.read, daemon=True).start()
            break
    assert url, f"the HTTP server did not start (exit {proc.wait()})"
    yield url
    proc.terminate()
    proc.wait(timeout=120)


SKILL = {"name": "Census Table First",
         "content": "Read the population from the national statistics office's census table "
                    "before answering; quote the table's year."}
TASK = "Find the 2020 population of Lyon from the census"


async def _round(call, scope: str) -> None:
    """The agent's round (module docstring); `call(name, args)` -> (is_error, structured)."""
    err, empty = await call("recall", {"task": TASK, "scope": scope})
    assert not err and empty["context"] == "" and empty["skills"] == []
    err, got = await call("learn", {
        "task": TASK, "scope": scope, "outcome": "success", "steps": 3,
        "trajectory": "web_search('Lyon population census'); read the INSEE table -> 522,250",
        "plan": ["search the census table", "read the 2020 row"], "skills": [SKILL]})
    assert not err, got
    assert got["skills"][0]["source"] == "agent" and got["plan_from"] == "agent"
    skill_id = got["skills"][0]["id"]
    err, hit = await call("recall", {"task": "Find the 2021 population of Lyon from the "
                                             "census", "scope": scope})
    assert not err and [s["id"] for s in hit["skills"]] == [skill_id]
    assert hit["context"].startswith("<memory_data source=") and "Census Table First" in hit[
        "context"]
    err, again = await call("learn", {"handle": hit["handle"], "outcome": "success",
                                      "trajectory": "read the census table again -> 523,000"})
    assert not err and again["credited_ids"] == len(hit["used_ids"]) and again["scope"] == scope
    err, gone = await call("forget", {"ids": [skill_id], "scope": scope})
    assert not err and gone["removed"] == [skill_id]
    err, after = await call("recall", {"task": TASK, "scope": scope})
    assert not err and after["skills"] == []
    err, stats = await call("stats", {"scope": scope})
    assert not err and stats["sizes"]["hyperedges"] == 2 and stats["sizes"]["skill_nodes"] == 0


async def _fastmcp(target: Any, scope: str) -> None:
    async with fastmcp.Client(target, timeout=TIMEOUT, init_timeout=TIMEOUT) as client:
        tools = {t.name: t for t in await client.list_tools()}
        assert all(t.outputSchema and t.outputSchema.get("properties") for t in tools.values())

        async def call(name: str, args: dict) -> tuple[bool, Any]:
            r = await client.call_tool(name, args, raise_on_error=False)
            return r.is_error, r.structured_content

        await _round(call, scope)


async def _openai_agents(server: Any, scope: str) -> None:
    async with server:
        tools = {t.name: t for t in await server.list_tools()}
        assert set(tools) >= {"recall", "learn", "forget", "stats"}
        assert tools["recall"].outputSchema["properties"]["handle"]["type"] == "string"

        async def call(name: str, args: dict) -> tuple[bool, Any]:
            r = await server.call_tool(name, args)
            return bool(r.isError), r.structuredContent

        await _round(call, scope)


def test_fastmcp_over_stdio(tmp_path):
    from fastmcp.client.transports import StdioTransport

    transport = StdioTransport(command=sys.executable, args=_args(tmp_path / "m"), env=ENV)
    anyio.run(_fastmcp, transport, "fastmcp-stdio")


def test_fastmcp_over_http(http_url):
    anyio.run(_fastmcp, http_url, "fastmcp-http")


def test_openai_agents_over_stdio(tmp_path):
    server = agents_mcp.MCPServerStdio(
        params={"command": sys.executable, "args": _args(tmp_path / "m"), "env": ENV},
        client_session_timeout_seconds=TIMEOUT, use_structured_content=True)
    anyio.run(_openai_agents, server, "agents-stdio")


def test_openai_agents_over_http(http_url):
    server = agents_mcp.MCPServerStreamableHttp(
        params={"url": http_url, "timeout": TIMEOUT}, client_session_timeout_seconds=TIMEOUT,
        use_structured_content=True)
    anyio.run(_openai_agents, server, "agents-http")
