"""LocalCorpus: a folder of pages searched with our own BM25 and read by URL or path.

The offline ``corpus`` search provider and crawl_page backend: .txt/.md/.html pages,
ranked with BM25 (numpy + scipy.sparse), so an agent can browse without a network.

Not here: the search providers that call a web API (providers/), reading pages over
HTTP (pages.py).
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections import Counter
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from hyperskill_lite.agent.tools.hits import SearchHit
from hyperskill_lite.agent.tools.html import html_to_text

__all__ = ["LocalCorpus", "bm25_scores", "tokenize", "url_key"]

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


def url_key(url: str) -> str:
    """Normalised form for matching: no scheme, no "www.", no query/fragment or trailing
    "/", "index.html" dropped.

    >>> url_key("https://www.Example.edu/news/index.html?x=1")
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
    name = "corpus"

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
            for k in (url_key(url), url_key(rel), rel):
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
        for k in (url_or_path, url_key(url_or_path)):
            if k in self._index:
                return self._index[k]
        return None

    def page(self, url_or_path: str) -> tuple[str, str, str] | None:
        """``(title, url, text)`` of a page, or None when the corpus does not have it."""
        i = self.find(url_or_path)
        return None if i is None else (self.titles[i], self.urls[i], self.texts[i])


