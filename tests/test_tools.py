"""Tests for the tools' basics: BM25 local corpus, the generic HTTP search client, the
toolbox's interface, crawl_page on a corpus, inspect_file_as_text on text files. (Providers,
pages and documents: test_tools_providers.py, test_tools_pages.py, test_tools_files.py.)"""

from __future__ import annotations

import json
import math
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest
import scipy.sparse as sp

from hyperskill_lite.agent.tools import (
    HttpSearch,
    LocalCorpus,
    Toolbox,
    bm25_scores,
    html_to_text,
    tokenize,
)

PAGES = {
    "uni.example.edu/index.html": "<html><head><title>Example University</title></head><body>"
    "<nav><a href='/news/'>News</a> <a href='awards/index.html'>Awards</a></nav>"
    "<p>Welcome to Example University.</p><script>var x = 1;</script></body></html>",
    "uni.example.edu/awards/index.html": "<title>Awards</title><h1>Faculty awards</h1>"
    "<ul><li>2021: Prof. Rivera won the Turing Prize for compilers.</li>"
    "<li>2019: Prof. Chen won the teaching award.</li></ul>",
    "uni.example.edu/news/index.html": "<title>News</title><p>The library reopens in May.</p>",
    "notes/budget.txt": "Budget notes\nResearch received 12 percent of the 2020 budget.",
}


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    for rel, text in PAGES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "urls.json").write_text(
        json.dumps({"notes/budget.txt": "https://budget.example.org/2020"})
    )
    return root


def naive_bm25(
    docs: list[list[str]], query: list[str], k1: float = 1.5, b: float = 0.75
) -> list[float]:
    n = len(docs)
    avgdl = sum(len(d) for d in docs) / n
    out = []
    for d in docs:
        c = Counter(d)
        s = 0.0
        for t in query:
            df = sum(1 for x in docs if t in x)
            if df == 0:
                continue
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            s += idf * c[t] * (k1 + 1) / (c[t] + k1 * (1 - b + b * len(d) / avgdl))
        out.append(s)
    return out


def _tf(docs: list[list[str]]) -> tuple[sp.csr_matrix, dict[str, int]]:
    vocab: dict[str, int] = {}
    rows, cols, vals = [], [], []
    for i, d in enumerate(docs):
        for t, c in Counter(d).items():
            rows.append(i)
            cols.append(vocab.setdefault(t, len(vocab)))
            vals.append(c)
    return sp.csr_matrix((vals, (rows, cols)), shape=(len(docs), len(vocab)), dtype=float), vocab


def test_bm25_hand_worked_example():
    # d1 = "apple banana" (|d|=2), d2 = "apple apple cherry" (|d|=3), avgdl = 2.5, N = 2.
    # query "cherry": df = 1, idf = ln(1 + 1.5/1.5) = ln 2 = 0.693147
    # d2: tf = 1, norm = 1.5 (0.25 + 0.75 * 3/2.5) = 1.725, sat = 2.5 / 2.725 = 0.917431
    # score(d2) = 0.693147 * 0.917431 = 0.635915; score(d1) = 0
    tf, vocab = _tf([["apple", "banana"], ["apple", "apple", "cherry"]])
    s = bm25_scores(tf, np.array([vocab["cherry"]]), np.array([1]))
    assert s == pytest.approx([0.0, 0.635915], abs=1e-6)


def test_bm25_matches_a_naive_reference():
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(12)]
    docs = [list(rng.choice(words, size=rng.integers(1, 15))) for _ in range(30)]
    tf, vocab = _tf(docs)
    for _ in range(10):
        query = list(rng.choice(words + ["absent"], size=3))
        counts = Counter(t for t in query if t in vocab)
        got = bm25_scores(
            tf, np.array([vocab[t] for t in counts], dtype=int), np.array(list(counts.values()))
        )
        assert got == pytest.approx(naive_bm25(docs, query))


