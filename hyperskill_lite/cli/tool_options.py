"""The agent's tool options of ``run`` (and any command that runs a live agent).

`add_arguments(group)` adds the flags to an argparse group and `settings_from_args(args)`
turns them into one `ToolSettings` (agent/tools/settings.py), which `build_toolbox` turns
into the toolbox and whose ``to_dict()`` a run records in run.json. Bad values end in the
CLI's one-line ``error: ...`` at parse time (`Parser.error`), including a bad
``HYPERSKILL_SEARCH``.

>>> import argparse
>>> p = argparse.ArgumentParser(); add_arguments(p)
>>> s = settings_from_args(p.parse_args(["--search", "serper", "--crawl-summary"]))
>>> s.search, s.crawl_summary, s.http
('serper', True, True)

Not here: building the tools (agent/tools/), the rest of the `run` command (run.py).
"""

from __future__ import annotations

import argparse
import os
import urllib.parse
from pathlib import Path

from hyperskill_lite.agent.tools.providers.base import provider_classes
from hyperskill_lite.agent.tools.sandbox import ISOLATIONS
from hyperskill_lite.agent.tools.settings import (
    ENV_SEARCH,
    LIMIT_FIELDS,
    ToolSettings,
    auto_order,
    search_choices,
)

__all__ = ["add_arguments", "settings_from_args", "search_choice", "search_help",
           "http_url", "folder", "tool_limit"]


def search_choice(text: str) -> str:
    """A search provider name (`search_choices`: the registered providers, plugins
    included, and auto, corpus, none).

    >>> search_choice("Brave")
    'brave'
    >>> search_choice("bing")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: unknown search provider 'bing'; choose one of auto, serper, ...
    """
    name = text.strip().lower()
    if name not in (choices := search_choices()):
        raise argparse.ArgumentTypeError(
            f"unknown search provider {text!r}; choose one of {', '.join(choices)}")
    return name


def search_help() -> str:
    """``--search``'s help, from the registered providers (their auto order, key and
    endpoint variables).

    >>> search_help()  # doctest: +ELLIPSIS
    'web_search provider ($HYPERSKILL_SEARCH); auto: the corpus if --corpus, else ... none: no web_search'
    """
    classes = provider_classes()
    tried = []
    for name in auto_order():
        cls = classes[name]
        env = cls.key_env if cls.needs_key else (cls.endpoint_env,)
        tried.append(f"{name} (${' or $'.join(v for v in env if v)})")
    return (f"web_search provider (${ENV_SEARCH}); auto: the corpus if --corpus, else the "
            f"url client if --search-url, else the first set up of: {', '.join(tried)}; "
            "none: no web_search")


def http_url(text: str) -> str:
    """An http(s) URL with a host.

    >>> http_url("http://localhost:8888")
    'http://localhost:8888'
    >>> http_url("localhost:8888")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be an http(s) URL such as http://localhost:8888, got 'localhost:8888'
    """
    p = urllib.parse.urlsplit(text.strip())
    if p.scheme not in ("http", "https") or not p.netloc:
        raise argparse.ArgumentTypeError(
            f"must be an http(s) URL such as http://localhost:8888, got {text!r}")
    return text.strip()


def folder(text: str) -> Path:
    """An existing folder."""
    p = Path(text).expanduser()
    if not p.is_dir():
        raise argparse.ArgumentTypeError(f"not a folder: {text}")
    return p


def tool_limit(text: str) -> tuple[str, float]:
    """``NAME=VALUE`` of a tool limit (`LIMIT_FIELDS`).

    >>> tool_limit("fetch_deadline=60")
    ('fetch_deadline', 60.0)
    >>> tool_limit("max_rows=5")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: unknown tool limit 'max_rows'; choose one of max_page_bytes, timeout, fetch_deadline, max_file_bytes, convert_memory_mb, convert_cpu_seconds, convert_timeout, max_inflated_bytes, max_text_chars, max_pdf_pages, max_sheet_rows, max_sheet_cols, max_zip_members
    """
    name, _, value = text.partition("=")
    name = name.strip()
    if name not in LIMIT_FIELDS:
        raise argparse.ArgumentTypeError(
            f"unknown tool limit {name!r}; choose one of {', '.join(LIMIT_FIELDS)}")
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{name} must be a number, got {value!r}") from None
    return name, number


