"""The run's search backend: the provider `ToolSettings` names, built and cached.

`make_search` resolves ``auto`` (`resolve_search`), builds the corpus or the registered
provider class (providers/: its endpoint, key and errors are the class's), and wraps it
in the on-disk `SearchCache`.

Not here: the providers themselves (providers/), the toolbox that offers web_search
(toolbox.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from hyperskill_lite.agent.tools.corpus import LocalCorpus
from hyperskill_lite.agent.tools.hits import SearchBackend
from hyperskill_lite.agent.tools.providers.base import provider_classes
from hyperskill_lite.agent.tools.search_cache import CachedSearch, SearchCache
from hyperskill_lite.agent.tools.settings import ToolSettings, resolve_search

__all__ = ["make_search"]


def make_search(settings: ToolSettings, environ: Mapping[str, str] | None = None,
                cache: SearchCache | None | bool = True, *, require_keys: bool = True
                ) -> SearchBackend | None:
    """The search backend `settings` names (None for no web_search), cached on disk
    unless `cache` is False, ``settings.search_cache`` is off or HYPERSKILL_CACHE=off.
    ``require_keys=False`` builds a keyed provider without its key (a replay, which
    never searches, needs the same tools but no key).

    Raises
    ------
    ValueError
        One line naming what is missing: a key, a SearXNG instance, a corpus folder, an
        unknown provider.
    FileNotFoundError
        When the corpus folder does not exist.
    """
    env = os.environ if environ is None else environ
    name = resolve_search(settings, env)
    if name == "none":
        return None
    if name == "corpus":
        if settings.corpus is None:
            raise ValueError("--search corpus needs --corpus FOLDER (a folder of "
                             ".txt/.md/.html pages)")
        return LocalCorpus(settings.corpus)
    classes = provider_classes()
    if name not in classes:
        raise ValueError(f"unknown search provider {name!r} (no longer registered)")
    backend = classes[name].build(settings.search_url, env, timeout=settings.timeout,
                                  require_keys=require_keys)
    if cache is False or not settings.search_cache:
        return backend
    store = SearchCache.default() if cache is True else cache
    return CachedSearch(backend, store, backend.url) if store is not None else backend
