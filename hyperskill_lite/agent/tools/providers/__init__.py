"""Search providers: each web search API as its documentation describes it.

Every provider sends its documented request and reads only its web results:

========== ====== ======================================== ========================= ===========================
provider   method endpoint (``search_url`` overrides)      key                       hits read from
========== ====== ======================================== ========================= ===========================
serper     POST   https://google.serper.dev/search         ``X-API-KEY`` header      ``organic`` (title, link,
                  JSON ``{"q", "num", "location"}``        (``SERPER_API_KEY``)      snippet, date)
tavily     POST   https://api.tavily.com/search            ``Authorization: Bearer`` ``results`` (title, url,
                  JSON ``{"query", "max_results", ...}``   (``TAVILY_API_KEY``)      content, published_date)
brave      GET    .../res/v1/web/search ``?q=&count=``     ``X-Subscription-Token``  ``web.results`` only (never
                                                           (``BRAVE_API_KEY``)       ``news`` or ``videos``)
searxng    GET    <instance>/search ``?q=&format=json``    none (``SEARXNG_URL``)    ``results``
jina       GET    https://s.jina.ai/ ``?q=``               ``Authorization: Bearer`` ``data`` (title, url,
                                                           (``JINA_API_KEY``)        description)
duckduckgo --     the ``ddgs`` package, DuckDuckGo         none                      ``DDGS().text`` rows
                  backend                                                            (title, href, body)
url        GET    ``HYPERSKILL_SEARCH_URL`` ``?q=&count=`` configurable              the first list of objects
                                                                                     with a URL (``web``,
                                                                                     ``organic``, ``results``
                                                                                     looked at first)
========== ====== ======================================== ========================= ===========================

Each provider is one class in one module here (a `SearchProvider` subclass, base.py),
registered where it is defined; the table above is what the built-in ones send. Adding a
provider is one module: a class with its name, endpoint, key variable, auto order,
request, hit reader and `sample_reply` (the reply the test web serves), registered with
`register_provider`, or from another package through the ``hyperskill_lite.search``
entry-point group (the documentation's Extending page). Requests go through `HttpClient`
(timeouts, retries on 429 and 5xx); errors are one line without the key.

Not here: choosing and building the run's backend (search.py), the local corpus
(corpus.py), the cache (search_cache.py), how hits are shown to the agent (hits.py).
"""

from hyperskill_lite.agent.tools.providers.base import (
    ENTRY_POINT_GROUP,
    RESERVED_NAMES,
    ApiSearch,
    SearchProvider,
    load_plugins,
    provider_classes,
    register_provider,
    unregister_provider,
)

# the built-in providers, registered in this order (the order of --search's choices)
# isort: off
from hyperskill_lite.agent.tools.providers.serper import SerperSearch
from hyperskill_lite.agent.tools.providers.tavily import TavilySearch
from hyperskill_lite.agent.tools.providers.brave import BraveSearch
from hyperskill_lite.agent.tools.providers.searxng import SearxngSearch
from hyperskill_lite.agent.tools.providers.duckduckgo import DuckDuckGoSearch, ddgs_hits
from hyperskill_lite.agent.tools.providers.jina import JinaSearch
from hyperskill_lite.agent.tools.providers.url import HttpSearch, find_hits
# isort: on

__all__ = ["SearchProvider", "ApiSearch", "register_provider", "unregister_provider",
           "provider_classes", "load_plugins", "ENTRY_POINT_GROUP", "RESERVED_NAMES",
           "SerperSearch", "TavilySearch", "BraveSearch", "SearxngSearch", "JinaSearch",
           "DuckDuckGoSearch", "HttpSearch", "ddgs_hits", "find_hits"]
