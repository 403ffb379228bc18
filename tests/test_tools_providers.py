"""Search providers against the hermetic web: for each preset, the request the loopback
server received (method, auth header, parameters) and the hits the agent saw; web
results only; the on-disk cache; keys kept out of errors; DuckDuckGo's mapping."""

from __future__ import annotations

import pytest

from hyperskill_lite.agent.tools import (
    SearchCache,
    Toolbox,
    ToolSettings,
    build_toolbox,
    make_search,
    resolve_search,
)
from hyperskill_lite.agent.tools.providers import ddgs_hits, find_hits
from hyperskill_lite.testing.testweb import KEYS, TestWeb

ENV = {"SERPER_API_KEY": KEYS["serper"], "TAVILY_API_KEY": KEYS["tavily"],
       "BRAVE_API_KEY": KEYS["brave"], "JINA_API_KEY": KEYS["jina"]}
QUERY = "Grey Petrel schooner length"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HYPERSKILL_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def web():
    with TestWeb(files=False) as w:
        yield w


def agent_search(web: TestWeb, provider: str, env=ENV, **kw) -> tuple[str, dict]:
    """What the agent reads from web_search, and the request the provider received."""
    settings = ToolSettings(search=provider, search_url=web.search_url(provider), http=False,
                            python=False, search_cache=False, **kw)
    before = len(web.requests)
    out = build_toolbox(settings, environ=env).call("web_search", {"query": QUERY,
                                                                   "max_results": 3})
    (request,) = web.requests[before:]
    return out, request


@pytest.mark.parametrize(("provider", "method", "auth", "sent"), [
    ("serper", "POST", ("x-api-key", KEYS["serper"]),
     {"body": {"q": QUERY, "num": 3, "location": "United States"}}),
    ("tavily", "POST", ("authorization", f"Bearer {KEYS['tavily']}"),
     {"body": {"query": QUERY, "max_results": 3, "search_depth": "basic", "topic": "general"}}),
    ("brave", "GET", ("x-subscription-token", KEYS["brave"]),
     {"query": {"q": QUERY, "count": "3"}}),
    ("searxng", "GET", None, {"query": {"q": QUERY, "format": "json", "pageno": "1"}}),
    ("jina", "GET", ("authorization", f"Bearer {KEYS['jina']}"), {"query": {"q": QUERY}}),
    ("url", "GET", None, {"query": {"q": QUERY, "count": "3"}}),
])
def test_each_provider_sends_its_documented_request_and_the_agent_sees_web_hits(
        web, provider, method, auth, sent):
    out, req = agent_search(web, provider)
    assert req["method"] == method
    assert req["path"] == {"searxng": "/searxng/search"}.get(provider, web.search_url(provider)
                                                               .removeprefix(web.base_url))
    for field, value in sent.items():
        assert req[field] == value
    if auth is not None:
        assert req["headers"][auth[0]] == auth[1]
    else:  # no key sent where the provider needs none
        assert "x-api-key" not in req["headers"] and "authorization" not in req["headers"]
    if provider == "jina":
        assert req["headers"]["accept"] == "application/json"
    lines = out.splitlines()
    assert lines[0] == "1. The schooner Grey Petrel"
    assert lines[1] == f"   {web.url('/ships/grey-petrel')}"
    assert "31 metres long" in out
    # only organic / web results: never Serper's knowledge graph or people-also-ask,
    # never Brave's news
    for elsewhere in ("kg.example", "paa.example", "news.example"):
        assert elsewhere not in out


def test_brave_news_before_web_still_gives_the_web_results(web):
    out, req = agent_search(web, "brave")
    assert "Harbour news of the week" not in out and out.startswith("1. The schooner")
    # the generic reader of an unknown shape looks at "web" first too
    reply = {"news": {"results": [{"title": "N", "url": "https://news.example/1"}]},
             "web": {"results": [{"title": "W", "url": "https://web.example/1"}]}}
    assert [h["url"] for h in find_hits(reply)] == ["https://web.example/1"]


def test_serper_is_the_anchor_harness_default_with_five_results(web):
    settings = ToolSettings(search="serper", search_url=web.search_url("serper"), http=False,
                            python=False)
    box = build_toolbox(settings, environ=ENV)
    before = len(web.requests)
    box.call("web_search", {"query": QUERY})
    assert web.requests[before]["body"]["num"] == 5
    assert box.info()["search"] == "serper"
    assert box.info()["search_endpoint"] == web.search_url("serper")