def test_local_corpus_search_and_urls(corpus_dir):
    c = LocalCorpus(corpus_dir)
    assert len(c) == 4
    assert "https://uni.example.edu/awards/" in c.urls
    hits = c.search("which award did Rivera win in 2021", k=2)
    assert hits[0].url == "https://uni.example.edu/awards/"
    assert "Rivera" in hits[0].snippet
    assert c.search("zzz unknown words") == []
    assert c.search("research budget")[0].url == "https://budget.example.org/2020"
    # the url map, the host-folder form, with or without www. and index.html, or the path
    for name in (
        "https://www.uni.example.edu/awards/index.html",
        "http://uni.example.edu/awards",
        "uni.example.edu/awards/index.html",
    ):
        assert c.page(name)[1] == "https://uni.example.edu/awards/"
    assert c.page("https://elsewhere.org/") is None
    with pytest.raises(FileNotFoundError, match="LocalCorpus folder not found"):
        LocalCorpus(corpus_dir / "nope")


def test_html_to_text_keeps_links_and_drops_scripts():
    title, body = html_to_text(PAGES["uni.example.edu/index.html"], "https://uni.example.edu/")
    assert title == "Example University"
    assert "[News](https://uni.example.edu/news/)" in body
    assert "[Awards](https://uni.example.edu/awards/index.html)" in body
    assert "var x" not in body
    assert html_to_text("<ul><li>a</li><li>b</li></ul>")[1] == "- a\n- b"
    assert tokenize("Prof. X, 2021!") == ["prof", "x", "2021"]


def test_toolbox_web_search_and_crawl_on_the_corpus(corpus_dir):
    tb = Toolbox(corpus=LocalCorpus(corpus_dir), python=False)
    assert tb.names == ["web_search", "crawl_page", "inspect_file_as_text"]
    assert [s["function"]["name"] for s in tb.schemas()] == tb.names
    out = tb.call("web_search", {"query": "Rivera award"})
    assert out.startswith("1. Awards\n   https://uni.example.edu/awards/")
    page = tb.call("crawl_page", {"url": "https://uni.example.edu/"})
    assert page.startswith("Title: Example University\nURL: https://uni.example.edu/")
    assert "Error: https://other.org/ is not in the local corpus" in tb.call(
        "crawl_page", {"url": "https://other.org/"}
    )
    assert tb.call("web_search", {"query": "qqq"}) == "No results for 'qqq'."


def test_toolbox_call_errors_are_text():
    tb = Toolbox(python=False)
    assert tb.call("rm_rf", {}).startswith(
        "Error: unknown tool 'rm_rf'; available tools: inspect_file_as_text"
    )
    assert tb.call("inspect_file_as_text", {"file": "x"}).startswith(
        "Error: bad arguments for inspect_file_as_text"
    )
    assert (
        tb.call("inspect_file_as_text", ["x"])
        == "Error: arguments of inspect_file_as_text must be a JSON object"
    )
    assert "web_search" not in tb.names and "crawl_page" not in tb.names


class _Handler(BaseHTTPRequestHandler):
    seen: list[dict] = []

    def log_message(self, *a):
        return

    def do_GET(self):
        _Handler.seen.append({"path": self.path, "auth": self.headers.get("X-Api-Key")})
        if self.path.startswith("/search"):
            body = json.dumps(
                {
                    "meta": {"n": 2},
                    "web": {
                        "results": [
                            {
                                "title": "Registry",
                                "url": "https://reg.example/1",
                                "description": "Founded 1999.",
                            },
                            {"title": "Other", "link": "https://other.example/", "snippet": "x"},
                        ]
                    },
                }
            )
            ctype = "application/json"
        elif self.path == "/broken":
            body, ctype = "not json", "application/json"
        else:
            body, ctype = "<title>Live page</title><p>Served over HTTP.</p>", "text/html"
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def http_site():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    t = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_http_search_from_env(http_site):
    env = {
        "HYPERSKILL_SEARCH_URL": http_site + "/search",
        "HYPERSKILL_SEARCH_KEY": "secret-search-key",
        "HYPERSKILL_SEARCH_KEY_HEADER": "X-Api-Key",
        "HYPERSKILL_SEARCH_KEY_PREFIX": "",
    }
    backend = HttpSearch.from_env(env)
    hits = backend.search("registry founded", k=5)
    assert [(h.title, h.url, h.snippet) for h in hits] == [
        ("Registry", "https://reg.example/1", "Founded 1999."),
        ("Other", "https://other.example/", "x"),
    ]
    assert _Handler.seen[-1]["auth"] == "secret-search-key"
    assert "q=registry+founded" in _Handler.seen[-1]["path"]
    assert HttpSearch.from_env({}) is None
    assert "secret-search-key" not in repr(backend)


