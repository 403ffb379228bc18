"""crawl_page over HTTP against the hermetic web: main content before navigation, long
pages read to their end in pages, redirects, retries, documents at URLs, the refusal of
local and private addresses, and the model's page summary (counted, recorded, replayed)."""

from __future__ import annotations

import re

import pytest

from hyperskill_lite.agent.framing import unframe
from hyperskill_lite.agent.loop import AgentExecutor
from hyperskill_lite.agent.tools import (
    Toolbox,
    ToolSettings,
    UrlGuard,
    UrlRefused,
    build_toolbox,
    html_to_text,
)
from hyperskill_lite.llm.cassette import Cassette
from hyperskill_lite.llm.client import PromptedLLM
from hyperskill_lite.testing.scripted_replies import text, tool_call
from hyperskill_lite.testing.scripted_server import ScriptedServer
from hyperskill_lite.testing.testweb import LONG_SECRET, TestWeb, page_html
from hyperskill_lite.types import MemoryContext, Task


@pytest.fixture(scope="module")
def web():
    with TestWeb() as w:
        yield w


@pytest.fixture
def reader(web):
    """A toolbox that may read this loopback web (and nothing else local)."""
    return Toolbox(python=False, allow_http=True, allow_hosts=[web.host])


def crawl(tb: Toolbox, url: str, **kw) -> str:
    return tb.call("crawl_page", {"url": url, **kw})


def test_main_content_comes_before_the_navigation_menu(web, reader):
    out = crawl(reader, web.url("/ships/grey-petrel"))
    assert out.startswith(f"Title: The schooner Grey Petrel\nURL: {web.url('/ships/grey-petrel')}")
    article = out.index("The fishing schooner Grey Petrel is 31 metres long")
    menu = out.index("Collection section number 1")
    assert article < menu
    assert out.index("Links on this page:") < menu  # the menu is kept, as links, after
    assert "Copyright 2024" not in out and "var tracking" not in out
    # the stdlib reader alone (the fallback) puts the 40-item menu first
    _, plain = html_to_text(page_html("The schooner Grey Petrel", "<p>31 metres long</p>"))
    assert plain.index("Collection section number 1") < plain.index("31 metres long")


def test_a_long_page_is_read_to_its_end_in_pages(web, reader):
    before = len(web.seen("/long"))
    pages, n = [], 1
    while True:
        out = crawl(reader, web.url("/long"), page=n)
        m = re.search(r"Page (\d+) of (\d+) \(characters ([\d,]+)-([\d,]+) of ([\d,]+)\)\.", out)
        assert m, out[:300]
        assert int(m.group(1)) == n
        pages.append(out.split("\n\n", 1)[1])
        if "This is the last page." in out:
            break
        assert f"Call crawl_page with page={n + 1} to read on." in out
        n += 1
    total = int(m.group(5).replace(",", ""))
    assert n == int(m.group(2)) >= 3
    assert all(len(p) <= 5000 for p in pages)  # each fits in an observation (6,000)
    whole = "".join(pages)
    assert len(whole) == total
    article, links = whole.split("\n\nLinks on this page:\n")
    assert article.rstrip().endswith(LONG_SECRET) and links.endswith("/section/40)")
    numbers = [int(x) for x in re.findall(r"Paragraph (\d+)\.", whole)]
    assert numbers == list(range(1, 81))  # every paragraph once, in order
    assert len(web.seen("/long")) == before + 1  # fetched once, then read from memory
    assert crawl(reader, web.url("/long"), page=99).startswith(
        f"Error: crawl_page failed: page 99 does not exist: the text has {n} pages")


def test_redirects_are_followed_and_429_is_retried_after_retry_after(web, reader):
    out = crawl(reader, web.url("/redirect"))
    assert f"URL: {web.url('/redirect')}" in out or "31 metres long" in out
    assert "31 metres long" in out
    before = len(web.seen("/flaky"))
    out = crawl(reader, web.url("/flaky"))
    assert "closed on Mondays" in out
    assert len(web.seen("/flaky")) == before + 2  # the 429, then the page


def test_documents_at_a_url_are_converted_and_images_refused(web, reader):
    pdf = crawl(reader, web.url("/files/report.pdf"))
    assert "The 2019 survey of Lake Varne counted 23 species of fish." in pdf
    xlsx = crawl(reader, web.url("/files/sales.xlsx"))
    assert "| 2 | North | 1200 | 1530.5 |" in xlsx
    assert crawl(reader, web.url("/notes.txt")).endswith("the quay is 400 metres long.")
    assert crawl(reader, web.url("/files/chart.png")) == (
        f"Error: {web.url('/files/chart.png')} is an image (image/png); crawl_page reads web "
        "pages and documents")
    assert crawl(reader, web.url("/nope")).startswith(f"Error: HTTP 404 from {web.host}")


