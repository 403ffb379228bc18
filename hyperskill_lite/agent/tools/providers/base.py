"""What a search provider is, and the registry of them.

A provider is ONE class, a `SearchProvider` subclass, that carries every fact about a
search service: its `name` (what ``--search`` takes), documented `endpoint` (or the
environment variable naming a self-hosted one, `endpoint_env`), the environment variables
its key is read from (`key_env`), its place in ``--search auto`` (`auto_order`), the code
that sends its request and reads its hits (`search`, or `_request`/`_hits` of
`ApiSearch`), and `sample_reply`, a reply in the service's documented wire format that
the test web (`hyperskill_lite.testing.testweb`) serves. The CLI's choices and help, the
settings' tables (`search_providers`, `key_env`, `endpoints`, `auto_order`) and the test web's
routes are all derived from the registered classes.

`register_provider` registers a class (a decorator); third-party packages register
theirs through the entry-point group ``hyperskill_lite.search`` (an entry point loads a
`SearchProvider` subclass), loaded once, on first use of the registry. A plugin that
fails to load, or is not a valid provider, costs one warning line and is skipped.

>>> @register_provider
... class Demo(ApiSearch):
...     name, endpoint, key_env = "demo", "https://api.demo.example/search", ("DEMO_KEY",)
...     def _request(self, query, k): return "GET", {"q": query}, None, {}
...     def _hits(self, data): return []
>>> provider_classes()["demo"] is Demo, Demo.configured({"DEMO_KEY": "k"})
(True, True)
>>> unregister_provider("demo")

Not here: the built-in providers (one module each beside this one), building the run's
backend from its settings (search.py), the hits' display (hits.py).
"""

from __future__ import annotations

import json
import logging
import re
import threading
import urllib.parse
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from importlib.metadata import entry_points
from typing import Any, ClassVar

from hyperskill_lite.agent.tools.hits import SearchHit
from hyperskill_lite.agent.tools.net import FetchError, HttpClient

__all__ = ["SearchProvider", "ApiSearch", "register_provider", "unregister_provider",
           "provider_classes", "load_plugins", "ENTRY_POINT_GROUP", "RESERVED_NAMES",
           "clean"]

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "hyperskill_lite.search"
"""The entry-point group third-party search providers register under."""
RESERVED_NAMES = ("auto", "none", "corpus")
"""``--search`` values that are not providers: the automatic choice, no web_search, and
the local folder of pages (`LocalCorpus`, corpus.py)."""

_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")


def clean(x: Any) -> str:
    """Text of a JSON value on one line ("" for None)."""
    return "" if x is None else " ".join(str(x).split())


class SearchProvider(ABC):
    """One search service (see the module docstring). Subclass it (or `ApiSearch` for a
    JSON API over HTTP), set the class attributes, and `register_provider` it.

    Attributes
    ----------
    name
        What ``--search`` takes: lowercase letters, digits, ``-``, ``_``.
    endpoint
        The service's documented endpoint (None: none public; `endpoint_env` or
        ``--search-url`` names it). ``--search-url`` overrides it.
    endpoint_env
        An environment variable that names the endpoint (a self-hosted instance).
    key_env
        Environment variables the key is read from; the first one set wins.
    needs_key
        A run refuses to start without the key (unless ``--search-url`` points elsewhere).
    auto_order
        Place in ``--search auto`` (lower first) among the providers `configured` in the
        environment; None: never chosen automatically.
    http_api
        The service answers HTTP with JSON: the test web serves its `sample_reply`.
    summary
        One line for the documentation and the CLI's help.
    """

    name: ClassVar[str] = ""
    endpoint: ClassVar[str | None] = None
    endpoint_env: ClassVar[str | None] = None
    key_env: ClassVar[tuple[str, ...]] = ()
    needs_key: ClassVar[bool] = True
    auto_order: ClassVar[int | None] = None
    http_api: ClassVar[bool] = True
    summary: ClassVar[str] = ""
    url: str

    @abstractmethod
    def search(self, query: str, k: int = 5) -> list[SearchHit]:
        """The top `k` web results for `query`; RuntimeError (one line, no key) on failure."""

    # -- building from a run's settings -------------------------------------------
    @classmethod
    def key_from(cls, env: Mapping[str, str]) -> str | None:
        """The key in `env` (the first of `key_env` set), or None."""
        return next((env[v] for v in cls.key_env if env.get(v)), None)

    @classmethod
    def configured(cls, env: Mapping[str, str]) -> bool:
        """Does `env` set this provider up for ``--search auto``? A keyed provider: its
        key is set; a keyless one: its `endpoint_env` is set."""
        if cls.needs_key:
            return cls.key_from(env) is not None
        return bool(cls.endpoint_env and env.get(cls.endpoint_env))

    @classmethod
    def build(cls, search_url: str | None, env: Mapping[str, str], *, timeout: float,
              require_keys: bool = True) -> SearchProvider:
        """The provider for a run: endpoint ``search_url`` or ``$endpoint_env`` or
        `endpoint`; its key from `key_env`. ValueError names what is missing."""
        url = (search_url or (env.get(cls.endpoint_env) if cls.endpoint_env else None)
               or cls.endpoint)
        if not url:
            also = f" (or {cls.endpoint_env})" if cls.endpoint_env else ""
            raise ValueError(f"--search {cls.name} needs your instance's URL: --search-url "
                             f"http://HOST:PORT{also}")
        key = cls.key_from(env)
        if cls.needs_key and not key and not search_url and require_keys:
            raise ValueError(f"search provider {cls.name!r} needs an API key: set "
                             f"{' or '.join(cls.key_env)} (or choose another --search)")
        return cls(url, key, timeout=timeout)  # type: ignore[call-arg]

    # -- the test web's side ------------------------------------------------------
    @classmethod
    def sample_query(cls, params: Mapping[str, str], body: Mapping[str, Any]) -> tuple[str, int]:
        """(query, count) of a request this provider sent (the test web reads it): by
        default ``q``/``query`` and ``num``/``max_results``/``count``/``limit``, from the
        JSON body or the query string; 10 results when no count is given."""
        query = next((str(src[n]) for src in (body, params) for n in ("q", "query")
                      if src.get(n)), "")
        k = next((src[n] for src in (body, params) for n in
                  ("num", "max_results", "count", "limit") if src.get(n)), 10)
        return query, int(k)

    @classmethod
    def sample_reply(cls, query: str, hits: Sequence[Mapping[str, str]]) -> Any:
        """A reply in the service's documented wire format (decoded JSON) whose web results
        are `hits` (``{"title", "url", "snippet"}`` each, best first), with whatever else
        the service puts beside them (knowledge panels, news) that `search` must skip."""
        raise NotImplementedError(f"{cls.__name__} has no sample reply")