def test_http_search_errors_hide_the_key(http_site):
    bad = HttpSearch(http_site + "/broken", "secret-search-key", key_param="api_key")
    with pytest.raises(RuntimeError, match="search API .* failed") as ei:
        bad.search("x")
    assert "secret-search-key" not in str(ei.value)
    tb = Toolbox(search=bad, python=False)
    assert tb.call("web_search", {"query": "x"}).startswith("Error: web_search failed: search API")


def test_crawl_page_over_http_only_when_allowed(http_site):
    tb = Toolbox(python=False, allow_http=True, allow_local_urls=True)
    out = tb.call("crawl_page", {"url": http_site + "/page"})
    assert out.startswith(f"Title: Live page\nURL: {http_site}/page") and "Served over HTTP." in out
    assert tb.call("crawl_page", {"url": "file:///etc/passwd"}) == (
        "Error: crawl_page reads http(s) URLs only, got 'file:///etc/passwd'"
    )
    assert "crawl_page" not in Toolbox(python=False).names
    # without allow_local_urls this loopback server is refused, before any request
    n = len(_Handler.seen)
    refused = Toolbox(python=False, allow_http=True).call("crawl_page", {"url": http_site + "/page"})
    assert refused.startswith(f"Error: refused {http_site}/page: 127.0.0.1 is a loopback address")
    assert len(_Handler.seen) == n


def test_inspect_file_as_text_formats_and_limits(tmp_path):
    (tmp_path / "a.txt").write_text("plain text")
    (tmp_path / "t.csv").write_text("name,value\nx,1\n")
    (tmp_path / "d.json").write_text('{"b": [1, 2]}')
    (tmp_path / "p.html").write_text("<title>Doc</title><p>Body <b>bold</b></p>")
    (tmp_path / "img.png").write_bytes(b"\x89PNG")
    (tmp_path / "big.txt").write_text("x" * 2000)
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("secret")
    tb = Toolbox(python=False, files_root=tmp_path, max_file_bytes=1000)
    read = lambda p: tb.call("inspect_file_as_text", {"path": str(p)})  # noqa: E731
    assert read("a.txt") == "File: a.txt\n\nplain text"
    assert read(tmp_path / "t.csv") == f"File: {tmp_path / 't.csv'}\n\nname,value\nx,1\n"
    assert read("d.json") == 'File: d.json\n\n{\n "b": [\n  1,\n  2\n ]\n}'
    assert read("p.html").startswith("File: p.html\nTitle: Doc\n\nBody")
    assert read("img.png") == "Error: img.png is an image: read it with inspect_file_as_image"
    assert read("big.txt") == "Error: big.txt is 2,000 bytes, over the limit of 1,000 (max_file_bytes)"
    assert read("missing.txt") == "Error: no such file: missing.txt"
    assert read(outside).endswith("is outside the folders this agent may read")
    assert read("../" + outside.name).endswith("is outside the folders this agent may read")
    tb.attachments = {outside.resolve()}
    assert read(outside) == f"File: {outside}\n\nsecret"
    # the anchor harness's argument name works too
    assert tb.call("inspect_file_as_text", {"file_path": "a.txt"}) == read("a.txt")
    assert (
        Toolbox(python=False)
        .call("inspect_file_as_text", {"path": str(outside)})
        .startswith("Error:")
    )