@pytest.mark.parametrize(("path", "refused"), [
    ("/redirect-localhost", "localhost (127.0.0.1) is a loopback address"),
    ("/redirect-ipv6", "::1 is a loopback address"),
    ("/redirect-metadata", "169.254.169.254 is a link-local address"),
    ("/redirect-private", "10.0.0.7 is a private address"),
])
def test_redirects_to_local_and_private_addresses_are_refused(web, reader, path, refused):
    before = len(web.requests)
    out = crawl(reader, web.url(path))
    assert out.startswith("Error: refused http") and refused in out
    assert "--allow-local-urls" in out
    # only the redirecting request reached a server; the target was never contacted
    assert [r["path"] for r in web.requests[before:]] == [path]


def test_local_pages_are_refused_unless_allowed(web):
    before = len(web.requests)
    out = crawl(Toolbox(python=False, allow_http=True), web.url("/visit"))
    assert out == (f"Error: refused {web.url('/visit')}: 127.0.0.1 is a loopback address; the "
                   "agent reads public pages only (allow local addresses with --allow-local-urls)")
    assert len(web.requests) == before
    allowed = Toolbox(python=False, allow_http=True, allow_local_urls=True)
    assert "closed on Mondays" in crawl(allowed, web.url("/visit"))


@pytest.mark.parametrize("url", ["https://example.org/a\nb", "http://example.org:99999/",
                                 "https://exa mple.org/"])
def test_a_malformed_url_from_the_model_is_a_tool_error_not_a_crash(web, reader, url):
    before = len(web.requests)
    out = crawl(reader, url)  # SmolLM2 wrote the first one in `make live-smoke`
    assert out.startswith("Error: ")  # the agent reads why; the run goes on
    assert len(web.requests) == before


def test_a_name_resolving_to_a_private_address_is_refused():
    # the system resolver stands in for DNS that points a public-looking name inward
    def resolver(host, port, type=0):
        return [(2, 1, 6, "", ("192.168.1.20", port))]

    with pytest.raises(UrlRefused, match="evil.example .192.168.1.20. is a private address"):
        UrlGuard(resolver=resolver).addresses("https://evil.example/admin")
    with pytest.raises(UrlRefused, match="only http.s. URLs"):
        UrlGuard().addresses("ftp://example.org/")


def test_http_is_on_by_default_and_no_http_keeps_a_run_offline(tmp_path):
    assert "crawl_page" in build_toolbox(ToolSettings(search="none", python=False)).names
    offline = build_toolbox(ToolSettings(search="none", python=False, http=False))
    assert "crawl_page" not in offline.names
    (tmp_path / "a.example.org").mkdir()
    (tmp_path / "a.example.org" / "p.html").write_text("<title>P</title><p>Local page.</p>")
    box = build_toolbox(ToolSettings(corpus=tmp_path, http=False, python=False))
    assert "Local page." in crawl(box, "https://a.example.org/p.html")
    assert crawl(box, "https://b.example.org/").startswith(
        "Error: https://b.example.org/ is not in the local corpus and reading pages over HTTP is off")


def test_crawl_summary_condenses_for_the_query_and_counts_tool_tokens(web, tmp_path):
    url = web.url("/ships/grey-petrel")
    script = [
        tool_call("crawl_page", {"url": url, "query": "length of the Grey Petrel"}),
        text("- The Grey Petrel is 31 metres long."),  # the page summary (a tool's call)
        text("FINAL ANSWER: 31"),
    ]
    task = Task("t", "How long is the Grey Petrel?")

    def run(llm: PromptedLLM) -> object:
        tools = Toolbox(python=False, allow_http=True, allow_hosts=[web.host], llm=llm,
                        crawl_summary=True)
        return AgentExecutor(llm, tools, protocol="tools").run(task, MemoryContext())

    with ScriptedServer(script) as srv:
        llm = PromptedLLM(srv.base_url, "m", "sk-x", retry_base_delay=0.001, timeout=5,
                          cassette=Cassette(tmp_path / "c.jsonl"))
        live = run(llm)
    schema = next(t for t in srv.requests[0]["tools"] if t["function"]["name"] == "crawl_page")
    assert "query" in schema["function"]["parameters"]["properties"]
    summary_request = srv.requests[1]["messages"][0]["content"]
    assert "Query: length of the Grey Petrel" in summary_request
    assert "31 metres long" in summary_request and "Collection section" in summary_request
    observation = unframe(srv.requests[2]["messages"][-1]["content"])
    assert observation.startswith("Title: The schooner Grey Petrel")
    assert "- The Grey Petrel is 31 metres long." in observation
    assert live.answer == "31" and live.meta["tools_used"] == ["crawl_page"]
    assert llm.usage.by_op["tool:crawl_summary"]["calls"] == 1
    assert live.tokens == llm.usage.total_tokens > 0
    # the replay runs no tool and asks no server, and counts the same tokens
    replay_llm = PromptedLLM(None, "m", cassette=Cassette(tmp_path / "c.jsonl", "replay"))
    replayed = run(replay_llm)
    assert (replayed.answer, replayed.tokens) == (live.answer, live.tokens)
    assert replay_llm.usage.by_op["tool:crawl_summary"] == llm.usage.by_op["tool:crawl_summary"]