def test_search_results_are_cached_on_disk_and_a_rerun_sends_nothing(web, tmp_path):
    cache = SearchCache(tmp_path / "search.sqlite")
    settings = ToolSettings(search="tavily", search_url=web.search_url("tavily"))
    first = Toolbox(search=make_search(settings, ENV, cache=cache), python=False)
    before = len(web.seen("/tavily"))
    a = first.call("web_search", {"query": QUERY})
    assert len(web.seen("/tavily")) == before + 1 and cache.misses == 1
    # a rerun (a new toolbox and a new cache object on the same file) hits the disk
    again = SearchCache(tmp_path / "search.sqlite")
    rerun = Toolbox(search=make_search(settings, ENV, cache=again), python=False)
    assert rerun.call("web_search", {"query": QUERY}) == a
    assert len(web.seen("/tavily")) == before + 1 and again.hits == 1
    # another count is another key
    rerun.call("web_search", {"query": QUERY, "max_results": 2})
    assert len(web.seen("/tavily")) == before + 2


def test_the_default_cache_lives_in_the_toolkit_cache_folder_and_can_be_turned_off(
        web, tmp_path, monkeypatch):
    monkeypatch.setenv("HYPERSKILL_CACHE", str(tmp_path / "hsl-cache"))
    settings = ToolSettings(search="brave", search_url=web.search_url("brave"))
    make_search(settings, ENV).search(QUERY, 2)
    assert (tmp_path / "hsl-cache" / "search.sqlite").is_file()
    monkeypatch.setenv("HYPERSKILL_CACHE", "off")
    before = len(web.seen("/brave"))
    for _ in range(2):
        make_search(settings, ENV).search(QUERY, 2)
    assert len(web.seen("/brave")) == before + 2


def test_a_refused_key_is_one_line_without_the_key(web):
    env = {**ENV, "SERPER_API_KEY": "wrong-key-SENTINEL-987654"}
    out, req = agent_search(web, "serper", env=env)
    assert out.startswith("Error: web_search failed: serper search failed (HTTP 401, the key "
                          "was refused; check SERPER_API_KEY)")
    assert "SENTINEL" not in out and "\n" not in out


def test_missing_keys_and_instances_are_named_at_build_time():
    with pytest.raises(ValueError, match="'serper' needs an API key: set SERPER_API_KEY"):
        make_search(ToolSettings(search="serper"), {})
    with pytest.raises(ValueError, match="BRAVE_API_KEY or BRAVE_SEARCH_API_KEY"):
        make_search(ToolSettings(search="brave"), {})
    with pytest.raises(ValueError, match="searxng needs your instance's URL"):
        make_search(ToolSettings(search="searxng"), {})
    with pytest.raises(ValueError, match="--search corpus needs --corpus FOLDER"):
        make_search(ToolSettings(search="corpus"), {})
    assert make_search(ToolSettings(search="none"), ENV) is None
    # a replay needs the same tools but runs none: no key required
    box = build_toolbox(ToolSettings(search="serper", python=False), environ={},
                        require_keys=False)
    assert box.names[0] == "web_search" and box.info()["search"] == "serper"


def test_auto_picks_the_corpus_the_url_or_the_first_provider_with_a_key(tmp_path):
    assert resolve_search(ToolSettings(), {"BRAVE_SEARCH_API_KEY": "b", "JINA_API_KEY": "j"}) == "brave"
    assert resolve_search(ToolSettings(), {**ENV}) == "serper"
    assert resolve_search(ToolSettings(), {"HYPERSKILL_SEARCH_URL": "http://x/s"}) == "url"
    assert resolve_search(ToolSettings(), {"SEARXNG_URL": "http://s:8888"}) == "searxng"
    assert resolve_search(ToolSettings(corpus=tmp_path), ENV) == "corpus"
    assert resolve_search(ToolSettings(search="jina"), {}) == "jina"


def test_duckduckgo_rows_map_to_hits_without_network():
    # the shape ddgs' DDGS().text() returns: title, href, body
    rows = [{"title": "Grey Petrel - Wikipedia", "href": "https://en.wikipedia.org/wiki/Grey_Petrel",
             "body": "The Grey Petrel is a schooner."},
            {"title": "no link"}]
    hits = ddgs_hits(rows)
    assert [(h.title, h.url, h.snippet) for h in hits] == [
        ("Grey Petrel - Wikipedia", "https://en.wikipedia.org/wiki/Grey_Petrel",
         "The Grey Petrel is a schooner.")]
    backend = make_search(ToolSettings(search="duckduckgo"), {}, cache=False)
    assert backend.name == "duckduckgo"


def test_settings_are_checked_and_recorded_without_keys(tmp_path):
    with pytest.raises(ValueError, match="search must be one of auto, serper"):
        ToolSettings(search="bing")
    with pytest.raises(ValueError, match="sandbox must be one of bwrap, process"):
        ToolSettings(sandbox="docker")
    d = ToolSettings(search="serper", corpus=tmp_path).to_dict()
    assert d["corpus"] == str(tmp_path) and d["http"] is True and d["search_results"] == 5
    assert not any("key" in k.lower() for k in d)
