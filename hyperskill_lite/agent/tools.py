"""The agent's tools: web_search, crawl_page, python and inspect_file_as_text.

`Toolbox` holds the tools, their OpenAI tool schemas and one entry point,
``call(name, arguments) -> str``; a tool's failure comes back as text starting with
"Error:" so the agent can read it and go on. Backends are pluggable:

- search: `HttpSearch`, a generic JSON GET client selected by ``HYPERSKILL_SEARCH_URL``
  (+ ``HYPERSKILL_SEARCH_KEY``, ...), or `LocalCorpus`, a folder of .txt/.md/.html pages
  ranked with our own BM25 (numpy + scipy.sparse), so an agent can browse offline;
- crawl_page: the local corpus (by URL or path), else an HTTP GET when allowed;
- python: `PythonSandbox` (sandbox.py), a subprocess with a time limit, an
  address-space limit (RLIMIT_AS), a process limit (RLIMIT_NPROC), a fresh temporary
  working directory, an environment without secrets, and truncated output;
- inspect_file_as_text: text, Markdown, CSV, JSON and HTML files (as text), size-limited,
  inside the allowed roots.

Not here: image tools (inspect_file_as_image), PDF/Office parsing, JavaScript rendering.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import scipy.sparse as sp

from hyperskill_lite.agent.sandbox import PythonSandbox

__all__ = [
    "Toolbox",
    "SearchHit",
    "SearchBackend",
    "LocalCorpus",
    "HttpSearch",
    "PythonSandbox",
    "html_to_text",
    "bm25_scores",
    "tokenize",
    "TOOL_SCHEMAS",
]

TEXT_SUFFIXES = {
    ".txt",
    ".md",
    ".csv",
    ".tsv",
    ".json",
    ".jsonl",
    ".html",
    ".htm",
    ".xml",
    ".py",
    ".log",
    ".yaml",
    ".yml",
}


def _fn(name: str, description: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": props, "required": required},
        },
    }


TOOL_SCHEMAS: dict[str, dict[str, Any]] = {
    "web_search": _fn(
        "web_search",
        "Search the web with specific keywords; returns titles, URLs and snippets.",
        {
            "query": {"type": "string", "description": "specific keywords"},
            "max_results": {"type": "integer", "description": "how many results (default 5)"},
        },
        ["query"],
    ),
    "crawl_page": _fn(
        "crawl_page",
        "Read the text (and links) of a web page.",
        {"url": {"type": "string", "description": "the page URL"}},
        ["url"],
    ),
    "python": _fn(
        "python",
        "Run Python code for calculations or data processing; returns what it prints.",
        {"code": {"type": "string", "description": "Python source; print() the results"}},
        ["code"],
    ),
    "inspect_file_as_text": _fn(
        "inspect_file_as_text",
        "Read an attached file (txt, md, csv, json, html) as text.",
        {"path": {"type": "string", "description": "path of the file"}},
        ["path"],
    ),
}


# --------------------------------------------------------------------------- HTML
class _TextParser(HTMLParser):
    _BLOCK = {
        "p",
        "div",
        "br",
        "li",
        "tr",
        "table",
        "section",
        "article",
        "header",
        "footer",
        "nav",
        "ul",
        "ol",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "title",
        "dd",
        "dt",
        "pre",
    }
    _SKIP = {"script", "style", "noscript", "template", "svg"}

    def __init__(self, base_url: str = "") -> None:
        super().__init__(convert_charrefs=True)
        self.base, self.parts, self.title = base_url, [], ""
        self._skip, self._in_title, self._href = 0, False, None
        self._link_text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self._skip += 1
        elif tag == "title":
            self._in_title = True
        elif tag == "a":
            href = dict(attrs).get("href")
            if href and not href.startswith(("javascript:", "#", "mailto:")):
                self._href = urllib.parse.urljoin(self.base, href) if self.base else href
                self._link_text = []
        if tag in self._BLOCK:
            self.parts.append("\n- " if tag == "li" else "\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag == "title":
            self._in_title = False
        elif tag == "a" and self._href is not None:
            text = " ".join(" ".join(self._link_text).split())
            self.parts.append(f" [{text or 'link'}]({self._href})")
            self._href = None
        if tag in self._BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._in_title:
            self.title += data
            return
        if self._href is not None:
            self._link_text.append(data)
        else:
            self.parts.append(data)


def html_to_text(html: str, base_url: str = "") -> tuple[str, str]:
    """``(title, text)`` of an HTML page: scripts and styles dropped, blocks on their own
    lines, links kept as ``[text](url)`` (resolved against `base_url`).

    >>> html_to_text('<title>T</title><p>Hi <a href="/x">there</a></p><script>no</script>',
    ...              "https://a.org/")
    ('T', 'Hi [there](https://a.org/x)')
    """
    p = _TextParser(base_url)
    p.feed(html)
    p.close()
    lines = (" ".join(ln.split()) for ln in "".join(p.parts).splitlines())
    text = "\n".join(ln for ln in lines if ln and ln != "-")
    return " ".join(p.title.split()), text


def _truncate(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    return text[:max_chars] + f"\n[... truncated, {len(text) - max_chars} more characters]"


# --------------------------------------------------------------------------- search
@dataclass
class SearchHit:
    title: str
    url: str
    snippet: str


class SearchBackend(Protocol):
    def search(self, query: str, k: int = 5) -> list[SearchHit]: ...


_WORD = re.compile(r"[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    """Lower-case alphanumeric words.

    >>> tokenize("GAIA's 2023 Level-1 task")
    ['gaia', 's', '2023', 'level', '1', 'task']
    """
    return _WORD.findall(text.lower())


def bm25_scores(
    tf: sp.csr_matrix,
    query_cols: np.ndarray,
    query_counts: np.ndarray,
    k1: float = 1.5,
    b: float = 0.75,
) -> np.ndarray:
    """BM25 score of every document for one query.

    Parameters
    ----------
    tf : sparse (n_docs, n_terms)
        Term counts per document.
    query_cols : int array (q,)
        Column indices of the query's distinct terms (terms absent from the vocabulary
        are left out by the caller).
    query_counts : array (q,)
        How often each term occurs in the query (a repeated term counts again).

    Returns
    -------
    scores : float array (n_docs,)
        ``sum_t qc_t * idf_t * tf_dt (k1 + 1) / (tf_dt + k1 (1 - b + b |d| / avgdl))`` with
        ``idf_t = ln(1 + (N - df_t + 0.5) / (df_t + 0.5))`` (the non-negative variant).
    """
    n_docs = tf.shape[0]
    if n_docs == 0 or len(query_cols) == 0:
        return np.zeros(n_docs)
    dl = np.asarray(tf.sum(axis=1)).ravel()  # (n_docs,)
    avgdl = dl.mean() if dl.mean() > 0 else 1.0
    sub = tf[:, query_cols].toarray().astype(float)  # (n_docs, q)
    df = (sub > 0).sum(axis=0)  # (q,)
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
    norm = k1 * (1.0 - b + b * dl / avgdl)  # (n_docs,)
    sat = sub * (k1 + 1.0) / (sub + norm[:, None])
    return sat @ (idf * np.asarray(query_counts, dtype=float))


def _url_key(url: str) -> str:
    """Normalised form for matching: no scheme, no "www.", no query/fragment or trailing
    "/", "index.html" dropped.

    >>> _url_key("https://www.Example.edu/news/index.html?x=1")
    'example.edu/news'
    """
    p = urllib.parse.urlsplit(url.strip())
    host = (p.hostname or "").lower().removeprefix("www.")
    path = re.sub(r"/index\.html?$", "", p.path).rstrip("/")
    return (host + path) if host else path.lstrip("./")


class LocalCorpus:
    """A folder of .txt/.md/.html pages, searched with BM25 and read by URL or path.

    A page's URL is, in order: its entry in ``urls.json`` (``{"relative/path.html":
    "https://..."}``) in the folder; ``https://<relative path>`` when the first folder
    looks like a host name (``example.edu/news/index.html`` ->
    ``https://example.edu/news/``); else its relative path. `crawl_page` accepts any of
    these forms.
    """

    SUFFIXES = (".txt", ".md", ".html", ".htm")

    def __init__(self, folder: str | Path, *, k1: float = 1.5, b: float = 0.75) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise FileNotFoundError(f"LocalCorpus folder not found: {self.folder}")
        self.k1, self.b = k1, b
        mapping_file = self.folder / "urls.json"
        mapping = json.loads(mapping_file.read_text("utf-8")) if mapping_file.exists() else {}
        self.paths: list[str] = []
        self.urls: list[str] = []
        self.titles: list[str] = []
        self.texts: list[str] = []
        indexed: list[str] = []  # what BM25 sees: an HTML page's title and text, else the text
        for f in sorted(self.folder.rglob("*")):
            if not f.is_file() or f.suffix.lower() not in self.SUFFIXES:
                continue
            rel = f.relative_to(self.folder).as_posix()
            url = mapping.get(rel) or self._default_url(rel)
            raw = f.read_text("utf-8", errors="replace")
            if f.suffix.lower() in (".html", ".htm"):
                title, text = html_to_text(raw, url if "://" in url else "")
            else:
                title, text = "", raw.strip()
            self.paths.append(rel)
            self.urls.append(url)
            self.titles.append(title or (text.splitlines()[0][:80] if text else rel))
            self.texts.append(text)
            indexed.append(f"{title}\n{text}" if title else text)
        self._index: dict[str, int] = {}  # url key or relative path -> page index
        for i, (rel, url) in enumerate(zip(self.paths, self.urls)):
            for k in (_url_key(url), _url_key(rel), rel):
                self._index.setdefault(k, i)
        self.vocab: dict[str, int] = {}
        rows, cols, vals = [], [], []
        for i, text in enumerate(indexed):
            for term, c in Counter(tokenize(text)).items():
                rows.append(i)
                cols.append(self.vocab.setdefault(term, len(self.vocab)))
                vals.append(c)
        self.tf = sp.csr_matrix(
            (vals, (rows, cols)), shape=(len(self.texts), len(self.vocab)), dtype=np.float64
        )  # (n_docs, n_terms) term counts

    @staticmethod
    def _default_url(rel: str) -> str:
        first = rel.split("/", 1)[0]
        if "." in first and "/" in rel:
            path = re.sub(r"index\.html?$", "", rel)
            return "https://" + path
        return rel

    def __len__(self) -> int:
        return len(self.texts)

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every page for `query`, shape (n_docs,)."""
        counts = Counter(t for t in tokenize(query) if t in self.vocab)
        cols = np.array([self.vocab[t] for t in counts], dtype=int)
        return bm25_scores(self.tf, cols, np.array(list(counts.values())), self.k1, self.b)

    def search(self, query: str, k: int = 5) -> list[SearchHit]:
        s = self.scores(query)
        order = np.argsort(-s, kind="stable")[:k]
        terms = set(tokenize(query))
        return [
            SearchHit(self.titles[i], self.urls[i], self._snippet(self.texts[i], terms))
            for i in order
            if s[i] > 0
        ]

    @staticmethod
    def _snippet(text: str, terms: set[str], width: int = 300) -> str:
        low = text.lower()
        pos = [m.start() for m in _WORD.finditer(low) if m.group() in terms]
        start = max(0, (pos[0] if pos else 0) - width // 3)
        return " ".join(text[start : start + width].split())

    def find(self, url_or_path: str) -> int | None:
        """Index of the page a URL or relative path names, or None."""
        for k in (url_or_path, _url_key(url_or_path)):
            if k in self._index:
                return self._index[k]
        return None

    def page(self, url_or_path: str) -> tuple[str, str, str] | None:
        """``(title, url, text)`` of a page, or None when the corpus does not have it."""
        i = self.find(url_or_path)
        return None if i is None else (self.titles[i], self.urls[i], self.texts[i])


class HttpSearch:
    """A generic JSON search API: ``GET url?<query_param>=...&<count_param>=k``.

    The key goes in a header (``key_header``, "Authorization" with a "Bearer " prefix by
    default) or, if `key_param` is set, in the query string. Results are read from the
    first list of objects in the reply that carry a URL ("url"/"link"/"href"), with
    "title"/"name" and "snippet"/"description"/"content"/"text".
    """

    def __init__(
        self,
        url: str,
        key: str | None = None,
        *,
        query_param: str = "q",
        count_param: str | None = "count",
        key_header: str = "Authorization",
        key_prefix: str = "Bearer ",
        key_param: str | None = None,
        timeout: float = 20.0,
    ) -> None:
        self.url, self._key = url, key
        self.query_param, self.count_param = query_param, count_param
        self.key_header, self.key_prefix, self.key_param = key_header, key_prefix, key_param
        self.timeout = timeout

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> HttpSearch | None:
        """From ``HYPERSKILL_SEARCH_URL`` (required, else None), ``HYPERSKILL_SEARCH_KEY``,
        ``HYPERSKILL_SEARCH_KEY_HEADER``, ``HYPERSKILL_SEARCH_KEY_PREFIX``,
        ``HYPERSKILL_SEARCH_KEY_PARAM`` and ``HYPERSKILL_SEARCH_QUERY_PARAM``."""
        env = os.environ if environ is None else environ
        url = env.get("HYPERSKILL_SEARCH_URL")
        if not url:
            return None
        return cls(
            url,
            env.get("HYPERSKILL_SEARCH_KEY"),
            query_param=env.get("HYPERSKILL_SEARCH_QUERY_PARAM", "q"),
            key_header=env.get("HYPERSKILL_SEARCH_KEY_HEADER", "Authorization"),
            key_prefix=env.get("HYPERSKILL_SEARCH_KEY_PREFIX", "Bearer "),
            key_param=env.get("HYPERSKILL_SEARCH_KEY_PARAM") or None,
        )

    def __repr__(self) -> str:
        return f"HttpSearch({self.url!r})"

    def search(self, query: str, k: int = 5) -> list[SearchHit]:
        params = {self.query_param: query}
        if self.count_param:
            params[self.count_param] = str(k)
        headers = {"Accept": "application/json", "User-Agent": "hyperskill-lite"}
        if self._key and self.key_param:
            params[self.key_param] = self._key
        elif self._key:
            headers[self.key_header] = self.key_prefix + self._key
        sep = "&" if "?" in self.url else "?"
        req = urllib.request.Request(
            self.url + sep + urllib.parse.urlencode(params), headers=headers
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                data = json.loads(resp.read(4_000_000))
        except (urllib.error.URLError, OSError, json.JSONDecodeError) as e:
            msg = str(e).replace(self._key, "***") if self._key else str(e)
            raise RuntimeError(f"search API {self.url} failed: {msg}") from None
        return [SearchHit(**h) for h in _find_hits(data)[:k]]


def _find_hits(data: Any) -> list[dict[str, str]]:
    if isinstance(data, list) and data and all(isinstance(x, dict) for x in data):
        hits = []
        for x in data:
            url = x.get("url") or x.get("link") or x.get("href")
            if isinstance(url, str):
                hits.append(
                    {
                        "title": str(x.get("title") or x.get("name") or ""),
                        "url": url,
                        "snippet": str(
                            x.get("snippet")
                            or x.get("description")
                            or x.get("content")
                            or x.get("text")
                            or ""
                        ),
                    }
                )
        if hits:
            return hits
    children = data.values() if isinstance(data, dict) else data if isinstance(data, list) else []
    for v in children:
        if isinstance(v, (dict, list)):
            hits = _find_hits(v)
            if hits:
                return hits
    return []


# --------------------------------------------------------------------------- toolbox
class Toolbox:
    """The tools an `AgentExecutor` may call, with their OpenAI schemas.

    Parameters
    ----------
    search
        A search backend; defaults to `corpus` when one is given.
    corpus
        A `LocalCorpus` for web_search and crawl_page.
    allow_http
        Let crawl_page fetch pages over HTTP(S) that the corpus does not have.
    python
        A `PythonSandbox`, True for the default one, or False to leave the tool out.
    files_root
        inspect_file_as_text reads only inside this folder (and the files in
        `attachments`); None allows only `attachments`.
    max_chars
        Tool outputs are cut to this many characters.
    """

    def __init__(
        self,
        *,
        search: SearchBackend | None = None,
        corpus: LocalCorpus | None = None,
        allow_http: bool = False,
        python: PythonSandbox | bool = True,
        files_root: str | Path | None = None,
        max_chars: int = 8000,
        max_file_bytes: int = 5_000_000,
    ) -> None:
        self.search = search if search is not None else corpus
        self.corpus = corpus
        self.allow_http = allow_http
        self.sandbox = PythonSandbox() if python is True else python or None
        self.files_root = Path(files_root).resolve() if files_root is not None else None
        self.attachments: set[Path] = set()
        self.max_chars = max_chars
        self.max_file_bytes = max_file_bytes
        self._tools: dict[str, Callable[..., str]] = {}
        if self.search is not None:
            self._tools["web_search"] = self.web_search
        if self.corpus is not None or allow_http:
            self._tools["crawl_page"] = self.crawl_page
        if self.sandbox is not None:
            self._tools["python"] = self.python
        self._tools["inspect_file_as_text"] = self.inspect_file_as_text

    @classmethod
    def from_env(cls, corpus: str | Path | None = None, **kw: Any) -> Toolbox:
        """Search from ``HYPERSKILL_SEARCH_URL`` when set, a local corpus folder when given."""
        return cls(
            search=HttpSearch.from_env(), corpus=LocalCorpus(corpus) if corpus else None, **kw
        )

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def schemas(self) -> list[dict[str, Any]]:
        """OpenAI tool schemas of the available tools."""
        return [TOOL_SCHEMAS[n] for n in self._tools]

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        """Run tool `name`; a bad call or a tool failure returns an "Error: ..." text."""
        fn = self._tools.get(name)
        if fn is None:
            return f"Error: unknown tool {name!r}; available tools: {', '.join(self._tools)}"
        if not isinstance(arguments, dict):
            return f"Error: arguments of {name} must be a JSON object"
        try:
            return _truncate(fn(**arguments), self.max_chars)
        except TypeError as e:
            return f"Error: bad arguments for {name}: {e}"
        except (OSError, RuntimeError, ValueError) as e:
            return f"Error: {name} failed: {e}"

    def web_search(self, query: str, max_results: int = 5) -> str:
        if self.search is None:
            return "Error: no search backend configured"
        hits = self.search.search(str(query), max(1, min(int(max_results), 20)))
        if not hits:
            return f"No results for {query!r}."
        return "\n\n".join(
            f"{i}. {h.title}\n   {h.url}\n   {h.snippet}" for i, h in enumerate(hits, 1)
        )

    def crawl_page(self, url: str) -> str:
        if self.corpus is not None:
            page = self.corpus.page(str(url))
            if page is not None:
                title, purl, text = page
                return f"Title: {title}\nURL: {purl}\n\n{text}"
        if not self.allow_http:
            return f"Error: {url} is not in the local corpus and HTTP fetching is off"
        scheme = urllib.parse.urlsplit(str(url)).scheme
        if scheme not in ("http", "https"):
            return f"Error: crawl_page reads http(s) URLs only, got {url!r}"
        req = urllib.request.Request(str(url), headers={"User-Agent": "hyperskill-lite"})
        try:
            with urllib.request.urlopen(req, timeout=20) as resp:
                ctype = resp.headers.get("Content-Type", "")
                body = resp.read(2_000_000).decode(
                    resp.headers.get_content_charset() or "utf-8", "replace"
                )
        except (urllib.error.URLError, OSError) as e:
            return f"Error: could not fetch {url}: {e}"
        if "html" in ctype or body.lstrip()[:1] == "<":
            title, text = html_to_text(body, str(url))
            return f"Title: {title}\nURL: {url}\n\n{text}"
        return f"URL: {url}\n\n{body}"

    def python(self, code: str) -> str:
        if self.sandbox is None:
            return "Error: the python tool is disabled"
        return self.sandbox.run(str(code))

    def inspect_file_as_text(self, path: str) -> str:
        p = Path(str(path)).expanduser()
        if not p.is_absolute() and self.files_root is not None:
            p = self.files_root / p
        p = p.resolve()
        inside = self.files_root is not None and p.is_relative_to(self.files_root)
        if not inside and p not in self.attachments:
            return f"Error: {path} is outside the folders this agent may read"
        if not p.is_file():
            return f"Error: no such file: {path}"
        suffix = p.suffix.lower()
        if suffix not in TEXT_SUFFIXES:
            return (
                f"Error: cannot read {suffix or 'extension-less'} files as text; "
                f"supported: {', '.join(sorted(TEXT_SUFFIXES))}"
            )
        size = p.stat().st_size
        if size > self.max_file_bytes:
            return f"Error: {path} is {size} bytes, over the limit of {self.max_file_bytes}"
        text = p.read_text("utf-8", errors="replace")
        if suffix in (".html", ".htm"):
            title, text = html_to_text(text)
            text = f"Title: {title}\n\n{text}" if title else text
        elif suffix == ".json":
            try:
                text = json.dumps(json.loads(text), indent=1, ensure_ascii=False)
            except json.JSONDecodeError:
                pass
        return text
