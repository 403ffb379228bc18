"""Search providers as plugins: a provider class defined only here, and one from a real
distribution found through its ``hyperskill_lite.search`` entry point, are usable with
``--search NAME`` against the test web (loopback) with no edit to the package: they are
choices of the CLI and the settings, in its help, in ``auto``, and their requests and
sample replies travel over real HTTP. A plugin that fails costs one warning line."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from hyperskill_lite.agent.tools import ToolSettings, build_toolbox, make_search, resolve_search
from hyperskill_lite.agent.tools.hits import SearchHit
from hyperskill_lite.agent.tools.providers import (
    ApiSearch,
    SearchProvider,
    load_plugins,
    provider_classes,
    register_provider,
    unregister_provider,
)
from hyperskill_lite.agent.tools.settings import endpoints, key_env, search_choices
from hyperskill_lite.cli import main
from hyperskill_lite.cli.options import Parser
from hyperskill_lite.cli.tool_options import add_arguments, settings_from_args
from hyperskill_lite.runner import read_records
from hyperskill_lite.testing.scripted_replies import prompt_aware_responder, tool_call
from hyperskill_lite.testing.scripted_server import ScriptedServer
from hyperskill_lite.testing.testweb import KEYS, TestWeb

ROOT = Path(__file__).resolve().parents[1]
QUERY = "Grey Petrel schooner length"


class OrbitSearch(ApiSearch):
    """A made-up service: ``GET /v2/find?text=&limit=`` with the key in ``X-Orbit-Key``;
    hits in ``items`` (heading, href, abstract), sponsored links beside them."""

    name = "orbit"
    endpoint = "https://api.orbit.example/v2/find"
    key_env = ("ORBIT_SEARCH_KEY",)
    auto_order = 10  # after every built-in one
    summary = "the Orbit search API"

    def _request(self, query: str, k: int):
        return "GET", {"text": query, "limit": k}, None, {"X-Orbit-Key": self._key or ""}

    def _hits(self, data: Any) -> list[SearchHit]:
        return [SearchHit(r.get("heading", ""), r["href"], r.get("abstract", ""))
                for r in data.get("items", []) if isinstance(r, dict) and r.get("href")]

    @classmethod
    def sample_query(cls, params, body) -> tuple[str, int]:
        return params.get("text", ""), int(params.get("limit", 10))

    @classmethod
    def sample_reply(cls, query: str, hits) -> Any:
        return {"total": len(hits),
                "sponsored": [{"heading": "An advert", "href": "https://ads.example/"}],
                "items": [{"heading": h["title"], "href": h["url"], "abstract": h["snippet"]}
                          for h in hits]}


@pytest.fixture()
def orbit():
    register_provider(OrbitSearch)
    yield OrbitSearch
    unregister_provider("orbit")


@pytest.fixture(scope="module")
def web():
    with TestWeb(files=False) as w:
        yield w


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HYPERSKILL_CACHE", str(tmp_path / "cache"))


def cli_settings(*argv: str) -> ToolSettings:
    p = Parser(prog="run")
    add_arguments(p)
    return settings_from_args(p.parse_args(list(argv)))


def test_a_registered_class_is_a_choice_of_the_cli_the_settings_and_auto(orbit):
    assert "orbit" in search_choices() and "orbit" in provider_classes()
    assert key_env()["orbit"] == ("ORBIT_SEARCH_KEY",)
    assert endpoints()["orbit"] == "https://api.orbit.example/v2/find"
    assert cli_settings("--search", "Orbit").search == "orbit"
    p = Parser(prog="run")
    add_arguments(p)
    assert "orbit ($ORBIT_SEARCH_KEY)" in " ".join(p.format_help().split())
    # auto: chosen when its key is the only one set, after the built-ins otherwise
    assert resolve_search(ToolSettings(), {"ORBIT_SEARCH_KEY": "k"}) == "orbit"
    assert resolve_search(ToolSettings(), {"ORBIT_SEARCH_KEY": "k", "JINA_API_KEY": "j"}) == "jina"
    with pytest.raises(ValueError, match="'orbit' needs an API key: set ORBIT_SEARCH_KEY"):
        make_search(ToolSettings(search="orbit"), {})


def test_its_request_reaches_the_test_web_and_the_agent_sees_only_web_hits(orbit, web):
    settings = cli_settings("--search", "orbit", "--search-url", web.search_url("orbit"))
    box = build_toolbox(settings.replace(python=False, http=False, search_cache=False),
                        environ={"ORBIT_SEARCH_KEY": KEYS["orbit"]})
    before = len(web.requests)
    out = box.call("web_search", {"query": QUERY, "max_results": 3})
    (req,) = web.requests[before:]
    assert (req["method"], req["path"]) == ("GET", "/orbit/v2/find")
    assert req["query"] == {"text": QUERY, "limit": "3"}
    assert req["headers"]["x-orbit-key"] == KEYS["orbit"]
    lines = out.splitlines()
    assert lines[0] == "1. The schooner Grey Petrel"
    assert lines[1] == f"   {web.url('/ships/grey-petrel')}"
    assert "ads.example" not in out
    # a refused key: one line naming the class's key variable, never the key
    bad = build_toolbox(settings.replace(python=False, http=False, search_cache=False),
                        environ={"ORBIT_SEARCH_KEY": "wrong-SENTINEL-55"})
    refused = bad.call("web_search", {"query": QUERY})
    assert refused.startswith("Error: web_search failed: orbit search failed (HTTP 401, the "
                              "key was refused; check ORBIT_SEARCH_KEY)")
    assert "SENTINEL" not in refused and "\n" not in refused


def _searching_responder(request: dict[str, Any]):
    """The scripted model: the agent searches once, then answers (the memory's prompts
    as `prompt_aware_responder` answers them)."""
    tools = [t["function"]["name"] for t in request.get("tools") or []]
    if "web_search" in tools and not any(m.get("role") == "tool" for m in request["messages"]):
        return tool_call("web_search", {"query": QUERY})
    return prompt_aware_responder(request)


def test_a_run_from_the_command_line_searches_through_it(orbit, web, tmp_path, monkeypatch):
    monkeypatch.setenv("ORBIT_SEARCH_KEY", KEYS["orbit"])
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "a", "question": "How long is the Grey Petrel?",
                                 "answer": "42"}) + "\n")
    before = len(web.seen("/orbit/"))
    with ScriptedServer(_searching_responder, model="m") as server:
        rc = main(["run", "--sandbox", "process", "--backend", "openai", "--base-url",
                   server.base_url, "--model", "m", "--tasks", str(tasks), "--method",
                   "hyperskill", "--encoder", "hashing", "--no-progress", "--no-http",
                   "--search", "orbit", "--search-url", web.search_url("orbit"),
                   "--out", str(tmp_path / "run")])
    assert rc == 0
    assert len(web.seen("/orbit/")) == before + 1
    (rec,) = read_records(tmp_path / "run")
    assert rec["error"] is None and "web_search" in rec["tools_used"]
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert "orbit" in json.dumps(info)


def test_the_registry_refuses_what_is_not_a_provider(orbit):
    class Other(OrbitSearch):
        pass

    with pytest.raises(ValueError, match="'orbit' is already registered"):
        register_provider(Other)
    register_provider(OrbitSearch)  # the same class again: nothing changes
    for bad in ("auto", "none", "corpus", "Has Spaces", ""):
        cls = type("Bad", (OrbitSearch,), {"name": bad})
        with pytest.raises(ValueError, match="name must be lowercase"):
            register_provider(cls)
    with pytest.raises(TypeError, match="not a SearchProvider subclass"):
        register_provider(dict)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="unimplemented"):
        register_provider(type("Half", (SearchProvider,), {"name": "half"}))


PLUGIN = '''
"""A third-party search provider (the test's distribution)."""
from hyperskill_lite.agent.tools.hits import SearchHit
from hyperskill_lite.agent.tools.providers import ApiSearch


class LanternSearch(ApiSearch):
    name = "lantern"
    endpoint = "https://lantern.example/api/search"
    key_env = ("LANTERN_KEY",)

    def _request(self, query, k):
        return "POST", None, {"query": query, "count": k}, {"Authorization": "Bearer " + (self._key or "")}

    def _hits(self, data):
        return [SearchHit(r["name"], r["link"], r.get("text", "")) for r in data["hits"]]

    @classmethod
    def sample_reply(cls, query, hits):
        return {"hits": [{"name": h["title"], "link": h["url"], "text": h["snippet"]} for h in hits]}


NOT_A_PROVIDER = 42
'''


def _distribution(root: Path) -> Path:
    """A real (unpacked) distribution on a path entry: its module, and a dist-info with
    METADATA and entry_points.txt (what pip writes), declaring a good provider, one that
    fails to import and one that is not a provider."""
    root.mkdir()
    (root / "lantern_search.py").write_text(PLUGIN)
    info = root / "lantern_search-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lantern-search\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent("""\
        [hyperskill_lite.search]
        lantern = lantern_search:LanternSearch
        broken = lantern_search_missing:Nothing
        notone = lantern_search:NOT_A_PROVIDER
        """))
    return root


def test_an_installed_distribution_adds_a_provider_and_a_failing_plugin_is_one_warning(
        tmp_path, monkeypatch, caplog, web):
    site = _distribution(tmp_path / "site")
    monkeypatch.syspath_prepend(str(site))
    try:
        with caplog.at_level(logging.WARNING, logger="hyperskill_lite"):
            added = load_plugins(again=True)
        assert added == ["lantern"] and "lantern" in search_choices()
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert len(warnings) == 2 and all("\n" not in w for w in warnings)
        assert any("'broken'" in w and "ModuleNotFoundError" in w for w in warnings)
        assert any("'notone'" in w and "not a SearchProvider subclass" in w for w in warnings)
        box = build_toolbox(cli_settings("--search", "lantern", "--search-url",
                                         web.search_url("lantern")).replace(
                                python=False, http=False, search_cache=False),
                            environ={"LANTERN_KEY": KEYS["lantern"]})
        out = box.call("web_search", {"query": QUERY, "max_results": 2})
        assert out.startswith("1. The schooner Grey Petrel")
        assert web.seen("/lantern/api/search")[-1]["body"] == {"query": QUERY, "count": 2}
    finally:
        unregister_provider("lantern")
    # a fresh process finds it through the entry point alone (what `pip install` gives)
    env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    got = subprocess.run([sys.executable, "-m", "hyperskill_lite", "run", "--help"],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert got.returncode == 0, got.stderr
    assert "lantern" in got.stdout.split("--search {", 1)[1].split("}", 1)[0]
    assert got.stderr.count("search provider plugin") == 2
