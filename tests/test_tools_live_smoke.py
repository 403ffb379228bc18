"""The parts of tools/live_smoke.py that run without the local model: its command line
uses the tool flags (search preset at the hermetic web, pages over HTTP), its
environment carries the endpoint's key, and tool calls are counted per episode by tool."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from hyperskill_lite.agent.tools import build_toolbox
from hyperskill_lite.cli.options import Parser
from hyperskill_lite.cli.tool_options import add_arguments, settings_from_args
from hyperskill_lite.llm.cassette import Cassette
from hyperskill_lite.testing.testweb import KEYS, TestWeb

ROOT = Path(__file__).resolve().parents[1]


def smoke():
    spec = importlib.util.spec_from_file_location("live_smoke", ROOT / "tools" / "live_smoke.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_smoke_run_searches_the_hermetic_web_and_reads_its_pages(tmp_path):
    ls = smoke()
    with TestWeb(corpus=ls.FIXTURES / "corpus", files=False) as web:
        url = web.search_url("serper")
        cmd = ls.run_command(tmp_path / "off", "--structured", "off", search_url=url,
                             base_url="http://127.0.0.1:1/v1", episodes=2)
        assert "--corpus" not in cmd
        p = Parser(prog="run")
        add_arguments(p)
        settings = settings_from_args(p.parse_known_args(cmd[cmd.index("run") + 1:])[0])
        assert (settings.search, settings.search_url, settings.http,
                settings.allow_local_urls) == ("serper", url, True, True)
        env = ls.run_env(tmp_path)
        assert env["SERPER_API_KEY"] == KEYS["serper"] and "HYPERSKILL_SEARCH_URL" not in env
        assert env["HYPERSKILL_CACHE"] == str(tmp_path / "cache")
        # the toolbox those settings give finds a fixture fact through search and a page
        box = build_toolbox(settings.replace(search_cache=False, python=False), environ=env)
        hits = box.call("web_search", {"query": "Orchard Valley Growers Cooperative founded"})
        first_url = hits.splitlines()[1].strip()
        assert first_url.startswith(web.url("/pages/"))
        page = box.call("crawl_page", {"url": first_url})
        assert "1987" in page and page.index("1987") < page.index("Collection section")


def test_tool_calls_are_counted_per_episode_by_tool(tmp_path):
    ls = smoke()
    out = tmp_path / "run"
    out.mkdir()
    (out / "episodes.jsonl").write_text("\n".join(json.dumps(r) for r in [
        {"task_id": "a", "tools_used": ["web_search", "crawl_page"]},
        {"task_id": "b", "tools_used": ["web_search"]}]))
    assert ls.tool_calls(out) == {"source": "records",
                                  "per_episode": [["web_search", "crawl_page"], ["web_search"]],
                                  "mean_by_tool": {"crawl_page": 0.5, "web_search": 1.0}}
    # records without tools_used: the cassette's tool results, per episode on average
    (out / "episodes.jsonl").write_text('{"task_id": "a"}\n{"task_id": "b"}\n')
    tape = Cassette(tmp_path / "c.jsonl")
    for name in ("web_search", "crawl_page", "web_search"):
        tape.record("tool", {"name": name, "arguments": {"n": len(tape)}}, "ok", op=name)
    got = ls.tool_calls(out, tmp_path / "c.jsonl")
    assert got["source"] == "cassette"
    assert got["mean_by_tool"] == {"crawl_page": 0.5, "web_search": 1.0}


def test_the_smoke_reads_the_probes_a_real_run_records(tmp_path, monkeypatch):
    """live_smoke judges structured outputs by what the run recorded; the probes' answers
    live in run.json's `observed` list (issue 31), and the smoke must find them there."""
    from hyperskill_lite.cli import main
    from hyperskill_lite.testing.scripted_replies import prompt_aware_responder
    from hyperskill_lite.testing.scripted_server import ScriptedServer

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "a", "question": "Six times seven?", "answer": "42"}) + "\n")
    with ScriptedServer(prompt_aware_responder, model="m") as server:
        assert main(["run", "--sandbox", "process", "--backend", "openai", "--base-url",
                     server.base_url, "--model", "m",
                     "--tasks", str(tasks), "--encoder", "hashing", "--no-progress",
                     "--search", "none", "--out", str(tmp_path / "r")]) == 0
    seen = smoke().observed(tmp_path / "r")
    assert seen["structured_mode"] == "json_schema" and seen["protocol_used"] in ("tools", "json")


def test_the_smoke_refuses_a_folder_it_did_not_make(tmp_path):
    (tmp_path / "mine.txt").write_text("a user's notes")
    ls = smoke()
    with pytest.raises(FileExistsError, match="is not a live-smoke folder"):
        ls.main(["--out", str(tmp_path)])  # refused before any server starts
    assert (tmp_path / "mine.txt").read_text() == "a user's notes"