class ApiSearch(SearchProvider):
    """A JSON search API: subclasses give the request (`_request`) and read the hits
    (`_hits`); this class sends it, checks the answer and keeps the key out of errors."""

    name = "api"

    def __init__(self, url: str, key: str | None = None, *, http: HttpClient | None = None,
                 timeout: float = 20.0) -> None:
        self.url = url
        self._key = key
        self.http = http or HttpClient(timeout=timeout, max_bytes=5_000_000)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r})"

    @abstractmethod
    def _request(self, query: str, k: int) -> tuple[str, dict | None, Any, dict[str, str]]:
        """(method, query parameters, JSON body, headers)."""

    @abstractmethod
    def _hits(self, data: Any) -> list[SearchHit]:
        """The web results of the provider's decoded reply, nothing else."""

    def _redact(self, text: str) -> str:
        return text.replace(self._key, "***") if self._key else text

    def search(self, query: str, k: int = 5) -> list[SearchHit]:
        method, params, body, headers = self._request(query, k)
        try:
            got = self.http.request(method, self.url, params=params, json=body, headers=headers)
        except FetchError as e:
            raise RuntimeError(self._redact(f"{self.name} search failed: {e}")) from None
        if not got.ok:
            detail = " ".join(got.text().split())[:200]
            hint = {401: "the key was refused", 403: "the key was refused",
                    429: "rate limit or quota reached"}.get(got.status, "")
            env = "/".join(self.key_env)
            what = f"{hint}; check {env}" if hint and env else hint or "the API refused the request"
            raise RuntimeError(self._redact(
                f"{self.name} search failed (HTTP {got.status}, {what}): {detail}"))
        try:
            data = json.loads(got.body)
        except json.JSONDecodeError:
            host = urllib.parse.urlsplit(self.url).netloc or self.url
            raise RuntimeError(f"{self.name} search failed: the reply from {host} is not JSON"
                               ) from None
        return self._hits(data)[:k]


# ---------------------------------------------------------------------------------------
# the registry
# ---------------------------------------------------------------------------------------

_REGISTRY: dict[str, type[SearchProvider]] = {}
_LOCK = threading.Lock()
_PLUGINS_LOADED = False


def register_provider(cls: type[SearchProvider]) -> type[SearchProvider]:
    """Register a provider class under its `name` (usable as a class decorator).

    Raises
    ------
    TypeError
        `cls` is not a concrete `SearchProvider` subclass.
    ValueError
        Its name is malformed, reserved, or taken by another class.
    """
    if not (isinstance(cls, type) and issubclass(cls, SearchProvider)):
        raise TypeError(f"{cls!r} is not a SearchProvider subclass")
    if getattr(cls, "__abstractmethods__", None):
        raise TypeError(f"{cls.__name__} leaves {', '.join(sorted(cls.__abstractmethods__))} "
                        "unimplemented")
    name = cls.name
    if not isinstance(name, str) or not _NAME.match(name) or name in RESERVED_NAMES:
        raise ValueError(f"{cls.__name__}.name must be lowercase letters, digits, '-' or '_' "
                         f"and none of {', '.join(RESERVED_NAMES)}; got {name!r}")
    with _LOCK:
        have = _REGISTRY.get(name)
        if have is not None and have is not cls:
            raise ValueError(f"search provider {name!r} is already registered "
                             f"({have.__module__}.{have.__qualname__})")
        _REGISTRY[name] = cls
    return cls


def unregister_provider(name: str) -> None:
    """Remove a registered provider (tests, notebooks); unknown names are ignored."""
    with _LOCK:
        _REGISTRY.pop(name, None)


def load_plugins(*, again: bool = False) -> list[str]:
    """Register the providers of the ``hyperskill_lite.search`` entry points (once, or
    `again`); returns the names registered. A plugin that fails: one warning, skipped."""
    global _PLUGINS_LOADED
    with _LOCK:
        if _PLUGINS_LOADED and not again:
            return []
        _PLUGINS_LOADED = True
    added = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            cls = ep.load()
            if cls is not _REGISTRY.get(getattr(cls, "name", None)):
                register_provider(cls)
                added.append(cls.name)
        except Exception as e:  # noqa: BLE001 - a plugin's failure must not stop the run
            log.warning("search provider plugin %r (%s) skipped: %s: %s", ep.name, ep.value,
                        type(e).__name__, " ".join(str(e).split())[:200])
    return added


def provider_classes() -> dict[str, type[SearchProvider]]:
    """Every registered provider by name, in registration order (plugins loaded)."""
    load_plugins()
    with _LOCK:
        return dict(_REGISTRY)