def add_arguments(group: argparse._ActionsContainer, *, corpus: bool = True) -> None:
    """Add the tool flags to `group` (a parser or an argument group); `corpus` adds
    ``--corpus`` too (leave it out where the command already has one)."""
    env_search = os.environ.get(ENV_SEARCH) or "auto"
    group.add_argument(
        "--search", type=search_choice, default=env_search,
        metavar="{" + ",".join(search_choices()) + "}", help=search_help())
    group.add_argument(
        "--search-url", type=http_url, default=None, metavar="URL",
        help="the provider's endpoint instead of its public one (a self-hosted SearXNG, a "
        "proxy); for --search url, the generic GET endpoint")
    if corpus:
        group.add_argument(
            "--corpus", type=folder, default=None, metavar="FOLDER",
            help="folder of .txt/.md/.html pages: the corpus search provider, and pages "
            "crawl_page reads without HTTP")
    group.add_argument("--no-http", action="store_true",
                       help="crawl_page reads no pages over HTTP (an offline run); by default "
                       "it does")
    group.add_argument("--allow-local-urls", action="store_true",
                       help="let crawl_page read loopback, private and link-local addresses "
                       "(refused by default)")
    group.add_argument("--crawl-summary", action="store_true",
                       help="crawl_page(url, query) has the model condense the page for the "
                       "query, as the paper's harness does (its tokens count as tool tokens)")
    group.add_argument("--vision-model", default=None, metavar="MODEL",
                       help="model that reads images for inspect_file_as_image (default: the "
                       "run's model)")
    group.add_argument("--vision-base-url", type=http_url, default=None, metavar="URL",
                       help="server of --vision-model (default: the run's server)")
    group.add_argument("--audio-model", default=None, metavar="MODEL",
                       help="speech-to-text model for inspect_file_as_audio (default: whisper-1)")
    group.add_argument("--audio-base-url", type=http_url, default=None, metavar="URL",
                       help="server with /audio/transcriptions, e.g. vLLM serving Whisper "
                       "(default: the run's server)")
    group.add_argument("--tool-limit", type=tool_limit, action="append", default=None,
                       metavar="NAME=VALUE",
                       help="a limit on what the tools read (repeatable), e.g. "
                       "fetch_deadline=60 or max_inflated_bytes=300000000; names: "
                       + ", ".join(LIMIT_FIELDS) + " (docs/guide/web-safety.md)")
    group.add_argument("--sandbox", choices=ISOLATIONS, default="bwrap",
                       help="python tool isolation: bwrap (bubblewrap: no network, no home, "
                       "read-only system, capped tmpfs folders; a run refuses to start "
                       "without it) or process, an explicit choice of weaker isolation "
                       "(its own PID, network, IPC and mount namespaces, the homes and the "
                       "venv's root hidden, the rest of the file system readable; refused "
                       "where the machine gives no namespaces: docs/guide/guarantees.md)")


def settings_from_args(args: argparse.Namespace) -> ToolSettings:
    """The `ToolSettings` of parsed tool flags (absent flags keep their defaults)."""
    get = lambda name, default=None: getattr(args, name, default)  # noqa: E731
    defaults = ToolSettings()
    limits = {k: type(getattr(defaults, k))(v) for k, v in get("tool_limit") or []}
    return ToolSettings(**limits,
        search=get("search", "auto"), search_url=get("search_url"), corpus=get("corpus"),
        http=not get("no_http", False), allow_local_urls=get("allow_local_urls", False),
        crawl_summary=get("crawl_summary", False), vision_model=get("vision_model"),
        vision_base_url=get("vision_base_url"), audio_model=get("audio_model"),
        audio_base_url=get("audio_base_url"), sandbox=get("sandbox", "bwrap"))
